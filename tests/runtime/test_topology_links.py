"""Intake reads the topology's links without waiting on the sources."""

from __future__ import annotations

import threading

from rootward.domain.topology import Entity, Topology
from rootward.runtime.topology_links import TopologyLinks
from rootward.sources.base import SourceUnavailable


def test_links_come_from_a_background_read_and_a_dead_source_keeps_the_last_ones() -> None:
    release = threading.Event()
    calls: list[int] = []
    now = [0.0]

    def load() -> Topology:
        calls.append(1)
        if len(calls) > 1:
            raise SourceUnavailable("Kubernetes", "cannot connect (connection refused)")
        release.wait(5)
        return Topology(entities={"checkout": Entity("checkout", depends_on=("payments",))})

    links = TopologyLinks(load, hops=2, ttl_s=60, clock=lambda: now[0])
    assert links() is None  # the first read has only started: intake does not wait for it
    release.set()
    for _ in range(100):
        if (found := links()) is not None:
            break
        threading.Event().wait(0.02)
    assert found is not None and found("checkout", "payments") and not found("checkout", "search")
    now[0] = 120.0  # stale: the next call refreshes, the refresh fails, the links stay
    assert links() is found
    links.refresh()
    assert links() is found and len(calls) >= 2
