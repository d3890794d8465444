"""Kubernetes through the official client: events, pod health, rollouts, topology.

What an SRE checks first in a cluster, read-only:
- events and pod container states (restarts, OOMKilled, CrashLoopBackOff) as
  `LogRecord`s, so they cluster and cite like log lines (`query`), or as
  typed `PodHealth` (`pod_health`);
- rollout history: each ReplicaSet revision of a Deployment is a deploy
  `Change`, with the image and env differences to the previous revision as
  its diff (`recent`);
- topology: Deployments/StatefulSets as services that run on the nodes of
  their pods, and Services that select those pods (`graph`).

A service is the owning workload's name (pod → ReplicaSet → Deployment), or
the pod label named by `service_label` when set. Every API call goes through
the guard with `_request_timeout`, so a hung API server is a gap too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import Field, SecretStr

from rootward.domain.live import LiveKind, LiveQuery
from rootward.domain.telemetry import Change, LogRecord
from rootward.domain.topology import Entity, Topology
from rootward.sources.base import SourceUnavailable
from rootward.sources.connector import Connector
from rootward.sources.resilience import ConnectorSettings, Guard

SOURCE = "Kubernetes"
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE_ANNOTATION = "kubernetes.io/change-cause"
T = TypeVar("T")


class KubernetesSettings(ConnectorSettings):
    namespaces: list[str] = Field(default_factory=lambda: ["default"], description="Namespaces to read.")
    kubeconfig: Path | None = Field(
        default=None, description="Path of a kubeconfig file; empty: ~/.kube/config (unless in_cluster or host)."
    )
    context: str | None = Field(default=None, description="kubeconfig context; empty: the current one.")
    in_cluster: bool = Field(default=False, description="Use the pod's service account (running inside the cluster).")
    host: str | None = Field(
        default=None, description="API server URL used directly (with `token`), e.g. https://10.0.0.1:6443."
    )
    token: SecretStr | None = Field(default=None, description="Bearer token for `host`.")
    ca_cert: Path | None = Field(default=None, description="CA bundle for `host`.")
    verify_tls: bool = Field(default=True, description="Verify the API server's certificate (with `host`).")
    service_label: str = Field(
        default="",
        description="Pod label naming the service (e.g. app.kubernetes.io/name); empty: the owning "
        "Deployment/StatefulSet/DaemonSet name.",
    )


@dataclass(frozen=True)
class ContainerHealth:
    name: str
    restarts: int
    ready: bool
    waiting_reason: str = ""  # CrashLoopBackOff, ImagePullBackOff...
    last_terminated_reason: str = ""  # OOMKilled, Error...
    last_exit_code: int | None = None
    last_finished_at: datetime | None = None


@dataclass(frozen=True)
class PodHealth:
    namespace: str
    pod: str
    service: str
    node: str
    phase: str
    started_at: datetime | None
    containers: tuple[ContainerHealth, ...]

    @property
    def restarts(self) -> int:
        return sum(c.restarts for c in self.containers)

    @property
    def oom_killed(self) -> bool:
        return any(c.last_terminated_reason == "OOMKilled" for c in self.containers)


# --- pure mapping of API objects ---------------------------------------------


def _labels(obj: Any) -> dict[str, str]:
    return dict(getattr(obj.metadata, "labels", None) or {})


def _owner(obj: Any) -> tuple[str, str] | None:
    for ref in getattr(obj.metadata, "owner_references", None) or []:
        if getattr(ref, "controller", None) or len(obj.metadata.owner_references) == 1:
            return str(ref.kind), str(ref.name)
    return None


def workload_of_pod(pod: Any, replicaset_owners: dict[str, str]) -> str:
    """The Deployment/StatefulSet/... name owning `pod`, else the pod's own name.

    `replicaset_owners` maps ReplicaSet name → Deployment name; without an
    entry the pod-template-hash suffix is stripped, which is what the
    Deployment controller appends.
    """
    owner = _owner(pod)
    if owner is None:
        return str(pod.metadata.name)
    kind, name = owner
    if kind != "ReplicaSet":
        return name
    if name in replicaset_owners:
        return replicaset_owners[name]
    template_hash = _labels(pod).get("pod-template-hash")
    if template_hash and name.endswith("-" + template_hash):
        return name[: -len(template_hash) - 1]
    return name


def service_of_pod(pod: Any, replicaset_owners: dict[str, str], service_label: str) -> str:
    if service_label:
        value = _labels(pod).get(service_label)
        if value:
            return value
    return workload_of_pod(pod, replicaset_owners)


def replicaset_owners(replicasets: Sequence[Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for rs in replicasets:
        owner = _owner(rs)
        if owner is not None and owner[0] == "Deployment":
            out[str(rs.metadata.name)] = owner[1]
    return out


def pod_health(pod: Any, rs_owners: dict[str, str], service_label: str) -> PodHealth:
    containers = []
    status = pod.status
    for cs in getattr(status, "container_statuses", None) or []:
        waiting = getattr(getattr(cs, "state", None), "waiting", None)
        terminated = getattr(getattr(cs, "last_state", None), "terminated", None)
        containers.append(
            ContainerHealth(
                name=str(cs.name),
                restarts=int(cs.restart_count or 0),
                ready=bool(cs.ready),
                waiting_reason=str(getattr(waiting, "reason", "") or ""),
                last_terminated_reason=str(getattr(terminated, "reason", "") or ""),
                last_exit_code=getattr(terminated, "exit_code", None),
                last_finished_at=getattr(terminated, "finished_at", None),
            )
        )
    return PodHealth(
        namespace=str(pod.metadata.namespace or ""),
        pod=str(pod.metadata.name),
        service=service_of_pod(pod, rs_owners, service_label),
        node=str(getattr(pod.spec, "node_name", "") or ""),
        phase=str(getattr(status, "phase", "") or ""),
        started_at=getattr(status, "start_time", None),
        containers=tuple(containers),
    )


def health_records(health: PodHealth) -> list[LogRecord]:
    """One WARN line per troubled container: restarts, last termination reason, waiting reason."""
    out = []
    for c in health.containers:
        if not (c.restarts or c.waiting_reason or c.last_terminated_reason):
            continue
        parts = [f"pod {health.namespace}/{health.pod} container {c.name}: {c.restarts} restarts"]
        if c.last_terminated_reason:
            code = f" (exit code {c.last_exit_code})" if c.last_exit_code is not None else ""
            parts.append(f"last terminated: {c.last_terminated_reason}{code}")
        if c.waiting_reason:
            parts.append(f"now waiting: {c.waiting_reason}")
        ts = c.last_finished_at or health.started_at
        if ts is None:
            continue
        out.append(
            LogRecord(
                ts=ts,
                service=health.service,
                message="; ".join(parts),
                level="ERROR" if c.last_terminated_reason == "OOMKilled" or c.waiting_reason else "WARN",
                host=health.node,
                pod=health.pod,
                extra={
                    "source": "kubernetes.pod_status",
                    "namespace": health.namespace,
                    "reason": c.last_terminated_reason or c.waiting_reason,
                },
            )
        )
    return out


def event_time(event: Any) -> datetime | None:
    for attr in ("last_timestamp", "event_time", "first_timestamp"):
        value = getattr(event, attr, None)
        if isinstance(value, datetime):
            return value
    created = getattr(event.metadata, "creation_timestamp", None)
    return created if isinstance(created, datetime) else None


def event_record(event: Any, pod_services: dict[str, str], rs_owners: dict[str, str]) -> LogRecord | None:
    ts = event_time(event)
    if ts is None:
        return None
    obj = event.involved_object
    kind, name = str(obj.kind or ""), str(obj.name or "")
    if kind == "Pod":
        # A pod deleted since (the usual fate of a crashing one) is named <replicaset>-<suffix>.
        service = pod_services.get(name) or rs_owners.get(name.rsplit("-", 1)[0], name)
    elif kind == "ReplicaSet":
        service = rs_owners.get(name, name)
    else:
        service = name
    count = int(getattr(event, "count", None) or 1)
    times = f" (x{count})" if count > 1 else ""
    return LogRecord(
        ts=ts,
        service=service,
        message=f"{event.reason or ''}: {kind}/{name}: {event.message or ''}{times}",
        level="WARN" if event.type == "Warning" else "INFO",
        host=str(getattr(getattr(event, "source", None), "host", "") or ""),
        pod=name if kind == "Pod" else "",
        extra={
            "source": "kubernetes.event",
            "namespace": str(obj.namespace or event.metadata.namespace or ""),
            "reason": str(event.reason or ""),
            "kind": kind,
        },
    )


def _template_lines(rs: Any) -> list[str]:
    """The pod template's containers as diffable lines: image, env names/values, resources."""
    lines: list[str] = []
    spec = getattr(getattr(rs.spec, "template", None), "spec", None)
    for c in getattr(spec, "containers", None) or []:
        lines.append(f"container {c.name} image: {c.image}")
        for env in getattr(c, "env", None) or []:
            value = env.value if env.value is not None else "<from source>"
            lines.append(f"container {c.name} env {env.name}: {value}")
        res = getattr(c, "resources", None)
        for kind in ("limits", "requests"):
            for key, value in sorted((getattr(res, kind, None) or {}).items()):
                lines.append(f"container {c.name} {kind}.{key}: {value}")
    return lines


