"""The Kubernetes connector through the official client against a local API-server subset."""

from __future__ import annotations

from datetime import timedelta

import pytest

from rootward.sources.kubernetes import KubernetesSettings, KubernetesSource
from tests.sources.fake_kubernetes import NOW, NS, kubernetes_route
from tests.sources.local_http import serve

pytestmark = pytest.mark.integration


def _source(url: str) -> KubernetesSource:
    return KubernetesSource(KubernetesSettings(host=url, token="t0k", namespaces=[NS], timeout_s=5))


def test_pod_health_names_oomkilled_and_crashloop_with_restart_counts() -> None:
    with serve(kubernetes_route()) as (url, seen):
        health = {h.service: h for h in _source(url).pod_health()}
    assert health["payment"].oom_killed and health["payment"].restarts == 3
    assert health["payment"].node == "node-2"
    assert health["checkout"].containers[0].waiting_reason == "CrashLoopBackOff"
    assert seen[0].headers["authorization"] == "Bearer t0k"


def test_events_and_pod_states_come_back_as_log_records_of_the_window() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        records = _source(url).query("payment", NOW - timedelta(minutes=15), NOW)
    messages = [r.message for r in records]
    assert any("ScalingReplicaSet: Deployment/payment" in m for m in messages)
    assert any("BackOff: Pod/payment-7d9f2-abcde" in m and "(x4)" in m for m in messages)
    oom = next(r for r in records if "OOMKilled" in r.message)
    assert oom.level == "ERROR" and oom.pod == "payment-7d9f2-abcde" and "exit code 137" in oom.message
    assert all(r.service == "payment" for r in records)


def test_window_and_filter_narrow_the_records() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        source = _source(url)
        (backoff,) = source.query("payment", NOW - timedelta(minutes=5), NOW, filter="backoff")
        assert backoff.extra["reason"] == "BackOff"
        assert source.query(None, NOW - timedelta(hours=1), NOW - timedelta(minutes=30)) == []


def test_rollout_history_becomes_deploy_changes_with_a_diff_to_the_previous_revision() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        changes = _source(url).recent(["payment"], NOW - timedelta(days=4), NOW)
    assert [c.id for c in changes] == ["k8s:shop/payment:rev2", "k8s:shop/payment:rev1"]
    latest = changes[0]
    assert latest.kind == "deploy" and latest.version == "v2.31.0"
    assert "- container app env POOL_SIZE: 40" in latest.diff
    assert "+ container app env POOL_SIZE: 20" in latest.diff
    assert "+ container app image: registry/payment:v2.31.0" in latest.diff


def test_recent_changes_respect_the_window() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        changes = _source(url).recent(None, NOW - timedelta(hours=1), NOW)
    assert [c.id for c in changes] == ["k8s:shop/payment:rev2"]


def test_topology_from_owner_references_and_service_selectors() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        topology = _source(url).graph()
    assert topology.entities["payment"].runs_on == ("node-2",)
    assert topology.entities["node-2"].kind == "host"
    assert topology.entities["payment-api"].depends_on == ("payment",)
    assert topology.entities["checkout"].depends_on == ()  # the Service is named like its Deployment


def test_service_label_setting_names_services_by_pod_label() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        settings = KubernetesSettings(host=url, namespaces=[NS], service_label="app", timeout_s=5)
        health = KubernetesSource(settings).pod_health("checkout")
    assert [h.pod for h in health] == ["checkout-66aa1-xyz12"]


def test_events_of_deleted_pods_are_attributed_through_their_replicaset() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        records = _source(url).query(None, NOW - timedelta(minutes=7), NOW - timedelta(minutes=5))
    assert [(r.service, r.pod, r.extra["reason"]) for r in records] == [("payment", "payment-7d9f2-gone1", "Killing")]


def test_deployment_scaled_to_zero_stays_in_the_topology_behind_its_service() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        topology = _source(url).graph()
    assert topology.entities["ledger"].attributes["pods"] == "0"
    assert topology.entities["ledger"].runs_on == ()
    assert topology.entities["ledger-api"].depends_on == ("ledger",)


def test_the_api_paths_read_are_kept_as_live_queries_per_kind_of_data() -> None:
    with serve(kubernetes_route()) as (url, _seen):
        source = _source(url)
        source.query(None, NOW - timedelta(hours=1), NOW)
        logs = source.live_queries(NOW - timedelta(hours=1), NOW)
        source.recent(None, NOW - timedelta(days=2), NOW)
        changes = source.live_queries(NOW - timedelta(days=2), NOW)
    assert {(q.kind, q.query) for q in logs} == {
        ("logs", f"Kubernetes API GET /api/v1/namespaces/{NS}/events"),
        ("logs", f"Kubernetes API GET /api/v1/namespaces/{NS}/pods"),
        ("logs", f"Kubernetes API GET /apis/apps/v1/namespaces/{NS}/replicasets"),
    }
    assert [(q.kind, q.query) for q in changes] == [
        ("changes", f"Kubernetes API GET /apis/apps/v1/namespaces/{NS}/replicasets")
    ]
    assert all(q.source == "Kubernetes" and not q.url for q in logs + changes)
