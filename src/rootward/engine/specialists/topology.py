"""Topology specialist: can a fault at the entity reach the alerting services?

Failures travel up the calls (a slow dependency makes its callers slow). Load
travels down them (a caller's surge is its callees' load), and a service
overloaded by a surge is also slow for its own callers: a traffic surge
reaches the alerting services either way.
"""

from __future__ import annotations

from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding
from rootward.engine.specialists.base import Specialist, finding
from rootward.engine.tools import ToolLayer


class TopologySpecialist(Specialist):
    name = "topology"
    manifest = frozenset({"path_to_alerts", "dependents", "alerts"})

    def check(self, h: Hypothesis, tools: ToolLayer) -> Finding | None:
        alerts = self.call(tools, "alerts")
        own = [a for a in alerts.data if a.service == h.entity]
        load = h.fault_type == "traffic_surge"
        path = self.call(tools, "path_to_alerts", entity=h.entity, direction="load" if load else "failure")
        if load and not path.data:  # nothing it calls alerted: its callers, waiting on it, may have
            load = False
            path = self.call(tools, "path_to_alerts", entity=h.entity, direction="failure")
        if path.data:
            ends = {e.target for e in path.data} if load else {e.source for e in path.data}
            reached = sorted(ends & {a.service for a in alerts.data})
            return finding(
                h,
                "validated",
                0.6,
                f"a fault at {h.entity} reaches the alerting {', '.join(reached)} through "
                + ", ".join(f"{e.source}->{e.target}" for e in path.data[:4]),
                [e.evidence for e in path.data[:4]] + [a.evidence for a in own[:1]],
            )
        if own:
            return finding(h, "validated", 0.5, f"{h.entity} is itself alerting ({own[0].name})", [own[0].evidence])
        reach = self.call(tools, "dependents", entity=h.entity)
        if reach.status == "no_data":
            return finding(h, "inconclusive", 0.1, f"{h.entity} is not in the topology")
        return finding(h, "invalidated", 0.5, f"no dependency path from the alerting services to {h.entity}")
