"""Span aggregates before vs after the onset: what moved, where, and what each rests on."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.bundle.write import write_alerts, write_incident
from rootward.context.assemble import assemble_context
from rootward.context.span_graph import route_of
from rootward.context.trace_evidence import (
    Z_SHARE,
    TraceFinding,
    _rare_by_chance,
    bonferroni_z,
    compared_windows,
    trace_findings,
)
from rootward.context.window import incident_window, with_onset
from rootward.domain.alert import Alert, Severity
from rootward.domain.incident import IncidentMeta
from rootward.domain.telemetry import Span
from rootward.sources.bundle import bundle_sources
from tests.context.span_factory import BASELINE, DURING, Phase, incident_spans, request, write_traced_bundle

CALLS = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"]}


def _findings(before: Phase, after: Phase, **kw: int) -> dict[tuple[str, str], TraceFinding]:
    spans = incident_spans(CALLS, "frontend", before, after, **kw)
    return {(f.kind, f.where): f for f in trace_findings(spans, baseline=BASELINE, during=DURING)}


def test_network_delay_into_a_callee_lengthens_the_calls_into_it_not_its_own_work() -> None:
    f = _findings(Phase(), Phase(network_ms={"cart": 80}))
    assert f[("network", "checkout->cart")].up
    assert f[("network", "checkout->cart")].after > 60
    assert not f[("callee_self_time", "checkout->cart")].changed
    assert not f[("self_time", "cart")].changed
    assert not f[("latency", "cart")].changed  # its server spans did not see the delay
    assert not f[("network", "checkout->payment")].changed


def test_self_time_excludes_the_time_spent_in_calls_out() -> None:
    f = _findings(Phase(), Phase(own_ms={"payment": 60}))
    assert f[("latency", "checkout")].up and f[("latency", "frontend")].up
    assert not f[("self_time", "checkout")].changed
    assert not f[("self_time", "frontend")].changed
    assert f[("self_time", "payment")].up
    assert f[("callee_self_time", "checkout->payment")].up


def test_one_pathological_request_does_not_move_the_median() -> None:
    spans = incident_spans(CALLS, "frontend", Phase(), Phase())
    outlier = next(s for s in spans if s.service == "payment" and s.start >= DURING[0])
    spans[spans.index(outlier)] = Span(
        outlier.trace_id, outlier.span_id, "payment", outlier.start, 10_000.0, outlier.parent_id, "ok", "server"
    )
    found = {(f.kind, f.where): f for f in trace_findings(spans, baseline=BASELINE, during=DURING)}
    assert not found[("latency", "payment")].changed
    assert not found[("self_time", "payment")].changed
    assert found[("latency", "payment")].after < 3


def test_errors_originate_in_the_failing_leaf_and_surface_in_its_callers() -> None:
    f = _findings(Phase(), Phase(failing=frozenset({"payment"})))
    assert f[("origin_errors", "payment")].up
    assert f[("errors", "checkout")].up and f[("errors", "frontend")].up
    assert not f[("origin_errors", "checkout")].changed
    assert not f[("origin_errors", "frontend")].changed
    assert f[("call_errors", "checkout->payment")].up


def test_a_service_whose_calls_run_other_inner_steps_took_another_code_path() -> None:
    f = _findings(Phase(inner={"catalog": 0.9, "cart": 0.5}), Phase(inner={"catalog": 0.1, "cart": 0.5}))
    path = f[("code_path", "catalog")]
    assert path.changed and path.before > 0.7 and path.after < 0.3
    assert "(inner step)" in path.evidence.excerpt
    assert not f[("code_path", "cart")].changed


def test_calls_no_span_answers_are_unanswered_and_keep_their_callee_without_span_kinds() -> None:
    # No kinds and no peer attribute: the callee is what the same operation called before.
    f = _findings(Phase(kind=False), Phase(kind=False, down=frozenset({"payment"})))
    unanswered = f[("unanswered", "checkout->payment")]
    assert unanswered.up and unanswered.before == 0.0 and unanswered.after == 1.0
    assert not f[("unanswered", "checkout->cart")].changed


def test_an_operation_named_by_its_url_is_one_operation_so_unanswered_calls_keep_their_callee() -> None:
    # No kinds, no peer attribute, and every call's operation carries the id it asked for.
    spans = incident_spans(CALLS, "frontend", Phase(kind=False), Phase(kind=False, down=frozenset({"payment"})))
    spans = [replace(s, operation=f"GET /{s.operation}/{i + 1000}") for i, s in enumerate(spans)]
    f = {(x.kind, x.where): x for x in trace_findings(spans, baseline=BASELINE, during=DURING)}
    unanswered = f[("unanswered", "checkout->payment")]
    assert unanswered.up and unanswered.after == 1.0


def test_routes_read_ids_as_one_placeholder() -> None:
    assert route_of("GET /api/orders/8812?expand=items") == "GET /api/orders/{id}"
    assert route_of("POST /order/5ad7750b-a68b-49c0-a8c0-32776b067703/pay") == "POST /order/{id}/pay"
    assert route_of("GET /api/v1/items/0f3a9c2b7d1e") == "GET /api/v1/items/{id}"
    assert route_of("GET /users/alice") == "GET /users/alice"  # a word is a route
    assert route_of("hipstershop.CartService/GetCart") == "hipstershop.CartService/GetCart"


def test_without_any_span_status_there_are_no_error_aggregates() -> None:
    f = _findings(Phase(status=False), Phase(status=False, failing=frozenset({"payment"})))
    assert not any(kind in ("errors", "origin_errors", "call_errors") for kind, _ in f)
    assert ("latency", "payment") in f


def test_too_few_calls_on_either_side_give_no_latency_or_failure_aggregate() -> None:
    f = _findings(Phase(), Phase(network_ms={"cart": 80}), per_side=4)
    # Shares of all calls, of which there are enough, and frontend's calls out pooled over its callees.
    assert {kind for kind, _ in f} == {"volume", "call_volume", "network_out"}


def _sparse_after(
    after: Phase | Sequence[Phase], calls_after: int = 0, before: Phase | None = None
) -> dict[tuple[str, str], TraceFinding]:
    """A well-sampled baseline, then only a few requests after the onset (a sparse edge of a big system).

    `after`: the phase of every request after the onset (`calls_after` of them), or one phase per request.
    """
    rng = random.Random(11)
    afters = [after] * calls_after if isinstance(after, Phase) else list(after)
    spans: list[Span] = []
    for side, phases, (lo, hi) in ((0, [before or Phase()] * 60, BASELINE), (1, afters, DURING)):
        step = (hi - lo) / (len(phases) + 1)
        for i, phase in enumerate(phases):
            spans += request(side * 100 + i, lo + step * (i + 1), "frontend", CALLS, phase, rng)
    return {(f.kind, f.where): f for f in trace_findings(spans, baseline=BASELINE, during=DURING)}


def test_three_calls_after_the_onset_show_a_call_that_became_many_times_slower() -> None:
    f = _sparse_after(Phase(network_ms={"cart": 400}), calls_after=3)
    assert f[("network", "checkout->cart")].up
    assert f[("network", "checkout->cart")].n_after == 3
    assert not f[("callee_self_time", "checkout->cart")].changed


def test_three_calls_after_the_onset_do_not_make_a_moderate_slowdown_a_change() -> None:
    """What sixty calls show surely, three only hint at: the shift is shrunk for the few."""
    assert _sparse_after(Phase(own_ms={"cart": 5.0}), calls_after=60)[("self_time", "cart")].up
    assert not _sparse_after(Phase(own_ms={"cart": 5.0}), calls_after=3)[("self_time", "cart")].changed


def test_two_calls_after_the_onset_give_no_time_aggregate() -> None:
    f = _sparse_after(Phase(network_ms={"cart": 400}), calls_after=2)
    assert ("network", "checkout->cart") not in f


def test_a_callee_that_stopped_answering_shows_in_the_four_calls_of_a_sparse_edge() -> None:
    """Four calls after the onset, none answered, against sixty that all were: the callee went away.

    Shares were read over five calls or more only, so a callee called once a minute that
    stopped answering left no finding, and its caller's calls ending there read as its own bug.
    """
    no_kinds = Phase(kind=False)
    f = _sparse_after(Phase(kind=False, down=frozenset({"payment"})), 4, before=no_kinds)
    unanswered = f[("unanswered", "checkout->payment")]
    assert unanswered.up and unanswered.n_after == 4 and unanswered.after == 1.0
    assert not f[("unanswered", "checkout->cart")].changed


def test_one_failure_in_three_calls_against_a_clean_baseline_is_no_change() -> None:
    """Against none in sixty, one failing call in three happens by chance often enough; three in three does not."""
    failing = Phase(failing=frozenset({"payment"}))
    one = _sparse_after([failing, Phase(), Phase()])[("origin_errors", "payment")]
    assert one.n_after == 3 and one.after > 0.3 and not one.changed
    assert _sparse_after(failing, 3)[("origin_errors", "payment")].up


def test_a_sparse_share_counts_when_its_hits_are_rare_at_the_baselines_rate() -> None:
    assert _rare_by_chance(0, 60, 4, 4) and _rare_by_chance(0, 52, 3, 3)
    assert not _rare_by_chance(0, 52, 1, 3)  # one in three, at a rate near one in a hundred: six times in a hundred
    assert not _rare_by_chance(30, 60, 3, 3)  # a share that was half before: three in three is one time in eight
    assert not _rare_by_chance(10, 60, 0, 4)  # a fall is never read from a handful of calls


def test_calls_between_an_early_onset_and_the_compared_stretch_count_on_neither_side() -> None:
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(network_ms={"cart": 80}))
    # Claim the baseline runs up to the middle of the faulty stretch: the faulty calls in it
    # would poison the baseline, so only a later stretch is compared with the one before.
    middle = DURING[0] + (DURING[1] - DURING[0]) / 2
    found = trace_findings(spans, baseline=(BASELINE[0], DURING[0]), during=(middle, DURING[1]))
    net = next(f for f in found if f.kind == "network" and f.where == "checkout->cart")
    assert net.up and net.n_after < 40


def test_every_finding_cites_spans_that_resolve_in_the_bundle(tmp_path: Path) -> None:
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(network_ms={"cart": 80}, down=frozenset({"payment"})))
    bundle = load_bundle(write_traced_bundle(tmp_path / "b", spans, CALLS))
    found = trace_findings(bundle.spans or (), baseline=BASELINE, during=DURING)
    resolver = BundleCiteResolver(bundle)
    assert found
    assert [f.evidence.cite for f in found if not resolver.resolves(f.evidence.cite)] == []
    cites = {f.evidence.cite.split("@")[0] for f in found}
    assert "traces.jsonl:checkout->cart" in cites and "traces.jsonl:cart" in cites


def test_assembled_context_carries_the_findings_and_a_missing_trace_file_is_a_named_gap(tmp_path: Path) -> None:
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(network_ms={"cart": 80}))
    root = write_traced_bundle(tmp_path / "b", spans, CALLS)
    bundle = load_bundle(root)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert any(f.kind == "network" and f.where == "checkout->cart" and f.up for f in ctx.trace_findings)
    assert "traces" in ctx.telemetry["cart"]
    assert ctx.missing_source("traces") is None
    (root / "traces.jsonl").unlink()
    bundle = load_bundle(root)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert ctx.trace_findings == []
    assert ctx.missing_source("traces") == "no traces: traces.jsonl missing from bundle"


def test_twenty_thousand_spans_are_aggregated_in_well_under_a_second() -> None:
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(network_ms={"cart": 80}), per_side=1112)
    assert len(spans) >= 20_000
    best = min(_timed(spans) for _ in range(3))
    assert best < 0.25, best  # ~30 ms on one idle core; the bound leaves room for a busy machine


def _timed(spans: list[Span]) -> float:
    started = time.perf_counter()
    trace_findings(spans, baseline=BASELINE, during=DURING)
    return time.perf_counter() - started


def test_an_empty_trace_file_gives_no_findings() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert (
        trace_findings([], baseline=(now - timedelta(minutes=5), now), during=(now, now + timedelta(minutes=1))) == []
    )


def test_without_span_status_a_callee_whose_answers_end_the_callers_work_shows_in_the_traces_shape() -> None:
    # frontend calls checkout, then catalog; once checkout's answers are unusable it stops there.
    quiet = Phase(status=False)
    f = _findings(quiet, Phase(status=False, stops_after=frozenset({"checkout"})))
    ended = f[("last_call", "frontend->checkout")]
    assert ended.up and ended.before == 0.0 and ended.after == 1.0
    assert f[("last_call", "frontend->catalog")].changed and f[("last_call", "frontend->catalog")].score < 0
    fanout = f[("fanout", "frontend")]
    assert fanout.changed and fanout.before == 2.0 and fanout.after == 1.0
    assert "calls out per call" in fanout.evidence.excerpt
    assert not f[("fanout", "checkout")].changed  # checkout's own calls are whole
    assert not any(kind in ("errors", "origin_errors", "call_errors") for kind, _ in f)


def test_the_most_moved_of_many_inner_operations_must_clear_a_bar_for_that_many_tries() -> None:
    assert abs(bonferroni_z(1) - Z_SHARE) < 1e-6
    assert bonferroni_z(10) > bonferroni_z(2) > Z_SHARE


def test_the_one_sampling_interval_before_the_onset_is_compared_as_after() -> None:
    window = with_onset(incident_window(DURING[1]), DURING[0])
    step = timedelta(minutes=1)
    (base_lo, base_hi), (after_lo, after_hi) = compared_windows(window, step)
    assert base_hi == DURING[0] - step == after_lo  # nothing of that interval on the baseline side
    assert after_hi > DURING[0] and base_lo < base_hi


def test_an_onset_between_a_groups_first_and_last_alert_is_this_incidents() -> None:
    """A job alert fired (and resolved) minutes before the fault; the fault's own alerts joined after it."""
    onset = DURING[0]
    early = onset - timedelta(minutes=8)  # the group's first alert, before anything of the fault
    step = timedelta(minutes=1)
    alone = with_onset(incident_window(early), onset)
    (_, base_hi), (after_lo, _) = compared_windows(alone, step)
    assert base_hi < onset - step  # an onset after the only alert is none of this incident's: a guess
    grouped = alone.model_copy(update={"last_alert": onset + timedelta(minutes=3)})
    assert grouped.alerted_by == onset + timedelta(minutes=3)
    (_, base_hi), (after_lo, after_hi) = compared_windows(grouped, step)
    assert base_hi == onset - step == after_lo and after_hi > onset


