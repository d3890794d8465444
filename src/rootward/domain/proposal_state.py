"""One status per remediation proposal, in the same words in the console, the API and chat.

A proposal's own status (`pending_approval` or `withheld`) is what the engine
decided when it wrote the result. Once an approval request exists, the request
is the truth: pending, then approved or rejected (or expired), then executing,
executed or failed. `proposal_states` joins the two by the proposal hash, so no
surface can show "pending_approval" beside "approved" for the same action.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rootward.domain.proposal import Proposal, ProposedAction

# Every status a proposal can be in, with the words every surface uses for it.
STATUS_WORDS: dict[str, str] = {
    "withheld": "withheld: no approval can be asked",
    "proposed": "proposed; no approval requested",
    "pending": "waiting for an approver",
    "approved": "approved",
    "rejected": "rejected",
    "expired": "expired before anyone decided",
    "executing": "running",
    "executed": "done",
    "failed": "failed when run",
    "refused": "refused by the executor",
}
# Where a decision was made, as the audit trail records it (`approvals.decided_via`).
VIA_WORDS: dict[str, str] = {
    "console": "in the console",
    "api": "through the API",
    "slack": "in Slack",
    "matrix": "in Matrix",
    "cli": "from the command line",
    "autonomy": "automatically (earned autonomy)",
}
NO_EXECUTOR = "no executor configured: approving records the decision only"
OPEN = frozenset({"proposed", "pending", "approved"})  # states in which what the executor can do still matters


@dataclass(frozen=True)
class ApprovalFacts:
    """What an approval request says about its proposal (a store row, read into plain data)."""

    id: str
    proposal_hash: str
    action: ProposedAction
    status: str
    decided_by: str | None = None
    decided_via: str | None = None
    verdict: str | None = None
    prediction: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProposalState:
    """A proposal as a person sees it: the action in words, its one status, who decided and how."""

    action: ProposedAction
    status: str
    proposal_hash: str = ""
    approval_id: str | None = None
    decided_by: str | None = None
    decided_via: str | None = None
    why: str = ""
    reason: str | None = None  # why the engine withheld it
    verdict: str | None = None  # match | partial | deviation, after it ran
    prediction: dict[str, Any] | None = None
    executor_ready: bool = False

    @property
    def text(self) -> str:
        return describe_action(self.action)

    @property
    def decidable(self) -> bool:
        return self.status == "pending" and self.approval_id is not None

    @property
    def words(self) -> str:
        """`approved by anna in the console`, `withheld: no approval can be asked (kill_switch)`, ..."""
        words = STATUS_WORDS.get(self.status, self.status)
        if self.decided_by and self.status not in ("withheld", "proposed", "pending"):
            words += f" by {self.decided_by}"
            if self.decided_via:
                words += f" {VIA_WORDS.get(self.decided_via, 'via ' + self.decided_via)}"
        if self.status == "withheld" and self.reason:
            words += f" ({self.reason})"
        return words

    @property
    def executor_note(self) -> str:
        return NO_EXECUTOR if self.status in OPEN and not self.executor_ready else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action.model_dump(mode="json"),
            "text": self.text,
            "status": self.status,
            "status_text": self.words,
            "approval_id": self.approval_id,
            "decided_by": self.decided_by,
            "decided_via": self.decided_via,
            "why": self.why,
            "executor_note": self.executor_note,
        }


def describe_action(action: ProposedAction) -> str:
    """The action as a sentence an on-call engineer reads: `revert config-7596 on payment`."""
    params = dict(action.params)
    target = action.target
    if action.verb == "config_change" and "revert" in params:
        change = params.pop("revert")
        head = f"revert the last config change on {target}" if change == "last" else f"revert {change} on {target}"
    elif action.verb == "rollback" and "change_id" in params:
        change, version = params.pop("change_id"), params.pop("from_version", None)
        head = f"roll back {change}{f' ({version})' if version else ''} on {target}"
    elif action.verb == "rollback" and "to_revision" in params:
        head = f"roll back {target} to revision {params.pop('to_revision')}"
    elif action.verb == "rollback" and params.get("to") == "previous":
        params.pop("to")
        head = f"roll back {target} to the previous version"
    elif action.verb == "scale" and "delta_replicas" in params:
        delta = int(params.pop("delta_replicas"))
        head = f"scale {target} {'up' if delta > 0 else 'down'} by {abs(delta)} replica{'s' if abs(delta) != 1 else ''}"
    elif action.verb == "scale" and "replicas" in params:
        head = f"scale {target} to {params.pop('replicas')} replicas"
    elif action.verb == "failover":
        head = f"fail over {target} to its replica"
    else:
        head = f"{action.verb.replace('_', ' ')} {target}"
    rest = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(params.items()))
    return f"{head} ({rest})" if rest else head


def _from_proposal(p: Proposal, approval: ApprovalFacts | None, ready: bool) -> ProposalState:
    if approval is None:
        status = "withheld" if p.status == "withheld" else "proposed"
        return ProposalState(
            p.action, status, p.proposal_hash, why=p.why, reason=p.reason, prediction=p.prediction, executor_ready=ready
        )
    return ProposalState(
        p.action,
        approval.status,
        p.proposal_hash,
        approval_id=approval.id,
        decided_by=approval.decided_by,
        decided_via=approval.decided_via,
        why=p.why,
        verdict=approval.verdict,
        prediction=p.prediction or approval.prediction,
        executor_ready=ready,
    )


def proposal_states(
    proposals: Sequence[Proposal], approvals: Iterable[ApprovalFacts], executor_verbs: frozenset[str]
) -> list[ProposalState]:
    """Each proposal with its approval request (newest wins), then requests no proposal of the result names."""
    by_hash: dict[str, ApprovalFacts] = {}
    for a in approvals:
        by_hash[a.proposal_hash] = a  # callers pass requests oldest first
    states = [_from_proposal(p, by_hash.pop(p.proposal_hash, None), p.action.verb in executor_verbs) for p in proposals]
    for a in by_hash.values():
        states.append(
            ProposalState(
                a.action,
                a.status,
                a.proposal_hash,
                approval_id=a.id,
                decided_by=a.decided_by,
                decided_via=a.decided_via,
                verdict=a.verdict,
                prediction=a.prediction,
                executor_ready=a.action.verb in executor_verbs,
            )
        )
    return states
