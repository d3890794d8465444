"""Attribution from traces: the change is credited where it is the service's own, not where it is loudest."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rootward.bundle.validate import parse_traces
from rootward.context.assemble import Context
from rootward.context.trace_evidence import trace_findings
from rootward.engine.hypotheses import rank_hypotheses, score_entities
from rootward.engine.trace_attribution import TraceAttribution, attribute_traces
from tests.context.span_factory import BASELINE, DURING, Phase, incident_spans, request
from tests.engine.small_incidents import anomaly, change, incident, log

SHOP = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"]}
# `auth` is on every path: everyone calls it, and it calls its user database.
HUB = {
    "frontend": ["auth", "checkout", "catalog"],
    "checkout": ["auth", "payment"],
    "catalog": ["auth"],
    "auth": ["userdb"],
}


def _attribute(
    calls: Mapping[str, Sequence[str]], after: Phase, before: Phase | None = None
) -> dict[str, TraceAttribution]:
    spans = incident_spans(calls, "frontend", before or Phase(), after)
    return attribute_traces(trace_findings(spans, baseline=BASELINE, during=DURING))


def _context(calls: Mapping[str, Sequence[str]], after: Phase, before: Phase | None = None) -> Context:
    """A context with the topology of `calls`, the alert on the root, and only traces as evidence."""
    spans = incident_spans(calls, "frontend", before or Phase(), after)
    names = list(dict.fromkeys([*calls, *(c for cs in calls.values() for c in cs)]))
    edges = [(a, b, "depends_on") for a, cs in calls.items() for b in cs]
    ctx = incident(kinds={n: "service" for n in names}, edges=edges, alerting=["frontend"])
    found = trace_findings(spans, baseline=BASELINE, during=DURING)
    return ctx.model_copy(update={"trace_findings": found, "telemetry": {n: ["traces"] for n in names}})


def test_network_delay_at_a_callee_is_the_callees_network_and_the_caller_is_its_victim() -> None:
    by = _attribute(SHOP, Phase(network_ms={"cart": 80}))
    cart, checkout = by["cart"], by["checkout"]
    assert cart.hints[0].fault_type == "network_latency"
    assert cart.own > 0.5
    assert cart.hints[0].evidence[0].cite.startswith("traces.jsonl:checkout->cart@")
    assert checkout.own < cart.own / 2
    assert checkout.victim_of == "cart"
    assert by["frontend"].victim_of == "checkout" and by["frontend"].own == 0.0


def test_slower_own_work_is_saturation_or_a_slow_code_path_where_it_happens() -> None:
    by = _attribute(SHOP, Phase(own_ms={"payment": 40}))
    assert {h.fault_type for h in by["payment"].hints[:2]} == {"cpu_saturation", "deploy_regression"}
    assert by["checkout"].own == 0.0 and by["checkout"].victim_of == "payment"


def test_a_code_fault_in_a_leaf_is_blamed_where_the_errors_originate_not_where_they_surface() -> None:
    by = _attribute(SHOP, Phase(failing=frozenset({"payment"})))
    assert by["payment"].hints[0].fault_type == "deploy_regression"
    assert "originate" in by["payment"].reasons[0]
    for caller in ("checkout", "frontend"):
        assert by[caller].own == 0.0
    assert by["checkout"].victim_of == "payment"
    ranked = rank_hypotheses(_context(SHOP, Phase(failing=frozenset({"payment"}))))
    assert (ranked[0].entity, ranked[0].fault_type) == ("payment", "deploy_regression")


def test_other_code_paths_read_as_a_code_change_but_weaker_than_originating_errors() -> None:
    by = _attribute(SHOP, Phase(inner={"catalog": 0.1}), before=Phase(inner={"catalog": 0.9}))
    assert by["catalog"].hints[0].fault_type == "deploy_regression"
    assert 0.0 < by["catalog"].own <= 0.5
    assert "other paths" in by["catalog"].reasons[0]


def test_a_dependency_that_answers_no_call_is_down() -> None:
    by = _attribute(SHOP, Phase(down=frozenset({"payment"})))
    assert by["payment"].hints[0].fault_type == "dependency_down"
    assert "no answer" in by["payment"].reasons[0]
    assert by["checkout"].victim_of == "payment"
    ranked = rank_hypotheses(_context(SHOP, Phase(down=frozenset({"payment"}))))
    assert (ranked[0].entity, ranked[0].fault_type) == ("payment", "dependency_down")


def test_a_hub_on_every_path_is_not_the_culprit_for_being_on_every_path() -> None:
    # The hub's callers all slow down, and so does the hub, but the change is its database's network.
    by = _attribute(HUB, Phase(network_ms={"userdb": 60}))
    assert by["auth"].victim_of == "userdb"
    assert by["userdb"].hints[0].fault_type == "network_latency"
    assert by["userdb"].own > by["auth"].own
    ranked = rank_hypotheses(_context(HUB, Phase(network_ms={"userdb": 60})))
    assert (ranked[0].entity, ranked[0].fault_type) == ("userdb", "network_latency")
    scores = {s.entity: s for s in score_entities(_context(HUB, Phase(network_ms={"userdb": 60})))}
    assert "auth" not in scores  # nothing of its own changed: it is not even a candidate


def test_a_hub_whose_callers_are_slow_for_another_reason_gets_no_trace_credit() -> None:
    by = _attribute(HUB, Phase(own_ms={"payment": 50}))
    assert by["auth"].own == 0.0 and by["auth"].victim_of is None
    ranked = rank_hypotheses(_context(HUB, Phase(own_ms={"payment": 50})))
    assert ranked[0].entity == "payment"
    assert "auth" not in [h.entity for h in ranked[:3]]


def test_delay_on_a_middle_services_network_is_its_own_not_its_callees() -> None:
    # Delay into and out of checkout: every edge touching it slows, its callees' other edges do not.
    calls = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"], "catalog": ["cart"]}
    spans = incident_spans(calls, "frontend", Phase(), Phase(network_ms={"checkout": 60}))
    slow_out = [
        s.__class__(
            s.trace_id, s.span_id, s.service, s.start, s.duration_ms + 60, s.parent_id, s.status, s.kind, s.operation
        )
        if s.service == "checkout" and s.kind == "client" and s.start >= DURING[0]
        else s
        for s in spans
    ]
    by = attribute_traces(trace_findings(slow_out, baseline=BASELINE, during=DURING))
    assert by["checkout"].hints[0].fault_type == "network_latency"
    assert by["checkout"].own > max(by["payment"].own, by["cart"].own)


def test_no_spans_change_nothing_in_the_ranking() -> None:
    ctx = _context(SHOP, Phase())
    assert all(a.own == 0.0 and a.victim_of is None for a in attribute_traces(ctx.trace_findings).values())
    assert score_entities(ctx) == []


# A trimmed piece of a real incident: Nezha (IntelligentDDS/Nezha, MIT licence), Online Boutique,
# network delay injected into cartservice's pod at 04:27:03 UTC. Twenty requests from before and
# twenty after, each reduced to the front service's root span and its calls to cartservice and
# currencyservice. The spans carry no status and no kind, as in the dataset.
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "traces" / "nezha_ob_cart_network_delay.jsonl"


def test_on_real_spans_a_delay_on_the_callees_network_is_blamed_on_the_callee() -> None:
    spans = parse_traces(REAL.read_bytes())
    at = datetime(2022, 8, 22, 4, 27, 3, tzinfo=UTC)
    found = trace_findings(
        spans,
        baseline=(at - timedelta(minutes=10), at),
        during=(at + timedelta(seconds=7), at + timedelta(minutes=2)),
    )
    net = {f.where: f for f in found if f.kind == "network"}
    assert net["frontend->cartservice"].up and not net["frontend->currencyservice"].changed
    by = attribute_traces(found)
    assert by["cartservice"].hints[0].fault_type == "network_latency"
    assert by["frontend"].own == 0.0  # the caller of the slow calls is not credited with them
    assert by["cartservice"].own > 0.5


def test_a_callee_whose_answers_end_its_callers_work_is_the_code_fault_without_any_span_status() -> None:
    # No span says error: the wrong answers of `payment` show as checkout's calls stopping there.
    by = _attribute(SHOP, Phase(status=False, stops_after=frozenset({"payment"})), Phase(status=False))
    payment = by["payment"]
    assert payment.hints[0].fault_type == "deploy_regression"
    assert payment.own > 0.9  # its caller's calls also made fewer calls out: full weight
    assert "stop after calling payment" in payment.hints[0].reason
    assert payment.hints[0].evidence[0].cite.startswith("traces.jsonl:checkout->payment@")
    assert by["checkout"].own == 0.0 and by["frontend"].own == 0.0


def test_calls_that_end_at_a_callee_without_getting_shorter_count_half() -> None:
    # checkout calls cart after payment; once payment is slow to matter nothing is cut, but a
    # caller whose calls end elsewhere while making as many calls out is a weaker reading.
    before = Phase(status=False, stops_after=frozenset({"payment"}))
    by = _attribute({"frontend": ["checkout"], "checkout": ["payment", "cart"]}, Phase(status=False), before)
    cart = by["cart"]
    assert cart.hints and cart.hints[0].fault_type == "deploy_regression"
    assert 0.0 < cart.own <= 0.5


# `pricing` is asked by two callers; `payment` by checkout alone.
SHARED = {"frontend": ["checkout", "catalog"], "checkout": ["pricing", "payment"], "catalog": ["pricing"]}


def test_wrong_answers_of_a_shared_callee_are_its_fault_not_the_callers_that_raise_on_them() -> None:
    # pricing's spans are fine; checkout and catalog raise right after its answers.
    by = _attribute(SHARED, Phase(wrong_answers=frozenset({"pricing"})))
    pricing = by["pricing"]
    assert pricing.hints[0].fault_type == "deploy_regression" and pricing.own > 0.9
    assert "checkout, catalog" in pricing.hints[0].reason or "catalog, checkout" in pricing.hints[0].reason
    for caller in ("checkout", "catalog"):
        assert by[caller].victim_of == "pricing"  # however many errors originate in its own spans
    ranked = rank_hypotheses(_context(SHARED, Phase(wrong_answers=frozenset({"pricing"}))))
    assert (ranked[0].entity, ranked[0].fault_type) == ("pricing", "deploy_regression")
    assert any(e.cite.startswith("traces.jsonl:checkout->pricing@") for e in ranked[0].evidence)


def test_one_caller_raising_after_one_callee_stays_its_own_fault_with_the_callee_a_weaker_reading() -> None:
    # Only checkout asks payment: its own code failing there looks the same, so it keeps the errors.
    by = _attribute(SHARED, Phase(wrong_answers=frozenset({"payment"})))
    assert by["checkout"].victim_of is None and by["checkout"].own > 0.9
    assert 0.0 < by["payment"].own <= 0.5
    assert by["frontend"].victim_of == "checkout"


def _one_caller_raising(changed: Sequence[str]) -> Context:
    """checkout raises right after payment's answers (only checkout asks payment); `changed` were deployed."""
    ctx = _context(SHARED, Phase(wrong_answers=frozenset({"payment"})))
    return ctx.model_copy(update={"changes": [change(name, minutes_before=20) for name in changed]})


