"""A Prometheus collector that reads rootward's state from the database at scrape time.

No module has to count anything for these metrics: the rows the intake,
queue, engine, outbox and approvals already write are the source of truth.
A snapshot is cached for `ttl_s` seconds so that several scrapers (or a
dashboard refreshing quickly) cost one round of queries.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from datetime import UTC, datetime

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.orm import Session

from rootward.observability.db_stats import DbSnapshot, HistogramData, Labels, read_snapshot

SessionFactory = Callable[[], AbstractContextManager[Session]]


def _gauge(name: str, doc: str, labels: list[str], values: Mapping[Labels, float]) -> Metric:
    family = GaugeMetricFamily(name, doc, labels=labels)
    for key, value in sorted(values.items()):
        family.add_metric(list(key), float(value))
    return family


def _counter(name: str, doc: str, labels: list[str], values: Mapping[Labels, float]) -> Metric:
    family = CounterMetricFamily(name, doc, labels=labels)
    for key, value in sorted(values.items()):
        family.add_metric(list(key), float(value))
    return family


def _single(value: float) -> dict[Labels, float]:
    return {(): float(value)}


def _histogram(name: str, doc: str, labels: list[str], data: HistogramData) -> Metric:
    family = HistogramMetricFamily(name, doc, labels=labels)
    for key, (counts, total, summed) in sorted(data.series.items()):
        buckets = [(repr(float(b)), float(c)) for b, c in zip(data.buckets, counts, strict=True)]
        buckets.append(("+Inf", float(total)))
        family.add_metric(list(key), buckets, summed)
    return family


def metric_families(snap: DbSnapshot) -> list[Metric]:
    """The snapshot as Prometheus families (pure: no I/O, unit-testable)."""
    return [
        _counter(
            "rootward_routing_decisions",
            "Alerts routed, by the tier chosen and the action taken.",
            ["tier", "action"],
            snap.routing_decisions,
        ),
        _gauge("rootward_alert_groups", "Alert groups by tier and status.", ["tier", "status"], snap.alert_groups),
        _gauge("rootward_queue_jobs", "Investigation jobs by status.", ["status"], snap.jobs),
        _gauge(
            "rootward_queue_oldest_queued_seconds",
            "Age of the oldest job still waiting for a worker.",
            [],
            _single(snap.oldest_queued_s),
        ),
        _histogram(
            "rootward_queue_wait_seconds", "Time from enqueue to a worker starting the job.", ["tier"], snap.queue_wait
        ),
        _histogram(
            "rootward_job_duration_seconds",
            "Time from a worker starting a job to its final status.",
            ["status"],
            snap.job_duration,
        ),
        _gauge("rootward_workers_alive", "Worker processes with a recent heartbeat.", [], _single(snap.workers_alive)),
        _gauge("rootward_worker_slots", "Job slots of the live workers.", [], _single(snap.worker_slots)),
        _counter(
            "rootward_investigations",
            "Recorded investigations by status and tier.",
            ["status", "tier"],
            snap.investigations,
        ),
        _histogram(
            "rootward_investigation_duration_seconds",
            "Engine time of an investigation (timing.total_ms).",
            ["status", "tier"],
            snap.investigation_duration,
        ),
        _histogram(
            "rootward_first_hypothesis_seconds",
            "Time to the first ranked hypothesis.",
            ["tier"],
            snap.first_hypothesis,
        ),
        _counter(
            "rootward_llm_calls",
            "LLM calls by provider, model, service and status.",
            ["provider", "model", "service", "status"],
            snap.llm_calls,
        ),
        _counter(
            "rootward_llm_tokens",
            "LLM tokens by provider, model, service and direction (input|output).",
            ["provider", "model", "service", "direction"],
            snap.llm_tokens,
        ),
        _counter(
            "rootward_llm_cost_usd",
            "LLM cost in US dollars by provider, model and service.",
            ["provider", "model", "service"],
            snap.llm_cost,
        ),
        _histogram("rootward_llm_call_seconds", "LLM call latency.", ["provider", "model"], snap.llm_duration),
        _gauge(
            "rootward_outbox_notifications",
            "Notification outbox rows by channel and status (pending is the backlog).",
            ["channel", "status"],
            snap.outbox,
        ),
        _gauge(
            "rootward_outbox_oldest_pending_seconds",
            "Age of the oldest undelivered notification per channel.",
            ["channel"],
            snap.outbox_oldest_pending_s,
        ),
        _gauge("rootward_approvals", "Approval requests by outcome.", ["status"], snap.approvals),
        _counter(
            "rootward_proposal_verdicts",
            "Executed proposals by action class and verdict (match|partial|deviation).",
            ["action_class", "verdict"],
            snap.verdicts,
        ),
        _gauge(
            "rootward_metrics_section_errors",
            "1 for each metrics section that could not be read from the database.",
            ["section"],
            {(name,): 1.0 for name in snap.errors},
        ),
    ]


class DatabaseCollector(Collector):
    """Registered once per app; computes from the database, at most once per `ttl_s`."""

    def __init__(
        self, sessions: SessionFactory, *, ttl_s: float = 5.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._sessions = sessions
        self._ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._cached: list[Metric] | None = None
        self._cached_at = 0.0

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            now = self._clock()
            if self._cached is None or now - self._cached_at >= self._ttl_s:
                self._cached = metric_families(read_snapshot(self._sessions, datetime.now(UTC)))
                self._cached_at = now
            families: Iterable[Metric] = self._cached
        yield from families

    def describe(self) -> Iterator[Metric]:
        """Nothing up front: describing would run the queries at registration."""
        return iter(())
