"""Topologies the simulator injects faults into.

Three built-in shapes cover the estates rootward is meant for (a Kubernetes
web shop, a self-hosted homelab, a data pipeline); any topology YAML in the
bundle format works too. Each entity carries the software it runs, because the
software decides which log lines and metrics a real incident would leave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# Telemetry families: which metrics an entity exports, decided by its kind.
SERVICE_KINDS = frozenset({"service", "ingress", "batch", "job", "worker", "gateway", "proxy", "app"})
DATABASE_KINDS = frozenset({"database", "db", "warehouse"})
CACHE_KINDS = frozenset({"cache"})
QUEUE_KINDS = frozenset({"queue", "broker", "stream"})
HOST_KINDS = frozenset({"host", "vm", "hypervisor", "node", "server"})
STORAGE_KINDS = frozenset({"storage", "nas", "volume", "object-store"})
NETWORK_KINDS = frozenset({"network", "router", "firewall", "switch", "loadbalancer"})
DNS_KINDS = frozenset({"dns"})
EXTERNAL_KINDS = frozenset({"external", "saas", "third-party"})

# Default software per kind, when the topology does not say.
_DEFAULT_SOFTWARE = {
    "database": "postgres",
    "db": "postgres",
    "warehouse": "clickhouse",
    "cache": "redis",
    "queue": "kafka",
    "broker": "rabbitmq",
    "stream": "kafka",
    "host": "linux",
    "vm": "linux",
    "node": "linux",
    "server": "linux",
    "hypervisor": "proxmox",
    "storage": "truenas",
    "nas": "truenas",
    "volume": "truenas",
    "object-store": "minio",
    "network": "openwrt",
    "router": "openwrt",
    "firewall": "openwrt",
    "switch": "openwrt",
    "loadbalancer": "nginx",
    "dns": "coredns",
    "ingress": "nginx",
    "proxy": "nginx",
}
_SERVICE_LANGUAGES = ("java", "go", "node", "python")


def telemetry_family(kind: str) -> str:
    """The metric family of an entity kind: service, database, cache, queue, host, storage, network,
    dns or external (no telemetry at all)."""
    k = kind.lower()
    for family, kinds in (
        ("database", DATABASE_KINDS),
        ("cache", CACHE_KINDS),
        ("queue", QUEUE_KINDS),
        ("host", HOST_KINDS),
        ("storage", STORAGE_KINDS),
        ("network", NETWORK_KINDS),
        ("dns", DNS_KINDS),
        ("external", EXTERNAL_KINDS),
    ):
        if k in kinds:
            return family
    return "service"


@dataclass(frozen=True)
class SimEntity:
    name: str
    kind: str
    software: str
    depends_on: tuple[str, ...] = ()
    runs_on: tuple[str, ...] = ()
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def family(self) -> str:
        return telemetry_family(self.kind)

    @property
    def dependencies(self) -> tuple[str, ...]:
        return self.depends_on + self.runs_on


@dataclass(frozen=True)
class SimTopology:
    name: str
    entities: tuple[SimEntity, ...]

    def get(self, name: str) -> SimEntity:
        for e in self.entities:
            if e.name == name:
                return e
        raise KeyError(name)

    def names(self) -> list[str]:
        return [e.name for e in self.entities]

    def dependents(self, name: str) -> list[str]:
        """Entities that call or run on `name`: where a fault in it surfaces."""
        return [e.name for e in self.entities if name in e.dependencies]

    def hops_from(self, cause: str, max_depth: int = 4) -> dict[str, int]:
        """Entities a fault in `cause` reaches, with their distance in hops (cause excluded)."""
        seen = {cause: 0}
        frontier = [cause]
        for depth in range(1, max_depth + 1):
            nxt: list[str] = []
            for node in frontier:
                for dep in self.dependents(node):
                    if dep not in seen:
                        seen[dep] = depth
                        nxt.append(dep)
            frontier = nxt
        del seen[cause]
        return seen

    def to_yaml_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for e in self.entities:
            spec: dict[str, Any] = {"kind": e.kind}
            if e.depends_on:
                spec["depends_on"] = list(e.depends_on)
            if e.runs_on:
                spec["runs_on"] = e.runs_on[0] if len(e.runs_on) == 1 else list(e.runs_on)
            spec.update(e.attributes)
            out[e.name] = spec
        return {"entities": out}


def _e(name: str, kind: str, software: str, deps: str = "", on: str = "", **attrs: str) -> SimEntity:
    return SimEntity(
        name=name,
        kind=kind,
        software=software,
        depends_on=tuple(d for d in deps.split() if d),
        runs_on=tuple(o for o in on.split() if o),
        attributes=dict(attrs),
    )


WEB_SHOP = SimTopology(
    "shop",
    (
        _e("ingress", "ingress", "nginx", "frontend", "node-1"),
        _e("frontend", "service", "node", "checkout catalog cart recommendation coredns", "node-1"),
        _e("checkout", "service", "java", "payment cart shipping currency orders-db coredns", "node-2"),
        _e("payment", "service", "java", "payment-db card-gateway coredns", "node-2"),
        _e("cart", "service", "go", "cart-redis coredns", "node-3"),
        _e("catalog", "service", "go", "catalog-db coredns", "node-1"),
        _e("recommendation", "service", "python", "catalog coredns", "node-3"),
        _e("shipping", "service", "python", "shipping-api coredns", "node-3"),
        _e("currency", "service", "node", "fx-rates coredns", "node-1"),
        _e("orders-db", "database", "postgres", "", "node-4"),
        _e("payment-db", "database", "postgres", "", "node-4"),
        _e("catalog-db", "database", "postgres", "", "node-4"),
        _e("cart-redis", "cache", "redis", "", "node-3"),
        _e("coredns", "dns", "coredns", "", "node-2", address="10.96.0.10"),
        _e("card-gateway", "external", "external", "", "", url="https://api.cardgw.example.net"),
        _e("shipping-api", "external", "external", "", "", url="https://rates.shipfast.example.com"),
        _e("fx-rates", "external", "external", "", "", url="https://fx.example.org"),
        _e("node-1", "host", "linux"),
        _e("node-2", "host", "linux"),
        _e("node-3", "host", "linux"),
        _e("node-4", "host", "linux"),
    ),
)

HOMELAB = SimTopology(
    "homelab",
    (
        _e("traefik", "proxy", "traefik", "nextcloud home-assistant jellyfin vaultwarden pihole", "vm-docker"),
        _e("nextcloud", "service", "php", "nextcloud-db nextcloud-redis truenas pihole", "vm-docker"),
        _e("nextcloud-db", "database", "mariadb", "", "vm-docker"),
        _e("nextcloud-redis", "cache", "redis", "", "vm-docker"),
        _e("home-assistant", "service", "python", "mosquitto pihole", "vm-apps", role="consumer"),
        _e("mosquitto", "queue", "mosquitto", "", "vm-apps"),
        _e("vaultwarden", "service", "rust", "vaultwarden-db pihole", "vm-apps"),
        _e("vaultwarden-db", "database", "postgres", "", "vm-apps"),
        _e("jellyfin", "service", "dotnet", "truenas pihole", "vm-media"),
        _e("backup", "batch", "python", "truenas offsite-s3 pihole", "vm-apps"),
        _e("pihole", "dns", "pihole", "router", "vm-dns", address="192.168.1.53"),
        _e("truenas", "storage", "truenas", "router"),
        _e("vm-docker", "vm", "linux", "", "pve-1"),
        _e("vm-apps", "vm", "linux", "", "pve-1"),
        _e("vm-dns", "vm", "linux", "", "pve-2"),
        _e("vm-media", "vm", "linux", "", "pve-2"),
        _e("pve-1", "hypervisor", "proxmox", "router"),
        _e("pve-2", "hypervisor", "proxmox", "router"),
        _e("router", "network", "openwrt"),
        _e("offsite-s3", "external", "external", "", "", url="https://s3.eu-central-003.backblazeb2.com"),
    ),
)

DATA_PIPELINE = SimTopology(
    "pipeline",
    (
        _e("ingest-api", "service", "go", "kafka partner-feed resolver", "worker-1"),
        _e(
            "stream-processor",
            "service",
            "java",
            "kafka dedup-redis schema-registry resolver",
            "worker-1",
            role="consumer",
        ),
        _e("schema-registry", "service", "java", "kafka", "broker-1"),
        _e("kafka", "queue", "kafka", "zookeeper", "broker-1"),
        _e("zookeeper", "service", "zookeeper", "", "broker-1"),
        _e("dedup-redis", "cache", "redis", "", "worker-2"),
        _e("loader", "worker", "python", "kafka warehouse object-store resolver", "worker-2", role="consumer"),
        _e("etl-nightly", "batch", "spark", "object-store warehouse airflow-db resolver", "worker-2"),
        _e("airflow", "service", "python", "airflow-db etl-nightly resolver", "worker-2"),
        _e("airflow-db", "database", "postgres", "", "db-1"),
        _e("warehouse", "warehouse", "clickhouse", "", "wh-1"),
        _e("object-store", "storage", "minio", "", "storage-1"),
        _e("dashboards", "service", "node", "warehouse resolver", "worker-1"),
        _e("resolver", "dns", "unbound", "", "worker-1", address="10.20.0.2"),
        _e("partner-feed", "external", "external", "", "", url="https://feed.partner.example.com"),
        _e("broker-1", "host", "linux"),
        _e("worker-1", "host", "linux"),
        _e("worker-2", "host", "linux"),
        _e("db-1", "host", "linux"),
        _e("wh-1", "host", "linux"),
        _e("storage-1", "host", "linux"),
    ),
)

BUILT_IN: dict[str, SimTopology] = {t.name: t for t in (WEB_SHOP, HOMELAB, DATA_PIPELINE)}


def _list(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    return (str(value),)


def topology_from_dict(name: str, data: dict[str, Any]) -> SimTopology:
    """A user topology (bundle `topology.yaml` form); software is guessed from kind when absent.

    Service languages are assigned by a stable hash of the name so the same
    topology always yields the same log flavours, independent of the seed.
    """
    raw = data.get("entities")
    if not isinstance(raw, dict) or not raw:
        raise ValueError("topology: field 'entities' must be a non-empty mapping")
    entities: list[SimEntity] = []
    named = set()
    for ename, spec in raw.items():
        spec = spec or {}
        kind = str(spec.get("kind", "service"))
        software = str(spec.get("software") or "")
        if not software:
            if telemetry_family(kind) == "external":
                software = "external"
            elif kind.lower() in _DEFAULT_SOFTWARE:
                software = _DEFAULT_SOFTWARE[kind.lower()]
            else:
                software = _SERVICE_LANGUAGES[sum(map(ord, str(ename))) % len(_SERVICE_LANGUAGES)]
        attrs = {str(k): str(v) for k, v in spec.items() if k not in ("kind", "depends_on", "runs_on", "software")}
        entities.append(
            SimEntity(str(ename), kind, software, _list(spec.get("depends_on")), _list(spec.get("runs_on")), attrs)
        )
        named.add(str(ename))
    for ent in list(entities):
        for target in ent.dependencies:
            if target not in named:
                named.add(target)
                entities.append(SimEntity(target, "service", "go"))
    return SimTopology(name, tuple(entities))


def load_topology(spec: str) -> SimTopology:
    """A built-in topology by name, or a topology YAML file by path."""
    if spec in BUILT_IN:
        return BUILT_IN[spec]
    path = Path(spec)
    if not path.is_file():
        raise ValueError(f"unknown topology {spec!r}: use one of {', '.join(BUILT_IN)} or a YAML file")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping with 'entities'")
    stem = "".join(ch if ch.isalnum() else "-" for ch in path.stem.lower()).strip("-") or "custom"
    return topology_from_dict(stem, data)