def test_one_caller_raising_after_a_callee_deployed_before_it_passes_on_the_callees_wrong_answers() -> None:
    scores = {s.entity: s for s in score_entities(_one_caller_raising(["payment"]))}
    assert scores["checkout"].victim_of == "payment"
    ranked = rank_hypotheses(_one_caller_raising(["payment"]))
    assert (ranked[0].entity, ranked[0].fault_type) == ("payment", "deploy_regression")
    assert "changes.json:deploy-payment" in [e.cite for e in ranked[0].evidence]


def test_one_caller_raising_after_a_callee_keeps_its_errors_when_it_was_deployed_too() -> None:
    scores = {s.entity: s for s in score_entities(_one_caller_raising(["payment", "checkout"]))}
    assert scores["checkout"].victim_of is None
    assert rank_hypotheses(_one_caller_raising(["payment", "checkout"]))[0].entity == "checkout"


def test_a_callee_asked_differently_by_callers_cut_short_elsewhere_gets_no_code_path_credit() -> None:
    # frontend's requests now end at checkout; catalog, called before it, runs other operations
    # because the cut-short requests ask it for something else, not because its code changed.
    calls = {"frontend": ["catalog", "checkout", "cart"]}
    before = Phase(status=False, inner={"catalog": 0.7})
    cut_short = Phase(status=False, inner={"catalog": 0.0}, stops_after=frozenset({"checkout"}))
    by = _attribute(calls, cut_short, before)
    assert by["checkout"].hints[0].fault_type == "deploy_regression"
    assert by["catalog"].own == 0.0
    # Without the cut-short requests, the same change of code path is catalog's own.
    alone = _attribute(calls, Phase(status=False, inner={"catalog": 0.0}), before)
    assert alone["catalog"].own > 0.0
    assert "code takes other paths" in alone["catalog"].reasons[0]