def line_diff(before: list[str], after: list[str]) -> str:
    gone = [f"- {line}" for line in before if line not in after]
    new = [f"+ {line}" for line in after if line not in before]
    return "\n".join(gone + new)


def rollout_changes(replicasets: Sequence[Any]) -> list[Change]:
    """Deploy changes from Deployment-owned ReplicaSets, one per revision, with diffs to the previous one."""
    by_deploy: dict[tuple[str, str], list[tuple[int, Any]]] = {}
    for rs in replicasets:
        owner = _owner(rs)
        annotations = getattr(rs.metadata, "annotations", None) or {}
        revision = annotations.get(REVISION_ANNOTATION)
        if owner is None or owner[0] != "Deployment" or revision is None or not str(revision).isdigit():
            continue
        key = (str(rs.metadata.namespace or ""), owner[1])
        by_deploy.setdefault(key, []).append((int(revision), rs))
    changes: list[Change] = []
    for (namespace, deployment), revisions in by_deploy.items():
        revisions.sort(key=lambda item: item[0])
        previous: list[str] = []
        for revision, rs in revisions:
            lines = _template_lines(rs)
            images = [line.split(" image: ", 1)[1] for line in lines if " image: " in line]
            annotations = getattr(rs.metadata, "annotations", None) or {}
            cause = annotations.get(CHANGE_CAUSE_ANNOTATION, "")
            created = rs.metadata.creation_timestamp
            if not isinstance(created, datetime):
                continue
            summary = f"Deployment {namespace}/{deployment} rolled out revision {revision}"
            if images:
                summary += f" ({', '.join(images)})"
            if cause:
                summary += f": {cause}"
            changes.append(
                Change(
                    id=f"k8s:{namespace}/{deployment}:rev{revision}",
                    kind="deploy",
                    service=deployment,
                    time=created,
                    version=",".join(image.rsplit(":", 1)[-1] if ":" in image else image for image in images),
                    author=str(annotations.get("rootward.dev/author", "")),
                    summary=summary,
                    diff=line_diff(previous, lines) if previous else "\n".join(f"+ {line}" for line in lines),
                )
            )
            previous = lines
    return changes


