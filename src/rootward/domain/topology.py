"""The dependency graph as declared by topology files and live APIs."""

from __future__ import annotations

from dataclasses import dataclass, field


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
