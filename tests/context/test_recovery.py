"""Is it still happening: alert episodes and resolution, settled and flapping series, chronic noise."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.context.anomaly import Anomaly
from rootward.context.recovery import alert_states, chronic, current_firings, settled_at
from rootward.domain.alert import Alert, Severity
from rootward.domain.evidence import EvidenceRef
from rootward.domain.telemetry import MetricSeries

T0 = 1_780_000_000
FIRED = datetime.fromtimestamp(T0 + 3600, UTC)


def _series(values: list[float], metric: str = "latency_p99_ms", step: int = 60) -> MetricSeries:
    return MetricSeries("api", metric, tuple(T0 + i * step for i in range(len(values))), tuple(values))


def _anomaly(onset_index: int, after: float, baseline: float = 100.0) -> Anomaly:
    onset = T0 + onset_index * 60
    ev = EvidenceRef("metric", f"metrics.csv:api/latency_p99_ms@{onset}-{onset + 600}", "")
    return Anomaly(service="api", metric="latency_p99_ms", family="latency", direction="up", score=30.0,
                   baseline=baseline, after=after, peak=after, onset=onset, start=onset, end=onset + 600,
                   evidence=ev)  # fmt: skip


def _alert(status: str, starts: datetime, ends: datetime | None = None, fp: str = "fp1") -> Alert:
    return Alert(fp, "HighLatencyP99", "api", Severity.P2, status, starts, ends_at=ends)  # type: ignore[arg-type]


def test_a_blip_that_came_back_and_stayed_back_settled_when_it_returned() -> None:
    values = [100.0] * 40 + [400.0] * 4 + [100.0] * 16
    when = settled_at(_series(values), _anomaly(40, 400.0), T0 + 59 * 60)
    assert when == T0 + 44 * 60


def test_a_flapping_series_in_a_lull_has_not_settled() -> None:
    values = [100.0] * 40 + ([400.0] * 2 + [100.0] * 6) * 2 + [400.0] * 2 + [100.0] * 5
    assert settled_at(_series(values), _anomaly(40, 400.0), T0 + (len(values) - 1) * 60) is None


def test_a_series_still_up_has_not_settled() -> None:
    values = [100.0] * 40 + [400.0] * 20
    assert settled_at(_series(values), _anomaly(40, 400.0), T0 + 59 * 60) is None


def test_bursts_seen_twice_before_make_a_series_chronic_and_one_burst_does_not() -> None:
    burst = [100.0] * 10 + [250.0] * 3
    noisy = burst * 3 + [100.0] * 10 + [250.0] * 4
    onset = len(noisy) - 4
    assert chronic(_series(noisy), _anomaly(onset, 250.0))
    once = [100.0] * 40 + [250.0] * 4
    assert not chronic(_series(once), _anomaly(40, 250.0))


def test_refired_monitor_is_its_open_episode_with_its_earlier_firings_counted() -> None:
    alerts = [
        _alert("firing", FIRED - timedelta(minutes=40)),
        _alert("resolved", FIRED - timedelta(minutes=40), FIRED - timedelta(minutes=35)),
        _alert("firing", FIRED - timedelta(minutes=20)),
        _alert("resolved", FIRED - timedelta(minutes=20), FIRED - timedelta(minutes=16)),
        _alert("firing", FIRED),
    ]
    [current] = current_firings(alerts)
    assert current.starts_at == FIRED
    cite = {"fp1": EvidenceRef("alert", "alerts.json:fp1")}
    values = [100.0 + (i % 3) for i in range(90)]
    [state] = alert_states(alerts, [_series(values)], FIRED + timedelta(minutes=20), cite)
    assert state.earlier_firings == 2 and state.resolved_at is None
    assert state.signal_z is not None and abs(state.signal_z) < 3
    assert state.signal is not None and state.signal.cite.startswith("metrics.csv:api/latency_p99_ms@")


def test_resolution_inside_the_data_is_kept_and_one_after_it_is_not() -> None:
    cite = {"fp1": EvidenceRef("alert", "alerts.json:fp1")}
    alerts = [_alert("firing", FIRED), _alert("resolved", FIRED, FIRED + timedelta(minutes=5))]
    [state] = alert_states(alerts, [], FIRED + timedelta(minutes=20), cite)
    assert state.resolved_at == FIRED + timedelta(minutes=5) and state.signal_z is None
    [late] = alert_states(alerts, [], FIRED + timedelta(minutes=2), cite)
    assert late.resolved_at is None
