from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES


@pytest.fixture
def examples() -> Path:
    assert EXAMPLES.is_dir(), f"{EXAMPLES}: the sample bundles ship with the repository"
    return EXAMPLES.resolve()
