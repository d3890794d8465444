"""Tables of the world model: the graph's entities and edge claims, learned dynamics,
committed predictions, and remediation proposals with their verdicts.

Repositories here speak plain records (dicts, strings) so the store never
imports the world model's logic; `WorldGraph.from_records` and friends turn
them back into objects. `DbPredictionLedger` and `DbVerdictHistory` satisfy
the gate's and autonomy's protocols structurally.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import JSON, DateTime, Float, Index, String, Text, delete, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.base import Base
from rootward.store.ids import new_id


def utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class WmEntityRow(Base):
    __tablename__ = "wm_entities"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    kind: Mapped[str] = mapped_column(String(64))
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class WmEdgeClaimRow(Base):
    """One truth layer's claim that `source` needs `target`."""

    __tablename__ = "wm_edge_claims"

    source: Mapped[str] = mapped_column(String(200), primary_key=True)
    target: Mapped[str] = mapped_column(String(200), primary_key=True)
    layer: Mapped[str] = mapped_column(String(32), primary_key=True)
    relation: Mapped[str] = mapped_column(String(32))
    confidence: Mapped[float] = mapped_column(Float)
    observed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    valid_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")

    __table_args__ = (Index("ix_wm_edge_claims_target", "target"),)


class WmPredictionRow(Base):
    """A prediction committed under the sha256 of the action JSON it was computed for."""

    __tablename__ = "wm_predictions"

    proposal_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    action_json: Mapped[str] = mapped_column(Text)
    prediction: Mapped[dict[str, Any]] = mapped_column(JSON)
    committed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class WmProposalRow(Base):
    __tablename__ = "wm_proposals"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    investigation_id: Mapped[str] = mapped_column(String(64), index=True)
    proposal_hash: Mapped[str] = mapped_column(String(64), index=True)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    action_class: Mapped[str] = mapped_column(String(120), index=True)
    status: Mapped[str] = mapped_column(String(24))  # pending_approval | withheld | approved | executed ...
    reason: Mapped[str | None] = mapped_column(String(64), nullable=True)
    verdict: Mapped[str | None] = mapped_column(String(16), nullable=True)  # match | partial | deviation
    verdict_detail: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    evaluated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class WmEdgeDynamicsRow(Base):
    """Learned statistics of one edge (dependent, dependency), as JSON."""

    __tablename__ = "wm_edge_dynamics"

    source: Mapped[str] = mapped_column(String(200), primary_key=True)
    target: Mapped[str] = mapped_column(String(200), primary_key=True)
    stats: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


TABLES = [
    WmEntityRow.__table__,
    WmEdgeClaimRow.__table__,
    WmPredictionRow.__table__,
    WmProposalRow.__table__,
    WmEdgeDynamicsRow.__table__,
]


# --- graph ------------------------------------------------------------------


def save_graph(session: Session, entities: Iterable[dict[str, Any]], claims: Iterable[dict[str, Any]]) -> None:
    """Upsert entities and claims (records of `WorldGraph.entity_records/claim_records`)."""
    now = datetime.now(UTC)
    for row in entities:
        session.merge(
            WmEntityRow(name=row["name"], kind=row["kind"], attributes=row.get("attributes") or {}, updated_at=now)
        )
    for row in claims:
        until = row.get("valid_until")
        session.merge(
            WmEdgeClaimRow(
                source=row["source"],
                target=row["target"],
                layer=row["layer"],
                relation=row["relation"],
                confidence=float(row["confidence"]),
                observed_at=_parse(row["observed_at"]),
                valid_until=_parse(until) if until else None,
                note=row.get("note") or "",
            )
        )


