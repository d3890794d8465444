"""The workload a generated Kubernetes pod name, a scrape target or a cluster DNS name belongs to.

Series and log streams are often keyed by pod (`cartservice-7d9f8b6c4-x2k9p`,
`kafka-0`) while the topology, the alerts and the traces name the service
(`cartservice`); a scrape target or a cluster DNS name (`cartservice:7070`,
`cartservice.shop.svc.cluster.local`) names it too. Kubernetes generates pod
names by fixed rules: a Deployment's pod is `<name>-<pod-template hash>-<5
characters>`, a DaemonSet's or a bare ReplicaSet's `<name>-<5 characters>`, a
StatefulSet's `<name>-<ordinal>`, and the random parts are drawn from an alphabet without
vowels and without 0, 1 and 3 (so they never spell a word). Only those shapes
are stripped, and a name is mapped only when what is left is an entity the
caller knows (`payments-worker` is never read as `payments`), or when it has
both generated parts of a Deployment's pod.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from rootward.domain.telemetry import PEER_KEYS, Span

# Kubernetes' generated-name alphabet (apimachinery util/rand): consonants and 2, 4-9.
_RAND = "[bcdfghjklmnpqrstvwxz2456789]"
_GENERATED = (
    re.compile(rf"^(?P<base>.+)-{_RAND}{{6,10}}-{_RAND}{{5}}$"),  # Deployment: <name>-<hash>-<suffix>
    re.compile(rf"^(?P<base>.+)-{_RAND}{{5}}$"),  # DaemonSet, Job, bare ReplicaSet: <name>-<suffix>
    re.compile(r"^(?P<base>.+)-\d{1,4}$"),  # StatefulSet: <name>-<ordinal>
)


# A Service's cluster DNS name or a scrape target (`instance`): `cart.shop.svc.cluster.local:7070`, `cart:7070`;
# a StatefulSet pod's own name has one label more: `kafka-0.kafka.shop.svc.cluster.local`.
_ADDRESS = re.compile(
    r"^(?P<base>[A-Za-z0-9][A-Za-z0-9_-]*)(?:(?:\.[a-z0-9-]+){1,2}\.svc(?:\.cluster\.local)?\.?)?(?::\d{1,5})?$"
)


# The pod-name readers below are asked of every log line and span (20,000 a bundle) about a few
# dozen distinct names: memoised, a dict lookup instead of three regex matches a line.
@functools.lru_cache(maxsize=4096)
def generated_base(name: str) -> str | None:
    """`name` without a Kubernetes-generated pod suffix, None when it has none of those shapes."""
    for pattern in _GENERATED:
        m = pattern.match(name)
        if m:
            return m["base"]
    return None


@functools.lru_cache(maxsize=4096)
def replica_set_of(pod: str) -> str | None:
    """The ReplicaSet a Deployment's pod belongs to (`<name>-<hash>`), None for a name of another shape.

    A Deployment's pods carry the hash of their pod template: a new hash is a rollout (or a
    rollback), while a restart, an eviction or a scale-up keeps it.
    """
    m = _GENERATED[0].match(pod)
    return pod[: pod.rfind("-")] if m else None


@functools.lru_cache(maxsize=4096)
def address_base(name: str) -> str | None:
    """The service a cluster DNS name or `host:port` target names, None when `name` is neither."""
    m = _ADDRESS.match(name)
    return m["base"] if m and m["base"] != name else None


def workload_bases(name: str) -> tuple[str, ...]:
    """Every name `name` may be read as, depending on what is known: its address's host, that without a pod suffix."""
    address = address_base(name)
    generated = generated_base(address or name)
    return tuple(n for n in (address, generated) if n is not None)


def workload_of(name: str, known: Collection[str]) -> str:
    """The workload `name` is a generated pod name of; `name` itself when it is known or is none.

    The workload must be known, except for a Deployment's pod: a hash and a suffix both drawn
    from the generated alphabet are a shape no one names a service by, so with no map
    naming it (no topology, an unmapped service) the pods are still one workload.
    """
    if name in known:
        return name
    address = address_base(name)
    if address is not None and address in known:
        return address
    base = generated_base(address or name)
    if base is not None and (base in known or _GENERATED[0].match(address or name)):
        return base
    return name


def spans_by_workload(spans: Sequence[Span], known: Collection[str]) -> list[Span]:
    """Each span under its workload's name (`workload_of`), its pod kept in `pod` when the span had none.

    The service a client span names as its peer (`server.address`: `payment.shop.svc.cluster.local`)
    is read the same way, so a call to a callee that writes no spans joins the callee the map knows.
    """
    names = {name: workload_of(name, known) for name in {s.service for s in spans}}
    peers = {value: workload_of(value, known) for value in _peer_names(spans)}
    peers = {value: name for value, name in peers.items() if name != value}
    if all(k == v for k, v in names.items()) and not peers:
        return list(spans)
    return [_as_workload(s, names[s.service], peers) for s in spans]


def _peer_names(spans: Sequence[Span]) -> set[str]:
    return {v for s in spans if s.attributes for k in PEER_KEYS if isinstance(v := s.attributes.get(k), str)}


def _as_workload(span: Span, service: str, peers: dict[str, str]) -> Span:
    attributes = span.attributes
    if peers and attributes and any(attributes.get(k) in peers for k in PEER_KEYS):
        attributes = {k: peers.get(v, v) if k in PEER_KEYS and isinstance(v, str) else v for k, v in attributes.items()}
    if service == span.service and attributes is span.attributes:
        return span
    pod = span.pod or span.service if service != span.service else span.pod
    return replace(span, service=service, pod=pod, attributes=attributes)
