"""Read side of the alert tables, for the CLI and the console."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.store.alerts import AlertGroupRow, AlertRow, utc


def recent_alerts(session: Session, *, limit: int = 50, service: str | None = None) -> list[dict[str, Any]]:
    query = select(AlertRow).order_by(AlertRow.last_seen.desc(), AlertRow.id.desc()).limit(limit)
    if service:
        query = query.where(AlertRow.service == service)
    return [
        {
            "id": a.id,
            "group_id": a.group_id,
            "fingerprint": a.fingerprint,
            "name": a.name,
            "service": a.service,
            "severity": a.severity,
            "status": a.status,
            "tier": a.tier,
            "count": a.count,
            "first_seen": utc(a.first_seen).isoformat(),
            "last_seen": utc(a.last_seen).isoformat(),
        }
        for a in session.scalars(query)
    ]


def group_by_id(session: Session, group_id: str) -> AlertGroupRow | None:
    return session.get(AlertGroupRow, group_id)


def group_alerts(session: Session, group_id: str) -> list[AlertRow]:
    """Every alert of a group, oldest first: alerts that joined later are part of its context."""
    query = select(AlertRow).where(AlertRow.group_id == group_id).order_by(AlertRow.first_seen, AlertRow.id)
    return list(session.scalars(query))
