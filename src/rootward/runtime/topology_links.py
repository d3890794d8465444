"""The topology's service links for intake, kept fresh in the background: the paging path never waits.

Grouping by topology (`router.group_by: topology`) needs the merged topology
(the topology file, Kubernetes, traces, Prometheus targets). Reading it can take
seconds and a source can be down, so intake only ever reads the last topology
read; when that is older than `ttl_s`, one background thread reads it again.
Until the first read has finished, or with no topology source at all, there
are no links and alerts group by service.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from rootward.domain.topology import Topology
from rootward.ingest.router import Linked
from rootward.ingest.topology_links import topology_links
from rootward.settings import Settings
from rootward.sources.base import SourceUnavailable

log = logging.getLogger(__name__)
TTL_S = 60.0


class TopologyLinks:
    def __init__(
        self,
        load: Callable[[], Topology | None],
        hops: int,
        ttl_s: float = TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._load = load
        self._hops = hops
        self._ttl_s = ttl_s
        self._clock = clock
        self._linked: Linked | None = None
        self._read_at: float | None = None
        self._lock = threading.Lock()
        self._refreshing = False

    def __call__(self) -> Linked | None:
        """The links of the last topology read (None before the first), starting a refresh when stale."""
        with self._lock:
            stale = self._read_at is None or self._clock() - self._read_at > self._ttl_s
            if stale and not self._refreshing:
                self._refreshing = True
                threading.Thread(target=self.refresh, name="rootward-topology-links", daemon=True).start()
            return self._linked

    def refresh(self) -> None:
        """Read the topology now (a dead source keeps the last links)."""
        try:
            topology = self._load()
            linked = topology_links(topology, self._hops) if topology is not None else None
            with self._lock:
                self._linked, self._read_at = linked, self._clock()
        except SourceUnavailable as exc:
            log.warning("topology for grouping not refreshed: %s", exc)
            with self._lock:
                self._read_at = self._clock()
        finally:
            with self._lock:
                self._refreshing = False


def topology_links_for(settings: Settings) -> TopologyLinks | None:
    """The links of the configured topology sources, or None when grouping is by service or nothing gives one."""
    if settings.router.group_by != "topology":
        return None
    from rootward.sources.live import build_live_sources

    topology = build_live_sources(settings.connector_sections(), settings.topology).topology
    if topology is None:
        return None
    return TopologyLinks(topology.graph, settings.router.link_hops)
