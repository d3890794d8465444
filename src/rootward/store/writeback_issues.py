"""Which Jira or GitHub issue rootward wrote an incident to, so later write-backs comment on the same one.

A row is written with `state = creating` before the create call and gets
its `issue_key` right after, each in its own short transaction. A row still
`creating` on the next attempt means the create may have reached the target
without the key being recorded (a crash or a timeout in between): the
channel looks the issue up by its marker before creating one
(notify/issues.py), so an incident never gets two issues.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, String
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.base import Base


class WritebackIssueRow(Base):
    __tablename__ = "writeback_issues"

    target: Mapped[str] = mapped_column(String(64), primary_key=True)  # the outbox channel: jira, github
    incident: Mapped[str] = mapped_column(String(64), primary_key=True)  # the alert group
    issue_key: Mapped[str | None] = mapped_column(String(200), nullable=True)  # OPS-12, or the issue number
    state: Mapped[str] = mapped_column(String(16), nullable=False)  # creating | created
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


def remembered_issue(session: Session, target: str, incident: str) -> WritebackIssueRow | None:
    return session.get(WritebackIssueRow, (target, incident))


def intend_create(session: Session, target: str, incident: str, at: datetime) -> None:
    """Record that a create is about to be sent (kept if one was recorded before)."""
    if session.get(WritebackIssueRow, (target, incident)) is None:
        session.add(WritebackIssueRow(target=target, incident=incident, state="creating", updated_at=at))
        session.flush()


def remember_issue(session: Session, target: str, incident: str, issue_key: str, at: datetime) -> None:
    row = session.get(WritebackIssueRow, (target, incident))
    if row is None:
        row = WritebackIssueRow(target=target, incident=incident, state="created", updated_at=at)
        session.add(row)
    row.issue_key, row.state, row.updated_at = issue_key, "created", at
    session.flush()
