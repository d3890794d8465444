"""Users, their roles, chat identities and API tokens (stored as SHA-256 only)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import DateTime, ForeignKey, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.domain.roles import Role
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


class ApiTokenRow(Base):
    __tablename__ = "api_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(32), ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    label: Mapped[str] = mapped_column(String(120), nullable=False, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


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
    row = session.scalar(
        select(UserRow)
        .join(ApiTokenRow, ApiTokenRow.user_id == UserRow.id)
        .where(ApiTokenRow.token_hash == hash_token(token))
    )
    return _user(row) if row is not None else None


def user_by_chat_id(session: Session, *, slack: str | None = None, matrix: str | None = None) -> User | None:
    if slack is not None:
        row = session.scalar(select(UserRow).where(UserRow.slack_user_id == slack))
    elif matrix is not None:
        row = session.scalar(select(UserRow).where(UserRow.matrix_user_id == matrix))
    else:
        return None
    return _user(row) if row is not None else None


def list_users(session: Session) -> list[User]:
    return [_user(r) for r in session.scalars(select(UserRow).order_by(UserRow.name))]
