"""Failure words: a line that says a call failed, stalled or was turned away is a failure at any level.

Logs shipped without a level (or a service that logs its trouble at INFO) leave
only the words; these tests hold the words for what did not finish in time or
was refused, and keep routine lines out.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from rootward.context.log_signals import log_signals, names_failure
from rootward.domain.telemetry import LogRecord
from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import ONSET, incident


@pytest.mark.parametrize(
    "line",
    [
        "rpc to ledger: context deadline exceeded",
        "quota exceeded for bucket uploads",
        "slow response from mailer (https://mail.example): 6.43s",
        "slow query: 2300ms SELECT * FROM orders",
        "INFO: task kworker/1:2 blocked for more than 120 seconds.",
        "upstream prematurely closed connection while reading response header",
        "dial tcp: lookup db.internal on 10.0.0.2:53: server misbehaving",
        "retrying call to inventory attempt=2",
        "rate limiter: rejecting request, 900 rps > limit 500 rps",
        "evicting keys: used_memory close to maxmemory",
        "transaction aborted by peer",
        "HikariPool-1 - Thread starvation or clock leap detected",
        "consumer stuck on partition 3",
        "backend pool-a is down",
        "health check unhealthy for 3 consecutive probes",
        "client disconnected mid-stream",
        "health check took longer than 5s",
        "net_ratelimit: 12 callbacks suppressed (eno1 tx_dropped rising)",
        "memory usage high: heap_inuse=900MiB of 1024MiB limit",
        "node condition MemoryPressure is now True",
        "load average 9.1 exceeds threshold 8",
        "disk /var/lib/data is almost full",
        "connection pool limit reached, waiting",
    ],
)
def test_a_line_that_says_a_call_did_not_finish_names_a_failure(line: str) -> None:
    assert names_failure(line)


@pytest.mark.parametrize(
    "line",
    [
        "GET /api/v1/orders 200 66ms req_id=035e7a788e68c742",
        "completed job 0bde757c0977f0b9 in 291ms",
        "LOG:  connection authorized: user=app database=app",
        "Background saving terminated with success",
        "scaled deployment web down to 2 replicas",
        "download of report 42 finished",
        "shutting down gracefully after SIGTERM",
        "high-availability pair ready",
        "full sync completed in 3s",
        # A resolver answering: CoreDNS logs every query with its answer code, NOERROR when it resolved.
        '[INFO] 10.2.187.137:40667 - 3345 "A IN cache.svc.cluster.local. udp 52 false 512" NOERROR qr,aa,rd 0.0009s',
        "batch 42 done: 1200 rows, no errors",
        "sync finished errors=0 skipped=3",
        "replication check passed with 0 failures",
    ],
)
def test_routine_lines_name_no_failure(line: str) -> None:
    assert not names_failure(line)


@pytest.mark.parametrize(
    "line",
    [
        '[INFO] 10.0.0.7:5353 - 11 "A IN db.internal. udp 40 false 512" NXDOMAIN qr,rd 0.02s',
        '[INFO] 10.0.0.7:5353 - 12 "A IN db.internal. udp 40 false 512" SERVFAIL qr,rd 2.0s',
        "sync finished errors=3 skipped=0",
        "0 failures, 2 errors",
    ],
)
def test_a_failure_beside_a_negated_one_still_names_a_failure(line: str) -> None:
    assert names_failure(line)


def test_a_caller_logging_slow_calls_without_a_level_blames_the_callee() -> None:
    """Level-less lines: a new 'slow response from <dependency>' template after the onset points at it."""
    records: list[LogRecord] = []
    for i in range(60):  # routine lines, before and after the onset
        ts = ONSET + timedelta(seconds=20 * i - 600)
        records.append(LogRecord(ts=ts, service="worker", message=f"completed job {i:04x} in 120ms", level=""))
    for i in range(30):  # what the fault adds: at no level at all
        ts = ONSET + timedelta(seconds=10 * i + 5)
        message = f"slow response from mailer: {4 + i % 5}.{i % 10}s (p50 normally 0.12s) req_id={i:08x}"
        records.append(LogRecord(ts=ts, service="worker", message=message, level=""))
    records = [replace(r, line=n) for n, r in enumerate(sorted(records, key=lambda r: r.ts), 1)]
    signals, _ = log_signals(
        records, onset=ONSET, baseline_start=ONSET - timedelta(minutes=20), end=ONSET + timedelta(minutes=10)
    )
    slow = [s for s in signals if s.template.startswith("slow response")]
    assert slow and slow[0].is_new and slow[0].is_failure and slow[0].severity == "info"

    ctx = incident(
        kinds={"worker": "worker", "mailer": "external"},
        edges=[("worker", "mailer", "depends_on")],
        alerting=["worker"],
        logs=signals,
        silent=["mailer"],
    )
    assert score_entities(ctx)[0].entity == "mailer"


def test_a_rare_failure_line_among_many_level_less_lines_is_not_sampled_away() -> None:
    records = [
        LogRecord(ts=ONSET + timedelta(seconds=i - 1500), service="db", message=f"checkpoint {i} complete", line=i + 1)
        for i in range(3000)
    ]
    oom = "container db terminated: reason=OOMKilled exitCode=137"
    records += [
        LogRecord(ts=ONSET + timedelta(seconds=30 + i), service="db", message=oom, line=3001 + i) for i in range(2)
    ]
    signals, _ = log_signals(
        records, onset=ONSET, baseline_start=ONSET - timedelta(minutes=30), end=ONSET + timedelta(minutes=10)
    )
    assert [s.onset_count for s in signals if "OOMKilled" in s.template] == [2]
