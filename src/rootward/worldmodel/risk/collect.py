"""Read the risk report's series from a metrics store behind a one-method protocol.

The collector only needs range queries; `rootward.sources.prometheus.
PrometheusSource` has the method, and a test can hand in anything that
answers the same way. A query that fails becomes a named gap, and the other
checks still run (a report with a gap beats no report).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from rootward.worldmodel.risk.checks import RiskSeries
from rootward.worldmodel.risk.settings import RiskSettings


class Sampled(Protocol):
    @property
    def labels(self) -> Mapping[str, str]: ...
    @property
    def timestamps(self) -> Sequence[int]: ...
    @property
    def values(self) -> Sequence[float]: ...


class RangeQuerier(Protocol):
    def query_range(
        self, expr: str, start: datetime, end: datetime, step: float | None = None
    ) -> Sequence[Sampled]: ...


def entity_of(labels: Mapping[str, str], entity_labels: Sequence[str]) -> str:
    """The first entity label present; `instance` loses a `:port` (a probe's URL instance stays whole)."""
    for name in entity_labels:
        value = labels.get(name)
        if value:
            host, _, port = value.rpartition(":")
            return host if name == "instance" and host and port.isdigit() and "/" not in value else value
    return labels.get("__name__", "") or "unknown"


def collect(querier: RangeQuerier, settings: RiskSettings, now: datetime) -> tuple[list[RiskSeries], list[str]]:
    """Every configured query over the lookback: (series, gaps)."""
    start = now - timedelta(seconds=settings.lookback_s)
    series: list[RiskSeries] = []
    gaps: list[str] = []
    for check, queries in settings.queries.items():
        for query in queries:
            try:
                results = querier.query_range(query.expr, start, now, settings.step_s)
            except Exception as exc:  # one dead query is a gap, not a dead report
                gaps.append(f"{check}: {query.expr}: {exc}")
                continue
            for result in results:
                labels = {k: v for k, v in dict(result.labels).items() if k != "__name__"}
                series.append(
                    RiskSeries(
                        check=check,
                        entity=entity_of(labels, settings.entity_labels),
                        query=query.expr,
                        labels=tuple(sorted(labels.items())),
                        timestamps=tuple(int(t) for t in result.timestamps),
                        values=tuple(float(v) for v in result.values),
                        threshold=query.threshold,
                    )
                )
    return series, gaps
