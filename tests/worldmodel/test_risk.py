from __future__ import annotations

import math
import random
from datetime import UTC, datetime

from rootward.worldmodel.graph import EdgeClaim, WorldGraph
from rootward.worldmodel.risk.checks import RiskSeries, burn, certificate, fill, restarts
from rootward.worldmodel.risk.report import build_report, digest_lines
from rootward.worldmodel.risk.trends import growing, seconds_until

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
END = int(NOW.timestamp())
STEP = 300
HOUR = 3600


def _ts(hours: float = 72) -> list[int]:
    return list(range(END - int(hours * HOUR), END + 1, STEP))


def _series(check: str, entity: str, values: list[float], threshold: float | None = 1.0, **labels: str) -> RiskSeries:
    ts = _ts()[-len(values) :]
    return RiskSeries(check, entity, f"q_{check}", tuple(sorted(labels.items())), tuple(ts), tuple(values), threshold)


def _filling(hours_left: float, noise: float = 0.005, start: float = 0.4, seed: int = 1) -> list[float]:
    """A ratio rising linearly so that it reaches 1.0 `hours_left` after the last sample (plus noise)."""
    rng = random.Random(seed)
    ts = _ts()
    slope = (1.0 - start) / (hours_left * HOUR + (ts[-1] - ts[0]))
    return [start + slope * (t - ts[0]) + rng.gauss(0, noise) for t in ts]


def test_theil_sen_ignores_a_spike_and_finds_the_crossing() -> None:
    ts = _ts()
    values = [0.5 + 1e-6 * (t - ts[0]) for t in ts]
    values[100] = 50.0  # one absurd scrape
    trend = growing(ts, values)
    assert trend is not None and abs(trend.fit.slope - 1e-6) < 1e-9
    until = seconds_until(trend, 1.0)
    assert until is not None and abs(until - (0.5 - 1e-6 * (ts[-1] - ts[0])) / 1e-6) < 60


def test_a_disk_filling_in_six_hours_ranks_above_one_filling_in_six_days() -> None:
    soon = _series("disk", "db-1", _filling(6), mountpoint="/var/lib/postgresql")
    later = _series("disk", "web-1", _filling(6 * 24, seed=2), mountpoint="/")
    report = build_report([later, soon], NOW)
    assert [e.assessment.entity for e in report.entries] == ["db-1", "web-1"]
    first, second = report.entries
    assert abs(first.assessment.crosses_in_s - 6 * HOUR) < 0.5 * HOUR
    assert abs(second.assessment.crosses_in_s - 144 * HOUR) < 15 * HOUR
    assert first.assessment.cites == (soon.cite,) and "mountpoint=/var/lib/postgresql" in first.assessment.summary


def test_a_flat_or_falling_series_is_no_risk() -> None:
    rng = random.Random(3)
    flat = _series("disk", "a", [0.7 + rng.gauss(0, 0.01) for _ in _ts()])
    falling = _series("disk", "b", [0.9 - 1e-6 * i * STEP for i in range(len(_ts()))])
    assert fill(flat, NOW) is None and fill(falling, NOW) is None
    assert build_report([flat, falling], NOW).entries == ()


def test_a_plateaued_memory_curve_is_no_risk_and_a_steady_leak_is() -> None:
    ts = _ts()
    plateau = [0.9 * (1 - math.exp(-(t - ts[0]) / (8 * HOUR))) for t in ts]  # warmed up, now flat near 0.9
    leak = [0.3 + 0.7 * (t - ts[0]) / (ts[-1] - ts[0] + 12 * HOUR) for t in ts]
    assert fill(_series("memory", "cache", plateau), NOW) is None
    found = fill(_series("memory", "api", leak), NOW)
    assert found is not None and found.kind == "memory_growth" and abs(found.crosses_in_s - 12 * HOUR) < HOUR


def test_burn_rate_fires_only_when_both_windows_of_a_pair_burn_too_fast() -> None:
    ts = _ts()
    requests = RiskSeries("requests", "checkout", "req", (), tuple(ts), tuple(100.0 for _ in ts))

    def errors(ratio_by_age: dict[float, float]) -> RiskSeries:
        values = []
        for t in ts:
            age = (END - t) / HOUR
            values.append(100.0 * next(r for limit, r in sorted(ratio_by_age.items()) if age <= limit))
        return RiskSeries("errors", "checkout", "err", (), tuple(ts), tuple(values))

    fast = burn(errors({1.0: 0.02, 1e9: 0.0001}), requests, slo=0.999, period_s=30 * 86400, now=NOW)
    assert fast is not None and fast.severity == "page" and fast.current > 14.4
    # A spike that ended 35 min ago (both short windows clean) does not page: the workbook's reset condition.
    over = burn(errors({35 / 60: 0.0, 1.0: 0.05, 1e9: 0.0}), requests, slo=0.999, period_s=30 * 86400, now=NOW)
    assert over is None
    slow = burn(errors({1e9: 0.002}), requests, slo=0.999, period_s=30 * 86400, now=NOW)
    assert slow is not None and slow.severity == "ticket" and abs(slow.crosses_in_s - 15 * 86400) < 3600
    assert burn(errors({1e9: 0.0005}), requests, slo=0.999, period_s=30 * 86400, now=NOW) is None


def test_certificate_expiry_and_restarts() -> None:
    cert = RiskSeries("certificate", "shop.example.com", "probe", (), (END,), (END + 5 * 86400.0,))
    found = certificate(cert, NOW)
    assert found is not None and abs(found.crosses_in_s - 5 * 86400) < 1
    counter = [0, 0, 1, 1, 3, 0, 2]  # a reset after 3: the 0 and then 2 more
    crashing = RiskSeries("restarts", "worker", "r", (), tuple(_ts()[: len(counter)]), tuple(map(float, counter)))
    assert (hit := restarts(crashing, min_restarts=3)) is not None and hit.current == 5
    assert restarts(crashing, min_restarts=6) is None


def test_blast_radius_comes_from_the_world_model_and_orders_equally_urgent_entries() -> None:
    graph = WorldGraph()
    for dependent in ("api", "web", "batch"):
        graph.add_claim(dependent, "db-1", EdgeClaim("operator", "runs_on", 0.9, NOW))
    wide = _series("disk", "db-1", _filling(24))
    narrow = _series("disk", "lonely", _filling(24))
    report = build_report([narrow, wide], NOW, graph=graph)
    assert [e.assessment.entity for e in report.entries] == ["db-1", "lonely"]
    assert {b.name for b in report.entries[0].blast_radius} == {"api", "web", "batch"}
    assert report.entries[0].in_world_model and not report.entries[1].in_world_model
    assert "would reach" in digest_lines(report, 1)[0]


def test_saturation_uses_its_own_threshold() -> None:
    cpu = _series("saturation", "node-1", _filling(10, noise=0.002), threshold=0.95)
    found = fill(cpu, NOW)
    assert found is not None and found.kind == "saturation" and found.crosses_in_s < 10 * HOUR
