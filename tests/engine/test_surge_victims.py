"""A surge of requests arriving at one service is that service's, not its callees'.

Extra requests sent to one component (a request overload, a client gone wrong)
reach everything it calls: each callee's request rate rises with it and, past
its capacity, its latency too. On managed-cloud-like data a callee that queued
worse than the service the load arrived at outranked it, with a surge of its
own on record. A callee whose rate rose with a caller's surge, by no more than
that surge accounts for, and with no change of its own, is passing it on.
"""

from __future__ import annotations

from rootward.engine.hypotheses import score_entities
from rootward.engine.signals import EntityProfile
from rootward.engine.victims import PASSED_ON_SURGE, PROPAGATION_SLACK_S, fed_by_a_surge
from tests.engine.small_incidents import anomaly, change, incident

KINDS = {"gateway": "service", "checkout": "service", "payments": "service", "ledger-db": "database"}
EDGES = (
    ("gateway", "checkout", "depends_on"),
    ("checkout", "payments", "depends_on"),
    ("checkout", "ledger-db", "depends_on"),
    ("payments", "ledger-db", "depends_on"),
)


def _overload(*, caller_rate: float = 4.0) -> list[str]:
    """Requests x`caller_rate` at checkout; payments queues worse than checkout does."""
    anomalies = [
        anomaly("checkout", "traffic", metric="requests", after=caller_rate, score=60.0),
        anomaly("checkout", "latency", metric="latency", after=1.5, score=8.0),
        anomaly("payments", "traffic", metric="requests", after=3.6, score=60.0),
        anomaly("payments", "latency", metric="latency", after=3.0, score=30.0),
        anomaly("ledger-db", "traffic", metric="requests", after=1.3, score=9.0),
        anomaly("ledger-db", "latency", metric="latency", after=2.5, score=25.0),
        anomaly("gateway", "latency", metric="latency", after=1.4, score=7.0),
    ]
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["gateway"], anomalies=anomalies)
    return [s.entity for s in score_entities(ctx)]


def test_the_service_the_surge_arrived_at_outranks_the_callees_it_passed_it_to() -> None:
    assert _overload()[0] == "checkout"


def test_a_callee_surging_beyond_what_its_caller_sends_has_a_surge_of_its_own() -> None:
    # checkout's rate barely moved: payments' x3.6 did not come over that call.
    assert _overload(caller_rate=1.6)[0] != "checkout"


def _profile(name: str, ratio: float, *, starts_s: int = 0, changed: bool = False) -> EntityProfile:
    rate = anomaly(name, "traffic", metric="requests", after=ratio, starts_s=starts_s)
    return EntityProfile(name, "service", True, traffic=[rate], changes=[change(name)] if changed else [])


def test_only_a_rise_the_callers_surge_accounts_for_at_the_same_time_is_passed_on() -> None:
    g = incident(kinds=KINDS, edges=EDGES, alerting=["gateway"]).topology.graph()
    caller = _profile("checkout", 4.0)

    def fed(callee: EntityProfile, step_s: int = 0) -> str | None:
        return fed_by_a_surge("payments", callee, g, {"checkout": caller, "payments": callee}, step_s)

    assert fed(_profile("payments", 4.0)) == "checkout"
    assert fed(_profile("payments", 1.2)) == "checkout"  # a callee with other callers rises less
    assert fed(_profile("payments", 4.0 * PASSED_ON_SURGE * 1.5)) is None  # more than the caller sends
    assert fed(_profile("payments", 4.0, starts_s=-2 * PROPAGATION_SLACK_S)) is None  # it surged first
    assert fed(_profile("payments", 4.0, starts_s=10 * PROPAGATION_SLACK_S)) is None  # minutes later: another load
    # At 5-minute samples the same surge can be read a sample apart: one step is the same moment.
    assert fed(_profile("payments", 4.0, starts_s=300), step_s=300) == "checkout"
    assert fed(_profile("payments", 4.0, starts_s=300)) is None
    assert fed(_profile("payments", 4.0, changed=True)) is None  # a change of its own may be the cause


def test_a_caller_retrying_a_failing_callee_sends_no_surge_of_its_own() -> None:
    # Retries raise the callee's rate, not the caller's: nothing to pass on.
    g = incident(kinds=KINDS, edges=EDGES, alerting=["gateway"]).topology.graph()
    caller = EntityProfile("checkout", "service", True, symptoms=[anomaly("checkout", "errors")])
    callee = _profile("payments", 3.0)
    assert fed_by_a_surge("payments", callee, g, {"checkout": caller, "payments": callee}) is None


def test_a_surge_diluted_on_its_way_down_still_reaches_the_callee_it_slowed() -> None:
    # gateway's surge reaches checkout, which has other callers: its rate rises by less than a
    # surge, and passes that on to payments. payments is fed by gateway's surge, two calls up.
    g = incident(kinds=KINDS, edges=EDGES, alerting=["gateway"]).topology.graph()
    gateway, checkout = _profile("gateway", 2.7), _profile("checkout", 1.4)

    def fed(callee: EntityProfile, carrier: EntityProfile) -> str | None:
        profiles = {"gateway": gateway, "checkout": carrier, "payments": callee}
        return fed_by_a_surge("payments", callee, g, profiles)

    assert fed(_profile("payments", 1.4), checkout) == "gateway"
    assert fed(_profile("payments", 1.4), _profile("checkout", 1.0, starts_s=10 * PROPAGATION_SLACK_S)) is None
    quiet = EntityProfile("checkout", "service", True)
    assert fed(_profile("payments", 1.4), quiet) is None  # nothing carried it down: not the same load
    assert fed(_profile("payments", 2.7 * PASSED_ON_SURGE * 1.5), checkout) is None  # more than came down
