"""Simulated traces: each fault shows in the spans the way it really does, deterministically."""

from __future__ import annotations

import json
import random
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

import pytest

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.domain.telemetry import Span
from rootward.sim import render as render_module
from rootward.sim.generate import bundle_files, generate
from rootward.sim.scenario import Scenario, build_scenario
from rootward.sim.topologies import BUILT_IN, topology_from_dict
from rootward.sim.traces import MAX_SPANS, WRONG_ANSWER_KEY, trace_spans, traces_jsonl
from rootward.sim.vary import vary_bundle

# front (h1) calls mid (h2) and side (h1); mid calls leaf (h3) and db (h3); leaf calls an external api.
# front and mid resolve names through `resolver`.
TOPOLOGY = topology_from_dict(
    "mini",
    {
        "entities": {
            "front": {"kind": "service", "depends_on": ["mid", "side", "resolver"], "runs_on": "h1"},
            "side": {"kind": "service", "runs_on": "h1"},
            "mid": {"kind": "service", "depends_on": ["leaf", "db", "resolver"], "runs_on": "h2"},
            "leaf": {"kind": "service", "depends_on": ["api"], "runs_on": "h3"},
            "db": {"kind": "database", "runs_on": "h3"},
            "api": {"kind": "external"},
            "resolver": {"kind": "dns", "runs_on": "h1"},
            "h1": {"kind": "host"},
            "h2": {"kind": "host"},
            "h3": {"kind": "host"},
        }
    },
)
SETTLE = 180  # seconds after the onset by which every fault has reached full strength


def _scenario(fault: str, cause: str, seed: int = 1, accept: Callable[[Scenario], bool] | None = None) -> Scenario:
    for k in range(seed, seed + 40):
        sc = build_scenario(TOPOLOGY, fault, random.Random(f"traces-test/{fault}/{cause}/{k}"), f"t-{k}", cause)
        if accept is None or accept(sc):
            return sc
    raise AssertionError(f"no {fault} scenario at {cause} matched")


def _epoch(span: Span) -> float:
    return span.start.timestamp()


class Spans:
    """Before/after views of one scenario's spans, in the terms a trace analysis uses."""

    def __init__(self, sc: Scenario, spans: list[Span]) -> None:
        self.sc, self.spans = sc, spans
        self.by_id = {(s.trace_id, s.span_id): s for s in spans}
        self.children: dict[tuple[str, str], list[Span]] = defaultdict(list)
        for s in spans:
            if s.parent_id:
                self.children[(s.trace_id, s.parent_id)].append(s)

    def before(self, spans: Iterable[Span] | None = None) -> list[Span]:
        return [s for s in (self.spans if spans is None else spans) if _epoch(s) < self.sc.onset]

    def after(self, spans: Iterable[Span] | None = None) -> list[Span]:
        return [s for s in (self.spans if spans is None else spans) if _epoch(s) >= self.sc.onset + SETTLE]

    def server(self, service: str) -> list[Span]:
        return [s for s in self.spans if s.service == service and s.kind in ("server", "consumer")]

    def calls(self, caller: str, callee: str) -> list[Span]:
        return [s for s in self.spans if s.service == caller and s.attributes.get("peer.service") == callee]

    def children_of(self, span: Span) -> list[Span]:
        return self.children[(span.trace_id, span.span_id)]

    def self_ms(self, span: Span) -> float:
        return span.duration_ms - sum(c.duration_ms for c in self.children_of(span))

    def wait_before_server(self, client: Span) -> float | None:
        """How long after the client span started the callee's server span did."""
        [server] = self.children_of(client) or [None]
        return None if server is None else (_epoch(server) - _epoch(client)) * 1000.0


def _spans(sc: Scenario) -> Spans:
    return Spans(sc, trace_spans(sc))


def _median(values: Iterable[float]) -> float:
    data = list(values)
    assert len(data) >= 8, f"too few samples for a median: {len(data)}"
    return statistics.median(data)


def _durations(spans: Iterable[Span]) -> list[float]:
    return [s.duration_ms for s in spans]


def _ratios(v: Spans, spans: list[Span], measure: Callable[[Span], float]) -> dict[str, float]:
    """Median after / median before the onset, per operation (operations differ in their work)."""
    out = {}
    for operation in sorted({s.operation for s in spans}):
        ops = [s for s in spans if s.operation == operation]
        before, after = v.before(ops), v.after(ops)
        if len(before) >= 8 and len(after) >= 8:
            out[operation] = statistics.median(map(measure, after)) / statistics.median(map(measure, before))
    assert out, "no operation with enough samples on both sides of the onset"
    return out


def _unchanged(ratios: dict[str, float]) -> bool:
    return all(0.7 < r < 1.43 for r in ratios.values())


def _duration(s: Span) -> float:
    return s.duration_ms


