"""Earned autonomy: an action class runs without a human only after a clean streak of matches.

An action class is `verb:entity_kind` (e.g. `restart:service`). It may run
unattended only when the operator opted it in AND its last N evaluated
verdicts are all `match`. A single `deviation` revokes it at once (it sits in
the last N until N new matches push it out); a `partial` also breaks the
streak. The decision is a pure function of the verdict history; recording a
verdict reports the grant/revoke transition so the caller can audit it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

DEFAULT_WINDOW = 10


def action_class(verb: str, entity_kind: str) -> str:
    return f"{verb}:{entity_kind}"


@dataclass(frozen=True)
class AutonomyDecision:
    action_class: str
    allowed: bool
    reason: str
    streak: int  # consecutive `match` verdicts, newest backwards
    required: int

    def to_json(self) -> dict[str, Any]:
        return {
            "action_class": self.action_class,
            "allowed": self.allowed,
            "reason": self.reason,
            "streak": self.streak,
            "required": self.required,
        }


def decide(klass: str, verdicts: Sequence[str], *, opted_in: bool, window: int = DEFAULT_WINDOW) -> AutonomyDecision:
    """`verdicts` are the class's evaluated outcomes, oldest first."""
    streak = 0
    for outcome in reversed(verdicts):
        if outcome != "match":
            break
        streak += 1
    if not opted_in:
        return AutonomyDecision(klass, False, "not opted in by the operator", streak, window)
    if streak >= window:
        return AutonomyDecision(klass, True, f"last {window} verdicts all match", streak, window)
    if verdicts and verdicts[-1] == "deviation":
        return AutonomyDecision(klass, False, "revoked: the last verdict was a deviation", streak, window)
    if streak < len(verdicts):
        last_bad = verdicts[len(verdicts) - streak - 1]
        return AutonomyDecision(klass, False, f"{streak} matches since a {last_bad}; {window} needed", streak, window)
    return AutonomyDecision(klass, False, f"only {streak} of {window} verdicts so far", streak, window)


class VerdictHistory(Protocol):
    """Evaluated verdict outcomes of an action class, oldest first (the store implements it)."""

    def outcomes(self, klass: str, limit: int) -> list[str]: ...

    def append(self, klass: str, proposal_hash: str, verdict: dict[str, Any]) -> None: ...


AuditSink = Callable[[str, str, dict[str, Any]], None]  # (kind, subject, data)


def record_verdict(
    history: VerdictHistory,
    klass: str,
    proposal_hash: str,
    verdict: dict[str, Any],
    *,
    opted_in: bool,
    window: int = DEFAULT_WINDOW,
    audit: AuditSink | None = None,
) -> AutonomyDecision:
    """Append a verdict (`Verdict.to_json()`) to the class's history; audit it and any grant or revocation."""
    if verdict.get("outcome") not in ("match", "partial", "deviation"):
        raise ValueError(f"not a verdict: {verdict.get('outcome')!r}")
    before = decide(klass, history.outcomes(klass, window), opted_in=opted_in, window=window)
    history.append(klass, proposal_hash, verdict)
    after = decide(klass, history.outcomes(klass, window), opted_in=opted_in, window=window)
    if audit is not None:
        audit("worldmodel.verdict", proposal_hash, {"action_class": klass, **verdict})
        if before.allowed and not after.allowed:
            audit("autonomy.revoked", klass, {**after.to_json(), "proposal_hash": proposal_hash})
        elif after.allowed and not before.allowed:
            audit("autonomy.granted", klass, {**after.to_json(), "proposal_hash": proposal_hash})
    return after


def may_run_unattended(
    history: VerdictHistory,
    klass: str,
    *,
    opted_in_classes: Sequence[str],
    window: int = DEFAULT_WINDOW,
    audit: AuditSink | None = None,
) -> AutonomyDecision:
    """The check the executor makes before skipping the human; every answer is audited."""
    decision = decide(klass, history.outcomes(klass, window), opted_in=klass in opted_in_classes, window=window)
    if audit is not None:
        audit("autonomy.checked", klass, decision.to_json())
    return decision


class MemoryVerdictHistory:
    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[str, str]]] = {}

    def outcomes(self, klass: str, limit: int) -> list[str]:
        return [outcome for _, outcome in self.rows.get(klass, [])[-limit:]]

    def append(self, klass: str, proposal_hash: str, verdict: dict[str, Any]) -> None:
        self.rows.setdefault(klass, []).append((proposal_hash, str(verdict["outcome"])))
