"""One row per LLM call: what it cost, for whom, and how it went.

Costs and tokens are what operators are asked about first ("what did the
investigator spend on checkout last week?"), so every call is kept with the
investigation and the service it was for; `rootward costs` and `/metrics`
aggregate them with SQL, never in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import DateTime, Float, Index, Integer, String, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.domain.llm_calls import CallRecord
from rootward.store.base import Base

CostDimension = Literal["service", "model", "provider"]


class LLMCallRow(Base):
    __tablename__ = "llm_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    investigation_id: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    service: Mapped[str] = mapped_column(String(200), nullable=False, default="")
    purpose: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    provider: Mapped[str] = mapped_column(String(64), nullable=False)
    model: Mapped[str] = mapped_column(String(200), nullable=False)
    input_tokens: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    cost_usd: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    status: Mapped[str] = mapped_column(String(16), nullable=False)  # ok | invalid | error
    duration_ms: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (
        Index("ix_llm_calls_at", "at"),
        Index("ix_llm_calls_investigation", "investigation_id"),
    )


def record_llm_call(
    session: Session,
    call: CallRecord,
    investigation_id: str,
    service: str,
    *,
    at: datetime | None = None,
) -> LLMCallRow:
    """Keep one call (the `CallRecord` the LLM client reports) against its investigation."""
    row = LLMCallRow(
        investigation_id=investigation_id,
        service=service,
        purpose=call.purpose,
        provider=call.provider,
        model=call.model,
        input_tokens=call.input_tokens,
        output_tokens=call.output_tokens,
        cost_usd=call.cost_usd,
        status=call.status,
        duration_ms=call.duration_ms,
        at=at or datetime.now(UTC),
    )
    session.add(row)
    session.flush()
    return row


@dataclass(frozen=True)
class CostLine:
    key: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    errors: int


def costs_by(session: Session, dimension: CostDimension, *, since: datetime | None = None) -> list[CostLine]:
    """Calls, tokens and cost per service, model or provider, most expensive first."""
    column = {"service": LLMCallRow.service, "model": LLMCallRow.model, "provider": LLMCallRow.provider}[dimension]
    query = select(
        column,
        func.count(),
        func.coalesce(func.sum(LLMCallRow.input_tokens), 0),
        func.coalesce(func.sum(LLMCallRow.output_tokens), 0),
        func.coalesce(func.sum(LLMCallRow.cost_usd), 0.0),
        func.coalesce(func.sum((LLMCallRow.status != "ok").cast(Integer)), 0),
    ).group_by(column)
    if since is not None:
        query = query.where(LLMCallRow.at >= since)
    lines = [
        CostLine(str(key), int(n), int(tin), int(tout), float(cost), int(err))
        for key, n, tin, tout, cost, err in session.execute(query).all()
    ]
    return sorted(lines, key=lambda line: (-line.cost_usd, line.key))
