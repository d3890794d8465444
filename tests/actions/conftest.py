from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from rootward.store.db import make_engine, make_session_factory
from rootward.store.migrate import upgrade


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    url = f"sqlite:///{tmp_path / 'actions.db'}"
    upgrade(url)
    return make_session_factory(make_engine(url))
