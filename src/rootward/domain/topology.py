"""The dependency graph as declared by topology files and live APIs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

# Attributes that say where an entity is reached: its logs' callers name it by these, not by our name.
_ADDRESS_KEYS = re.compile(r"^(url|uri|endpoint|base_?url|host|hostname|fqdn|address|domain|aliases?)$", re.I)
# Addresses every machine has: they name no one in particular.
_ANYONE = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1"})


def _host_of(address: str) -> str:
    """`https://sms.example.io/v1` and `db1.internal:5432` -> the host; a bare name is its own host.

    A malformed URL (`http://[fe80::1`) gives none: a map's typo must not stop an investigation.
    """
    if "//" in address:
        try:
            return (urlsplit(address).hostname or "").lower()
        except ValueError:
            return ""
    return (address.rsplit(":", 1)[0] if address.count(":") == 1 else address).strip("[]").lower()


@dataclass(frozen=True)
class Entity:
    name: str
    kind: str = "service"
    depends_on: tuple[str, ...] = ()  # "this needs that": faults flow from them to us
    runs_on: tuple[str, ...] = ()
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def dependencies(self) -> tuple[str, ...]:
        return self.depends_on + self.runs_on

    @property
    def aliases(self) -> tuple[str, ...]:
        """The host names its address attributes give (`url: https://sms.example.io` -> `sms.example.io`).

        A caller's log line names a third party by the host it dialled, never by the
        name our map gives it; a short bare word is too likely to be something else.
        """
        out: list[str] = []
        for key, value in self.attributes.items():
            if not _ADDRESS_KEYS.match(key):
                continue
            for item in re.split(r"[\s,;]+", value):
                host = _host_of(item)
                if len(host) >= 4 and host not in _ANYONE and host != self.name.lower() and host not in out:
                    out.append(host)
        return tuple(out)


@dataclass(frozen=True)
class Topology:
    entities: dict[str, Entity] = field(default_factory=dict)
    # Edges known only from what was observed (the calls in traces), with the cite of that
    # observation; every other edge is declared and cited as `topology.yaml:a->b`.
    edge_cites: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def observed_only(self) -> bool:
        """Every edge was seen (in traces), none declared: a map of what emits spans, silent on the rest."""
        edges = self.edges()
        return bool(edges) and all((a, b) in self.edge_cites for a, b, _ in edges)

    def has_edge(self, source: str, target: str) -> bool:
        entity = self.entities.get(source)
        return entity is not None and target in entity.dependencies

    def edges(self) -> list[tuple[str, str, str]]:
        """(source, target, relation) for every declared edge."""
        out: list[tuple[str, str, str]] = []
        for entity in self.entities.values():
            out += [(entity.name, t, "depends_on") for t in entity.depends_on]
            out += [(entity.name, t, "runs_on") for t in entity.runs_on]
        return out
