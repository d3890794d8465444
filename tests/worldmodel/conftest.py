"""Small graphs made in code, so each test states its own topology."""

from __future__ import annotations

import pytest

from rootward.domain.topology import Entity, Topology
from rootward.worldmodel.graph import WorldGraph


def shop_topology() -> Topology:
    spec = {
        "frontend": ("service", ("checkout", "catalog"), ("node-1",)),
        "checkout": ("service", ("payment",), ("node-1",)),
        "payment": ("service", ("payment-db",), ("node-2",)),
        "payment-db": ("database", (), ("node-3",)),
        "catalog": ("service", (), ("node-2",)),
        "node-1": ("host", (), ()),
        "node-2": ("host", (), ()),
        "node-3": ("host", (), ()),
    }
    return Topology(
        entities={
            name: Entity(name=name, kind=kind, depends_on=deps, runs_on=hosts)
            for name, (kind, deps, hosts) in spec.items()
        }
    )


@pytest.fixture
def shop() -> WorldGraph:
    return WorldGraph.from_topology(shop_topology())