def _rare(calls: Mapping[str, Sequence[str]], after: Phase) -> dict[str, TraceAttribution]:
    """Four requests a side: no single call edge has calls enough to be compared on its own."""
    spans = incident_spans(calls, "frontend", Phase(), after, per_side=4)
    return attribute_traces(trace_findings(spans, baseline=BASELINE, during=DURING))


# checkout is asked rarely and calls three services; each of its edges carries four calls a side.
RARE = {"frontend": ["checkout"], "checkout": ["payment", "cart", "email"]}


def test_a_rarely_called_service_starved_on_its_own_side_is_found_from_its_calls_out_pooled() -> None:
    by = _rare(RARE, Phase(client_ms={"checkout": 60}))
    checkout = by["checkout"]
    assert checkout.own > 0.5
    assert checkout.hints[0].evidence[0].cite.startswith("traces.jsonl:checkout@")
    assert "checkout's calls out slowed" in checkout.hints[0].reason and "pooled" in checkout.hints[0].reason
    for callee in ("payment", "cart", "email"):
        assert by[callee].own == 0.0  # their own spans and the calls into them from elsewhere are fine


def test_a_rare_leaf_with_a_slow_network_is_found_from_the_calls_into_it_pooled_over_its_callers() -> None:
    calls = {"frontend": ["orders", "returns"], "orders": ["ledger"], "returns": ["ledger"]}
    by = _rare(calls, Phase(network_ms={"ledger": 80}))
    assert by["ledger"].hints[0].fault_type == "network_latency" and by["ledger"].own > 0.5
    assert by["orders"].own == 0.0 and by["returns"].own == 0.0


