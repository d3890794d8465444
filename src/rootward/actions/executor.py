"""The executor: the only component that mutates anything, and only when told by a human.

It takes approved requests only, and for each one re-checks everything that
could have changed since the approval: the prediction gate (the action must
still hash to a committed prediction; the kill switch must be off), the
allowlist of verbs this executor may run, and the parameter guard. Then it
records the target's state, runs the backend's dry run, executes, and
records the state again. Every step and every refusal is audited. Once an
executed action's prediction window has passed, `verify_due` judges it
against the alerts that followed (see `actions.verification`). The LLM has
no path into this module.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.autonomy_gate import action_class_for, autonomy_check
from rootward.actions.backends import Backend, BackendError
from rootward.actions.guard import check_params
from rootward.actions.verification import VerificationOutcome, due_for_verification, verify_approval
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.worldmodel.prediction_gate import PredictionLedger, ProposedAction, gate
from rootward.worldmodel.settings import WorldModelSettings

LedgerFactory = Callable[[Session], PredictionLedger]


class Executor:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        ledger: LedgerFactory,
        backends: Mapping[str, Backend],
        *,
        allowlist: set[str] | frozenset[str],
        worldmodel: WorldModelSettings | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._sessions = sessions
        self._ledger = ledger
        self._backends = dict(backends)
        self._allow = set(allowlist)
        self._wm = worldmodel or WorldModelSettings()
        self._clock = clock

    def _claim(self) -> str | None:
        with self._sessions() as s, s.begin():
            candidates = s.scalars(
                select(ApprovalRow.id).where(ApprovalRow.status == "approved").order_by(ApprovalRow.decided_at)
            ).all()
            for approval_id in candidates:
                result = s.execute(
                    update(ApprovalRow)
                    .where(ApprovalRow.id == approval_id, ApprovalRow.status == "approved")
                    .values(status="executing")
                )
                if getattr(result, "rowcount", 0):
                    append_audit(s, "executor.claimed", approval_id, {})
                    return approval_id
        return None

    def _finish(self, approval_id: str, status: str, result: dict[str, Any], kind: str) -> str:
        with self._sessions() as s, s.begin():
            row = s.get(ApprovalRow, approval_id)
            assert row is not None
            row.status = status
            row.result = result
            if status == "executed":
                row.executed_at = self._clock()
            append_audit(s, kind, approval_id, result)
        return status

    def _checks(self, row: ApprovalRow, action: ProposedAction) -> dict[str, Any] | None:
        """None when everything holds; else why the executor refuses."""
        with self._sessions() as s:
            decision = gate(action, self._ledger(s), settings=self._wm, claimed_hash=row.proposal_hash)
        if not decision.allowed:
            return {"refused": "prediction_gate", "reason": decision.reason}
        if row.decided_via == "autonomy":
            # Approved without a human: the class must still have earned it now (a deviation since revokes it).
            with self._sessions() as s, s.begin():
                klass = action_class_for(s, row.proposal_hash, action.verb, action.target)
                earned = autonomy_check(s, klass, self._wm)
            if not earned.allowed:
                return {"refused": "autonomy_revoked", "action_class": klass, "reason": earned.reason}
        if action.verb not in self._allow:
            return {"refused": "allowlist", "reason": f"verb {action.verb!r} is not on this executor's allowlist"}
        if action.verb not in self._backends:
            return {"refused": "allowlist", "reason": f"no backend configured for verb {action.verb!r}"}
        verdict = check_params({"target": action.target, **action.params})
        if not verdict.allowed:
            return {
                "refused": f"guard_{verdict.outcome}",
                "rule": verdict.rule,
                "parameter": verdict.parameter,
                "hint": verdict.hint,
            }
        return None

    def execute_one(self, approval_id: str) -> str:
        with self._sessions() as s:
            row = s.get(ApprovalRow, approval_id)
            assert row is not None
            s.expunge(row)
        try:
            action = ProposedAction.model_validate(json.loads(row.action_json))
        except (ValidationError, ValueError) as exc:
            return self._finish(
                approval_id, "refused", {"refused": "malformed_action", "reason": str(exc)[:300]}, "executor.refused"
            )
        refusal = self._checks(row, action)
        if refusal is not None:
            return self._finish(approval_id, "refused", refusal, "executor.refused")
        backend = self._backends[action.verb]
        result: dict[str, Any] = {"action": json.loads(row.action_json)}
        try:
            result["pre_state"] = backend.state(action)
            result["dry_run"] = backend.dry_run(action)
            result["outcome"] = backend.execute(action)
            result["post_state"] = backend.state(action)
        except BackendError as exc:
            result["error"] = str(exc)
            stage = "dry_run" if "dry_run" not in result else "execute"
            result["failed_at"] = stage if "pre_state" in result else "pre_state"
            return self._finish(approval_id, "failed", result, "executor.failed")
        return self._finish(approval_id, "executed", result, "executor.executed")

    def run_once(self) -> list[tuple[str, str]]:
        done = []
        while (approval_id := self._claim()) is not None:
            done.append((approval_id, self.execute_one(approval_id)))
        return done

    def verify_due(self) -> list[VerificationOutcome]:
        """Judge every executed action whose prediction window has closed (by this executor's clock).

        One transaction per action, so one that cannot be judged never holds back the others.
        """
        now = self._clock()
        with self._sessions() as s:
            due = due_for_verification(s, now)
        done = []
        for approval_id in due:
            with self._sessions() as s, s.begin():
                outcome = verify_approval(s, approval_id, self._wm, now=now)
            if outcome is not None:
                done.append(outcome)
        return done

    def run(self, stop: threading.Event, poll_s: float = 1.0) -> None:
        while not stop.is_set():
            self.run_once()
            self.verify_due()
            stop.wait(poll_s)
