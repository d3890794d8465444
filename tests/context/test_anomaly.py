"""Metric anomalies: robust change points, ramps, quantised counters, silence."""

from __future__ import annotations

import numpy as np

from rootward.context.anomaly import detect_anomalies, family_of, ramp_fit
from rootward.domain.telemetry import MetricSeries

T0 = 1_800_000_000
STEP = 30
FIRED = T0 + 60 * STEP  # 30 min of data before the alert


def _series(service: str, metric: str, values: list[float]) -> MetricSeries:
    return MetricSeries(service, metric, tuple(T0 + i * STEP for i in range(len(values))), tuple(values))


def _noise(n: int, level: float, spread: float, seed: int = 1) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(level + rng.normal(0, spread, n))


def test_sustained_step_is_anomalous_with_onset_and_a_cite_that_covers_samples() -> None:
    values = _noise(56, 100, 3) + _noise(30, 400, 10, seed=2)  # jumps at sample 56 (2 min before fired)
    anomalies, _ = detect_anomalies([_series("api", "latency_p99_ms", values)], fired_at=FIRED, end=FIRED + 600)
    assert len(anomalies) == 1
    a = anomalies[0]
    assert a.direction == "up" and a.family == "latency"
    assert a.onset == T0 + 56 * STEP
    start, end = (int(x) for x in a.evidence.cite.rsplit("@", 1)[1].split("-"))
    assert start <= a.onset <= end and start >= T0


def test_quiet_series_and_one_sample_blip_are_not_anomalous() -> None:
    quiet = _noise(86, 50, 2)
    blip = _noise(86, 50, 2, seed=3)
    blip[58] = 500.0
    anomalies, scored = detect_anomalies(
        [_series("a", "cpu_usage", quiet), _series("b", "cpu_usage", blip)], fired_at=FIRED, end=FIRED + 600
    )
    assert anomalies == []
    assert {s.service for s in scored} == {"a", "b"}


def test_slow_memory_climb_from_long_before_the_alert_is_a_ramp() -> None:
    values = _noise(40, 1e9, 5e6) + [1e9 + i * 2.5e7 for i in range(1, 81)]
    series = MetricSeries("db", "memory_bytes", tuple(T0 - 1800 + i * STEP for i in range(120)), tuple(values))
    anomalies, _ = detect_anomalies([series], fired_at=FIRED, end=FIRED + 600)
    assert anomalies and anomalies[0].shape == "ramp"
    assert anomalies[0].onset < FIRED - 600


def test_a_noisy_step_with_a_spike_late_is_a_step_not_a_climb() -> None:
    """Five-minute samples: a latency that jumped to 1.6-1.7 s and held, one sample of 2.0 s near the end.
    Read against that peak, it reached its rise late, as a climb does; against where it ended, at once."""
    values = _noise(60, 0.4, 0.08) + [1.68, 1.61, 1.63, 1.66, 2.03, 1.64]
    step = 300
    series = MetricSeries("api", "latency", tuple(T0 + i * step for i in range(66)), tuple(values))
    fired = T0 + 62 * step
    anomalies, _ = detect_anomalies([series], fired_at=fired, end=T0 + 65 * step)
    assert [(a.direction, a.shape) for a in anomalies] == [("up", "step")]
    climb = _noise(60, 0.4, 0.08) + [0.6, 0.8, 1.0, 1.2, 1.4, 1.6]
    series = MetricSeries("api", "latency", tuple(T0 + i * step for i in range(66)), tuple(climb))
    anomalies, _ = detect_anomalies([series], fired_at=fired, end=T0 + 65 * step)
    assert [(a.direction, a.shape) for a in anomalies] == [("up", "ramp")]


def test_memory_that_climbs_to_a_ceiling_and_drops_back_again_and_again_resets() -> None:
    # Killed at its limit every 2.5 minutes and restarted: 415 MB, climbing to 1 GB, back to 493 MB.
    sawtooth = [493e6, 622e6, 751e6, 880e6, 1009e6] * 6
    values = _noise(56, 415e6, 5e6) + sawtooth
    series = MetricSeries("db", "memory_bytes", tuple(T0 + i * STEP for i in range(len(values))), tuple(values))
    anomalies, _ = detect_anomalies([series], fired_at=FIRED, end=FIRED + 600)
    assert [(a.direction, a.shape) for a in anomalies] == [("up", "resets")]
    # The same climb that stays up is a step, not resets.
    held = _noise(56, 415e6, 5e6) + [493e6, 622e6, 751e6, 880e6] + [1009e6] * 26
    series = MetricSeries("db", "memory_bytes", tuple(T0 + i * STEP for i in range(len(held))), tuple(held))
    anomalies, _ = detect_anomalies([series], fired_at=FIRED, end=FIRED + 600)
    assert [a.shape for a in anomalies] != ["resets"] and anomalies


