"""The no-fault verdict from hand-built contexts: each reason, and what must block it."""

from __future__ import annotations

from datetime import timedelta

from rootward.context.anomaly import Anomaly
from rootward.context.assemble import Context, KnowledgeItem
from rootward.context.recovery import AlertState
from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding
from rootward.engine.supervisor import Assessment
from rootward.engine.verdict import decide_no_fault
from tests.engine.small_incidents import FIRED_AT, anomaly, change, incident, log

KINDS = {"web": "service", "api": "service", "db": "database", "cache": "cache"}
EDGES = [("web", "api", "depends_on"), ("api", "db", "depends_on"), ("web", "cache", "depends_on")]


def _state(service: str, name: str = "HighLatencyP99", **kw: object) -> AlertState:
    fingerprint = f"{service}-higherrorrate"
    signal = EvidenceRef(
        "metric", f"metrics.csv:{service}/latency_p99_ms@1-2", f"{service} latency_p99_ms 120 (z +0.4)"
    )
    values: dict[str, object] = {"signal_z": 0.4, "signal": signal, "family": "latency"} | kw
    return AlertState(
        fingerprint=fingerprint,
        name=name,
        service=service,
        starts_at=FIRED_AT,
        evidence=EvidenceRef("alert", f"alerts.json:{fingerprint}", f"{name} on {service}"),
        **values,  # type: ignore[arg-type]
    )


def _ctx(alerting: list[str], states: list[AlertState], **update: object) -> Context:
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=alerting, **update.pop("incident", {}))  # type: ignore[arg-type]
    alerts = [a.model_copy(update={"name": s.name}) for a, s in zip(ctx.alerts, states, strict=True)]
    return ctx.model_copy(update={"alert_states": states, "alerts": alerts, **update})


def _note(text: str, service: str = "api") -> KnowledgeItem:
    ev = EvidenceRef("knowledge", f"knowledge/bits/{service}.md#0", text[:80])
    return KnowledgeItem(path=f"bits/{service}.md", kind="bits", title=f"{service} notes", services=[service],
                         text=text, evidence=ev)  # fmt: skip


def test_resolved_alert_with_its_blip_back_at_baseline_is_no_fault_recovered() -> None:
    blip = anomaly("api", "latency", metric="latency_p99_ms", starts_s=-60)
    settled = int((FIRED_AT + timedelta(minutes=4)).timestamp())
    ctx = _ctx(["api"], [_state("api", resolved_at=FIRED_AT + timedelta(minutes=5), signal_z=9.0)],
               incident={"anomalies": [blip]}, settled={blip.evidence.cite: settled})  # fmt: skip
    verdict = decide_no_fault(ctx, [])
    assert verdict is not None
    assert verdict.reasons[0].code == "recovered"
    assert verdict.headline.startswith("no current fault: HighLatencyP99 on api resolved by")
    assert blip.evidence in verdict.reasons[0].evidence


def test_signal_still_away_from_baseline_blocks_the_verdict_even_when_the_alert_resolved() -> None:
    still = anomaly("api", "latency", metric="latency_p99_ms")
    ctx = _ctx(["api"], [_state("api", resolved_at=FIRED_AT + timedelta(minutes=5))], incident={"anomalies": [still]})
    assert decide_no_fault(ctx, []) is None


def test_team_note_calling_the_monitor_noisy_is_no_fault_known_noisy_with_the_note_cited() -> None:
    burst = anomaly("api", "latency", metric="latency_p99_ms", score=12.0)
    note = _note("# api notes\n\n- HighLatencyP99 on api flaps all day; it is harmless, do not page for it.\n")
    ctx = _ctx(["api"], [_state("api", signal_z=8.0)], incident={"anomalies": [burst]}, knowledge=[note])
    verdict = decide_no_fault(ctx, [])
    assert verdict is not None and verdict.reasons[0].code == "known_noisy"
    assert note.evidence in verdict.reasons[0].evidence
    assert "flaps all day" in verdict.reasons[0].text


def test_a_note_that_says_not_to_ignore_the_monitor_is_no_reason() -> None:
    note = _note("- HighLatencyP99 on api is never noisy: do not ignore it, page the owner.\n")
    burst = anomaly("api", "latency", metric="latency_p99_ms", score=12.0)
    ctx = _ctx(["api"], [_state("api", signal_z=8.0)], incident={"anomalies": [burst]}, knowledge=[note])
    assert decide_no_fault(ctx, []) is None


def test_noisy_monitor_note_does_not_explain_a_dependency_that_is_failing() -> None:
    note = _note("- HighLatencyP99 on api is flaky and harmless.\n")
    db = anomaly("db", "cpu", metric="cpu_usage")
    ctx = _ctx(["api"], [_state("api", signal_z=8.0)], incident={"anomalies": [db]}, knowledge=[note])
    assert decide_no_fault(ctx, []) is None


