"""Server-side console sessions: the browser holds a random session id, never the API token.

Signing in with a token creates a row keyed by the SHA-256 of a fresh random
id (so a copy of the database cannot be replayed as cookies), with the
session's CSRF token and an absolute expiry. Signing out deletes the row, so a
copied cookie stops working at once; so does revoking the token it was made
from or disabling its user (the lookup joins both), and removing either
deletes the row by cascade.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import DateTime, ForeignKey, String, delete, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.base import Base
from rootward.store.users import ApiTokenRow, User, UserRow, _user, hash_token


class ConsoleSessionRow(Base):
    __tablename__ = "console_sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(32), ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    token_hash: Mapped[str] = mapped_column(
        String(64), ForeignKey("api_tokens.token_hash", ondelete="CASCADE"), nullable=False
    )
    csrf_token: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, index=True)


@dataclass(frozen=True)
class ConsoleSession:
    """Who a cookie belongs to and the CSRF token its forms must carry."""

    user: User
    csrf_token: str
    expires_at: datetime


@dataclass(frozen=True)
class NewSession:
    """A session just made: `session_id` goes into the cookie and is not stored."""

    session_id: str
    session: ConsoleSession


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def start_session(session: Session, token: str, ttl: timedelta, *, now: datetime | None = None) -> NewSession | None:
    """A session for the user of a live token; None for an unknown, revoked or disabled one."""
    at = now or datetime.now(UTC)
    token_hash = hash_token(token)
    row = session.scalar(
        select(UserRow)
        .join(ApiTokenRow, ApiTokenRow.user_id == UserRow.id)
        .where(ApiTokenRow.token_hash == token_hash, ApiTokenRow.revoked_at.is_(None), UserRow.disabled_at.is_(None))
    )
    if row is None:
        return None
    session_id = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    # Expired sessions go when anyone signs in: the table stays as small as the set of live sessions.
    session.execute(delete(ConsoleSessionRow).where(ConsoleSessionRow.expires_at <= at))
    session.add(
        ConsoleSessionRow(
            id_hash=hash_token(session_id),
            user_id=row.id,
            token_hash=token_hash,
            csrf_token=csrf,
            created_at=at,
            expires_at=at + ttl,
        )
    )
    session.flush()
    return NewSession(session_id, ConsoleSession(_user(row), csrf, at + ttl))


def session_for(session: Session, session_id: str, *, now: datetime | None = None) -> ConsoleSession | None:
    """The live session of a cookie: not expired, not signed out, its token and user still valid."""
    at = now or datetime.now(UTC)
    found = session.execute(
        select(ConsoleSessionRow, UserRow)
        .join(UserRow, UserRow.id == ConsoleSessionRow.user_id)
        .join(ApiTokenRow, ApiTokenRow.token_hash == ConsoleSessionRow.token_hash)
        .where(
            ConsoleSessionRow.id_hash == hash_token(session_id),
            ApiTokenRow.revoked_at.is_(None),
            UserRow.disabled_at.is_(None),
        )
    ).first()
    if found is None:
        return None
    row, user = found
    expires = _aware(row.expires_at)
    if expires <= at:
        return None
    return ConsoleSession(_user(user), row.csrf_token, expires)


def end_session(session: Session, session_id: str) -> bool:
    """Sign out: the cookie's session is gone for every copy of the cookie."""
    result = session.execute(delete(ConsoleSessionRow).where(ConsoleSessionRow.id_hash == hash_token(session_id)))
    return bool(getattr(result, "rowcount", 0))
