"""A Kubernetes API subset (events, pods, replicasets, deployments, services) for one small shop cluster.

Objects are written in the API's own JSON so the official client deserialises
them exactly as it would from a real API server.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.sources.local_http import Reply, Request, Route

NS = "shop"
NOW = datetime(2026, 3, 14, 13, 50, tzinfo=UTC)


def ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _meta(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    owner: tuple[str, str] | None = None,
    created: datetime = NOW - timedelta(days=3),
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": NS, "creationTimestamp": ts(created)}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    if owner:
        meta["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1], "uid": f"uid-{owner[1]}", "controller": True}
        ]
    return meta


def _container(image: str, pool: str) -> dict[str, Any]:
    return {
        "name": "app",
        "image": image,
        "env": [{"name": "POOL_SIZE", "value": pool}],
        "resources": {"limits": {"memory": "512Mi"}},
    }


def _replicaset(name: str, deploy: str, revision: int, image: str, pool: str, created: datetime) -> dict[str, Any]:
    template_hash = name.rsplit("-", 1)[1]
    return {
        "metadata": _meta(
            name,
            labels={"app": deploy, "pod-template-hash": template_hash},
            owner=("Deployment", deploy),
            created=created,
            annotations={"deployment.kubernetes.io/revision": str(revision)},
        ),
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": deploy}},
            "template": {"metadata": {"labels": {"app": deploy}}, "spec": {"containers": [_container(image, pool)]}},
        },
    }


def _pod(name: str, rs: str, app: str, node: str, status: dict[str, Any]) -> dict[str, Any]:
    template_hash = rs.rsplit("-", 1)[1]
    return {
        "metadata": _meta(name, labels={"app": app, "pod-template-hash": template_hash}, owner=("ReplicaSet", rs)),
        "spec": {"nodeName": node, "containers": [{"name": "app", "image": "x"}]},
        "status": {"phase": "Running", "startTime": ts(NOW - timedelta(hours=2)), "containerStatuses": [status]},
    }


def objects() -> dict[str, list[dict[str, Any]]]:
    replicasets = [
        _replicaset("payment-5c4b9", "payment", 1, "registry/payment:v2.30.0", "40", NOW - timedelta(days=3)),
        _replicaset("payment-7d9f2", "payment", 2, "registry/payment:v2.31.0", "20", NOW - timedelta(minutes=10)),
        _replicaset("checkout-66aa1", "checkout", 1, "registry/checkout:v1.0.0", "10", NOW - timedelta(days=9)),
    ]
    pods = [
        _pod(
            "payment-7d9f2-abcde",
            "payment-7d9f2",
            "payment",
            "node-2",
            {
                "name": "app",
                "image": "registry/payment:v2.31.0",
                "imageID": "",
                "ready": True,
                "restartCount": 3,
                "state": {"running": {"startedAt": ts(NOW - timedelta(minutes=1))}},
                "lastState": {
                    "terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": ts(NOW - timedelta(minutes=2))}
                },
            },
        ),
        _pod(
            "checkout-66aa1-xyz12",
            "checkout-66aa1",
            "checkout",
            "node-1",
            {
                "name": "app",
                "image": "registry/checkout:v1.0.0",
                "imageID": "",
                "ready": False,
                "restartCount": 7,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                "lastState": {
                    "terminated": {"reason": "Error", "exitCode": 1, "finishedAt": ts(NOW - timedelta(minutes=3))}
                },
            },
        ),
    ]
    events = [
        {
            "metadata": _meta("payment-7d9f2-abcde.1", created=NOW - timedelta(minutes=2)),
            "involvedObject": {"kind": "Pod", "name": "payment-7d9f2-abcde", "namespace": NS},
            "reason": "BackOff",
            "message": "Back-off restarting failed container app",
            "type": "Warning",
            "count": 4,
            "lastTimestamp": ts(NOW - timedelta(minutes=2)),
        },
        {
            "metadata": _meta("payment-7d9f2-gone1.1", created=NOW - timedelta(minutes=6)),
            "involvedObject": {"kind": "Pod", "name": "payment-7d9f2-gone1", "namespace": NS},
            "reason": "Killing",
            "message": "Stopping container app",
            "type": "Normal",
            "lastTimestamp": ts(NOW - timedelta(minutes=6)),
        },
        {
            "metadata": _meta("payment.2", created=NOW - timedelta(minutes=10)),
            "involvedObject": {"kind": "Deployment", "name": "payment", "namespace": NS},
            "reason": "ScalingReplicaSet",
            "message": "Scaled up replica set payment-7d9f2 to 1",
            "type": "Normal",
            "lastTimestamp": ts(NOW - timedelta(minutes=10)),
        },
    ]
    deployments = [
        {
            "metadata": _meta(d),
            "spec": {
                "selector": {"matchLabels": {"app": d}},
                "template": {"spec": {"containers": [{"name": "app", "image": "x"}]}},
            },
        }
        for d in ("payment", "checkout")
    ] + [
        {
            "metadata": _meta("ledger"),
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": {"app": "ledger"}},
                "template": {
                    "metadata": {"labels": {"app": "ledger"}},
                    "spec": {"containers": [{"name": "app", "image": "registry/ledger:v3"}]},
                },
            },
        }
    ]
    services = [
        {"metadata": _meta("payment-api"), "spec": {"selector": {"app": "payment"}}},
        {"metadata": _meta("checkout"), "spec": {"selector": {"app": "checkout"}}},
        {"metadata": _meta("ledger-api"), "spec": {"selector": {"app": "ledger"}}},
    ]
    return {
        f"/api/v1/namespaces/{NS}/events": events,
        f"/api/v1/namespaces/{NS}/pods": pods,
        f"/apis/apps/v1/namespaces/{NS}/replicasets": replicasets,
        f"/apis/apps/v1/namespaces/{NS}/deployments": deployments,
        f"/api/v1/namespaces/{NS}/services": services,
    }


def kubernetes_route() -> Route:
    table = objects()

    def route(request: Request) -> Reply:
        items = table.get(request.path)
        if items is None:
            return Reply(404, {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404})
        return Reply(200, {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": items})

    return route