def test_spans_are_compared_at_an_onset_after_a_groups_first_alert(tmp_path: Path) -> None:
    """The group's first alert fired on its own 8 minutes before cart's network slowed; the latency alert later."""
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(network_ms={"cart": 80}))
    root = write_traced_bundle(tmp_path / "b", spans, CALLS)
    early = DURING[0] - timedelta(minutes=8)
    write_incident(root, IncidentMeta("traced-02", "Job failed", early, early - timedelta(minutes=30), DURING[1]))
    job = Alert("fp0", "KubeJobFailed", "catalog", Severity.P3, "resolved", early, {"service": "catalog"})
    slow = Alert("fp1", "HighLatency", "frontend", Severity.P1, "firing", DURING[1], {"service": "frontend"})
    write_alerts(root, [job, slow])
    bundle = load_bundle(root)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert ctx.window.alerted_by == DURING[1]
    network = {f.where: f for f in ctx.trace_findings if f.kind == "network"}
    assert network["checkout->cart"].up


def _spans_over(phases: list[tuple[Phase, datetime, datetime, int]]) -> list[Span]:
    rng = random.Random(3)
    out: list[Span] = []
    for i, (phase, lo, hi, n) in enumerate(phases):
        step = (hi - lo) / (n + 1)
        out += [s for k in range(n) for s in request(i * 1000 + k, lo + step * (k + 1), "frontend", CALLS, phase, rng)]
    return out