def test_small_integer_counter_moving_by_one_step_is_noise() -> None:
    values = [1.0 if i % 7 else 2.0 for i in range(60)] + [2.0] * 26
    anomalies, _ = detect_anomalies([_series("db", "lock_waits", values)], fired_at=FIRED, end=FIRED + 600)
    assert anomalies == []


def test_entity_that_stops_reporting_while_others_continue_is_silent() -> None:
    alive = _series("web", "latency_p99_ms", _noise(86, 100, 3))
    dead = _series("db", "cpu_usage", _noise(55, 0.5, 0.01))
    anomalies, _ = detect_anomalies([alive, dead], fired_at=FIRED, end=FIRED + 600)
    silent = [a for a in anomalies if a.family == "silence"]
    assert [a.service for a in silent] == ["db"]


def test_metric_families_come_from_generic_words() -> None:
    assert family_of("container_cpu_usage_seconds_total") == "cpu"
    assert family_of("disk_used_ratio") == "disk"
    assert family_of("network_rtt_ms") == "network"
    assert family_of("db_connections_in_use") == "connections"
    assert family_of("http_request_duration_p99") == "latency"


def test_a_move_that_settled_back_before_the_alert_fired_is_an_earlier_event() -> None:
    # memory jumps 4 min before the alert and is back at baseline 2.5 min before it, for good
    over = _noise(52, 40, 1) + _noise(3, 140, 2, seed=4) + _noise(31, 40, 1, seed=5)
    # the same jump, still high when the alert fires
    ongoing = _noise(52, 40, 1) + _noise(34, 140, 2, seed=4)
    # settles back only after the alert: it was acting when the alert fired
    later = _noise(52, 40, 1) + _noise(14, 140, 2, seed=4) + _noise(20, 40, 1, seed=5)
    anomalies, scored = detect_anomalies(
        [_series(name, "memory_bytes", values) for name, values in (("a", over), ("b", ongoing), ("c", later))],
        fired_at=FIRED,
        end=FIRED + 600,
    )
    assert {a.service for a in anomalies} == {"b", "c"}
    assert {s.service for s in scored} == {"a", "b", "c"}  # it still counts as "moved" for other checks


def test_a_symptom_burst_that_ended_before_the_alert_is_still_the_incidents() -> None:
    # latency spiked and recovered before the alert: an alert rule may fire on exactly that burst
    burst = _noise(48, 40, 1) + _noise(7, 400, 5, seed=4) + _noise(31, 40, 1, seed=5)
    anomalies, _ = detect_anomalies([_series("api", "latency_p99_ms", burst)], fired_at=FIRED, end=FIRED + 600)
    assert [a.service for a in anomalies] == ["api"]


def test_the_peak_of_a_rise_is_its_highest_value_not_a_dip_inside_it() -> None:
    after = _noise(30, 0.88, 0.01, seed=2)
    after[10] = 0.1  # one missed scrape: farther from the baseline than the rise, but the wrong way
    values = _noise(56, 0.6, 0.01) + after
    anomalies, _ = detect_anomalies([_series("node-1", "cpu_used_ratio", values)], fired_at=FIRED, end=FIRED + 600)
    assert [a.direction for a in anomalies] == ["up"]
    assert anomalies[0].peak >= anomalies[0].after > 0.8


def test_resource_that_settled_before_the_alert_is_an_earlier_event_cited_over_its_excursion() -> None:
    # CPU busy from sample 49 to 53, back at its level from 3 min before the alert to the end.
    values = _noise(49, 0.2, 0.01) + _noise(5, 0.9, 0.02, seed=2) + _noise(32, 0.2, 0.01, seed=3)
    earlier: list = []
    anomalies, _ = detect_anomalies(
        [_series("worker", "cpu_usage", values)], fired_at=FIRED, end=FIRED + 600, earlier=earlier
    )
    assert anomalies == []
    assert len(earlier) == 1
    e = earlier[0]
    # Its end is when it came back, not the window's end: "settled N min before the alert" must hold.
    assert T0 + 53 * STEP < e.end <= FIRED - 120
    start, stop = (int(x) for x in e.evidence.cite.rsplit("@", 1)[1].split("-"))
    assert start <= e.onset and stop == e.end


def _flapping_loss(habit: bool) -> MetricSeries:
    """A link dropping packets: lone minutes of loss 4 min apart, then most minutes (from minute 62)."""
    values = [abs(v) for v in _noise(81, 5e-4, 2e-4, seed=4)]
    for i in (50, 54, 58):
        values[i] = 0.2
    for i in range(62, 81):
        values[i] = 0.25 if i % 3 else 0.001
    if habit:  # a series that has always spiked now and then
        for i in range(2, 50, 4):
            values[i] = 0.2
    return MetricSeries("k-3", "packet_loss_ratio", tuple(T0 + 60 * i for i in range(81)), tuple(values))


