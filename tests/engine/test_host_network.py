"""A node's network read from the calls crossing it (`engine.host_network`)."""

from __future__ import annotations

from rootward.context.trace_evidence import trace_findings
from rootward.engine.host_network import attribute_hosts, attributed_traces, hosted
from rootward.engine.hypotheses import score_entities
from rootward.engine.trace_attribution import TraceAttribution, attribute_traces
from tests.context.span_factory import BASELINE, DURING, Phase, incident_spans
from tests.engine.small_incidents import incident

CALLS = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"], "catalog": ["stock"]}
# checkout and cart share n2; frontend and catalog n1; payment n3; stock n4.
NODES = {"frontend": "n1", "catalog": "n1", "checkout": "n2", "cart": "n2", "payment": "n3", "stock": "n4"}


def _traces(after: Phase) -> tuple[dict[str, TraceAttribution], list]:
    before = Phase(hosts=NODES)
    found = trace_findings(incident_spans(CALLS, "frontend", before, after), baseline=BASELINE, during=DURING)
    by = attribute_traces(found)
    attribute_hosts(by, found, NODES)
    return by, found


def test_what_runs_on_a_host_includes_what_runs_on_what_runs_on_it() -> None:
    assert hosted({"api": "vm-1", "db": "vm-2", "vm-1": "hv-1", "vm-2": "hv-1"}) == {
        "vm-1": frozenset({"api"}),
        "vm-2": frozenset({"db"}),
        "hv-1": frozenset({"api", "db", "vm-1", "vm-2"}),
    }
    assert hosted({"a": "b", "b": "a"}) == {"a": frozenset({"b"}), "b": frozenset({"a"})}  # a loop ends


def test_delay_on_a_nodes_network_is_the_nodes_and_the_services_it_slowed_are_its_victims() -> None:
    by, _ = _traces(Phase(hosts=NODES, host_ms={"n2": 80}))
    assert by["n2"].hints[0].fault_type == "network_latency" and by["n2"].own > 0.5
    assert {e.cite.split("@")[0] for e in by["n2"].hints[0].evidence} == {
        "traces.jsonl:frontend->checkout",
        "traces.jsonl:checkout->payment",
    }
    assert by["checkout"].victim_of == "n2"
    assert by["catalog"].victim_of is None and "n1" not in by  # calls that cross no slowed node


def test_a_pods_own_network_stays_the_pods_though_its_node_carries_its_calls() -> None:
    by, _ = _traces(Phase(hosts=NODES, network_ms={"checkout": 80}, client_ms={"checkout": 80}))
    assert "n2" not in by  # checkout's calls to cart on its own node slowed too: checkout, not n2
    assert by["checkout"].hints[0].fault_type == "network_latency" and by["checkout"].victim_of is None


def test_one_slowed_call_is_no_hosts_doing() -> None:
    by, _ = _traces(Phase(hosts=NODES, host_ms={"n3": 80}))  # payment alone, called once per request
    assert "n3" not in by
    assert by["payment"].hints[0].fault_type == "network_latency"


def test_a_node_that_carries_one_service_across_is_a_reading_beside_it_not_above_it() -> None:
    calls = {"frontend": ["a", "b"], "a": ["c"], "b": ["c"]}
    nodes = {"frontend": "n1", "a": "n1", "b": "n2", "c": "n5"}  # c alone on n5: its calls are n5's
    spans = incident_spans(calls, "frontend", Phase(hosts=nodes), Phase(hosts=nodes, host_ms={"n5": 80}))
    found = trace_findings(spans, baseline=BASELINE, during=DURING)
    by = attribute_traces(found)
    attribute_hosts(by, found, nodes)
    assert by["n5"].hints[0].fault_type == "network_latency" and by["n5"].own > 0.5
    assert by["c"].hints[0].fault_type == "network_latency" and by["c"].victim_of is None


def test_the_node_leads_the_ranking_when_spans_are_all_there_is() -> None:
    spans = incident_spans(CALLS, "frontend", Phase(hosts=NODES), Phase(hosts=NODES, host_ms={"n2": 80}))
    names = [*NODES, "n1", "n2", "n3", "n4"]
    edges = [(a, b, "depends_on") for a, cs in CALLS.items() for b in cs] + [
        (s, n, "runs_on") for s, n in NODES.items()
    ]
    ctx = incident(
        kinds={n: "node" if n.startswith("n") else "service" for n in names}, edges=edges, alerting=["frontend"]
    )
    found = trace_findings(spans, baseline=BASELINE, during=DURING)
    ctx = ctx.model_copy(update={"trace_findings": found, "telemetry": {n: ["traces"] for n in NODES}})
    assert attributed_traces(ctx)["checkout"].victim_of == "n2"
    ranked = score_entities(ctx)
    assert ranked[0].entity == "n2"
    assert ranked[0].signatures[0].fault_type == "network_latency"


def test_the_counted_match_is_the_jaccard_of_the_edge_sets() -> None:
    """`_best_host` counts in one pass; on random maps it agrees with the sets written out."""
    import random

    from rootward.engine.host_network import MIN_HOST_EDGES, MIN_MATCH, _best_host

    def jaccard(a: set, b: set) -> float:  # type: ignore[type-arg]
        return len(a & b) / len(a | b) if a | b else 0.0

    for seed in range(200):
        rng = random.Random(seed)
        services = [f"s{i}" for i in range(rng.randint(3, 9))]
        vms, hvs = [f"vm{i}" for i in range(rng.randint(1, 4))], ["hv0", "hv1"]
        runs_on = {s: rng.choice(vms) for s in services} | {v: rng.choice(hvs) for v in vms}
        calls = {(a, b) for a in services for b in services if a != b and rng.random() < 0.3}
        slowed = {c for c in calls if rng.random() < 0.4}
        best_service = max((jaccard({c for c in calls if s in c}, slowed) for s in services), default=0.0)
        expected = []
        for host, members in hosted(runs_on).items():
            crossing = {c for c in calls if (c[0] in members) != (c[1] in members)}
            score = jaccard(crossing, slowed)
            if len(crossing & slowed) >= MIN_HOST_EDGES and score >= MIN_MATCH and score >= best_service:
                expected.append((score, -len(members), host, crossing))
        got = _best_host(calls, slowed, runs_on) if slowed else None
        if not expected or not slowed:
            assert got is None, seed
            continue
        score, _, host, crossing = max(expected, key=lambda x: x[:3])
        assert got is not None and got[:3] == (host, score, crossing) and got[3] == (score > best_service), seed
