"""The risk report job: read the trends, rank them with the world model, keep the report, post the digest.

Wiring only (the checks and the ranking are `worldmodel/risk/`):

1. the configured Prometheus answers every risk query over the lookback;
2. the stored graph and learned dynamics give each entry its blast radius;
3. the report is appended to the audit log (`risk.report`), which is where
   `/api/v1/risk` and the console read the latest one: durable, and the same
   on every replica;
4. the top entries go to every chat channel through the outbox, keyed by the
   day, so a second run that day (another replica, a restart) posts nothing twice.

`due` reads the last report's time from the same log, so `serve` runs the
job once per interval however often it restarts.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.message import Notification
from rootward.notify.outbox import enqueue
from rootward.notify.settings import NotifySettings
from rootward.runtime.notify_step import channel_names
from rootward.store.audit import AuditRow, append_audit
from rootward.store.worldmodel import load_dynamics, load_graph_records
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.risk.collect import RangeQuerier, collect
from rootward.worldmodel.risk.report import RiskOptions, RiskReport, build_report, digest_lines
from rootward.worldmodel.risk.settings import RiskSettings

log = logging.getLogger(__name__)
REPORT_KIND = "risk.report"
POLL_S = 300.0


def options_of(settings: RiskSettings) -> RiskOptions:
    return RiskOptions(
        horizon_s=settings.horizon_s,
        certificate_horizon_s=settings.certificate_horizon_s,
        slo=settings.slo,
        slo_period_s=settings.slo_period_s,
        min_restarts=settings.min_restarts,
    )


def make_report(
    querier: RangeQuerier, risk: RiskSettings, sessions: sessionmaker[Session] | None, now: datetime
) -> RiskReport:
    """Collect and rank; the stored graph (when there is one) gives the blast radius."""
    series, gaps = collect(querier, risk, now)
    graph, dynamics = None, None
    if sessions is not None:
        with sessions() as session:
            graph = WorldGraph.from_records(*load_graph_records(session, now=now))
            dynamics = Dynamics.from_records(load_dynamics(session))
    return build_report(
        series,
        now,
        options=options_of(risk),
        graph=graph if graph and len(graph) else None,
        dynamics=dynamics,
        gaps=gaps,
    )


def digest(report: RiskReport, top: int, console_url: str) -> Notification:
    lines = digest_lines(report, top)
    day = report.generated_at.strftime("%Y-%m-%d")
    summary = (
        f"{len(report.entries)} entities at risk; the {len(lines)} most urgent below."
        if lines
        else f"No entity at risk ({report.series_read} series read)."
    )
    return Notification(
        investigation_id=f"risk-report-{day}",
        title=f"Risk report {day}",
        tier="risk",
        summary=summary,
        summary_source="rule",
        facts=tuple(lines),
        evidence=tuple(c for e in report.entries[:top] for c in e.assessment.cites),
        console_url=f"{console_url.rstrip('/')}/risk" if console_url else "",
        extra={"gaps": list(report.gaps)},
    )


def store_and_post(
    sessions: sessionmaker[Session], report: RiskReport, risk: RiskSettings, notify: NotifySettings
) -> list[str]:
    """Append the report to the audit log and queue the digest on every channel; returns the channels."""
    channels = channel_names(notify)
    day = report.generated_at.strftime("%Y-%m-%d")
    with sessions() as session, session.begin():
        append_audit(session, REPORT_KIND, day, report.to_json())
        if channels:
            enqueue(session, digest(report, risk.top, notify.console_url), channels, key=f"risk:{day}")
    return channels


def latest_report(session: Session) -> dict[str, Any] | None:
    row = session.scalar(select(AuditRow).where(AuditRow.kind == REPORT_KIND).order_by(AuditRow.id.desc()).limit(1))
    return None if row is None else dict(json.loads(row.data))


def due(session: Session, interval_s: float, now: datetime) -> bool:
    last = latest_report(session)
    if last is None:
        return True
    at = datetime.fromisoformat(str(last["generated_at"]))
    return now - at >= timedelta(seconds=interval_s)


def risk_loop(
    querier: RangeQuerier, risk: RiskSettings, notify: NotifySettings, sessions: sessionmaker[Session]
) -> Any:
    """A `serve` background loop: a report whenever the last one is an interval old."""

    def run(stop: threading.Event) -> None:
        while True:
            now = datetime.now(UTC)
            try:
                with sessions() as session:
                    is_due = due(session, risk.interval_s, now)
                if is_due:
                    report = make_report(querier, risk, sessions, now)
                    store_and_post(sessions, report, risk, notify)
                    log.info("risk report: %d entries, %d gaps", len(report.entries), len(report.gaps))
            except Exception:  # the loop outlives a bad night of Prometheus
                log.exception("risk report failed")
            if stop.wait(POLL_S):
                return

    run.__name__ = "risk-report"
    return run


def prometheus_querier(sections: Any) -> RangeQuerier | None:
    """The first configured metrics connector that answers range queries (Prometheus, or anything like it)."""
    from rootward.sources.live import connector_sources

    for _, source in connector_sources(sections, wanted={"metrics"})["metrics"]:
        if callable(getattr(source, "query_range", None)):
            querier: RangeQuerier = source
            return querier
    return None
