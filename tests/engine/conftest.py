from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / ".." / "shared" / "examples"


@pytest.fixture
def examples() -> Path:
    if not EXAMPLES.is_dir():
        pytest.skip("shared examples not present")
    return EXAMPLES.resolve()
