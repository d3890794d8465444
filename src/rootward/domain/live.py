"""What a live snapshot asked its sources, per entity: the queries behind each series and what matched.

A live citation is the query that produced the data, so a reader can run it
again in the source's own UI. A snapshot keeps one `LiveQuery` per series it
wrote (and per log and trace query), and one `EntityCoverage` per entity it
looked for in each source: which templates matched, which signals no series
covers. Both are plain records, written next to the bundle (`live.json`) and
read by the console, the notifications and `rootward sources check`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rootward.domain.telemetry import MetricSeries

LiveKind = Literal["metrics", "logs", "traces", "changes", "topology"]
Signal = Literal["traffic", "errors", "latency", "saturation", "restarts", "availability", "other"]
# The signals an SRE expects of a service and of a host; a missing one is named.
SERVICE_SIGNALS: tuple[Signal, ...] = ("traffic", "errors", "latency", "saturation")
HOST_SIGNALS: tuple[Signal, ...] = ("saturation",)


@dataclass(frozen=True)
class LiveQuery:
    """One query a live source ran: what kind of data, for which entity (and metric), and how to re-run it."""

    kind: LiveKind
    source: str  # the connector's display name: Prometheus, Loki, Jaeger...
    entity: str
    query: str  # the exact query text: PromQL, LogQL, a trace search, a Kubernetes API path
    metric: str = ""  # the series' metric name in metrics.csv, for metric queries
    url: str = ""  # the source's UI showing the same query, when its base URL is known


@dataclass(frozen=True)
class TemplateMatch:
    """One metric template tried for one entity: did the series it reads exist, and did it return data."""

    name: str
    metric: str
    signal: Signal
    exporter: str
    matched: bool
    returned: bool = False
    error: str = ""


@dataclass(frozen=True)
class EntityCoverage:
    """What one source holds about one entity; `gap` is the sentence shown when nothing useful came back."""

    entity: str
    source: str
    kind: Literal["service", "host"] = "service"
    selector: str = ""  # the label matcher that named the entity, e.g. job="orders"; empty: none did
    templates: tuple[TemplateMatch, ...] = ()
    discovered: tuple[str, ...] = ()  # raw metric names read beside the templates
    series: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def matched(self) -> tuple[TemplateMatch, ...]:
        return tuple(t for t in self.templates if t.matched)

    @property
    def missing_signals(self) -> tuple[Signal, ...]:
        """Expected signals no template returned data for."""
        wanted = HOST_SIGNALS if self.kind == "host" else SERVICE_SIGNALS
        have = {t.signal for t in self.templates if t.returned}
        return tuple(s for s in wanted if s not in have)

    def summary(self) -> str:
        """`3 of 31 templates matched for orders (job="orders"); no latency series`."""
        named = f" ({self.selector})" if self.selector else ""
        text = f"{len(self.matched)} of {len(self.templates)} templates matched for {self.entity}{named}"
        if self.discovered:
            text += f", {len(self.discovered)} more series found by discovery"
        missing = self.missing_signals
        if missing:
            text += "; no " + ", no ".join(f"{s} series" for s in missing)
        return text

    @property
    def gap(self) -> str | None:
        """The named gap when this source gave no series at all for the entity."""
        if self.series:
            return None
        if not self.selector:
            return f"no metrics for {self.entity}: {self.source} answered but no series names it"
        if not self.matched and not self.discovered:
            return f"no metrics for {self.entity}: {self.source} answered but no template matched ({self.selector})"
        return f"no metrics for {self.entity}: {self.source} answered but the matched templates returned no samples"


@dataclass(frozen=True)
class CitedSeries:
    """A metric series with the query that produced it (`invocation`: PromQL and range) and its UI link."""

    series: MetricSeries
    invocation: str
    expr: str = ""
    url: str = ""


@dataclass
class EntityMetrics:
    """Everything one entity's metrics call gave: the series, what matched, every query that ran."""

    series: list[CitedSeries]
    coverage: EntityCoverage
    invocations: list[str] = field(default_factory=list)
