"""Traces specialist: do the spans attribute this fault type's change to the entity itself?

It reads the attribution (`engine.trace_attribution`), not raw slowness: a
service whose spans only pass on a dependency's latency or errors is not
validated by them, however loud its spans are. A fault that traces must show
when the calls are traced (delay on the network into a service, a dependency
that stopped answering) is invalidated when the calls touching the entity were
traced and did not change.
"""

from __future__ import annotations

from rootward.context.trace_evidence import TraceFinding
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding
from rootward.engine.specialists.base import Specialist, finding
from rootward.engine.tools import ToolLayer
from rootward.engine.trace_attribution import TraceAttribution

# Fault types whose change the spans of the calls touching the entity must show, and the
# aggregate that shows it.
MUST_SHOW: dict[str, str] = {"network_latency": "network", "dependency_down": "unanswered"}
# A hint weaker than this is a reading of the spans, not support.
MIN_SUPPORT = 0.2


class TracesSpecialist(Specialist):
    name = "traces"
    source = "traces"
    manifest = frozenset({"trace_attribution", "span_changes"})

    def check(self, h: Hypothesis, tools: ToolLayer) -> Finding | None:
        result = self.call(tools, "trace_attribution", entity=h.entity)
        if result.status == "no_data":
            return None  # no spans of it: traces can neither support nor rule it out
        a: TraceAttribution = result.data
        hints = [x for x in a.hints if x.fault_type == h.fault_type and x.score >= MIN_SUPPORT]
        if hints and a.victim_of is None:
            best = hints[0]
            return finding(
                h,
                "validated",
                0.45 + 0.45 * best.score,
                f"traces: {best.reason}; {best.evidence[0].excerpt}",
                list(best.evidence),
            )
        if a.victim_of is not None:
            return finding(
                h,
                "invalidated",
                0.5,
                f"traces: {h.entity}'s symptoms are time or failures in its calls to {a.victim_of}",
                a.evidence[-1:],
            )
        if a.own >= MIN_SUPPORT:
            top = a.hints[0]
            return finding(
                h,
                "inconclusive",
                0.3,
                f"traces point at {top.fault_type} at {h.entity} instead: {top.reason}",
                list(top.evidence),
            )
        return self._unchanged(h, tools)

    def _unchanged(self, h: Hypothesis, tools: ToolLayer) -> Finding | None:
        kind = MUST_SHOW.get(h.fault_type)
        if kind is None:
            return None
        spans: list[TraceFinding] = self.call(tools, "span_changes", entity=h.entity).data
        touching = [f for f in spans if f.kind == kind and (f.entity == h.entity or kind == "network")]
        if not touching or any(f.up for f in touching):
            return None
        edges = ", ".join(f.where for f in touching[:3])
        return finding(
            h,
            "invalidated",
            0.45,
            f"traces: the calls touching {h.entity} ({edges}) did not change the way {h.fault_type} would",
            [touching[0].evidence],
        )
