"""Context assembly: everything the engine sees, as one typed, cited object.

Deterministic and source-agnostic: it reads through the `SourceSet`
protocols, turns a missing or failing source into a named gap, and gives every
item an `EvidenceRef` whose cite resolves in the bundle (or names the live
query). The engine never touches raw data except through this object and the
specialists' tools.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from rootward.context.absent_counts import with_absent_zeros
from rootward.context.anomaly import Anomaly, ScoredSeries, detect_anomalies, incident_onset
from rootward.context.changes import ChangeItem, recent_changes
from rootward.context.counters import as_rate
from rootward.context.k8s_events import event_text
from rootward.context.log_continuations import joined_continuations
from rootward.context.log_coverage import Coverage
from rootward.context.log_deploys import deploys_in_logs, unrecorded
from rootward.context.log_length import clipped
from rootward.context.log_levels import with_stated_level
from rootward.context.log_shifts import LogShift, log_shifts
from rootward.context.log_signals import LogSignal, log_signals, names_entity
from rootward.context.log_span_paths import logged_templates
from rootward.context.log_span_status import named_lines, status_from_lines
from rootward.context.log_template_book import TemplateBook
from rootward.context.metric_change import MIN_CHANGE, JointOnset, MetricChange, metric_changes
from rootward.context.pod_series import alerts_by_workload, records_by_workload, series_by_workload
from rootward.context.recovery import AlertState, alert_states, current_firings, recovery_of
from rootward.context.series_resolution import coarsened
from rootward.context.span_graph import SpanTable
from rootward.context.topology import (
    Subgraph,
    connecting,
    dependency_closure,
    dependency_graph,
    subgraph,
    upstream_closure,
)
from rootward.context.trace_evidence import TraceFinding, compared_windows, trace_findings
from rootward.context.trace_onset import trace_onset
from rootward.context.window import IncidentWindow, incident_window, with_onset
from rootward.domain.alert import Alert
from rootward.domain.evidence import EvidenceRef, alert_cite, knowledge_cite
from rootward.domain.incident import IncidentMeta
from rootward.domain.knowledge import Document
from rootward.domain.pod_names import spans_by_workload
from rootward.domain.telemetry import LogRecord, MetricSeries
from rootward.domain.topology import Topology
from rootward.sources.base import SourceSet, SourceUnavailable

MAX_KNOWLEDGE = 8
MAX_GROUP_SPAN = timedelta(minutes=30)
# A deploy the logs show is the recorded one when the change source has one of the service this close.
LOGGED_DEPLOY_SLACK = timedelta(minutes=10)
# An onset read off sampled metrics lags the moment the lines stamp: a process crashing at
# start logs it a scrape or two before its series show it. A failure template first written
# this long (or two sampling steps, if longer) before the onset began with the incident.
LOG_ONSET_LEAD_S = 120


class AlertItem(BaseModel):
    fingerprint: str
    name: str
    service: str
    severity: str
    starts_at: datetime
    summary: str = ""
    evidence: EvidenceRef


class KnowledgeItem(BaseModel):
    path: str
    kind: str
    title: str
    services: list[str]
    text: str
    evidence: EvidenceRef


class Context(BaseModel):
    """What the engine will reason over; JSON-serialisable so a checkpoint can hold it."""

    bundle: str
    title: str
    window: IncidentWindow
    alerts: list[AlertItem]
    alerting_services: list[str]
    topology: Subgraph
    has_topology: bool
    telemetry: dict[str, list[str]] = Field(default_factory=dict)  # entity -> sources with data
    anomalies: list[Anomaly] = Field(default_factory=list)
    series: list[ScoredSeries] = Field(default_factory=list)  # every scored series, anomalous or not
    metric_onset: JointOnset | None = None  # where all series changed together (context.metric_change)
    metric_changes: list[MetricChange] = Field(default_factory=list)  # per entity: its best robust change
    logs: list[LogSignal] = Field(default_factory=list)
    # Templates whose frequency changed at the onset, at any level (context/log_shifts.py).
    log_shifts: list[LogShift] = Field(default_factory=list)
    changes: list[ChangeItem] = Field(default_factory=list)
    trace_findings: list[TraceFinding] = Field(default_factory=list)  # every span aggregate, changed or not
    knowledge: list[KnowledgeItem] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    redacted_lines: int = 0
    # Is it still happening (`context/recovery.py`): each alert's resolution and signal, when moved series
    # settled (cite -> epoch seconds), which ones were already at that level before, and the resources that
    # moved and settled before the first alert (an earlier event, not among `anomalies`).
    alert_states: list[AlertState] = Field(default_factory=list)
    settled: dict[str, int] = Field(default_factory=dict)
    chronic: list[str] = Field(default_factory=list)
    earlier: list[Anomaly] = Field(default_factory=list)
    data_end: datetime | None = None  # the last metric sample: "now", as far as the data knows
    sample_step_s: int = 0  # the metrics' typical sampling interval: no two onsets read in them are closer

    def missing_source(self, kind: str) -> str | None:
        """The gap naming `kind` (logs, metrics, traces, changes...) as missing for the whole incident."""
        return next((g for g in self.gaps if g.startswith(f"no {kind}:")), None)

    def evidence_refs(self) -> list[EvidenceRef]:
        refs: list[EvidenceRef] = [a.evidence for a in self.alerts]
        refs += [a.evidence for a in self.anomalies] + [s.evidence for s in self.logs]
        refs += [s.evidence for s in self.log_shifts]
        refs += [m.evidence for m in self.metric_changes]
        refs += [c.evidence for c in self.changes] + [k.evidence for k in self.knowledge]
        refs += [e.evidence for e in self.topology.edges]
        refs += [f.evidence for f in self.trace_findings if f.changed]
        return refs


def _alert_items(alerts: Sequence[Alert]) -> list[AlertItem]:
    seen: dict[str, AlertItem] = {}
    for a in current_firings(alerts):  # a monitor that fired, cleared and fired again: its open episode
        summary = a.annotations.get("summary") or a.annotations.get("description") or a.name
        head = f"{a.name} on {a.service}"
        # The excerpt adds what the annotations say beyond the alert's own name (a summary often repeats it).
        said = [
            t for t in (a.annotations.get("summary"), a.annotations.get("description")) if t and t not in (a.name, head)
        ]
        seen[a.fingerprint] = AlertItem(
            fingerprint=a.fingerprint,
            name=a.name,
            service=a.service,
            severity=a.severity.value,
            starts_at=a.starts_at,
            summary=summary,
            evidence=EvidenceRef("alert", alert_cite(a.fingerprint), f"{head}: {said[0]}" if said else head),
        )
    return sorted(seen.values(), key=lambda i: (i.starts_at, i.service, i.fingerprint))


# Ranks the knowledge documents for one incident: (documents, services in scope, alert names) -> items.
# The engine hands in hybrid retrieval (`knowledge/`); without one, front matter decides.
KnowledgeRetriever = Callable[[Sequence[Document], set[str], set[str]], list["KnowledgeItem"]]


def _knowledge(
    docs: Sequence[Document], services: set[str], alert_names: set[str], retrieve: KnowledgeRetriever | None
) -> list[KnowledgeItem]:
    """Team notes for the services in scope first, then runbooks/postmortems for the alerts."""
    if not docs:
        return []
    if retrieve is None:
        return _knowledge_by_front_matter(docs, services, alert_names)
    return retrieve(docs, services, alert_names)


def _knowledge_by_front_matter(
    docs: Sequence[Document], services: set[str], alert_names: set[str]
) -> list[KnowledgeItem]:
    picked = [d for d in docs if d.kind == "bits" and set(d.services) & services]
    picked += [d for d in docs if d.kind != "bits" and (set(d.services) & services or set(d.monitors) & alert_names)]
    return [
        KnowledgeItem(
            path=d.path,
            kind=d.kind,
            title=d.title,
            services=list(d.services),
            text=d.text[:2000],
            evidence=EvidenceRef("knowledge", knowledge_cite(d.path, 0), f"{d.title}: {d.text.strip()[:200]}"),
        )
        for d in picked[:MAX_KNOWLEDGE]
    ]


def assemble_context(
    sources: SourceSet,
    meta: IncidentMeta,
    *,
    hops: int = 2,
    before: timedelta = timedelta(minutes=5),
    after: timedelta = timedelta(minutes=10),
    extra_gaps: Sequence[str] = (),
    retrieve_knowledge: KnowledgeRetriever | None = None,
) -> Context:
    """Gather, window, score and cite everything about one incident."""
    gaps: list[str] = list(extra_gaps)
    raw_alerts = sources.alerts.alerts()
    alerts = _alert_items(raw_alerts)
    window = incident_window(meta.fired_at, before=before, after=after)
    # Alerts that join the group later stretch the window (bounded: a group is one incident).
    last_alert = max(
        [a.starts_at for a in alerts if a.starts_at <= meta.fired_at + MAX_GROUP_SPAN], default=meta.fired_at
    )
    if last_alert + after > window.end:
        window = window.model_copy(update={"end": last_alert + after})
    window = window.model_copy(update={"last_alert": last_alert})
    data_start = min(meta.window_start, window.baseline_start - timedelta(minutes=30))
    data_end = max(meta.window_end, window.end)

    topology, has_topology = _topology(sources, gaps)
    # Data keyed by pod is read under the workload the map and the alerts name (context.pod_series),
    # an alert on a pod as one on its workload.
    raw_alerts = alerts_by_workload(raw_alerts, set(topology.entities))
    alerts = _alert_items(raw_alerts)
    alerting = list(dict.fromkeys(a.service for a in alerts))
    known = set(topology.entities) | set(alerting)
    series = _metric_series(sources, known, data_start, data_end, gaps)

    if not has_topology:  # without a graph every entity we have data on is in scope
        topology = Topology(entities={})
    # Without a map, everything we have data on is in scope; a map of the calls seen in traces knows
    # only what emits spans, so what has data but is not on it (a host, a database) joins too.
    watched = {s.service for s in series}
    unmapped = watched if not has_topology else (watched - set(topology.entities) if topology.observed_only else set())
    base = subgraph(topology, alerting, hops=hops, extra=unmapped)
    # Follow the evidence: everything the alerting services depend on is examined, and
    # whatever in there turns out abnormal joins the scope with the path that links it.
    reachable = set(base.entities) | dependency_closure(topology, alerting)

    earlier: list[Anomaly] = []
    anomalies, scored = detect_anomalies(
        series,
        fired_at=int(meta.fired_at.timestamp()),
        end=int(window.end.timestamp()),
        entities=reachable,
        latest=int(last_alert.timestamp()),
        earlier=earlier,
    )

    joint, moved = metric_changes(
        series,
        fired_at=int(meta.fired_at.timestamp()),
        end=int(window.end.timestamp()),
        entities=reachable,
        latest=int(last_alert.timestamp()),
        fallback=int(window.start.timestamp()),
    )
    # Where its change points begin: leaks, sawtooth symptoms and the alert's aftermath set aside.
    step_s = int(_sample_step(series).total_seconds())
    graph = dependency_graph(topology) if has_topology else None
    reach = (lambda e: upstream_closure(graph, e)) if graph is not None else None
    onset = incident_onset(anomalies, alerted=int(last_alert.timestamp()) + step_s, reach=reach)
    if onset is None and joint is not None and joint.detected:
        onset = joint.onset  # too few samples for per-series change points (coarse data): the joint one
    window = with_onset(window, datetime.fromtimestamp(onset, meta.fired_at.tzinfo) if onset else None)

    telemetry: dict[str, list[str]] = {}
    _mark(telemetry, (s.service for s in series), reachable, "metrics")
    log_lead = timedelta(seconds=max(LOG_ONSET_LEAD_S, 2 * step_s))
    logs, shifts, redacted, records, book = _log_evidence(sources, window, known, reachable, telemetry, gaps, log_lead)
    traces = _traces(sources, window, series, reachable, telemetry, gaps, known, records, book)
    scope = base
    if has_topology:
        scope = _followed(topology, alerting, base, anomalies, logs, shifts, traces, moved, hops)
    members = set(scope.entities)
    anomalies = [a for a in anomalies if a.service in members]
    earlier = [a for a in earlier if a.service in members]
    settled, chronic = recovery_of(series, anomalies, int(data_end.timestamp()))

    return Context(
        bundle=meta.id,
        title=meta.title,
        window=window,
        alerts=alerts,
        alerting_services=alerting,
        topology=scope,
        has_topology=has_topology,
        telemetry={e: v for e, v in telemetry.items() if e in members},
        anomalies=anomalies,
        series=[x for x in scored if x.service in members],
        metric_onset=joint,
        metric_changes=[m for m in moved if m.entity in members],
        logs=[s for s in logs if s.service in members],
        log_shifts=[s for s in shifts if s.service in members],
        changes=_with_logged_deploys(_changes(sources, members, window, gaps), records, members, window),
        trace_findings=[f for f in traces if f.entity in members or f.caller in members],
        knowledge=_knowledge_items(sources, members, {a.name for a in alerts}, retrieve_knowledge, gaps),
        gaps=gaps,
        sample_step_s=step_s,
        redacted_lines=redacted,
        alert_states=alert_states(raw_alerts, series, data_end, {a.fingerprint: a.evidence for a in alerts}),
        settled=settled,
        chronic=chronic,
        earlier=earlier,
        data_end=_last_sample(series, data_end),
    )


def _followed(
    topology: Topology,
    alerting: list[str],
    base: Subgraph,
    anomalies: Sequence[Anomaly],
    logs: Sequence[LogSignal],
    shifts: Sequence[LogShift],
    traces: Sequence[TraceFinding],
    moved: Sequence[MetricChange],
    hops: int,
) -> Subgraph:
    """The scope once the evidence is followed: what is abnormal beyond `base` joins with the path to it."""
    abnormal = {a.service for a in anomalies} | {s.service for s in logs if s.changed and s.is_failure}
    abnormal |= {s.service for s in shifts if s.appeared}  # a template new at the onset, even at INFO
    abnormal |= {f.entity for f in traces if f.changed}  # spans that changed, however deep below the alert
    abnormal |= {m.entity for m in moved if m.score >= MIN_CHANGE}  # a series that left its normal for good
    failing = [s for s in logs if s.changed and s.is_failure]
    named = {
        e
        for e, entity in topology.entities.items()
        for s in failing
        if e != s.service and names_entity(s, e, entity.aliases)
    }
    extra = connecting(topology, alerting, (abnormal | named) - set(base.entities))
    return subgraph(topology, alerting, hops=hops, extra=extra) if extra else base


def _mark(telemetry: dict[str, list[str]], names: Iterable[str], reachable: set[str], kind: str) -> None:
    """Record that the reachable entities among `names` have data of `kind` (metrics, logs, traces)."""
    for name in names:
        if name in reachable and kind not in telemetry.get(name, []):
            telemetry.setdefault(name, []).append(kind)


def _topology(sources: SourceSet, gaps: list[str]) -> tuple[Topology, bool]:
    """The map, and whether there is one; a missing or failing topology source is a named gap."""
    if sources.topology is None:
        gaps.append("no topology: no topology source configured")
        return Topology(), False
    try:
        return sources.topology.graph(), True
    except SourceUnavailable as exc:
        gaps.append(f"no topology: {_reason(exc, 'topology.yaml')}")
        return Topology(), False


def _metric_series(
    sources: SourceSet, known: set[str], data_start: datetime, data_end: datetime, gaps: list[str]
) -> list[MetricSeries]:
    """Every series of the data window, read under its workload, counters as rates, at one bar per bucket."""
    if sources.metrics is None:
        gaps.append("no metrics: no metric source configured")
        return []
    try:
        # A counter is read as its rate (context.counters); faster than BUCKET_S, a series is
        # read as bucket means: one bar at any sampling rate.
        # An error count that was not reported counted none (context.absent_counts).
        fetched = series_by_workload(sources.metrics.series(None, data_start, data_end), known)
        series = [coarsened(s) for s in with_absent_zeros([as_rate(s) for s in fetched])]
    except SourceUnavailable as exc:
        gaps.append(f"no metrics: {_reason(exc, 'metrics.csv')}")
        return []
    if not series:
        gaps.append(f"no metrics in the incident window ({data_start:%H:%M}-{data_end:%H:%M}) for any service")
    return series


def _log_evidence(
    sources: SourceSet,
    window: IncidentWindow,
    known: set[str],
    reachable: set[str],
    telemetry: dict[str, list[str]],
    gaps: list[str],
    lead: timedelta = timedelta(0),
) -> tuple[list[LogSignal], list[LogShift], int, list[LogRecord], TemplateBook | None]:
    """Failure signals and template shifts of the reachable services' logs, the lines redacted, the
    records read (which also say in which span each line was written: `context.log_span_status`), and
    their templates (found once for every reading: `context.log_template_book`)."""
    if sources.logs is None:
        gaps.append("no logs: no log source configured")
        return [], [], 0, [], None
    try:
        raw = sources.logs.query(None, window.baseline_start, window.end)
        # A level only in the text counts; a pod's lines are its workload's; a stack trace split
        # into one record a line is one record (context.log_continuations); a line is read up to
        # a length (context.log_length).
        records = clipped(
            joined_continuations(records_by_workload([with_stated_level(event_text(r)) for r in raw], known))
        )
    except SourceUnavailable as exc:
        gaps.append(f"no logs: {_reason(exc, 'logs.jsonl')}")
        return [], [], 0, [], None
    _mark(telemetry, (r.service for r in records), reachable, "logs")
    in_reach = [r for r in records if r.service in reachable]
    onset_at, start, end = window.onset or window.start, window.baseline_start, window.end
    # What the log source covers, read once for both comparisons (context.log_coverage).
    covered = Coverage(r.ts for r in in_reach if start <= r.ts <= end)
    book = TemplateBook(records)  # the shifts read every line and fill it; the others look up
    shifts = log_shifts(in_reach, onset=onset_at, baseline_start=start, end=end, coverage=covered, assign=book.assign)
    logs, redacted = log_signals(
        in_reach, onset=onset_at, baseline_start=start, end=end, coverage=covered, assign=book.assign_known, lead=lead
    )
    if not records:
        gaps.append(f"no logs in the incident window ({start:%H:%M}-{end:%H:%M}) for any service")
    return logs, shifts, redacted, records, book


def _changes(sources: SourceSet, members: set[str], window: IncidentWindow, gaps: list[str]) -> list[ChangeItem]:
    """Deploys and config changes of the scope's entities from before the onset to the window end."""
    if sources.changes is None:
        gaps.append("no changes: no change source configured")
        return []
    try:
        return recent_changes(sources.changes, sorted(members), window.onset or window.fired_at, window.end)
    except SourceUnavailable as exc:
        gaps.append(f"no changes: {_reason(exc, 'changes.json')}")
        return []