def load_graph_records(
    session: Session, *, now: datetime | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Entities and the claims still valid at `now` (expired claims stay in the table for history)."""
    now = now or datetime.now(UTC)
    entities = [
        {"name": r.name, "kind": r.kind, "attributes": r.attributes or {}}
        for r in session.scalars(select(WmEntityRow).order_by(WmEntityRow.name))
    ]
    claims = []
    for r in session.scalars(select(WmEdgeClaimRow).order_by(WmEdgeClaimRow.source, WmEdgeClaimRow.target)):
        until = utc(r.valid_until) if r.valid_until else None
        if until is not None and until < now:
            continue
        claims.append(
            {
                "source": r.source,
                "target": r.target,
                "layer": r.layer,
                "relation": r.relation,
                "confidence": r.confidence,
                "observed_at": utc(r.observed_at).isoformat(),
                "valid_until": until.isoformat() if until else None,
                "note": r.note,
            }
        )
    return entities, claims


def purge_expired_claims(session: Session, now: datetime | None = None) -> int:
    now = now or datetime.now(UTC)
    result = session.execute(delete(WmEdgeClaimRow).where(WmEdgeClaimRow.valid_until < now))
    return int(getattr(result, "rowcount", 0) or 0)


def save_dynamics(session: Session, stats: dict[tuple[str, str], dict[str, Any]]) -> None:
    now = datetime.now(UTC)
    for (source, target), data in stats.items():
        session.merge(WmEdgeDynamicsRow(source=source, target=target, stats=data, updated_at=now))


def load_dynamics(session: Session) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r.source, r.target): r.stats for r in session.scalars(select(WmEdgeDynamicsRow))}


def _parse(value: Any) -> datetime:
    if isinstance(value, datetime):
        return utc(value)
    return utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")))


# --- predictions and proposals ---------------------------------------------------


@dataclass(frozen=True)
class StoredPrediction:
    """Same fields as `worldmodel.prediction_gate.CommittedPrediction` (the ledger protocol is structural)."""

    proposal_hash: str
    action_json: str
    prediction: dict[str, Any]
    committed_at: datetime


class DbPredictionLedger:
    """The gate's ledger in the database: a committed prediction survives restarts and replicas."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def commit(self, entry: Any) -> None:
        self.session.merge(
            WmPredictionRow(
                proposal_hash=entry.proposal_hash,
                action_json=entry.action_json,
                prediction=entry.prediction,
                committed_at=entry.committed_at,
            )
        )
        self.session.flush()

    def get(self, proposal_hash: str) -> Any:
        row = self.session.get(WmPredictionRow, proposal_hash)
        if row is None:
            return None
        return StoredPrediction(row.proposal_hash, row.action_json, row.prediction, utc(row.committed_at))


def save_proposals(session: Session, investigation_id: str, proposals: Iterable[dict[str, Any]]) -> list[str]:
    """Store the engine's `proposals` entries (withheld ones too: they are the analysis-only record)."""
    ids = []
    now = datetime.now(UTC)
    for rank, item in enumerate(proposals):
        row = WmProposalRow(
            id=new_id(),
            investigation_id=investigation_id,
            proposal_hash=item["proposal_hash"],
            action=item["action"],
            action_class=item.get("action_class") or f"{item['action']['verb']}:unknown",
            status=item["status"],
            reason=item.get("reason"),
            created_at=now + timedelta(microseconds=rank),  # keeps the engine's order
        )
        session.add(row)
        ids.append(row.id)
    session.flush()
    return ids


def proposals_of(session: Session, investigation_id: str) -> list[WmProposalRow]:
    return list(
        session.scalars(
            select(WmProposalRow)
            .where(WmProposalRow.investigation_id == investigation_id)
            .order_by(WmProposalRow.created_at, WmProposalRow.id)
        )
    )


class DbVerdictHistory:
    """Verdicts live on the proposal rows; a class's history is its evaluated proposals in order."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def outcomes(self, klass: str, limit: int) -> list[str]:
        rows = self.session.scalars(
            select(WmProposalRow.verdict)
            .where(WmProposalRow.action_class == klass, WmProposalRow.verdict.is_not(None))
            .order_by(WmProposalRow.evaluated_at.desc(), WmProposalRow.id.desc())
            .limit(limit)
        ).all()
        return [str(v) for v in reversed(rows)]

    def append(self, klass: str, proposal_hash: str, verdict: dict[str, Any]) -> None:
        row = self.session.scalars(
            select(WmProposalRow)
            .where(WmProposalRow.proposal_hash == proposal_hash, WmProposalRow.verdict.is_(None))
            .order_by(WmProposalRow.created_at.desc())
            .limit(1)
        ).first()
        if row is None:
            raise LookupError(f"no unevaluated proposal with hash {proposal_hash}")
        row.verdict = str(verdict["outcome"])
        row.verdict_detail = verdict
        row.action_class = klass
        row.evaluated_at = datetime.now(UTC)
        self.session.flush()