def _error_share(spans: list[Span]) -> float:
    return sum(s.status == "error" for s in spans) / len(spans) if spans else 0.0


def test_network_delay_lengthens_the_calls_into_a_node_not_its_own_work() -> None:
    sc = _scenario("network_latency", "h2")
    v = _spans(sc)
    into = v.calls("front", "mid")
    base = _median(_durations(v.before(into)))
    assert all(r > 1 + 10 / base for r in _ratios(v, into, _duration).values())
    waits_before = [w for s in v.before(into) if (w := v.wait_before_server(s)) is not None]
    waits_after = [w for s in v.after(into) if (w := v.wait_before_server(s)) is not None]
    assert _median(waits_after) > _median(waits_before) + 5
    assert _unchanged(_ratios(v, v.server("mid"), v.self_ms))
    for child in ("leaf", "db"):  # the children's own spans do not change
        assert _unchanged(_ratios(v, v.server(child), _duration))
    # front and side share h1: that call never crosses h2's link
    assert _unchanged(_ratios(v, v.calls("front", "side"), _duration))


def test_delay_on_a_services_own_network_lengthens_its_calls_in_and_out_not_its_own_work() -> None:
    """Delay injected on one pod's interface: its callers wait longer, so does it on what it calls,
    while what it calls answers as fast as ever and a call between two others is untouched."""
    sc = _scenario("network_latency", "mid")
    assert sc.plan.link_delay_ms >= 80
    v = _spans(sc)
    into = v.calls("front", "mid")
    base = _median(_durations(v.before(into)))
    assert all(r > 1 + 40 / base for r in _ratios(v, into, _duration).values())
    out = v.calls("mid", "leaf")
    assert all(r > 1 + 40 / _median(_durations(v.before(out))) for r in _ratios(v, out, _duration).values())
    assert _unchanged(_ratios(v, v.server("mid"), v.self_ms))
    assert _unchanged(_ratios(v, v.server("leaf"), _duration))
    assert _unchanged(_ratios(v, v.calls("front", "side"), _duration))


def test_a_leaf_with_a_delayed_network_keeps_its_own_server_latency() -> None:
    sc = _scenario("network_latency", "side")
    assert "latency_p99_ms" not in sc.plan.shapes  # it waits on nobody: its server-side latency does not move
    assert sc.plan.alert is None and not sc.plan.logs  # nothing renegotiates, nothing logs it
    v = _spans(sc)
    assert _unchanged(_ratios(v, v.server("side"), _duration))
    into = v.calls("front", "side")
    assert all(r > 1 + 40 / _median(_durations(v.before(into))) for r in _ratios(v, into, _duration).values())


def test_cpu_contention_lengthens_the_node_self_time_on_every_operation() -> None:
    sc = _scenario("cpu_saturation", "mid")
    v = _spans(sc)
    assert all(r > 2 for r in _ratios(v, v.server("mid"), v.self_ms).values())
    for other in ("front", "leaf", "db"):
        assert _unchanged(_ratios(v, v.server(other), v.self_ms)), other
    assert all(r > 1 for r in _ratios(v, v.calls("front", "mid"), _duration).values())


def _deepest_errors(v: Spans, spans: list[Span]) -> list[Span]:
    """Errored spans none of whose children errored: where each error originated."""
    return [s for s in spans if s.status == "error" and not any(c.status == "error" for c in v.children_of(s))]


@pytest.mark.parametrize(
    ("fault", "accept"),
    [
        ("config_error", None),
        ("deploy_regression", lambda sc: "error_rate" in sc.plan.shapes),
    ],
)
def test_code_fault_in_a_leaf_originates_errors_there_and_callers_surface_them(
    fault: str, accept: Callable[[Scenario], bool] | None
) -> None:
    sc = _scenario(fault, "leaf", accept=accept)
    v = _spans(sc)
    assert not [s for s in v.before() if s.status == "error"]
    origins = _deepest_errors(v, v.after())
    assert origins and {(s.service, s.kind) for s in origins} == {("leaf", "server")}
    leaf = v.server("leaf")
    assert _error_share(v.after(leaf)) > 0.1
    for origin in origins:  # every caller up to the root surfaces it
        span: Span | None = origin
        while span is not None:
            assert span.status == "error"
            span = v.by_id.get((span.trace_id, span.parent_id)) if span.parent_id else None
    for child in v.calls("leaf", "api"):
        assert child.status == "ok"


