"""Changes specialist: did a deploy or config change at the entity precede the onset?"""

from __future__ import annotations

from rootward.context.changes import ChangeItem
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding
from rootward.engine.signals import CHANGE_GRACE_AFTER_S, CHANGE_HORIZON_S
from rootward.engine.specialists.base import Specialist, finding
from rootward.engine.tools import ToolLayer

CHANGE_FAULTS = {"deploy_regression": ("deploy",), "config_error": ("config", "feature_flag")}
# A matching change longer than this before the onset is a lead, not a confirmation: a bad version or
# setting fails when it lands, so one that sat quiet for half an hour needs other evidence to be the cause.
STALE_CHANGE_S = 30 * 60


class ChangesSpecialist(Specialist):
    name = "changes"
    source = "changes"
    manifest = frozenset({"changes_for"})

    def check(self, h: Hypothesis, tools: ToolLayer) -> Finding | None:
        result = self.call(tools, "changes_for", entity=h.entity)
        near: list[ChangeItem] = [
            c for c in result.data if -CHANGE_GRACE_AFTER_S <= c.seconds_before_onset <= CHANGE_HORIZON_S
        ]
        kinds = CHANGE_FAULTS.get(h.fault_type)
        if kinds is None:
            if near:
                c = near[0]
                return finding(
                    h, "inconclusive", 0.3, f"{c.kind} {c.id} on {h.entity} preceded the onset", [c.evidence]
                )
            return None
        if result.status == "unavailable":
            return finding(h, "inconclusive", 0.1, "change history unavailable")
        if result.status == "no_data":
            # Nothing recorded for any entity: deploys may go unrecorded here, and a latent code fault has none.
            return finding(h, "inconclusive", 0.15, "the change history records no change of anything in scope")
        matching = [c for c in near if c.kind in kinds]
        if matching:
            c = min(matching, key=lambda c: max(0, c.seconds_before_onset))  # the freshest
            said = f"{c.kind} {c.id} on {h.entity} {_when(c)}" + (f" ({c.summary})" if c.summary else "")
            if c.seconds_before_onset > STALE_CHANGE_S:
                return finding(h, "inconclusive", 0.35, f"{said}: too long before to confirm it alone", [c.evidence])
            return finding(h, "validated", 0.8, said, [c.evidence])
        return finding(h, "invalidated", 0.45, f"no {' or '.join(kinds)} change on {h.entity} before the onset")


def _when(c: ChangeItem) -> str:
    """When the change came, as its evidence dates it: a version read from the logs only by its first line."""
    if c.seconds_before_onset >= 0:
        return f"landed {c.seconds_before_onset // 60} min before the onset"
    verb = "was first logged" if c.from_logs else "landed"
    return f"{verb} {-c.seconds_before_onset} s after the onset"