def test_monitor_that_fired_and_cleared_twice_before_is_known_noisy() -> None:
    ctx = _ctx(["api"], [_state("api", signal_z=7.0, earlier_firings=3)])
    verdict = decide_no_fault(ctx, [])
    assert verdict is not None and verdict.reasons[0].code == "known_noisy"
    assert "3 times before" in verdict.reasons[0].text


def test_only_anomaly_settled_before_the_alert_is_no_fault_settled_earlier() -> None:
    early = anomaly("db", "cpu", metric="cpu_usage", starts_s=-1500)
    ctx = _ctx(["api"], [_state("api")], earlier=[early])
    verdict = decide_no_fault(ctx, [])
    assert verdict is not None and verdict.reasons[0].code == "settled_earlier"
    assert verdict.reasons[0].evidence == (early.evidence,)


def test_rollout_long_before_with_nothing_moving_since_is_settled_earlier() -> None:
    rollout = change("api", minutes_before=50)
    ctx = _ctx(["api"], [_state("api")], incident={"changes": [rollout]})
    verdict = decide_no_fault(ctx, [])
    assert verdict is not None and verdict.reasons[0].code == "settled_earlier"
    assert "landed 52 min before the alert" in verdict.reasons[0].text


def _rollout_beside(moved: Anomaly) -> Context:
    return _ctx(
        ["api"], [_state("api")], incident={"changes": [change("api", minutes_before=50)], "anomalies": [moved]}
    )


def test_a_share_that_moved_but_is_far_from_doing_harm_leaves_an_old_rollout_settled_earlier() -> None:
    creep = anomaly("db", "disk", metric="disk_used_ratio", baseline=0.60, after=0.66, peak=0.66, shape="ramp")
    verdict = decide_no_fault(_rollout_beside(creep), [])
    assert verdict is not None and verdict.reasons[0].code == "settled_earlier"
    assert "nothing that could do harm has moved since" in verdict.reasons[0].text
    assert [o.text for o in verdict.observations][-1] == "db disk_used_ratio at 0.66 of capacity, far from its limit"


def test_a_move_the_good_way_leaves_an_old_rollout_settled_earlier() -> None:
    """Connections in use falling is no harm: the verdict's signals skip it, and so does "nothing has moved"."""
    fewer = anomaly("db", "connections", metric="db_connections_in_use", direction="down", baseline=18.0, after=12.0)
    verdict = decide_no_fault(_rollout_beside(fewer), [])
    assert verdict is not None and verdict.reasons[0].code == "settled_earlier"
    assert "nothing that could do harm has moved since" in verdict.reasons[0].text


def test_a_series_at_its_habitual_level_leaves_an_old_rollout_settled_earlier() -> None:
    """A level the series kept in earlier episodes is its habit, not something that moved since the rollout."""
    habit = anomaly("db", "latency", metric="query_p99_ms", baseline=5.0, after=9.0)
    ctx = _rollout_beside(habit).model_copy(update={"chronic": [habit.evidence.cite]})
    verdict = decide_no_fault(ctx, [])
    assert verdict is not None and verdict.reasons[0].code == "settled_earlier"
    assert decide_no_fault(_rollout_beside(habit), []) is None


def test_a_share_near_its_limit_or_loss_that_matters_still_blocks_the_verdict() -> None:
    full = anomaly("db", "disk", metric="disk_used_ratio", baseline=0.60, after=0.93, peak=0.95)
    loss = anomaly("db", "packet_loss", metric="packet_loss_ratio", baseline=1e-4, after=0.02, peak=0.05)
    tiny = anomaly("db", "packet_loss", metric="packet_loss_ratio", baseline=1e-6, after=2e-6, peak=3e-6)
    assert decide_no_fault(_rollout_beside(full), []) is None
    assert decide_no_fault(_rollout_beside(loss), []) is None
    assert decide_no_fault(_rollout_beside(tiny), []) is not None


def test_unresolved_alert_on_a_flat_signal_with_nothing_else_stays_undecided() -> None:
    """Nothing to say why it fired: we cannot tell it from a fault our data does not show."""
    assert decide_no_fault(_ctx(["api"], [_state("api")]), []) is None


def test_alert_whose_signal_moved_is_not_no_fault() -> None:
    early = anomaly("db", "cpu", metric="cpu_usage", starts_s=-1500)
    assert decide_no_fault(_ctx(["api"], [_state("api", signal_z=6.0)], earlier=[early]), []) is None