def test_one_slow_callee_does_not_make_its_only_caller_starved() -> None:
    # A caller with one callee: slow calls out are that callee's network, not the caller's own side.
    by = _rare({"frontend": ["checkout"], "checkout": ["payment"]}, Phase(network_ms={"payment": 80}))
    assert by["checkout"].own == 0.0


# `mailer` is a vendor API: it writes no spans, its callers' client spans are all there is of it.
VENDOR = {"frontend": ["checkout"], "checkout": ["payment", "mailer"]}


def test_a_callee_that_writes_no_spans_is_blamed_for_the_calls_to_it_that_slowed() -> None:
    quiet = Phase(spanless=frozenset({"mailer"}))
    by = _attribute(VENDOR, Phase(spanless=frozenset({"mailer"}), own_ms={"mailer": 400}), before=quiet)
    assert by["mailer"].hints[0].fault_type == "network_latency" and by["mailer"].own > 0.5
    # No span of mailer to cite: the calls are cited where they are, in the caller's spans.
    assert by["mailer"].hints[0].evidence[0].cite.startswith("traces.jsonl:checkout@")
    assert by["checkout"].victim_of == "mailer" and by["checkout"].own == 0.0


def test_a_callee_that_writes_no_spans_and_now_fails_is_down() -> None:
    quiet = Phase(spanless=frozenset({"mailer"}))
    by = _attribute(VENDOR, Phase(spanless=frozenset({"mailer"}), failing=frozenset({"mailer"})), before=quiet)
    assert [h.fault_type for h in by["mailer"].hints] == ["dependency_down"]


def test_a_starved_caller_takes_half_of_a_span_less_callees_slower_calls() -> None:
    quiet = Phase(spanless=frozenset({"mailer"}))
    vendor = _attribute(VENDOR, Phase(spanless=frozenset({"mailer"}), own_ms={"mailer": 400}), before=quiet)
    starved = _attribute(
        VENDOR,
        Phase(spanless=frozenset({"mailer"}), own_ms={"checkout": 400}, client_ms={"checkout": 400}),
        before=quiet,
    )
    assert starved["mailer"].own <= vendor["mailer"].own / 2 + 1e-9
    assert starved["checkout"].own > starved["mailer"].own


def test_a_callee_with_spans_of_its_own_gets_nothing_from_the_span_less_reading() -> None:
    by = _attribute(VENDOR, Phase(own_ms={"mailer": 400}))  # mailer writes spans: its own work says it all
    assert not any("writes no spans" in r for r in by["mailer"].reasons)