def _selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def cluster_topology(
    pods: Sequence[Any],
    replicasets: Sequence[Any],
    services: Sequence[Any],
    service_label: str,
    deployments: Sequence[Any] = (),
) -> Topology:
    """Workloads run on their pods' nodes; a Service whose name differs from its workload depends on it.

    Deployments scaled to zero still appear (with `pods: 0`), and a Service
    selecting their pod template still depends on them: an outage that
    removed every pod must not remove the service from the graph.
    """
    rs_owners = replicaset_owners(replicasets)
    runs_on: dict[str, list[str]] = {}
    namespace_of: dict[str, str] = {}
    pods_of: dict[str, list[Any]] = {}
    for pod in pods:
        svc = service_of_pod(pod, rs_owners, service_label)
        node = str(getattr(pod.spec, "node_name", "") or "")
        nodes = runs_on.setdefault(svc, [])
        if node and node not in nodes:
            nodes.append(node)
        namespace_of[svc] = str(pod.metadata.namespace or "")
        pods_of.setdefault(svc, []).append(pod)
    template_labels: dict[str, dict[str, str]] = {}
    for deployment in deployments:
        name = str(deployment.metadata.name)
        template = getattr(getattr(deployment.spec, "template", None), "metadata", None)
        template_labels[name] = dict(getattr(template, "labels", None) or {})
        if not service_label and name not in runs_on:
            runs_on[name] = []
            namespace_of[name] = str(deployment.metadata.namespace or "")
            pods_of[name] = []
    entities: dict[str, Entity] = {}
    for svc, nodes in runs_on.items():
        entities[svc] = Entity(
            name=svc,
            kind="service",
            runs_on=tuple(nodes),
            attributes={"namespace": namespace_of[svc], "pods": str(len(pods_of[svc])), "source": "kubernetes"},
        )
        for node in nodes:
            entities.setdefault(node, Entity(name=node, kind="host", attributes={"source": "kubernetes"}))
    for service in services:
        name = str(service.metadata.name)
        selector = dict(getattr(service.spec, "selector", None) or {})
        by_pods = {w for w, ps in pods_of.items() for p in ps if _selects(selector, _labels(p))}
        by_template = {d for d, labels in template_labels.items() if not service_label and _selects(selector, labels)}
        backends = sorted((by_pods | by_template) - {name})
        if name in entities:
            if backends:
                old = entities[name]
                depends = old.depends_on + tuple(backends)
                entities[name] = Entity(old.name, old.kind, depends, old.runs_on, old.attributes)
            continue
        if not backends:
            continue
        entities[name] = Entity(
            name=name,
            kind="service",
            depends_on=tuple(backends),
            attributes={
                "namespace": str(service.metadata.namespace or ""),
                "k8s_kind": "Service",
                "source": "kubernetes",
            },
        )
    return Topology(entities=entities)


