"""A prompt trial's life in the database: started, evaluated, promoted or aborted, reverted.

The statistics are `llm.trials`; this module keeps their outcome. Every change
of state is an audit event in the same transaction as the change, and a
promotion is undone by `revert`, which leaves the trial's rows (and its audit
trail) in place, so what was tried, on which evidence, is never lost.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.llm.prompts import TRIAL_TEMPLATES, has_variant, template_name
from rootward.llm.trials import CONTROL, Decision, decide, route
from rootward.store.audit import append_audit
from rootward.store.judge_scores import PromptTrialRow, trial_samples


class TrialError(ValueError):
    """A trial that does not exist, or a change its state does not allow."""


def _trial(session: Session, trial_id: str) -> PromptTrialRow:
    row = session.get(PromptTrialRow, trial_id)
    if row is None:
        raise TrialError(f"no prompt trial {trial_id!r}")
    return row


def start_trial(
    session: Session,
    trial_id: str,
    template: str,
    variants: Sequence[str],
    *,
    actor: str,
    exists: Callable[[str, str], bool] = has_variant,
) -> PromptTrialRow:
    """A running trial of `template`'s variants (each a file `template.<variant>.j2`) against its control."""
    if template not in TRIAL_TEMPLATES:
        raise TrialError(f"{template!r} takes no variants; a trial can change {', '.join(TRIAL_TEMPLATES)}")
    if not variants or CONTROL in variants or len(set(variants)) != len(variants):
        raise TrialError("a trial needs one or more distinct variants besides `control`")
    missing = [v for v in variants if not exists(template, v)]
    if missing:
        raise TrialError(f"no template {', '.join(template_name(template, v) for v in missing)} in llm/prompts/")
    if session.get(PromptTrialRow, trial_id) is not None:
        raise TrialError(f"prompt trial {trial_id!r} exists")
    running = [t.trial_id for t in trials(session) if t.status == "running"]
    if running:  # one judge score is one sample of one arm: a second trial would share it
        raise TrialError(f"prompt trial {running[0]!r} is running: evaluate or promote it first")
    arms = [CONTROL, *variants]
    row = PromptTrialRow(
        trial_id=trial_id,
        template=template,
        arms=json.dumps(arms),
        status="running",
        promoted_arm="",
        reason="",
        created_at=datetime.now(UTC),
    )
    session.add(row)
    append_audit(session, "prompt_trial.started", trial_id, {"template": template, "arms": arms, "actor": actor})
    session.flush()
    return row


def evaluate_trial(session: Session, trial_id: str, *, actor: str = "scheduler") -> Decision:
    """Decide a running trial from its judged samples; a decision other than `wait` is final and audited."""
    row = session.get(PromptTrialRow, trial_id, with_for_update=True)  # two replicas' schedulers: one decides
    if row is None:
        raise TrialError(f"no prompt trial {trial_id!r}")
    if row.status != "running":
        raise TrialError(f"prompt trial {trial_id!r} is {row.status}, not running")
    samples = trial_samples(session, trial_id)
    decision = decide({arm: samples.get(arm, []) for arm in row.arm_list})
    if decision.action == "wait":
        return decision
    row.status = "promoted" if decision.action == "promote" else "aborted"
    row.promoted_arm, row.reason, row.decided_at = decision.arm or "", decision.reason, datetime.now(UTC)
    data = {
        "arm": decision.arm,
        "reason": decision.reason,
        "lifts": decision.lifts,
        "p_values": decision.p_values,
        "samples": {arm: len(samples.get(arm, [])) for arm in row.arm_list},
        "actor": actor,
    }
    append_audit(session, f"prompt_trial.{row.status}", trial_id, data)
    return decision


def promote(session: Session, trial_id: str, arm: str, *, actor: str, reason: str) -> PromptTrialRow:
    """An operator's promotion of one arm, outside the statistics, with the reason they give."""
    row = _trial(session, trial_id)
    if arm not in row.arm_list:
        raise TrialError(f"{arm!r} is not an arm of {trial_id!r} ({', '.join(row.arm_list)})")
    row.status, row.promoted_arm, row.reason, row.decided_at = "promoted", arm, reason, datetime.now(UTC)
    append_audit(session, "prompt_trial.promoted", trial_id, {"arm": arm, "reason": reason, "actor": actor})
    return row


def revert(session: Session, trial_id: str, *, actor: str) -> PromptTrialRow:
    """Back to the control: a promoted trial's template is the unchanged one again."""
    row = _trial(session, trial_id)
    if row.status != "promoted":
        raise TrialError(f"prompt trial {trial_id!r} is {row.status}: only a promotion can be reverted")
    was = row.promoted_arm
    row.status, row.promoted_arm, row.decided_at = "reverted", "", datetime.now(UTC)
    append_audit(session, "prompt_trial.reverted", trial_id, {"was": was, "actor": actor})
    return row


def trials(session: Session) -> list[PromptTrialRow]:
    return list(session.scalars(select(PromptTrialRow).order_by(PromptTrialRow.created_at)))


def active_variant(session: Session, template: str) -> str:
    """The arm a template renders outside any running trial: the latest promotion not reverted, else control."""
    promoted = session.scalars(
        select(PromptTrialRow)
        .where(PromptTrialRow.template == template, PromptTrialRow.status == "promoted")
        .order_by(PromptTrialRow.decided_at.desc())
    ).first()
    return promoted.promoted_arm if promoted is not None else CONTROL


def variants_for(session: Session, incident_id: str) -> dict[str, tuple[str, str]]:
    """Template -> (arm, trial id) for one investigation: its routed arm in each running trial, else the
    promoted variant of a decided one ("" as trial id: not a trial sample)."""
    out: dict[str, tuple[str, str]] = {}
    for row in trials(session):
        if row.status == "running":
            out[row.template] = (route(row.trial_id, incident_id, row.arm_list), row.trial_id)
        elif row.template not in out:
            out[row.template] = (active_variant(session, row.template), "")
    return out
