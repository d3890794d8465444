"""A log template's change is news only when chance at its own earlier rate does not explain it.

TrainTicket-like seed 105, bundle 001: a config service writes `retrying idempotent
call` every 5 to 15 minutes; it wrote it 3 times in the 30-minute baseline and 5
times in the 17 minutes after the onset. Three times the rate, so it "surged", and
chance makes that likely one time in eight. A wallet service that logs little (a
thin baseline, where every warning counted as news) wrote the same line 3 times
before the onset and once after. Both read as failing: the config service came
first with the earliest onset, and the payments service whose network was delayed
read as the wallet's victim.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.context.log_signals import log_signals
from rootward.context.logs import cluster_logs
from rootward.domain.telemetry import LogRecord

T0 = datetime(2026, 7, 15, 7, 25, tzinfo=UTC)
ONSET = T0 + timedelta(minutes=30)
END = ONSET + timedelta(minutes=15)


def _lines(service: str, message: str, minutes: list[float], level: str = "WARN") -> list[LogRecord]:
    return [LogRecord(ts=T0 + timedelta(minutes=m), service=service, message=message, level=level) for m in minutes]


def _numbered(records: list[LogRecord]) -> list[LogRecord]:
    ordered = sorted(records, key=lambda r: r.ts)
    return [LogRecord(r.ts, r.service, r.message, r.level, line=n) for n, r in enumerate(ordered, start=1)]


def test_a_background_line_that_tripled_by_chance_is_no_surge() -> None:
    retry = "retrying idempotent call attempt=2 req_id=a2159314b412b760"
    chatter = [f"GET /api/v1/config 200 {i % 9}ms" for i in range(45)]
    background = _lines("config", retry, [2, 12, 24, 31, 35, 38, 41, 44])  # 3 before, 5 after: 3.3x the rate
    records = _numbered(background + [LogRecord(T0 + timedelta(minutes=i), "config", m) for i, m in enumerate(chatter)])
    (retries,) = [c for c in cluster_logs(records, onset=ONSET, baseline_start=T0, end=END) if "retrying" in c.template]
    assert (retries.baseline_count, retries.onset_count) == (3, 5)
    assert not retries.is_surge and not retries.beyond_chance


def test_a_surge_chance_cannot_explain_still_is_one() -> None:
    retry = "retrying idempotent call attempt=2 req_id=a2159314b412b760"
    minutes = [2.0, 12.0, 24.0] + [30 + i * 0.5 for i in range(20)]
    (retries,) = cluster_logs(_numbered(_lines("config", retry, minutes)), onset=ONSET, baseline_start=T0, end=END)
    assert retries.is_surge and retries.beyond_chance


def test_a_template_of_thousands_of_lines_is_judged_without_overflow() -> None:
    minutes = [i * 0.02 for i in range(2250)]  # 1,500 lines before the onset, 750 after: the same rate
    (chatty,) = cluster_logs(
        _numbered(_lines("config", "cache refresh slow", minutes)), onset=ONSET, baseline_start=T0, end=END
    )
    assert chatty.baseline_count == 1500 and not chatty.is_surge and not chatty.beyond_chance


def test_a_thin_services_warning_is_news_unless_it_goes_on_as_before() -> None:
    retry = "retrying idempotent call attempt=2 req_id=2e6d26d56597857f"
    link = "kernel: e1000e 0000:00:1f.6 eth0: NIC Link is Up 100 Mbps Full Duplex"
    timeout = "request failed: i/o timeout after 5000ms req_id=9c0b44f8a370a0d8"
    records = _numbered(
        _lines("wallet", retry, [10, 23, 26, 41])  # 3 before the onset, 1 after: as often as before
        + _lines("wallet", link, [27])  # once, just before the onset: an event, not a habit
        + _lines("wallet", timeout, [31, 33, 36, 40], level="ERROR")  # first written after the onset
    )
    signals, _ = log_signals(records, onset=ONSET, baseline_start=T0, end=END)
    changed = {s.template.split(":")[0].split()[0]: s.changed for s in signals}
    assert changed == {"retrying": False, "kernel": True, "request": True}