def test_a_flapping_fault_is_dated_by_its_first_excursion_not_by_when_the_median_moved() -> None:
    fired, end = T0 + 64 * 60, T0 + 74 * 60
    (flap,), _ = detect_anomalies([_flapping_loss(habit=False)], fired_at=fired, end=end)
    assert flap.onset == T0 + 50 * 60  # three excursions 4 min apart lead up to the move
    # Where spikes like these were the series' habit all along, they date nothing: the move does.
    (habit,), _ = detect_anomalies([_flapping_loss(habit=True)], fired_at=fired, end=end)
    assert habit.onset == T0 + 62 * 60


def test_an_earlier_blip_that_came_and_went_does_not_date_the_move() -> None:
    # A fault-injection run's previous fault: a minute and a half up, three minutes back at normal,
    # then this incident's step. One excursion that ended is another event, not this one's first flap.
    values = _noise(50, 100, 3) + [160.0, 240.0, 350.0] + _noise(6, 100, 3, seed=5) + _noise(30, 400, 10, seed=2)
    (a,), _ = detect_anomalies([_series("api", "latency_p99_ms", values)], fired_at=FIRED, end=FIRED + 600)
    assert a.onset == T0 + 59 * STEP


def test_a_climb_shorter_than_a_sustained_move_is_no_ramp_at_one_sample_a_second() -> None:
    # 30 min of a flat memory gauge at 1 Hz. A leak climbs for minutes; a minute's climb at the end
    # of the data (the start of a step, a next event) is not one, at any sampling rate.
    ts = np.arange(T0, T0 + 1800, dtype=np.int64)
    late = np.full(1800, 3.5e7)
    late[-60:] += np.arange(1, 61) * 1.3e5
    slow = np.full(1800, 3.5e7)
    slow[600:] += np.arange(1, 1201) * 1e4
    assert ramp_fit(ts, late) is None
    found = ramp_fit(ts, slow)
    assert found is not None and found[1] == T0 + 599


def test_at_five_minute_samples_the_onset_is_looked_for_three_periods_before_the_alert() -> None:
    # A CloudWatch alarm on 3 of 5-minute datapoints fires 15 minutes after the step.
    step = 300
    values = _noise(24, 70, 3) + _noise(6, 280, 5, seed=2)
    series = MetricSeries("table", "SuccessfulRequestLatency", tuple(T0 + i * step for i in range(30)), tuple(values))
    fired = T0 + 27 * step
    anomalies, _ = detect_anomalies([series], fired_at=fired, end=fired + 600)
    assert [(a.service, a.direction, a.onset) for a in anomalies] == [("table", "up", T0 + 24 * step)]


def test_at_five_minute_samples_a_chance_tight_half_hour_is_no_baseline_for_the_wiggle_after_it() -> None:
    # A latency that always swings by half its level, by chance steady for the six periods before
    # the alert: against those six alone the usual swing after them reads as a 20-spread step.
    step = 300
    swinging = [60.0, 140, 80, 130, 70, 150, 90, 120, 65, 135, 85, 125] * 2
    values = swinging + [100.0, 101, 99, 100, 102, 98] + [128.0, 135, 131, 126, 60, 140]
    series = MetricSeries("fn", "Duration", tuple(T0 + i * step for i in range(len(values))), tuple(values))
    fired = T0 + 33 * step
    anomalies, _ = detect_anomalies([series], fired_at=fired, end=fired + 600)
    assert anomalies == []


def _busy(service: str, seed: int, cpu_rise: bool) -> list[MetricSeries]:
    """A service whose traffic holds and whose CPU (so CPU per request) rises at sample 56, or not."""
    cpu = _noise(56, 0.2, 0.005, seed) + _noise(30, 0.4 if cpu_rise else 0.2, 0.005, seed + 1)
    return [_series(service, "cpu_usage", cpu), _series(service, "request_rate", _noise(86, 50, 1, seed + 2))]


def _per_request_anomalies(rising: list[bool]) -> set[str]:
    series = [s for i, up in enumerate(rising) for s in _busy(f"svc-{i}", 10 * i + 1, up)]
    anomalies, _ = detect_anomalies(series, fired_at=FIRED, end=FIRED + 600)
    return {a.service for a in anomalies if a.derived}


def test_cpu_per_request_rising_at_every_service_at_once_is_no_one_services_saturation() -> None:
    assert _per_request_anomalies([True, False, False]) == {"svc-0"}
    assert _per_request_anomalies([True, True, False]) == {"svc-0", "svc-1"}
    assert _per_request_anomalies([True, True, True]) == set()  # common to all: the host, not a service


def test_a_held_move_records_the_level_it_reached_where_its_median_since_the_onset_sits_on_the_climb() -> None:
    """Scraped through a rate window, a step climbs over a few samples: the post-onset median of a short
    stretch sits on the climb, the level it reached is where its last quarter sits."""
    climb = [15.0, 38.0, 74.0, 160.0]
    values = _noise(56, 5, 0.1) + climb + _noise(8, 305, 0.2, seed=2)
    anomalies, _ = detect_anomalies([_series("payments", "latency_mean_ms", values)], fired_at=FIRED, end=FIRED + 600)
    (a,) = anomalies
    assert a.level is not None and abs(a.level - 305) < 1
    assert a.level > a.after
