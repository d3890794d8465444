"""A topology YAML file (the bundle's `topology.yaml` schema) as a `TopologySource`.

This is where teams declare what no API knows: which service calls which,
databases, external dependencies. The file is re-read when it changes, so
editing it needs no restart.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from rootward.bundle.format import BundleError
from rootward.domain.topology import Topology
from rootward.sources.base import SourceUnavailable

SOURCE = "topology file"


class TopologySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: Path | None = Field(
        default=None, description="Topology YAML (`entities: {name: {kind, depends_on, runs_on}}`)."
    )
    from_kubernetes: bool = Field(
        default=True, description="Add workloads, nodes and Services from the `kubernetes` section, when set."
    )
    from_traces: bool = Field(
        default=True,
        description="Add the caller → callee calls seen in traces (Jaeger dependencies, Tempo spans), when set.",
    )
    from_prometheus_targets: bool = Field(
        default=True, description="Add services and hosts from Prometheus target labels, when `prometheus` is set."
    )

    def layers_from(self, connector: str) -> bool:
        """Whether the topology merges in what the named connector reports (its `from_<name>` switch)."""
        switches = {
            "kubernetes": self.from_kubernetes,
            "jaeger": self.from_traces,
            "tempo": self.from_traces,
            "prometheus": self.from_prometheus_targets,
        }
        return switches.get(connector, True)


class TopologyFileSource:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._cached: tuple[float, Topology] | None = None

    def graph(self) -> Topology:
        try:
            mtime = self.path.stat().st_mtime
            if self._cached is not None and self._cached[0] == mtime:
                return self._cached[1]
            text = self.path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SourceUnavailable(SOURCE, f"cannot read {self.path}: {exc.strerror or exc}") from None
        # bundle.validate (with numpy) is imported here, not at the top: every CLI command imports this module's
        # settings, few of them read a topology file.
        from rootward.bundle.validate import parse_topology

        try:
            topology = parse_topology(text)
        except BundleError as exc:
            raise SourceUnavailable(SOURCE, f"{self.path}: {exc}") from None
        self._cached = (mtime, topology)
        return topology
