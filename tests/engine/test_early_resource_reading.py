"""A resource step that began long before the onset is background in the fault's reading too.

Nezha 2022-08-23 16:22, Online Boutique's ad service throwing exceptions: its p99 rose
at the onset; its CPU per request had risen 9 minutes earlier, at the previous fault
injected into the same pod (16:13). Its own evidence already counted that step at 0.4
(`EntityProfile.timely_resource_strength`), but its reading did not, and CPU
saturation came first, the code fault second.
"""

from __future__ import annotations

from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import anomaly, incident


def _readings(cpu_starts_s: int) -> list[str]:
    ctx = incident(
        kinds={"frontend": "service", "adservice": "service"},
        edges=[("frontend", "adservice", "depends_on")],
        alerting=["frontend"],
        anomalies=[
            anomaly("adservice", "latency", metric="latency_p99_ms", baseline=64, after=960, score=48),
            anomaly(
                "adservice", "cpu", metric="cpu_usage", baseline=0.0012, after=0.0019, score=5.3, starts_s=cpu_starts_s
            ),
        ],
    )
    scores = {s.entity: s for s in score_entities(ctx)}
    return [sig.fault_type for sig in scores["adservice"].signatures]


def test_a_cpu_step_long_before_the_onset_does_not_read_first() -> None:
    readings = _readings(cpu_starts_s=-540)
    assert readings[0] != "cpu_saturation"
    assert "cpu_saturation" in readings  # still a reading, further down


def test_a_cpu_step_at_the_onset_reads_first() -> None:
    assert _readings(cpu_starts_s=0)[0] == "cpu_saturation"
