"""What was not seen rules a hypothesis out only where someone was looking.

The metrics specialist invalidates a fault type only when every kind of series
it predicts exists at the entity and stayed flat; the logs specialist reads an
entity's quiet logs against a fault that would write there, not against a
process dying (a crash loop, an OOM kill); the changes specialist reads
"no deploy of this entity" as evidence only when the change history records
changes at all.
"""

from __future__ import annotations

from rootward.context.anomaly import ScoredSeries
from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding, TraceEntry
from rootward.engine.budget import Budget
from rootward.engine.specialists.base import Specialist
from rootward.engine.specialists.changes import ChangesSpecialist
from rootward.engine.specialists.logs import LogsSpecialist
from rootward.engine.specialists.metrics import MetricsSpecialist
from rootward.engine.tools import ToolLayer, context_tools
from tests.engine.small_incidents import ONSET_S, anomaly, change, incident, log


def _flat(service: str, metric: str, family: str) -> ScoredSeries:
    return ScoredSeries(
        service=service,
        metric=metric,
        family=family,  # type: ignore[arg-type]
        score=0.4,
        signed=0.4,
        baseline=60.0,
        after=61.0,
        peak=63.0,
        onset=ONSET_S,
    )


def _ctx(*series: ScoredSeries, changes: bool = False) -> Context:
    ctx = incident(
        kinds={"web": "service", "ads": "service"},
        edges=[("web", "ads", "depends_on")],
        alerting=["web"],
        changes=[change("web", minutes_before=30)] if changes else [],
    )
    return ctx.model_copy(update={"series": list(series)})


def _layer(specialist: Specialist, ctx: Context) -> ToolLayer:
    return ToolLayer(specialist.name, specialist.manifest, context_tools(ctx), Budget(), list[TraceEntry]())


def _check(specialist: Specialist, ctx: Context, fault: str) -> Finding:
    found = specialist.check(Hypothesis("H1", "ads", fault, 0.5), _layer(specialist, ctx))
    assert found is not None
    return found


def test_a_code_fault_is_not_ruled_out_by_flat_latency_when_the_entity_has_no_error_series() -> None:
    only_latency = _ctx(_flat("ads", "latency_p99_ms", "latency"))
    found = _check(MetricsSpecialist(), only_latency, "deploy_regression")
    assert found.status == "inconclusive"
    assert "no errors series" in found.summary


def test_a_code_fault_is_ruled_out_when_its_latency_and_error_series_both_stayed_flat() -> None:
    both = _ctx(_flat("ads", "latency_p99_ms", "latency"), _flat("ads", "http_5xx_rate", "errors"))
    found = _check(MetricsSpecialist(), both, "deploy_regression")
    assert found.status == "invalidated"
    assert "did not move beyond its baseline" in found.summary


def test_no_deploy_of_the_entity_is_silence_when_the_change_history_records_nothing_at_all() -> None:
    found = _check(ChangesSpecialist(), _ctx(), "deploy_regression")
    assert found.status == "inconclusive"
    assert "records no change" in found.summary


def test_no_deploy_of_the_entity_counts_against_it_when_the_history_records_other_changes() -> None:
    found = _check(ChangesSpecialist(), _ctx(changes=True), "deploy_regression")
    assert found.status == "invalidated"
    assert "no deploy change on ads" in found.summary


def test_an_expired_certificate_shows_as_requests_that_stopped_arriving_not_as_its_own_errors() -> None:
    """Clients fail the handshake before a request is served: its traffic falls, its error count may not move."""
    errors = _flat("ads", "http_5xx_rate", "errors")
    fell = anomaly("ads", "traffic", metric="request_rate", direction="down", baseline=200.0, after=20.0)
    rose = anomaly("ads", "traffic", metric="request_rate", baseline=200.0, after=600.0)
    starved = _ctx(errors, _flat("ads", "request_rate", "traffic")).model_copy(update={"anomalies": [fell]})
    surged = _ctx(errors, _flat("ads", "request_rate", "traffic")).model_copy(update={"anomalies": [rose]})
    assert _check(MetricsSpecialist(), starved, "certificate_expiry").status == "validated"
    assert _check(MetricsSpecialist(), surged, "certificate_expiry").status != "validated"
    assert _check(MetricsSpecialist(), _ctx(errors), "certificate_expiry").status == "inconclusive"


def test_a_deploy_long_before_the_onset_is_a_lead_and_a_fresh_one_confirms() -> None:
    """A bad version fails when it lands: one that sat quiet for an hour does not confirm a regression alone."""

    def deployed(minutes: int) -> Context:
        return _ctx().model_copy(update={"changes": [change("ads", minutes_before=minutes)]})

    stale = _check(ChangesSpecialist(), deployed(50), "deploy_regression")
    assert stale.status == "inconclusive" and "too long before to confirm it alone" in stale.summary
    assert _check(ChangesSpecialist(), deployed(4), "deploy_regression").status == "validated"


def test_a_process_that_dies_is_not_ruled_out_by_its_own_quiet_logs() -> None:
    """SIGKILL leaves no line, and a crash before the logger starts none: the orchestrator says it.

    A crash loop at a service whose own lines said nothing new (its KubePodCrashLooping alert
    did) was invalidated by the logs specialist, and the investigation found no root cause.
    A full disk or an expired certificate still shows in the logs of what it broke.
    """
    steady = log("ads", "GET /ads <NUM> <NUM>ms", severity="info", new=False)
    quiet = steady.model_copy(update={"is_surge": False, "failure_words": False})  # as before the onset
    ctx = incident(
        kinds={"web": "service", "ads": "service"}, edges=[("web", "ads", "depends_on")], alerting=["web"], logs=[quiet]
    )
    assert _check(LogsSpecialist(), ctx, "disk_full").status == "invalidated"
    for fault in ("crash_loop", "oom_kill"):
        found = LogsSpecialist().check(Hypothesis("H1", "ads", fault, 0.5), _layer(LogsSpecialist(), ctx))
        assert found is None or found.status != "invalidated", fault
