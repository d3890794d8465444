"""Users, their roles, chat identities and API tokens (stored as SHA-256 only).

Life cycle: `add_user` → `create_token` (shown once) → `revoke_token` or
`disable_user` / `remove_user`. A revoked token or a disabled user is refused
on the next request: `user_for_token`, `user_by_chat_id` and the console's
session lookup (store/console_sessions.py) only return enabled users with
live tokens; removing a user deletes their tokens and, by cascade, sessions.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import DateTime, ForeignKey, String, delete, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.domain.roles import Role
from rootward.store.audit import append_audit
from rootward.store.base import Base
from rootward.store.ids import new_id

TOKEN_PREFIX = "rw_"


class UserRow(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True, nullable=False)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    slack_user_id: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    matrix_user_id: Mapped[str | None] = mapped_column(String(255), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ApiTokenRow(Base):
    __tablename__ = "api_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(32), ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    label: Mapped[str] = mapped_column(String(120), nullable=False, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


@dataclass(frozen=True)
class User:
    id: str
    name: str
    role: Role
    slack_user_id: str | None = None
    matrix_user_id: str | None = None


def _user(row: UserRow) -> User:
    return User(row.id, row.name, Role(row.role), row.slack_user_id, row.matrix_user_id)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def add_user(
    session: Session, name: str, role: Role, *, slack_user_id: str | None = None, matrix_user_id: str | None = None
) -> User:
    if session.scalar(select(UserRow).where(UserRow.name == name)) is not None:
        raise ValueError(f"user {name!r} already exists")
    row = UserRow(
        id=new_id(),
        name=name,
        role=role.value,
        slack_user_id=slack_user_id,
        matrix_user_id=matrix_user_id,
        created_at=datetime.now(UTC),
    )
    session.add(row)
    session.flush()
    return _user(row)


def create_token(session: Session, user_name: str, label: str = "") -> str:
    """A new API token for the user; only its hash is stored, so it is shown once."""
    row = session.scalar(select(UserRow).where(UserRow.name == user_name))
    if row is None:
        raise ValueError(f"no user {user_name!r}")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    session.add(ApiTokenRow(token_hash=hash_token(token), user_id=row.id, label=label, created_at=datetime.now(UTC)))
    session.flush()
    return token


def user_for_token(session: Session, token: str) -> User | None:
    """The enabled user of a live (unrevoked) token, else None."""
    row = session.scalar(
        select(UserRow)
        .join(ApiTokenRow, ApiTokenRow.user_id == UserRow.id)
        .where(
            ApiTokenRow.token_hash == hash_token(token),
            ApiTokenRow.revoked_at.is_(None),
            UserRow.disabled_at.is_(None),
        )
    )
    return _user(row) if row is not None else None


def user_by_chat_id(session: Session, *, slack: str | None = None, matrix: str | None = None) -> User | None:
    """The enabled user with this chat identity (a disabled user's clicks count as unknown)."""
    enabled = UserRow.disabled_at.is_(None)
    if slack is not None:
        row = session.scalar(select(UserRow).where(UserRow.slack_user_id == slack, enabled))
    elif matrix is not None:
        row = session.scalar(select(UserRow).where(UserRow.matrix_user_id == matrix, enabled))
    else:
        return None
    return _user(row) if row is not None else None


def list_users(session: Session) -> list[User]:
    return [_user(r) for r in session.scalars(select(UserRow).order_by(UserRow.name))]


@dataclass(frozen=True)
class UserListing:
    """A user as `users list` shows it: enabled or since when disabled."""

    user: User
    disabled_at: datetime | None


def list_user_states(session: Session) -> list[UserListing]:
    return [UserListing(_user(r), r.disabled_at) for r in session.scalars(select(UserRow).order_by(UserRow.name))]


def _user_row(session: Session, name: str) -> UserRow:
    row = session.scalar(select(UserRow).where(UserRow.name == name))
    if row is None:
        raise ValueError(f"no user {name!r} (see `rootward users list`)")
    return row


def disable_user(session: Session, name: str, *, now: datetime | None = None) -> User:
    """Refuse the user from now on (tokens, console sessions, chat approvals); keeps their history."""
    row = _user_row(session, name)
    if row.disabled_at is None:
        row.disabled_at = now or datetime.now(UTC)
        append_audit(session, "user.disabled", row.name, {"role": row.role})
    session.flush()
    return _user(row)


def enable_user(session: Session, name: str) -> User:
    """Undo `disable_user`; tokens that were not revoked work again."""
    row = _user_row(session, name)
    if row.disabled_at is not None:
        row.disabled_at = None
        append_audit(session, "user.enabled", row.name, {"role": row.role})
    session.flush()
    return _user(row)


def remove_user(session: Session, name: str) -> User:
    """Delete the user with their tokens and sessions (decisions keep the name they were made under)."""
    row = _user_row(session, name)
    user = _user(row)
    session.execute(delete(ApiTokenRow).where(ApiTokenRow.user_id == row.id))
    session.delete(row)
    append_audit(session, "user.removed", user.name, {"role": user.role.value})
    session.flush()
    return user


TOKEN_ID_CHARS = 12  # the token id `tokens list` shows: the first characters of its SHA-256


@dataclass(frozen=True)
class TokenListing:
    """A token as `tokens list` shows it; the token itself is never stored, so never shown."""

    id: str
    user: str
    label: str
    created_at: datetime
    revoked_at: datetime | None


def list_tokens(session: Session, user_name: str | None = None) -> list[TokenListing]:
    query = (
        select(ApiTokenRow, UserRow.name)
        .join(UserRow, UserRow.id == ApiTokenRow.user_id)
        .order_by(UserRow.name, ApiTokenRow.created_at)
    )
    if user_name is not None:
        query = query.where(UserRow.name == user_name)
    return [
        TokenListing(t.token_hash[:TOKEN_ID_CHARS], name, t.label, t.created_at, t.revoked_at)
        for t, name in session.execute(query)
    ]


def revoke_token(session: Session, token_id: str, *, now: datetime | None = None) -> TokenListing:
    """Revoke the token whose id (`tokens list`, 8+ characters) or full value is given."""
    if token_id.startswith(TOKEN_PREFIX):
        match = [hash_token(token_id)]
    elif len(token_id) >= 8 and all(c in "0123456789abcdef" for c in token_id.lower()):
        match = list(
            session.scalars(select(ApiTokenRow.token_hash).where(ApiTokenRow.token_hash.startswith(token_id.lower())))
        )
    else:
        raise ValueError(f"{token_id!r} is not a token id (8+ hex characters from `rootward tokens list`)")
    if len(match) > 1:
        raise ValueError(f"token id {token_id!r} matches {len(match)} tokens; give more characters")
    row = session.get(ApiTokenRow, match[0]) if match else None
    if row is None:
        raise ValueError(f"no token {token_id!r} (see `rootward tokens list`)")
    owner = session.get(UserRow, row.user_id)
    if row.revoked_at is None:
        row.revoked_at = now or datetime.now(UTC)
        append_audit(session, "token.revoked", row.token_hash[:TOKEN_ID_CHARS], {"user": owner.name if owner else "?"})
    session.flush()
    return TokenListing(
        row.token_hash[:TOKEN_ID_CHARS], owner.name if owner else "?", row.label, row.created_at, row.revoked_at
    )
