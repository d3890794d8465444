"""`ChangeSource` over the changes CI/CD recorded in rootward's own database."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.telemetry import Change
from rootward.sources.base import SourceUnavailable
from rootward.store.changes import changes_between

SOURCE = "recorded changes"


class StoredChangeSource:
    def __init__(self, sessions: sessionmaker[Session], *, limit: int = 500) -> None:
        self._sessions = sessions
        self._limit = limit

    def recent(self, services: Sequence[str] | None, start: datetime, end: datetime) -> Sequence[Change]:
        try:
            with self._sessions() as session:
                return changes_between(session, services, start, end, limit=self._limit)
        except SQLAlchemyError as exc:
            orig = getattr(exc, "orig", None)
            reason = str(orig) if orig is not None else type(exc).__name__
            raise SourceUnavailable(SOURCE, f"database query failed: {reason[:200]}") from exc
