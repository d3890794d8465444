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
