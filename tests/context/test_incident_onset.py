"""The incident's onset: which change points may start it (`anomaly.incident_onset`, `window.derive_onset`)."""

from __future__ import annotations

import csv
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.context.anomaly import Anomaly, incident_onset
from rootward.context.assemble import assemble_context
from rootward.context.window import derive_onset
from rootward.domain.evidence import EvidenceRef
from rootward.sources.bundle import bundle_sources
from tests.context.sim_bundle import metrics_bundle

T = 1_800_000_000
ALERT = T + 120


def _moved(service: str, family: str, onset: int, score: float, shape: str = "step") -> Anomaly:
    metric = {"latency": "latency_p99_ms", "errors": "error_rate", "memory": "memory_bytes"}.get(family, "cpu_usage")
    cite = f"metrics.csv:{service}/{metric}@{onset}-{onset + 600}"
    return Anomaly(service=service, metric=metric, family=family, direction="up", score=score,  # type: ignore[arg-type]
                   baseline=1.0, after=2.0, peak=2.0, onset=onset, start=onset, end=onset + 600,
                   evidence=EvidenceRef("metric", cite, ""), shape=shape)  # type: ignore[arg-type]  # fmt: skip


def test_what_moved_after_the_alert_does_not_start_the_incident_when_something_moved_before() -> None:
    quiet_start = (T + 60, 5.5)  # a CPU step the alert fired on
    loud_aftermath = [(T + 540, 22.0), (T + 560, 30.0)]  # errors spreading seven minutes after the alert
    assert derive_onset([quiet_start, *loud_aftermath]) == T + 540  # by score alone, the aftermath
    assert derive_onset([quiet_start, *loud_aftermath], ALERT) == T + 60
    assert derive_onset(loud_aftermath, ALERT) == T + 540  # nothing before the alert: the best there is


def test_a_quiet_change_before_the_alert_does_not_beat_the_fault_right_after_it() -> None:
    # Alerts stamped at the moment a fault was injected: the fault shows just after "the alert".
    noise = [(T - 357, 25.7), (T - 176, 22.4)]
    fault = [(ALERT + 63, 98.3), (ALERT + 63, 75.9)]
    assert derive_onset([*noise, *fault], ALERT) == ALERT + 63


def test_a_symptom_that_keeps_falling_back_does_not_drag_the_onset_back() -> None:
    sawtooth = _moved("checkout", "latency", T - 180, 18.6, shape="resets")  # a p99 over a few requests
    fault = [_moved("ads", "cpu", T + 60, 54.8), _moved("ads", "latency", T + 60, 39.4)]
    assert incident_onset([sawtooth, *fault], alerted=ALERT) == T + 60
    # Read as one more change point, it would start the burst four minutes early.
    assert derive_onset([(a.onset, a.score) for a in [sawtooth, *fault]], ALERT) == T - 180
    # Alone, it is all there is to go by.
    assert incident_onset([sawtooth], alerted=ALERT) == T - 180


def test_a_resource_that_keeps_resetting_starts_where_its_fault_does() -> None:
    killed = _moved("cart", "memory", T - 240, 40.0, shape="resets")  # killed at its limit, again and again
    errors = _moved("front", "errors", T + 60, 30.0)
    assert incident_onset([killed, errors], alerted=ALERT) == T - 240


def test_a_leak_starts_long_before_the_onset() -> None:
    leak = _moved("cart", "memory", T - 1200, 80.0, shape="ramp")
    assert incident_onset([leak, _moved("front", "errors", T + 60, 30.0)], alerted=ALERT) == T + 60


def test_a_symptom_that_worsens_steadily_starts_where_it_began() -> None:
    worsening = _moved("ads", "latency", T + 35, 48.4, shape="ramp")  # exceptions piling up since the fault
    earlier_blip = _moved("ads", "cpu", T - 505, 7.4, shape="spike")
    assert incident_onset([earlier_blip, worsening], alerted=ALERT) == T + 35


def test_assembly_keeps_the_onset_when_a_latency_starts_flipping_minutes_before(tmp_path: Path) -> None:
    root, cause = metrics_bundle(tmp_path, "cpu_saturation", "onset-after-alert")
    bundle = load_bundle(root)
    onset = assemble_context(bundle_sources(bundle), bundle.meta).window.onset
    assert onset is not None
    with (root / "metrics.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    flipped = 0
    for r in rows:  # from five minutes before the onset, the entry's p99 is ten times higher every other sample
        entry_p99 = r["service"] == "ingress" != cause and r["metric"] == "latency_p99_ms"
        if entry_p99 and float(r["timestamp"]) >= onset.timestamp() - 300:
            flipped += 1
            r["value"] = str(float(r["value"]) * (10 if flipped % 2 == 0 else 1))
    with (root / "metrics.csv").open("w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(rows)
    bundle = load_bundle(root)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    sawtooth = [a for a in ctx.anomalies if a.service == "ingress" and a.shape == "resets"]
    assert sawtooth and sawtooth[0].onset < onset.timestamp()  # seen, before the fault, and loud
    assert ctx.window.onset == onset


def test_the_quieter_change_that_set_off_the_loud_burst_starts_it() -> None:
    """A service crashing serves fewer requests; its callers' errors, far louder, come minutes later.

    Read from the loud burst alone, the onset came 4 minutes after the crash, and the
    crash's own lines before it counted as the baseline. The lead-in is one weaker change
    within ONSET_GAP_S before a burst that opens with symptoms, at an entity whose faults
    reach what opened it, never a chain of them, and never without a map.
    """
    dependents = {"booking": {"web", "app"}, "db": {"booking", "web", "app"}}

    def reach(entity: str) -> set[str]:
        return dependents.get(entity, set())

    crash = _moved("booking", "traffic", T, 17.9)
    callers = [_moved("web", "errors", T + 240, 260.0), _moved("app", "errors", T + 250, 180.0)]
    assert incident_onset([crash, *callers], reach=reach) == T
    assert incident_onset([crash, *callers]) == T + 240  # no map: nothing says the crash set it off
    neighbour = _moved("stations", "cpu", T, 11.0)  # a blip where nothing of the burst can be reached from
    assert incident_onset([neighbour, *callers], reach=reach) == T + 240
    assert incident_onset([_moved("booking", "traffic", T - 120, 9.0), *callers], reach=reach) == T + 240
    chained = [_moved("db", "cpu", T - 200, 9.0), crash, *callers]
    assert incident_onset(chained, reach=reach) == T  # one step back, not a chain


def test_a_burst_that_opens_with_a_resource_moving_opens_with_its_cause() -> None:
    """A CPU pinned at checkout is where it began; a cart's memory blip 5 minutes before is not."""
    blip = _moved("cart", "memory", T, 25.7)
    pinned = [_moved("checkout", "cpu", T + 300, 98.3), _moved("checkout", "latency", T + 300, 75.9)]
    assert incident_onset([blip, *pinned], reach=lambda e: {"checkout"} if e == "cart" else set()) == T + 300
