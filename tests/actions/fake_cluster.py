"""A Kubernetes API subset for deployments and replicasets with PATCH and dryRun,
answered in the API's own JSON so the official client deserialises it."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.sources.local_http import Reply, Request

NS = "shop"


def _template(image: str) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "payment"}}, "spec": {"containers": [{"name": "app", "image": image}]}}


def _merge(into: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


class FakeCluster:
    def __init__(self) -> None:
        self.deployment: dict[str, Any] = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "payment", "namespace": NS, "annotations": {"deployment.kubernetes.io/revision": "2"}},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "payment"}},
                "template": _template("shop/payment:v2.31.0"),
            },
        }
        self.replicasets = [self._rs(1, "shop/payment:v2.30.4"), self._rs(2, "shop/payment:v2.31.0")]
        self.patches: list[tuple[str, bool, dict[str, Any]]] = []

    def _rs(self, revision: int, image: str) -> dict[str, Any]:
        template = _template(image)
        template["metadata"]["labels"]["pod-template-hash"] = f"h{revision}"
        return {
            "metadata": {
                "name": f"payment-h{revision}",
                "namespace": NS,
                "annotations": {"deployment.kubernetes.io/revision": str(revision)},
                "ownerReferences": [
                    {"apiVersion": "apps/v1", "kind": "Deployment", "name": "payment", "uid": "u1", "controller": True}
                ],
            },
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "payment"}}, "template": template},
        }

    def route(self, request: Request) -> Reply:
        base = f"/apis/apps/v1/namespaces/{NS}"
        if request.path == f"{base}/replicasets" and request.method == "GET":
            return Reply(
                body={"apiVersion": "apps/v1", "kind": "ReplicaSetList", "metadata": {}, "items": self.replicasets}
            )
        if request.path == f"{base}/deployments/payment" and request.method == "GET":
            return Reply(body=self.deployment)
        if request.path.startswith(f"{base}/deployments/payment") and request.method == "PATCH":
            patch = json.loads(request.body)
            dry = request.arg("dryRun") == "All"
            self.patches.append((request.path.rsplit("/", 1)[-1], dry, patch))
            target = copy.deepcopy(self.deployment) if dry else self.deployment
            _merge(target, patch)
            if not dry and "template" in patch.get("spec", {}):
                annotations = target["metadata"]["annotations"]
                annotations["deployment.kubernetes.io/revision"] = str(
                    int(annotations["deployment.kubernetes.io/revision"]) + 1
                )
            if request.path.endswith("/scale"):
                return Reply(
                    body={
                        "apiVersion": "autoscaling/v1",
                        "kind": "Scale",
                        "metadata": {"name": "payment", "namespace": NS},
                        "spec": {"replicas": target["spec"]["replicas"]},
                    }
                )
            return Reply(body=target)
        return Reply(404, {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404})
