"""Without a map, services showing only symptoms after a node's disk filled are its victims.

Metrics-only data often has no dependency graph. Then four services whose error
series rose outranked the node whose disk had filled a minute before: more and
louder symptoms, and nothing to say who waits on whom. A resource that moved is a
mechanism; with no graph, an entity showing only symptoms that began after it
ranks as its possible victim. With a map, the map decides as before.
"""

from __future__ import annotations

from rootward.context.anomaly import Anomaly
from rootward.engine.hypotheses import score_entities
from rootward.engine.signals import EntityProfile
from rootward.engine.unmapped_victims import SAME_MOMENT_S, timed_out_on, unmapped_causes, unmapped_victim_of
from tests.engine.small_incidents import ONSET_S, anomaly, incident, log

SERVICES = ("orders", "billing", "search", "gateway")


def _disk_then_errors(*, edges: tuple[tuple[str, str, str], ...] = (), node_lead_s: int = 60) -> list[str]:
    kinds = {"node-3": "node", **{s: "service" for s in SERVICES}}
    anomalies = [anomaly("node-3", "disk", metric="disk_used_ratio", score=10.0, starts_s=-node_lead_s)]
    anomalies += [anomaly(s, "errors", metric="error_rate", score=150.0) for s in SERVICES]
    ctx = incident(kinds=kinds, edges=edges, alerting=["gateway"], anomalies=anomalies)
    return [s.entity for s in score_entities(ctx)]


def test_with_no_map_the_node_whose_disk_filled_first_outranks_the_services_erring_after_it() -> None:
    assert _disk_then_errors()[0] == "node-3"


def test_a_resource_that_moved_after_the_symptoms_explains_nothing() -> None:
    assert _disk_then_errors(node_lead_s=-5 * SAME_MOMENT_S)[0] != "node-3"


def test_with_a_map_the_map_decides() -> None:
    # The map says the services run elsewhere and call each other: gateway -> orders -> billing.
    edges = (
        ("gateway", "orders", "depends_on"),
        ("orders", "billing", "depends_on"),
        ("gateway", "search", "depends_on"),
    )
    assert _disk_then_errors(edges=edges)[0] != "node-3"


def test_an_entity_with_evidence_of_its_own_is_nobodys_victim() -> None:
    causes = unmapped_causes(
        {"node-3": EntityProfile("node-3", "node", True, resources=[anomaly("node-3", "cpu", starts_s=-60)])},
        ONSET_S,
    )
    erring = anomaly("orders", "errors", metric="error_rate")
    bare = EntityProfile("orders", "service", True, symptoms=[erring])
    logged = EntityProfile("orders", "service", True, symptoms=[erring], own_logs=[log("orders", "KeyError: 'sku'")])
    assert unmapped_victim_of("orders", bare, causes, traced_own=False) == "node-3"
    assert unmapped_victim_of("orders", logged, causes, traced_own=False) is None
    assert unmapped_victim_of("orders", bare, causes, traced_own=True) is None


def test_errors_that_began_after_a_held_slowdown_elsewhere_are_its_timeouts_a_latency_is_not() -> None:
    causes = unmapped_causes(
        {"ledger": EntityProfile("ledger", "service", True, symptoms=[anomaly("ledger", "latency", shape="step")])},
        ONSET_S,
    )
    timeouts = EntityProfile("transfers", "service", True, symptoms=[anomaly("transfers", "errors", starts_s=60)])
    waiting = EntityProfile("gateway", "service", True, symptoms=[anomaly("gateway", "latency", starts_s=60)])
    together = EntityProfile("audit", "service", True, symptoms=[anomaly("audit", "errors", starts_s=10)])
    assert unmapped_victim_of("transfers", timeouts, causes, traced_own=False) == "ledger"
    assert unmapped_victim_of("gateway", waiting, causes, traced_own=False) is None
    assert unmapped_victim_of("audit", together, causes, traced_own=False) is None