def test_alert_we_have_no_data_for_is_not_no_fault() -> None:
    early = anomaly("db", "cpu", metric="cpu_usage", starts_s=-1500)
    ctx = _ctx(["api"], [_state("api", signal_z=None, signal=None)], earlier=[early])
    assert decide_no_fault(ctx, []) is None


def test_storm_on_flat_signals_without_a_shared_abnormal_dependency_is_spurious() -> None:
    states = [_state(s, name="TargetDown") for s in ("web", "api", "cache")]
    verdict = decide_no_fault(_ctx(["web", "api", "cache"], states), [])
    assert verdict is not None and verdict.reasons[0].code == "spurious_storm"
    assert "3 alerts fired on web, api, cache" in verdict.reasons[0].text


def test_storm_whose_members_share_an_abnormal_dependency_is_not_spurious() -> None:
    states = [_state(s, name="TargetDown") for s in ("web", "api", "cache")]
    failing_db = log("db", "FATAL: remaining connection slots are reserved", onset_count=40).model_copy(
        update={"first_ts": FIRED_AT - timedelta(minutes=30), "last_ts": FIRED_AT - timedelta(minutes=20)}
    )  # it stopped before the storm: not current, but db was abnormal and web and api both need it
    ctx = _ctx(["web", "api", "cache"], states, incident={"logs": [failing_db]})
    assert decide_no_fault(ctx, []) is None


def test_failure_log_still_being_written_blocks_the_verdict() -> None:
    ongoing = log("api", "connection refused to db:5432", onset_count=40).model_copy(
        update={"last_ts": FIRED_AT + timedelta(minutes=9)}
    )
    ctx = _ctx(["api"], [_state("api", resolved_at=FIRED_AT + timedelta(minutes=2))], incident={"logs": [ongoing]})
    assert decide_no_fault(ctx, []) is None


def test_a_validated_cause_on_evidence_the_verdict_does_not_explain_is_never_no_fault() -> None:
    ctx = _ctx(["api"], [_state("api", resolved_at=FIRED_AT + timedelta(minutes=5))])
    assert decide_no_fault(ctx, []) is not None  # on the context alone it would be "recovered"
    h = Hypothesis("H1", "db", "db_lock_contention", 0.6, [], [])
    lock = EvidenceRef("log", "logs.jsonl:77", "db: deadlock detected")
    found = Finding("H1", "validated", (lock,), 0.8, "deadlock detected", specialist="logs")
    assert decide_no_fault(ctx, [Assessment(h, "validated", 0.6, 0.8, [found])]) is None


def test_still_firing_alert_whose_blip_has_long_been_over_is_recovered() -> None:
    blip = anomaly("api", "latency", metric="latency_p99_ms", starts_s=-60)  # onset 3 min before the alert
    back = int((FIRED_AT + timedelta(minutes=1)).timestamp())
    ctx = _ctx(
        ["api"], [_state("api", signal_z=9.0)], incident={"anomalies": [blip]}, settled={blip.evidence.cite: back}
    )
    soon = ctx.model_copy(update={"data_end": FIRED_AT + timedelta(minutes=10)})
    assert decide_no_fault(soon, []) is None  # 9 min of calm before the data ends: not enough
    later = ctx.model_copy(update={"data_end": FIRED_AT + timedelta(minutes=20)})
    verdict = decide_no_fault(later, [])
    assert verdict is not None and verdict.reasons[0].code == "recovered"
    assert "is still firing, but what it fired on" in verdict.reasons[0].text


def _bursting(*, chronic: bool, also: list[Anomaly] | None = None) -> Context:
    """api's p99 jumped to a level it had burst to in earlier episodes, and its monitor fired on it."""
    burst = anomaly("api", "latency", metric="latency_p99_ms", baseline=240.0, after=510.0)
    ctx = _ctx(["api"], [_state("api", signal_z=14.0)], incident={"anomalies": [burst, *(also or [])]})
    return ctx.model_copy(update={"chronic": [burst.evidence.cite] if chronic else []})


def test_a_monitor_firing_on_a_level_its_series_kept_in_earlier_bursts_is_known_noisy() -> None:
    verdict = decide_no_fault(_bursting(chronic=True), [])
    assert verdict is not None and verdict.reasons[0].code == "known_noisy"
    assert "the series' habit" in verdict.reasons[0].text
    assert "metrics.csv:api/latency_p99_ms" in verdict.reasons[0].evidence[0].cite


def test_a_burst_to_a_new_level_or_beside_something_else_moving_is_not_noise() -> None:
    assert decide_no_fault(_bursting(chronic=False), []) is None
    failing = anomaly("db", "cpu", metric="cpu_usage")
    assert decide_no_fault(_bursting(chronic=True, also=[failing]), []) is None
