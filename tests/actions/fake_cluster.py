"""A Kubernetes API subset for one deployment and its replicasets, with PATCH and dryRun,
answered in the API's own JSON so the official client deserialises it."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.sources.local_http import Reply, Request

NS = "shop"
REVISION = "deployment.kubernetes.io/revision"


def _template(image: str, app: str) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "app", "image": image}]}}


def _merge(into: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


class FakeCluster:
    def __init__(self, name: str = "payment", namespace: str = NS) -> None:
        self.name, self.ns = name, namespace
        self.deployment: dict[str, Any] = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace, "annotations": {REVISION: "2"}},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": name}},
                "template": _template(f"shop/{name}:v2.31.0", name),
            },
        }
        self.replicasets = [self._rs(1, f"shop/{name}:v2.30.4"), self._rs(2, f"shop/{name}:v2.31.0")]
        self.patches: list[tuple[str, bool, dict[str, Any]]] = []

    def _rs(self, revision: int, image: str) -> dict[str, Any]:
        template = _template(image, self.name)
        template["metadata"]["labels"]["pod-template-hash"] = f"h{revision}"
        owner = {"apiVersion": "apps/v1", "kind": "Deployment", "name": self.name, "uid": "u1", "controller": True}
        return {
            "metadata": {
                "name": f"{self.name}-h{revision}",
                "namespace": self.ns,
                "annotations": {REVISION: str(revision)},
                "ownerReferences": [owner],
            },
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": self.name}}, "template": template},
        }

    def route(self, request: Request) -> Reply:
        base = f"/apis/apps/v1/namespaces/{self.ns}"
        dep = f"{base}/deployments/{self.name}"
        if request.path == f"{base}/replicasets" and request.method == "GET":
            items = {"apiVersion": "apps/v1", "kind": "ReplicaSetList", "metadata": {}, "items": self.replicasets}
            return Reply(body=items)
        if request.path == dep and request.method == "GET":
            return Reply(body=self.deployment)
        if request.path.startswith(dep) and request.method == "PATCH":
            patch = json.loads(request.body)
            dry = request.arg("dryRun") == "All"
            self.patches.append((request.path.rsplit("/", 1)[-1], dry, patch))
            target = copy.deepcopy(self.deployment) if dry else self.deployment
            _merge(target, patch)
            if not dry and "template" in patch.get("spec", {}):
                annotations = target["metadata"]["annotations"]
                annotations[REVISION] = str(int(annotations[REVISION]) + 1)
            if request.path.endswith("/scale"):
                scale = {
                    "apiVersion": "autoscaling/v1",
                    "kind": "Scale",
                    "metadata": {"name": self.name, "namespace": self.ns},
                    "spec": {"replicas": target["spec"]["replicas"]},
                }
                return Reply(body=scale)
            return Reply(body=target)
        return Reply(404, {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404})
