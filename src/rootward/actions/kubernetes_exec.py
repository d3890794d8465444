"""Kubernetes remediation through the official client: rollout restart, scale, rollback.

Every call runs first with `dryRun=All`, so the API server validates the
exact patch (admission, quotas, RBAC) before anything changes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import urllib3
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from rootward.actions.backends import BackendError
from rootward.actions.settings_models import KubernetesExecSettings
from rootward.worldmodel.prediction_gate import ProposedAction

REVISION = "deployment.kubernetes.io/revision"


class KubernetesBackend:
    verbs: tuple[str, ...] = ("restart", "scale", "rollback")

    def __init__(self, settings: KubernetesExecSettings) -> None:
        config = k8s.Configuration()
        config.host = settings.host
        config.verify_ssl = settings.verify_tls
        config.retries = 1
        if settings.ca_cert:
            config.ssl_ca_cert = settings.ca_cert
        if settings.token is not None:
            config.api_key = {"authorization": settings.token.get_secret_value()}
            config.api_key_prefix = {"authorization": "Bearer"}
        self._apps = k8s.AppsV1Api(k8s.ApiClient(config))
        self._settings = settings

    def _where(self, action: ProposedAction) -> tuple[str, str]:
        name = str(action.params.get("deployment") or action.target)
        return name, str(action.params.get("namespace") or self._settings.namespace)

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, _request_timeout=self._settings.timeout_s, **kwargs)
        except ApiException as exc:
            raise BackendError(f"kubernetes {what}: HTTP {exc.status} {exc.reason}") from exc
        except (OSError, urllib3.exceptions.HTTPError) as exc:
            raise BackendError(f"kubernetes {what}: {exc.__class__.__name__}") from exc

    def state(self, action: ProposedAction) -> dict[str, Any]:
        name, ns = self._where(action)
        dep = self._call("read", self._apps.read_namespaced_deployment, name, ns)
        annotations = dep.metadata.annotations or {}
        template_annotations = (dep.spec.template.metadata.annotations or {}) if dep.spec.template.metadata else {}
        return {
            "deployment": name,
            "namespace": ns,
            "replicas": dep.spec.replicas,
            "images": [c.image for c in dep.spec.template.spec.containers],
            "revision": annotations.get(REVISION),
            "restarted_at": template_annotations.get("kubectl.kubernetes.io/restartedAt"),
        }

    def _patch(self, action: ProposedAction, dry_run: bool) -> dict[str, Any]:
        name, ns = self._where(action)
        dry = {"dry_run": "All"} if dry_run else {}
        if action.verb == "restart":
            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            body = {"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": stamp}}}}}
            self._call("restart", self._apps.patch_namespaced_deployment, name, ns, body, **dry)
            return {"restarted_at": stamp}
        if action.verb == "scale":
            replicas = int(action.params["replicas"])
            if replicas < 0:
                raise BackendError("scale: replicas must be >= 0")
            scale: dict[str, Any] = {"spec": {"replicas": replicas}}
            self._call("scale", self._apps.patch_namespaced_deployment_scale, name, ns, scale, **dry)
            return {"replicas": replicas}
        if action.verb == "rollback":
            template, revision = self._previous_template(name, ns, action.params.get("to_revision"))
            patch = {"spec": {"template": template}}
            self._call("rollback", self._apps.patch_namespaced_deployment, name, ns, patch, **dry)
            return {"rolled_back_to_revision": revision}
        raise BackendError(f"kubernetes: unsupported verb {action.verb!r}")

    def _previous_template(self, name: str, ns: str, wanted: Any) -> tuple[dict[str, Any], int]:
        dep = self._call("read", self._apps.read_namespaced_deployment, name, ns)
        current = int((dep.metadata.annotations or {}).get(REVISION, "0"))
        selector = ",".join(f"{k}={v}" for k, v in sorted((dep.spec.selector.match_labels or {}).items()))
        sets = self._call("list replicasets", self._apps.list_namespaced_replica_set, ns, label_selector=selector)
        by_revision: dict[int, Any] = {}
        for rs in sets.items:
            owners = rs.metadata.owner_references or []
            if any(o.kind == "Deployment" and o.name == name for o in owners):
                by_revision[int((rs.metadata.annotations or {}).get(REVISION, "0"))] = rs
        target = int(wanted) if wanted is not None else max((r for r in by_revision if r < current), default=0)
        if target not in by_revision or target == 0:
            raise BackendError(f"rollback: no revision {wanted if wanted is not None else 'before ' + str(current)}")
        template = k8s.ApiClient().sanitize_for_serialization(by_revision[target].spec.template)
        template.get("metadata", {}).get("labels", {}).pop("pod-template-hash", None)
        return template, target

    def dry_run(self, action: ProposedAction) -> dict[str, Any]:
        return self._patch(action, dry_run=True)

    def execute(self, action: ProposedAction) -> dict[str, Any]:
        return self._patch(action, dry_run=False)
