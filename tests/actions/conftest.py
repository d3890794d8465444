from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from rootward.store.db import make_engine, make_session_factory


@pytest.fixture
def sessions(sqlite_migrated_url: str) -> sessionmaker[Session]:
    return make_session_factory(make_engine(sqlite_migrated_url))
