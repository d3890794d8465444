"""A log template's baseline where the source kept only minutes around each fault injection.

The baseline is then the blocks of earlier injections; a template one of them made a
service write is this incident's news all the same, counted against the block where it
was quiet (`logs._healthiest`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.context.log_coverage import Coverage
from rootward.context.log_shifts import log_shifts
from rootward.context.log_signals import log_signals
from rootward.domain.telemetry import LogRecord

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
ONSET = T0 + timedelta(minutes=16)
END = ONSET + timedelta(minutes=3)
FAILED = "request failed GET /api/v1/token"


def _blocks(failing_before: int) -> list[LogRecord]:
    """Three 3-minute blocks (minutes 0, 8, 16) of a service's steady lines; `failing_before` failure lines
    in the first block (an earlier fault's), and 10 in the incident's."""
    times: list[tuple[float, str, str]] = []
    for start in (0.0, 8 * 60.0, 16 * 60.0):
        times += [(start + s, "handled GET /api/v1/token", "INFO") for s in range(0, 180, 5)]
    times += [(10.0 + 15 * i, FAILED, "ERROR") for i in range(failing_before)]
    times += [(16 * 60 + 10.0 + 15 * i, FAILED, "ERROR") for i in range(10)]
    times.sort()
    return [
        LogRecord(ts=T0 + timedelta(seconds=t), service="auth", message=m, level=level, line=n)
        for n, (t, m, level) in enumerate(times, start=1)
    ]


def _failed(records: list[LogRecord]) -> tuple[str | None, bool]:
    """The failure template's shift kind and whether its signal is new."""
    covered = Coverage(r.ts for r in records)
    shifts = log_shifts(records, onset=ONSET, baseline_start=T0, end=END, coverage=covered)
    kind = next((s.kind for s in shifts if "failed" in s.template), None)
    signals, _ = log_signals(records, onset=ONSET, baseline_start=T0, end=END, coverage=covered)
    return kind, next(s.is_new for s in signals if "failed" in s.template)


def test_a_template_an_earlier_fault_wrote_is_new_against_the_block_where_it_was_quiet() -> None:
    # Against both blocks it had been written before; against the quiet one it is new.
    assert _failed(_blocks(failing_before=10)) == ("new", True)


def test_a_template_an_earlier_fault_wrote_starts_at_this_incidents_first_line() -> None:
    """Its lines in the earlier block were that fault's: the onset read from them would put this
    service's failure before its dependency's and make it look like the origin."""
    records = _blocks(failing_before=10)
    covered = Coverage(r.ts for r in records)
    signals, _ = log_signals(records, onset=ONSET, baseline_start=T0, end=END, coverage=covered)
    failed = next(s for s in signals if "failed" in s.template)
    assert failed.first_ts == ONSET + timedelta(seconds=10)


def test_a_template_written_alike_in_every_block_is_no_news() -> None:
    records = _blocks(failing_before=0)
    for start in (8 * 60.0,):  # the same few lines in the other block too: its habit
        records += [
            LogRecord(ts=T0 + timedelta(seconds=start + 20 + 30 * i), service="auth", message=FAILED, level="ERROR")
            for i in range(3)
        ]
    records += [
        LogRecord(ts=T0 + timedelta(seconds=20 + 30 * i), service="auth", message=FAILED, level="ERROR")
        for i in range(3)
    ]
    records = [
        LogRecord(r.ts, r.service, r.message, r.level, line=n)
        for n, r in enumerate(sorted(records, key=lambda r: r.ts), 1)
    ]
    kind, new = _failed(records)
    assert not new and kind != "new"