def test_a_wrong_answer_is_raised_in_the_callers_own_spans_while_the_callees_look_fine() -> None:
    sc = _scenario("deploy_regression", "leaf", accept=lambda s: s.plan.wrong_answers > 0)
    assert "error_rate" not in sc.plan.shapes and sc.plan.alert is None  # it counts no error of its own
    v = _spans(sc)
    assert _error_share(v.after(v.server("leaf"))) == 0.0
    assert _unchanged(_ratios(v, v.server("leaf"), _duration))
    mid = v.server("mid")
    failed = [s for s in v.after(mid) if s.status == "error"]
    assert _error_share(v.after(mid)) > 0.15 and _error_share(v.before(mid)) == 0.0
    # the error is mid's own: the call to leaf it made just before succeeded
    for span in failed:
        calls = sorted(v.children_of(span), key=_epoch)
        assert calls and calls[-1].attributes.get("peer.service") == "leaf" and calls[-1].status == "ok"
        # the answer under that call was made wrong at leaf, which the simulator marks (no tracer would)
        answers = v.children_of(calls[-1])
        assert answers and all(a.attributes.get(WRONG_ANSWER_KEY) is True for a in answers)
    marked = [s for s in v.server("leaf") if s.attributes.get(WRONG_ANSWER_KEY)]
    assert marked and not v.before(marked)  # only after the fault began


def test_dependency_down_shows_errored_client_spans_and_no_server_span() -> None:
    sc = _scenario("dependency_down", "db")
    v = _spans(sc)
    stop = sc.plan.metrics_stop or sc.onset
    assert v.before(v.server("db"))
    assert not [s for s in v.server("db") if _epoch(s) >= stop + 1]
    calls = [s for s in v.calls("mid", "db") if _epoch(s) >= stop + 1]
    assert calls and all(s.status == "error" for s in calls)
    assert all(not v.children_of(s) for s in calls)
    assert _median(_durations(calls)) < 20  # refused at once, not a timeout


def test_dns_failure_fails_the_resolving_callers_calls_before_they_reach_anyone() -> None:
    sc = _scenario("dns_failure", "resolver")
    v = _spans(sc)
    assert not [s for s in v.spans if s.service == "resolver"]
    origins = _deepest_errors(v, v.after())
    assert origins and {(s.service, s.kind) for s in origins} <= {("front", "client"), ("mid", "client")}
    assert all("resolving" in str(s.attributes.get("error.message")) for s in origins)
    assert not [s for s in v.after(v.calls("leaf", "api")) if s.status == "error"]  # leaf does not use it


def test_disk_full_fails_writes_at_the_node_and_reads_still_work() -> None:
    sc = _scenario("disk_full", "db")
    v = _spans(sc)
    db = v.after(v.server("db"))
    writes = [s for s in db if s.operation in ("INSERT", "UPDATE")]
    reads = [s for s in db if s.operation == "SELECT"]
    assert _error_share(writes) > 0.5 and _error_share(reads) == 0.0
    assert _error_share(v.before(v.server("db"))) == 0.0


def test_oom_kill_refuses_calls_while_the_process_restarts() -> None:
    sc = _scenario("oom_kill", "leaf")
    v = _spans(sc)
    refused = [s for s in v.after(v.calls("mid", "leaf")) if s.status == "error" and not v.children_of(s)]
    assert refused
    assert not [s for s in v.before() if s.status == "error"]


def test_memory_leak_grows_the_node_self_time() -> None:
    sc = _scenario("memory_leak", "leaf")
    v = _spans(sc)
    assert all(r > 1.8 for r in _ratios(v, v.server("leaf"), v.self_ms).values())
    assert _unchanged(_ratios(v, v.server("mid"), v.self_ms))


def test_packet_loss_retries_and_resets_calls_through_the_link() -> None:
    sc = _scenario("packet_loss", "h2")
    v = _spans(sc)

    def hit(client: Span) -> bool:
        """Errored, or 100 ms or more on the wire (retransmissions), beyond the callee's own span."""
        served = v.children_of(client)
        on_wire = client.duration_ms - sum(c.duration_ms for c in served)
        return client.status == "error" and not served or on_wire > 100

    def share(spans: list[Span]) -> float:
        return sum(map(hit, spans)) / len(spans)

    into = v.calls("front", "mid")
    assert share(v.after(into)) > 0.05 and share(v.after(into)) > 5 * share(v.before(into))
    assert share(v.after(v.calls("front", "side"))) == share(v.before(v.calls("front", "side"))) == 0.0


def test_traffic_surge_brings_more_requests_and_slows_what_is_downstream() -> None:
    sc = _scenario("traffic_surge", "mid")
    v = _spans(sc)
    roots = [s for s in v.spans if s.parent_id is None]
    start = max(sc.window_start, sc.onset - 1800)

    def per_minute(spans: list[Span], lo: float, hi: float) -> float:
        return sum(lo <= _epoch(s) < hi for s in spans) / ((hi - lo) / 60)

    assert per_minute(roots, sc.onset + SETTLE, sc.window_end) > 1.5 * per_minute(roots, start, sc.onset - 300)
    assert {s.service for s in v.after(roots)} >= {"front", "mid"}
    assert all(r > 2 for r in _ratios(v, v.server("mid"), v.self_ms).values())
    assert _unchanged(_ratios(v, v.server("front"), v.self_ms))  # upstream of the surge