# --- the connector -------------------------------------------------------------


class KubernetesSource:
    """`LogSource` (events + pod health), `ChangeSource` (rollouts) and `TopologySource` for one cluster."""

    def __init__(self, settings: KubernetesSettings, *, guard: Guard | None = None) -> None:
        self.settings = settings
        self.guard = guard or Guard(SOURCE, settings)
        self._core: Any = None
        self._apps: Any = None
        self._asked: list[tuple[LiveKind, str]] = []  # (kind of data, API path) since the last live_queries

    def _apis(self) -> tuple[Any, Any]:
        if self._core is None:
            from kubernetes import client

            api_client = client.ApiClient(self._configuration())
            self._core, self._apps = client.CoreV1Api(api_client), client.AppsV1Api(api_client)
        return self._core, self._apps

    def _configuration(self) -> Any:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException

        s = self.settings
        cfg = client.Configuration()
        try:
            if s.host:
                cfg.host = s.host.rstrip("/")
                if s.token is not None:
                    cfg.api_key = {"authorization": f"Bearer {s.token.get_secret_value()}"}
                cfg.verify_ssl = s.verify_tls
                if s.ca_cert is not None:
                    cfg.ssl_ca_cert = str(s.ca_cert)
            elif s.in_cluster:
                config.load_incluster_config(client_configuration=cfg)
            else:
                config.load_kube_config(
                    config_file=str(s.kubeconfig.expanduser()) if s.kubeconfig else None,
                    context=s.context,
                    client_configuration=cfg,
                )
        except (ConfigException, OSError) as exc:
            raise SourceUnavailable(SOURCE, f"cannot load cluster credentials: {exc}") from None
        cfg.retries = 0  # the breaker decides about retrying, not urllib3
        return cfg

    def _list(self, what: str, fn: Callable[..., Any], namespace: str) -> list[Any]:
        def run() -> list[Any]:
            return list(fn(namespace, _request_timeout=float(self.settings.timeout_s)).items or [])

        return self.guard.call(f"{what} in {namespace}", run)

    def _all(self, what: str, pick: Callable[[Any, Any], Callable[..., Any]], path: str, kind: LiveKind) -> list[Any]:
        """`path` is the API path the client calls (`{ns}` for the namespace), kept as the live query."""
        core, apps = self._apis()
        out: list[Any] = []
        for namespace in self.settings.namespaces:
            out += self._list(what, pick(core, apps), namespace)
            self._asked.append((kind, path.format(ns=namespace)))
        return out

    def pods(self, kind: LiveKind = "logs") -> list[Any]:
        return self._all(
            "list pods", lambda core, _apps: core.list_namespaced_pod, "/api/v1/namespaces/{ns}/pods", kind
        )

    def events(self) -> list[Any]:
        return self._all(
            "list events", lambda core, _apps: core.list_namespaced_event, "/api/v1/namespaces/{ns}/events", "logs"
        )

    def replicasets(self, kind: LiveKind = "changes") -> list[Any]:
        return self._all(
            "list replicasets",
            lambda _core, apps: apps.list_namespaced_replica_set,
            "/apis/apps/v1/namespaces/{ns}/replicasets",
            kind,
        )

    def deployments(self) -> list[Any]:
        return self._all(
            "list deployments",
            lambda _core, apps: apps.list_namespaced_deployment,
            "/apis/apps/v1/namespaces/{ns}/deployments",
            "topology",
        )

    def services(self) -> list[Any]:
        return self._all(
            "list services", lambda core, _apps: core.list_namespaced_service, "/api/v1/namespaces/{ns}/services",
            "topology",
        )  # fmt: skip

    def live_queries(self, start: datetime, end: datetime) -> list[LiveQuery]:
        """The API paths read since the last call (`GET /api/v1/namespaces/shop/events`...), one per kind and path.

        Kubernetes keeps no history to link to, so there is no URL: the path is how to read the same state
        again (`kubectl get --raw <path>`)."""
        asked = list(dict.fromkeys(self._asked))
        self._asked = []
        return [LiveQuery(kind, SOURCE, "", f"Kubernetes API GET {path}") for kind, path in asked]

    def pod_health(self, service: str | None = None) -> list[PodHealth]:
        owners = replicaset_owners(self.replicasets("logs"))
        health = [pod_health(p, owners, self.settings.service_label) for p in self.pods()]
        return [h for h in health if service is None or h.service == service]

    # --- LogSource ---

    def query(
        self, service: str | None, start: datetime, end: datetime, filter: str | None = None
    ) -> Sequence[LogRecord]:
        """Events and pod-health lines of the window, as log records (newest state of each container)."""
        owners = replicaset_owners(self.replicasets("logs"))
        pods = self.pods()
        pod_services = {str(p.metadata.name): service_of_pod(p, owners, self.settings.service_label) for p in pods}
        records: list[LogRecord] = []
        for event in self.events():
            record = event_record(event, pod_services, owners)
            if record is not None:
                records.append(record)
        for pod in pods:
            records += health_records(pod_health(pod, owners, self.settings.service_label))
        needle = filter.lower() if filter else None
        start, end = _aware(start), _aware(end)
        out = [
            r
            for r in records
            if (service is None or r.service == service)
            and start <= _aware(r.ts) <= end
            and (needle is None or needle in r.message.lower())
        ]
        out.sort(key=lambda r: r.ts)
        return out

    # --- ChangeSource ---

    def recent(self, services: Sequence[str] | None, start: datetime, end: datetime) -> Sequence[Change]:
        wanted = set(services) if services is not None else None
        start, end = _aware(start), _aware(end)
        changes = [
            c
            for c in rollout_changes(self.replicasets())
            if (wanted is None or c.service in wanted) and start <= _aware(c.time) <= end
        ]
        return sorted(changes, key=lambda c: c.time, reverse=True)

    # --- TopologySource ---

    def graph(self) -> Topology:
        return cluster_topology(
            self.pods("topology"),
            self.replicasets("topology"),
            self.services(),
            self.settings.service_label,
            self.deployments(),
        )


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


CONNECTOR = Connector(
    name="kubernetes",
    settings=KubernetesSettings,
    description="Events, pod health, rollouts.",
    provides=frozenset({"logs", "changes", "topology"}),
    build=KubernetesSource,
)