def test_a_baseline_holding_an_earlier_event_is_compared_by_its_latest_level() -> None:
    # The first part of the baseline is the tail of an earlier incident (cart's network far slower);
    # the last stretch before the onset is the level this incident's delay moved away from.
    latest = BASELINE[1] - timedelta(minutes=3)
    spans = _spans_over(
        [
            (Phase(network_ms={"cart": 400}), BASELINE[0], latest - timedelta(minutes=2), 40),
            (Phase(), latest, BASELINE[1], 20),
            (Phase(network_ms={"cart": 80}), *DURING, 40),
        ]
    )
    found = {(f.kind, f.where): f for f in trace_findings(spans, baseline=BASELINE, during=DURING)}
    net = found[("network", "checkout->cart")]
    assert net.up and net.n_before == 20 and net.before < 5
    # A baseline of one level keeps all its calls.
    steady = _findings(Phase(), Phase(network_ms={"cart": 80}))
    assert steady[("network", "checkout->cart")].n_before == 60


def test_a_baseline_whose_latest_stretch_is_an_earlier_incident_is_compared_by_its_healthy_level() -> None:
    # Where the store kept only the minutes of each incident (a snapshot, a sampled archive), the
    # last stretch before this onset can be an earlier incident at the same callee: slow and
    # widely spread. Against that level this incident's delay would read as a recovery.
    latest = BASELINE[1] - timedelta(minutes=3)
    rng = random.Random(5)
    earlier = [Phase(network_ms={"cart": rng.choice([800, 1500, 3000, 3300])}) for _ in range(4)]
    phases = [(Phase(), BASELINE[0], latest - timedelta(minutes=2), 40)]
    step = (BASELINE[1] - latest) / 4
    phases += [(p, latest + step * i, latest + step * (i + 1), 6) for i, p in enumerate(earlier)]
    phases.append((Phase(network_ms={"cart": 600}), *DURING, 40))
    found = {(f.kind, f.where): f for f in trace_findings(_spans_over(phases), baseline=BASELINE, during=DURING)}
    net = found[("network", "checkout->cart")]
    assert net.up and net.n_before == 40 and net.before < 5