def test_certificate_expiry_refuses_the_handshake_of_calls_into_it() -> None:
    sc = _scenario("certificate_expiry", "api")
    v = _spans(sc)
    calls = [s for s in v.calls("leaf", "api") if _epoch(s) >= sc.plan.start + 1]
    assert calls and all(s.status == "error" for s in calls)
    assert all("certificate" in str(s.attributes.get("error.message")) for s in calls)


def test_entities_without_spans_appear_only_as_their_callers_client_spans() -> None:
    sc = _scenario("cpu_saturation", "h3")
    v = _spans(sc)
    services = {s.service for s in v.spans}
    assert services == {"front", "side", "mid", "leaf", "db"}
    assert v.calls("leaf", "api")
    # What runs on the contended host slows on its own work; others do not.
    for name in ("leaf", "db"):
        assert all(r > 1.4 for r in _ratios(v, v.server(name), v.self_ms).values()), name
    for name in ("front", "mid"):
        assert _unchanged(_ratios(v, v.server(name), v.self_ms)), name


def test_traces_are_deterministic_for_a_seed() -> None:
    sc_a = _scenario("config_error", "leaf")
    sc_b = _scenario("config_error", "leaf")
    assert traces_jsonl(sc_a) == traces_jsonl(sc_b)
    _, files_1, _ = bundle_files(BUILT_IN["shop"], "memory_leak", 1, 0)
    _, files_2, _ = bundle_files(BUILT_IN["shop"], "memory_leak", 2, 0)
    assert files_1["traces.jsonl"] != files_2["traces.jsonl"]


def test_traces_leave_the_other_files_of_the_bundle_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    _, with_traces, _ = bundle_files(BUILT_IN["homelab"], "db_lock_contention", 5, 3)
    monkeypatch.setattr(render_module, "traces_jsonl", lambda sc, pod_of=None, max_spans=0: "")
    _, without, _ = bundle_files(BUILT_IN["homelab"], "db_lock_contention", 5, 3)
    assert {k: v for k, v in with_traces.items() if k != "traces.jsonl"} == {
        k: v for k, v in without.items() if k != "traces.jsonl"
    }


def test_generated_bundles_validate_with_traces_before_and_after_the_onset(tmp_path: Path) -> None:
    for g in generate(tmp_path, count=15, seed=11):
        bundle = load_bundle(g.path)  # validates every span against the spec
        spans = bundle.spans or ()
        assert 0 < len(spans) <= MAX_SPANS, g.path.name
        lo, hi = bundle.meta.window_start, bundle.meta.window_end
        assert all(lo <= s.start <= hi for s in spans)
        ids = {(s.trace_id, s.span_id) for s in spans}
        assert all(s.parent_id is None or (s.trace_id, s.parent_id) in ids for s in spans)
        assert len(ids) == len(spans)


def test_generated_traces_cover_both_sides_of_the_onset_and_their_cites_resolve(tmp_path: Path) -> None:
    [g] = generate(tmp_path, count=1, seed=4, topologies=["shop"], faults=["cpu_saturation"])
    bundle = load_bundle(g.path)
    spans = bundle.spans or ()
    truth = json.loads((g.path / "truth.json").read_text())
    onset = datetime.fromisoformat(truth["fault_onset"].replace("Z", "+00:00"))
    assert sum(s.start < onset for s in spans) > 300 and sum(s.start >= onset for s in spans) > 300
    lo, hi = int(bundle.meta.window_start.timestamp()), int(bundle.meta.window_end.timestamp())
    resolver = BundleCiteResolver(bundle)
    for cite in (
        f"traces.jsonl:{len(spans)}",
        f"traces.jsonl:frontend@{lo}-{hi}",
        f"traces.jsonl:frontend->checkout@{lo}-{hi}",
    ):
        assert resolver.check(cite).ok, resolver.check(cite).reason
    assert not resolver.check(f"traces.jsonl:payment->card-gateway@{lo}-{hi}").ok  # an external API has no spans


def test_vary_renames_and_shifts_the_traces(tmp_path: Path) -> None:
    [g] = generate(tmp_path / "src", count=1, seed=2, topologies=["shop"], faults=["dependency_down"])
    [variant] = vary_bundle(g.path, tmp_path / "out", count=1, seed=1)
    original, varied = load_bundle(g.path), load_bundle(variant)
    assert len(original.spans or ()) == len(varied.spans or ())
    names = {s.service for s in original.spans or ()}
    assert names and not names & {s.service for s in varied.spans or ()}
    assert (varied.spans or ())[0].start != (original.spans or ())[0].start