def test_with_only_traces_a_slow_vendor_is_the_top_entity() -> None:
    quiet = Phase(spanless=frozenset({"mailer"}))
    ctx = _context(VENDOR, Phase(spanless=frozenset({"mailer"}), own_ms={"mailer": 400}), before=quiet)
    assert score_entities(ctx)[0].entity == "mailer"


def test_a_loud_caller_failing_on_a_freshly_deployed_callees_answers_ranks_below_it() -> None:
    # checkout logs its failures by the hundred and its error series soared; payment's spans are fine.
    loud = _one_caller_raising(["payment"])
    loud = loud.model_copy(
        update={
            "anomalies": [anomaly("checkout", "errors", metric="error_rate", score=400.0)],
            "logs": [log("checkout", "TypeError: cannot read property 'amount' of null", onset_count=400)],
        }
    )
    scores = {s.entity: s for s in score_entities(loud)}
    assert scores["checkout"].victim_of == "payment"
    assert scores["checkout"].score <= scores["payment"].score
    assert any("ranked below payment" in r for r in scores["checkout"].reasons)


def test_raising_right_after_calls_that_went_wrong_is_the_callees_doing() -> None:
    """checkout raises in its own spans right after its calls to payment, and only checkout calls payment.

    Raising after a call reads two ways, the caller's bug or the answer it got, and one caller
    alone cannot tell them apart. A call that took 500 ms longer (or got no answer at all) is no
    answer to have a bug about: its errors are payment's. Before, checkout kept them as its own,
    as an uploader timing out on a queue on a node whose link flapped did, above the node.
    """
    slow = _attribute(SHOP, Phase(network_ms={"payment": 500}, wrong_answers=frozenset({"payment"})))
    assert slow["checkout"].victim_of == "payment"
    on_time = _attribute(SHOP, Phase(wrong_answers=frozenset({"payment"})))
    assert on_time["checkout"].victim_of is None


def test_a_caller_whose_few_calls_fail_where_a_callee_stopped_answering_is_that_callees_victim() -> None:
    """Spans without kinds: four requests after the onset, each failing at a payment call nobody answered.

    The failures surface in checkout's spans, which reads two ways (its bug, or the answer it
    got); a call no span answered is no answer to have a bug about. With the shares of failed
    and unanswered calls read over those four calls, payment is down and checkout its victim.
    """
    rng = random.Random(5)
    no_kinds, down = Phase(kind=False), Phase(kind=False, down=frozenset({"payment"}))
    spans = [s for i in range(60) for s in request(i, _at(BASELINE, i, 60), "frontend", SHOP, no_kinds, rng)]
    spans += [s for i in range(4) for s in request(100 + i, _at(DURING, i, 4), "frontend", SHOP, down, rng)]
    by = attribute_traces(trace_findings(spans, baseline=BASELINE, during=DURING))
    assert [h.fault_type for h in by["payment"].hints] == ["dependency_down"]
    assert by["checkout"].victim_of == "payment" and by["checkout"].own == 0.0


def _at(window: tuple[datetime, datetime], i: int, n: int) -> datetime:
    return window[0] + (window[1] - window[0]) * (i + 1) / (n + 1)


def test_one_slow_callee_judged_alone_is_not_its_callers_own_side_pooled_with_a_span_less_one() -> None:
    """search calls cluster, whose network is delayed, and a pricing API that writes no spans.

    Its calls out pooled slowed outside the callees' spans, and the one edge that can be judged
    alone (to cluster) grew: that looked like "every edge grew", so search was starved on its
    own side and cluster got nothing. One grown edge can be all of the pooled growth: it is the
    callee's, read edge by edge, and search is its victim.
    """
    calls = {"frontend": ["search"], "search": ["cluster", "pricing"]}
    vendor = frozenset({"pricing"})
    spans = incident_spans(
        calls, "frontend", Phase(spanless=vendor), Phase(spanless=vendor, network_ms={"cluster": 80})
    )
    by = attribute_traces(trace_findings(spans, baseline=BASELINE, during=DURING))
    assert by["cluster"].hints[0].fault_type == "network_latency" and by["cluster"].own > 0.5
    assert by["search"].own == 0.0 and by["search"].victim_of == "cluster"