def _with_logged_deploys(
    changes: list[ChangeItem], records: Sequence[LogRecord], members: set[str], window: IncidentWindow
) -> list[ChangeItem]:
    """The recorded changes, and the deploys the scope's logs show that none of them explains."""
    reference = window.onset or window.fired_at
    inferred = deploys_in_logs((r for r in records if r.service in members), reference)
    extra = unrecorded(inferred, changes, LOGGED_DEPLOY_SLACK)
    return sorted([*changes, *extra], key=lambda c: (abs(c.seconds_before_onset), c.id))


def _knowledge_items(
    sources: SourceSet,
    members: set[str],
    alert_names: set[str],
    retrieve: KnowledgeRetriever | None,
    gaps: list[str],
) -> list[KnowledgeItem]:
    """Runbooks and postmortems about the scope or the alerts; no knowledge source is no gap (it is optional)."""
    if sources.knowledge is None:
        return []
    try:
        return _knowledge(sources.knowledge.documents(), members, alert_names, retrieve)
    except SourceUnavailable as exc:
        gaps.append(f"no knowledge: {_reason(exc, 'knowledge')}")
        return []


def _last_sample(series: Sequence[MetricSeries], bound: datetime) -> datetime | None:
    last = max((s.timestamps[-1] for s in series if s.timestamps), default=None)
    return None if last is None else min(bound, datetime.fromtimestamp(last, bound.tzinfo))


