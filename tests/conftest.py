"""Shared test fixtures: paths to the shared examples and real datasets."""

from __future__ import annotations

from pathlib import Path

import pytest

# Database fixtures shared by every test folder: db_url, migrated_db_url, pg_session.
from tests.databases import _sqlite_template, db_url, migrated_db_url, pg_session, sqlite_migrated_url  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
EXAMPLES = SHARED / "examples"
NEZHA = SHARED / "data" / "nezha-ob"
LOGHUB = SHARED / "data" / "loghub"


@pytest.fixture
def example_bundles() -> list[Path]:
    bundles = sorted(p for p in EXAMPLES.iterdir() if (p / "incident.yaml").is_file())
    if not bundles:
        pytest.skip("shared/examples not present")
    return bundles