def _delay_then_timeouts() -> list[str]:
    """Without a map: ledger's latency steps up a little and holds; 90 s later transfers slows and fails loudly."""
    kinds = {"ledger": "service", "transfers": "service", "gateway": "service"}
    anomalies = [anomaly("ledger", "latency", metric="latency_p99_ms", after=1.3, score=6.0, shape="step")]
    anomalies.append(anomaly("transfers", "errors", metric="error_rate", after=30.0, score=550.0, starts_s=90))
    anomalies.append(anomaly("transfers", "latency", metric="latency_p99_ms", after=3.2, score=60.0, starts_s=95))
    ctx = incident(kinds=kinds, alerting=["gateway"], anomalies=anomalies)
    return [s.entity for s in score_entities(ctx)]


def test_a_caller_that_waited_and_then_failed_after_a_held_slowdown_ranks_below_it() -> None:
    # Timeouts: it slowed towards its timeout, then failed; all of it is the slowdown seen again.
    assert _delay_then_timeouts()[0] == "ledger"


def test_errors_without_waiting_are_no_timeouts_to_rank_below_a_slowdown() -> None:
    causes = unmapped_causes(
        {"ledger": EntityProfile("ledger", "service", True, symptoms=[anomaly("ledger", "latency", shape="step")])},
        ONSET_S,
    )
    failing = [anomaly("transfers", "errors", starts_s=90)]
    waiting = [*failing, anomaly("transfers", "latency", starts_s=95)]
    at_once = [anomaly("transfers", "errors", starts_s=10), anomaly("transfers", "latency", starts_s=10)]

    def tied(symptoms: list[Anomaly]) -> str | None:
        return timed_out_on(
            "transfers", EntityProfile("transfers", "service", True, symptoms=symptoms), causes, traced_own=False
        )

    assert tied(waiting) == "ledger"
    assert tied(failing) is None
    assert tied(at_once) is None


def test_a_memory_step_or_a_modest_step_long_before_is_no_cause_of_later_symptoms() -> None:
    """A store's memory step 6 minutes before made a delayed service (latency, nothing else) its victim."""
    erring = EntityProfile("orders", "service", True, symptoms=[anomaly("orders", "errors", metric="error_rate")])

    def cause(family: str, starts_s: int, score: float = 40.0) -> str | None:
        moved = anomaly("store", family, score=score, starts_s=starts_s)
        causes = unmapped_causes({"store": EntityProfile("store", "database", True, resources=[moved])}, ONSET_S)
        return unmapped_victim_of("orders", erring, causes, traced_own=False)

    assert cause("memory", starts_s=-60) is None
    assert cause("cpu", starts_s=-600, score=8.0) is None
    assert cause("cpu", starts_s=-60, score=8.0) == "store"


def test_memory_that_grew_at_an_entity_that_answered_as_ever_slowed_no_one() -> None:
    """A worker's heap climbing by a tenth made a pod whose network was delayed its victim, with no map."""
    delayed = EntityProfile("billing", "service", True, symptoms=[anomaly("billing", "latency", starts_s=480)])

    def cause(*moves: Anomaly, lines: tuple[str, ...] = ()) -> str | None:
        worker = EntityProfile(
            "worker",
            "service",
            True,
            resources=[m for m in moves if m.family != "latency"],
            symptoms=[m for m in moves if m.family == "latency"],
            own_logs=[log("worker", line) for line in lines],
        )
        causes = unmapped_causes({"worker": worker}, ONSET_S + 480)
        return unmapped_victim_of("billing", delayed, causes, traced_own=False)

    climbing = anomaly("worker", "memory", score=12.0, shape="ramp")
    assert cause(climbing) is None
    assert cause(climbing, anomaly("worker", "latency", starts_s=60)) == "worker"  # it slowed itself: a leak
    assert cause(climbing, lines=("Container worker was OOMKilled",)) == "worker"  # killed at its limit
    assert cause(climbing, anomaly("worker", "cpu", score=12.0, starts_s=400)) == "worker"  # CPU starves neighbours
    assert cause(climbing, anomaly("worker", "cpu", score=12.0, starts_s=520)) is None  # but only from when it rose
