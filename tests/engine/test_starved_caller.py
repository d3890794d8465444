"""A caller whose CPU saturated is not its callee's victim on its calls' time (`engine.starved_callers`)."""

from __future__ import annotations

from rootward.context.assemble import Context
from rootward.context.trace_evidence import TraceFinding, trace_findings
from rootward.domain.evidence import EvidenceRef
from rootward.engine.hypotheses import score_entities
from rootward.engine.signals import EntityProfile
from rootward.engine.starved_callers import starved_callers
from rootward.engine.tools import ContextTools
from rootward.engine.trace_attribution import TraceAttribution, attribute_traces
from tests.context.span_factory import BASELINE, DURING, Phase, incident_spans
from tests.engine.small_incidents import anomaly, incident

CALLS = {"frontend": ["recs"], "recs": ["catalog"]}
KINDS = {"frontend": "service", "recs": "service", "catalog": "service"}
EDGES = [("frontend", "recs", "depends_on"), ("recs", "catalog", "depends_on")]


def _ctx(recs_cpu: bool) -> Context:
    # Sampled traces: a few requests a side. A starved recs sends its calls late and reads the answers
    # late, so its calls to catalog take longer outside catalog's spans; its own work per call, read
    # from so few spans, does not pass its test.
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(client_ms={"recs": 40}), per_side=8)
    found = trace_findings(spans, baseline=BASELINE, during=DURING)
    assert attribute_traces(found)["recs"].victim_of == "catalog"  # what the spans alone say
    cpu = [anomaly("recs", "cpu", score=150.0, baseline=0.0003, after=0.004)] if recs_cpu else []
    slow = [anomaly(e, "latency", metric="latency_p99_ms", score=20.0) for e in ("frontend", "recs")]
    symptoms = [*slow, *cpu]
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["frontend"], anomalies=symptoms)
    return ctx.model_copy(update={"trace_findings": found, "telemetry": {n: ["metrics", "traces"] for n in KINDS}})


def _scores(recs_cpu: bool) -> dict[str, tuple[int, str | None]]:
    ranked = score_entities(_ctx(recs_cpu))
    return {s.entity: (rank, s.victim_of) for rank, s in enumerate(ranked, start=1)}


def test_a_caller_whose_cpu_saturated_keeps_the_time_its_calls_took_as_its_own() -> None:
    scores = _scores(recs_cpu=True)
    assert scores["recs"] == (1, None)
    # The traces specialist reads the same: no "its symptoms are time in its calls to catalog".
    assert ContextTools(_ctx(recs_cpu=True)).trace_attribution("recs").data.victim_of is None
    assert ContextTools(_ctx(recs_cpu=False)).trace_attribution("recs").data.victim_of == "catalog"


def test_without_a_cpu_of_its_own_the_caller_passes_the_callees_delay_on() -> None:
    scores = _scores(recs_cpu=False)
    assert scores["recs"][1] == "catalog"
    assert scores["catalog"][0] < scores["recs"][0]


def _starved(victim_of: str, edge: tuple[str, str] | None) -> str | None:
    cpu = anomaly("db", "cpu", score=150.0, baseline=0.1, after=0.9)
    profiles = {"db": EntityProfile("db", "database", True, resources=[cpu], onset=cpu.onset)}
    traces = {"db": TraceAttribution("db", victim_of=victim_of)}
    found = []
    if edge is not None:
        ref = EvidenceRef("trace", f"traces.jsonl:{edge[0]}->{edge[1]}@1-2", "slower")
        found.append(
            TraceFinding(
                kind="network",
                entity=edge[1],
                caller=edge[0],
                before=1.0,
                after=9.0,
                n_before=8,
                n_after=8,
                score=40.0,
                changed=True,
                evidence=ref,
            )
        )
    starved_callers(traces, profiles, cpu.onset, found)
    return traces["db"].victim_of


def test_only_a_callee_loses_a_starved_caller_not_the_host_whose_network_its_calls_crossed() -> None:
    assert _starved("disk-array", ("db", "disk-array")) is None  # a callee: the time is the caller's wait too
    assert _starved("hv-1", None) == "hv-1"  # a host writes no spans and is called by no one
