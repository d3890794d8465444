"""The prediction gate: no approval request without a committed, hash-matching prediction.

A remediation proposal is a typed action; its `proposal_hash` is the sha256 of
its canonical JSON (sorted keys, no whitespace). A prediction is committed
under that hash together with the exact action JSON it was computed for. The
gate recomputes the hash from the action in hand, so changing any field after
prediction (another target, a different replica count) lands on a hash with
no prediction and the proposal is withheld. The default is always "withheld":
every path to `pending_approval` passes all checks, and the kill switch wins
over everything.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from rootward.domain.proposal import ProposedAction
from rootward.worldmodel.settings import WorldModelSettings

GateStatus = Literal["pending_approval", "withheld"]
WithheldReason = Literal["kill_switch", "no_prediction", "hash_mismatch", "prediction_mismatch"]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def action_json(action: ProposedAction) -> str:
    return canonical_json(action.model_dump(mode="json"))


def proposal_hash(action: ProposedAction) -> str:
    return hashlib.sha256(action_json(action).encode("utf-8")).hexdigest()


def hash_of_json(canonical: str) -> str:
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CommittedPrediction:
    proposal_hash: str
    action_json: str  # the canonical JSON the prediction was computed for
    prediction: dict[str, Any]
    committed_at: datetime


class PredictionLedger(Protocol):
    """Where committed predictions live (in memory for the pure path, the database at runtime)."""

    def commit(self, entry: CommittedPrediction) -> None: ...

    def get(self, proposal_hash: str) -> CommittedPrediction | None: ...


class MemoryLedger:
    def __init__(self) -> None:
        self.entries: dict[str, CommittedPrediction] = {}

    def commit(self, entry: CommittedPrediction) -> None:
        self.entries[entry.proposal_hash] = entry

    def get(self, proposal_hash: str) -> CommittedPrediction | None:
        return self.entries.get(proposal_hash)


def commit_prediction(
    ledger: PredictionLedger, action: ProposedAction, prediction: dict[str, Any]
) -> CommittedPrediction:
    entry = CommittedPrediction(
        proposal_hash=proposal_hash(action),
        action_json=action_json(action),
        prediction=prediction,
        committed_at=datetime.now(UTC),
    )
    ledger.commit(entry)
    return entry


@dataclass(frozen=True)
class GateDecision:
    status: GateStatus
    proposal_hash: str
    reason: WithheldReason | None = None
    prediction: dict[str, Any] | None = None

    @property
    def allowed(self) -> bool:
        return self.status == "pending_approval"


def gate(
    action: ProposedAction,
    ledger: PredictionLedger,
    *,
    settings: WorldModelSettings | None = None,
    claimed_hash: str | None = None,
) -> GateDecision:
    """May an approval request be created for `action`? Withheld unless every check passes."""
    settings = settings or WorldModelSettings()
    digest = proposal_hash(action)
    if settings.disabled:
        return GateDecision("withheld", digest, "kill_switch")
    if claimed_hash is not None and claimed_hash != digest:
        return GateDecision("withheld", digest, "hash_mismatch")
    entry = ledger.get(digest)
    if entry is None:
        return GateDecision("withheld", digest, "no_prediction")
    if entry.proposal_hash != digest or hash_of_json(entry.action_json) != digest:
        return GateDecision("withheld", digest, "prediction_mismatch")
    return GateDecision("pending_approval", digest, None, entry.prediction)