def test_a_share_of_failing_calls_is_compared_with_the_baselines_healthier_level() -> None:
    # The last stretch before the onset is a previous incident in which every payment call failed
    # (a store that kept only the minutes around each incident); now half of them fail. Against the
    # baseline's mixed share (a third) that is no change; against its healthy level it is the fault.
    latest = BASELINE[1] - timedelta(minutes=3)
    failing = Phase(failing=frozenset({"payment"}))
    spans = _spans_over(
        [
            (Phase(), BASELINE[0], latest - timedelta(minutes=2), 40),
            (failing, latest, BASELINE[1], 20),
            (failing, *DURING, 20),
            (Phase(), *DURING, 20),
        ]
    )
    found = {(f.kind, f.where): f for f in trace_findings(spans, baseline=BASELINE, during=DURING)}
    origin = found[("origin_errors", "payment")]
    assert origin.up and origin.n_before == 40 and origin.before == 0.0


def test_a_baseline_of_minute_blocks_is_compared_by_the_block_that_was_healthy_at_the_call() -> None:
    # A store that kept only the minutes of each fault injection: the baseline is the blocks of the
    # two injections before this one, the later of them a delay on cart's network. Against both
    # blocks, cart's delay now is lost in their spread; against the block that was normal at cart
    # (the earlier injection broke catalog), it is the fault.
    b0 = BASELINE[0]
    blocks = [
        (Phase(failing=frozenset({"catalog"})), b0, b0 + timedelta(minutes=3), 30),
        (Phase(network_ms={"cart": 400}), b0 + timedelta(minutes=8), b0 + timedelta(minutes=11), 30),
        (Phase(network_ms={"cart": 150}), *DURING, 40),
    ]
    found = {(f.kind, f.where): f for f in trace_findings(_spans_over(blocks), baseline=BASELINE, during=DURING)}
    net = found[("network", "checkout->cart")]
    assert net.up and net.changed and net.n_before == 30 and net.before < 5
    # Without the holes between them the two injections are one stretch, and the delay is lost.
    joined = [
        (blocks[0][0], b0, b0 + timedelta(minutes=8), 30),
        (blocks[1][0], b0 + timedelta(minutes=8), *blocks[1][2:]),
    ]
    found = {
        (f.kind, f.where): f
        for f in trace_findings(_spans_over([*joined, blocks[2]]), baseline=BASELINE, during=DURING)
    }
    assert not found[("network", "checkout->cart")].changed


