"""Kubernetes events and pod states from the live source become classified, quoted evidence."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from rootward.context.assemble import assemble_context
from rootward.context.k8s_events import event_text
from rootward.domain.alert import Alert, Severity
from rootward.domain.incident import IncidentMeta
from rootward.domain.telemetry import LogRecord
from rootward.engine.hypotheses import rank_hypotheses
from rootward.engine.lead import lead_sentence
from rootward.engine.supervisor import Assessment
from rootward.sources.base import SourceSet
from rootward.sources.kubernetes import KubernetesSettings, KubernetesSource
from tests.sources.fake_kubernetes import NOW, NS, kubernetes_route
from tests.sources.local_http import serve


class _Alerts:
    def __init__(self, alerts: Sequence[Alert]) -> None:
        self._alerts = list(alerts)

    def alerts(self) -> Sequence[Alert]:
        return self._alerts


@pytest.mark.integration
def test_oomkilled_pod_from_the_live_source_is_an_oom_kill_hypothesis_quoting_reason_and_exit_code() -> None:
    fired = NOW - timedelta(minutes=1)
    alert = Alert("fp-pay", "KubePodCrashLooping", "payment", Severity.P1, "firing", fired)
    meta = IncidentMeta("k8s-1", "KubePodCrashLooping on payment", fired, NOW - timedelta(minutes=40), NOW)
    with serve(kubernetes_route()) as (url, _seen):
        cluster = KubernetesSource(KubernetesSettings(host=url, token="t", namespaces=[NS], timeout_s=5))
        sources = SourceSet(alerts=_Alerts([alert]), logs=cluster, topology=cluster)
        ctx = assemble_context(sources, meta)
    ranked = rank_hypotheses(ctx)
    top = next(h for h in ranked if h.entity == "payment")
    assert top.fault_type == "oom_kill"
    text, refs = lead_sentence(ctx, Assessment(top, "validated", 1.0, 0.8, []), "an out-of-memory kill", 0.8)
    assert "OOMKilled" in text and "exit code 137" in text
    assert any(r.kind == "log" for r in refs)


def _record(message: str, **extra: str) -> LogRecord:
    return LogRecord(datetime(2026, 3, 14, 14, 0, tzinfo=UTC), "payment", message, extra=extra)


def test_bundle_event_line_keeps_its_reason_object_exit_code_and_count_in_the_message() -> None:
    oom = event_text(_record("Container app was killed", source="kubernetes", reason="OOMKilled", exit_code="137"))
    assert oom.message == "OOMKilled: Container app was killed (exit code 137)"
    pull = event_text(_record("Back-off pulling image", reason="ImagePullBackOff", involvedObject="Pod/api-1",
                              count="12", type="Warning"))  # fmt: skip
    assert pull.message == "ImagePullBackOff: Pod/api-1: Back-off pulling image (x12)" and pull.level == "WARN"


def test_line_that_already_says_its_reason_or_has_none_is_unchanged() -> None:
    live = _record("BackOff: Pod/payment-1: Back-off restarting failed container app (x4)", reason="BackOff")
    assert event_text(live) == live
    plain = _record("GET /healthz 200")
    assert event_text(plain) == plain