def _traces(
    sources: SourceSet,
    window: IncidentWindow,
    series: Sequence[MetricSeries],
    reachable: set[str],
    telemetry: dict[str, list[str]],
    gaps: list[str],
    known: set[str],
    records: Sequence[LogRecord] = (),
    book: TemplateBook | None = None,
) -> list[TraceFinding]:
    """Span aggregates before vs after the onset; a missing trace source is a named gap.

    Spans with no status of their own take it from the log lines written in them (`records`).
    """
    if sources.traces is None:
        gaps.append("no traces: no trace source configured")
        return []
    try:
        spans = spans_by_workload(sources.traces.spans(None, window.baseline_start, window.end), known)
    except SourceUnavailable as exc:
        gaps.append(f"no traces: {_reason(exc, 'traces.jsonl')}")
        return []
    if not spans:
        span = f"{window.baseline_start:%H:%M}-{window.end:%H:%M}"
        gaps.append(f"no spans in the incident window ({span}) for any service")
        return []
    _mark(telemetry, dict.fromkeys(s.service for s in spans), reachable, "traces")
    lines = named_lines(records)  # lines that say which span they were written in
    spans = status_from_lines(spans, lines)
    logged = logged_templates(spans, lines, book.assign_known if book else None)  # each call's code path
    metric_onset = window.onset is not None and window.onset <= window.alerted_by
    # Without a metric onset before the alerts, the spans' own change point (context.trace_onset).
    # Both then read the spans' columns (`span_graph.SpanTable`), once.
    table = None if metric_onset else SpanTable(spans)
    spans_onset = None if table is None else trace_onset(spans, window.baseline_start, window.alerted_by, table)
    baseline, during = compared_windows(window, _sample_step(series), spans_onset)
    # A sparse edge's times are read over one more such stretch, within the window.
    sparse_until = min(window.end, during[1] + (during[1] - during[0]))
    return trace_findings(
        spans, baseline=baseline, during=during, logged=logged, sparse_until=sparse_until, table=table
    )


def _sample_step(series: Sequence[MetricSeries]) -> timedelta:
    """The typical sampling interval of the metrics, the resolution of an onset found in them."""
    steps = [b - a for s in series for a, b in zip(s.timestamps[:8], s.timestamps[1:8], strict=False) if b > a]
    return timedelta(seconds=sorted(steps)[len(steps) // 2]) if steps else timedelta(0)


def _reason(exc: SourceUnavailable, name: str) -> str:
    if exc.reason == "source missing from bundle":
        return f"{name} missing from bundle"
    return exc.reason