def test_a_sparse_edge_is_read_over_more_of_the_fault_than_the_stretch_after_the_onset() -> None:
    """An edge called twice in the stretch compared after the onset, and six times in as long again after it.

    Two calls say nothing (fewer than 3 after the onset are no aggregate), so a delay on its
    network left no finding at all; read up to `sparse_until`, the same edge shows it. A busy
    edge keeps its stretch: what follows may be recovery or the next event.
    """
    rng = random.Random(3)
    stretch = DURING[1] - DURING[0]
    delayed = Phase(network_ms={"cart": 80})
    at = [BASELINE[0] + (BASELINE[1] - BASELINE[0]) * (i + 0.5) / 12 for i in range(12)]
    spans = [s for i, t in enumerate(at) for s in request(i, t, "frontend", CALLS, Phase(), rng)]
    after = [DURING[0] + stretch * k for k in (0.3, 0.7, 1.2, 1.3, 1.5, 1.6, 1.8, 1.9)]
    spans += [s for i, t in enumerate(after) for s in request(100 + i, t, "frontend", CALLS, delayed, rng)]

    def network(until: datetime | None) -> TraceFinding | None:
        found = trace_findings(spans, baseline=BASELINE, during=DURING, sparse_until=until)
        return next((f for f in found if (f.kind, f.where) == ("network", "checkout->cart")), None)

    assert network(None) is None
    late = network(DURING[1] + stretch)
    assert late is not None and late.up and late.n_after == 8
    assert network(DURING[1] + stretch * 0.1) is None  # the window ends before the later calls
