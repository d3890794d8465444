"""One model call as a record: what the LLM layer reports and the store keeps for costs and audit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CallRecord:
    """One model call as the audit trail and cost reports see it."""

    purpose: str
    provider: str
    model: str
    status: str  # ok | invalid | error
    input_tokens: int
    output_tokens: int
    cost_usd: float
    duration_ms: int
    error: str | None = None
