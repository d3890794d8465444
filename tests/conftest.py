"""Shared test fixtures: the sample bundles that ship in examples/ and the database fixtures.

Every test runs from a clone alone: the sample bundles live in the repository
(examples/README.md says where each comes from), never in a folder beside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# Database fixtures shared by every test folder: db_url, migrated_db_url, pg_session.
from tests.databases import _sqlite_template, db_url, migrated_db_url, pg_session, sqlite_migrated_url  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def example_paths() -> list[Path]:
    """Every sample bundle of examples/; an empty list is a broken checkout, not a reason to skip."""
    bundles = sorted(p for p in EXAMPLES.iterdir() if (p / "incident.yaml").is_file())
    assert bundles, f"no sample bundles under {EXAMPLES}"
    return bundles


@pytest.fixture
def example_bundles() -> list[Path]:
    return example_paths()
