"""Template shifts as a term of the hypothesis ranking: how strongly an entity's logs changed, and what that says.

`context.log_shifts` finds the templates that appeared, vanished or changed
rate at the onset, at any level. Here they become two things the ranker uses:

* a **strength** per entity (0..1): a noisy-or over its shifts, each weighed
  by how surely it is not chance (-log10 p, saturating at p = 1e-8) and by its
  kind. A template that appeared is the strongest sign that the code took a
  path it does not normally take; a vanished one says the service stopped
  doing something; a rate that only fell is the weakest;
* **signatures**: what appeared is read like any log text, so a new template
  that names a mechanism (pool, disk, DNS...) points at it, and one that names
  none reads as a code fault (`deploy_regression`).

What the failure-log signals already carry is not counted twice: a template
that appeared at error or warning level, or that those signals hold (same
service and template), adds nothing here. The term is the evidence that
level-based reading misses.

A failure that stopped is not a fault that started: a template at error or
warning level, or whose words say something failed, that vanished or fell at
the onset is an earlier event ending (its service recovering, or a baseline
that held someone else's incident), so it adds nothing either.

Kept in one module so the ranker's use of log shifts is one import and two
calls (engine/hypotheses.py), separate from the trace and metric terms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rootward.context.log_shifts import LogShift
from rootward.context.log_signals import LogSignal, names_failure
from rootward.context.logs import ERROR_LEVELS, WARN_LEVELS
from rootward.engine.signatures import SPECIFICITY, Signature, faults_named

# Weight of the shift strength in an entity's own evidence (beside 0.35 for failure logs).
SHIFT_WEIGHT = 0.3
KIND_WEIGHT: dict[str, float] = {"new": 1.0, "up": 0.6, "vanished": 0.6, "down": 0.3}
# -log10 of the p-value at which a shift counts fully (1e-8: far past any multiple-testing worry).
SURE_LOG10 = 8.0
CODE_FAULT = "deploy_regression"
# A shift's signature weight: below a failure log's (0.35 + ...), since nothing says it failed.
SIGNATURE_WEIGHT = 0.45
# Changes are recorded and none is a deploy of this entity: "a new version did it" is then weak.
NO_DEPLOY_FACTOR = 0.35


def significance(shift: LogShift) -> float:
    """0..1: how surely the shift is not chance."""
    if shift.p_value <= 0.0:
        return 1.0
    return min(1.0, -math.log10(shift.p_value) / SURE_LOG10)


def _says_failure(shift: LogShift) -> bool:
    """Logged at error or warning level, or worded as a failure."""
    loud = ERROR_LEVELS | WARN_LEVELS
    return any(lv in loud for lv in shift.levels) or names_failure(shift.template)


def uncarried(shifts: Sequence[LogShift], own_logs: Sequence[LogSignal]) -> list[LogShift]:
    """The shifts that are evidence of this fault and that the failure-log signals do not already carry.

    Left out: what appeared and the failure-log signals hold (same template, or at error or
    warning level), and failures that stopped (see the module docstring).
    """
    carried = {s.template for s in own_logs}
    loud = ERROR_LEVELS | WARN_LEVELS
    out = []
    for s in shifts:
        if s.appeared and (s.template in carried or any(lv in loud for lv in s.levels)):
            continue
        if not s.appeared and _says_failure(s):
            continue
        out.append(s)
    return out


def shift_strength(shifts: Sequence[LogShift], own_logs: Sequence[LogSignal] = ()) -> float:
    """Noisy-or over the entity's uncarried shifts, each weighed by kind and significance."""
    miss = 1.0
    for s in uncarried(shifts, own_logs):
        miss *= 1.0 - KIND_WEIGHT[s.kind] * significance(s)
    return 1.0 - miss


def shifts_by_entity(shifts: Sequence[LogShift]) -> dict[str, list[LogShift]]:
    out: dict[str, list[LogShift]] = {}
    for s in shifts:
        out.setdefault(s.service, []).append(s)
    return out


def _fault_of(template: str) -> str:
    """The most specific mechanism the template's words name, or a code fault when they name none."""
    named = faults_named(template)
    if not named:
        return CODE_FAULT
    return max(named, key=lambda f: (SPECIFICITY.get(f, 1.0), f))


def with_shift_signatures(
    signatures: list[Signature],
    shifts: Sequence[LogShift],
    own_logs: Sequence[LogSignal],
    *,
    deploy_recorded: bool | None,
) -> list[Signature]:
    """`signatures` plus what the entity's appeared templates say the fault is, best first.

    `deploy_recorded` is None when no change history exists for the scope,
    else whether it holds a deploy of this entity.
    """
    by_fault = {s.fault_type: s for s in signatures}
    for shift in uncarried(shifts, own_logs):
        if not shift.appeared:
            continue
        fault = _fault_of(shift.template)
        weight = SIGNATURE_WEIGHT * KIND_WEIGHT[shift.kind] * significance(shift) * SPECIFICITY.get(fault, 1.0)
        if fault == CODE_FAULT and deploy_recorded is False:
            weight *= NO_DEPLOY_FACTOR
        sig = by_fault.setdefault(fault, Signature(fault, 0.0))
        sig.score += weight
        if shift.evidence not in sig.evidence:
            sig.evidence.append(shift.evidence)
        reason = f"a log template {'appeared' if shift.kind == 'new' else 'surged'} at the onset ({shift.kind})"
        if reason not in sig.reasons:
            sig.reasons.append(reason)
    return sorted(by_fault.values(), key=lambda s: (-s.score, s.fault_type))
