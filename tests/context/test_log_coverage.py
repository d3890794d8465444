"""Log coverage (`context/log_coverage.py`): a log store with holes must not make steady templates look changed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.context.log_coverage import MIN_GAP_S, Coverage
from rootward.context.log_shifts import log_shifts
from rootward.context.log_signals import log_signals
from rootward.domain.telemetry import LogRecord

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
ONSET = T0 + timedelta(minutes=30)
END = T0 + timedelta(minutes=45)
# What survived of the source: three-minute stretches, two before the onset and one after (as in
# a snapshot that kept only some minutes' files); every service is silent in between.
KEPT = ((8 * 60, 11 * 60), (19 * 60, 22 * 60), (30 * 60, 33 * 60))


def _at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def _chunked(*extra: tuple[float, str, str]) -> list[LogRecord]:
    out: list[tuple[float, str, str, str]] = []
    for lo, hi in KEPT:
        t = float(lo)
        while t < hi:
            out.append((t, "api", f"GET /cart/{int(t * 13) % 997} 200 in 12ms", "INFO"))
            out.append((t + 0.25, "pricing", f"priced order {int(t * 7) % 991}", "INFO"))
            t += 0.5
    out += [(t, service, message, "INFO") for t, service, message in extra]
    out.sort()
    return [LogRecord(_at(t), s, m, level, line=i + 1) for i, (t, s, m, level) in enumerate(out)]


def test_coverage_counts_only_the_stretches_the_source_kept() -> None:
    covered = Coverage(r.ts for r in _chunked())
    assert abs(covered.seconds(T0, ONSET) - 2 * 180) < 1.0
    assert abs(covered.seconds(ONSET, END) - 180) < 1.0
    # Two holes before the onset (11-19 and 22-30 min); before the first line is not one.
    assert abs(covered.hole_seconds(T0, ONSET) - 2 * 8 * 60) < 1.0


def test_a_quiet_source_has_no_holes() -> None:
    """A line a minute is that source's normal pace: its silences are not outages."""
    times = [_at(60.0 * i) for i in range(45)]
    assert Coverage(times).hole_seconds(T0, END) == 0.0
    assert abs(Coverage(times).seconds(T0, ONSET) - 30 * 60) < 1.0
    # Nor is a silence shorter than MIN_GAP_S in a busy one.
    busy = [_at(0.1 * i) for i in range(3000)] + [_at(300 + MIN_GAP_S / 2 + 0.1 * i) for i in range(3000)]
    assert Coverage(busy).hole_seconds(T0, END) == 0.0


def test_steady_templates_in_a_source_with_holes_do_not_shift() -> None:
    assert log_shifts(_chunked(), onset=ONSET, baseline_start=T0, end=END) == []
    signals, _ = log_signals(_chunked(), onset=ONSET, baseline_start=T0, end=END)
    assert not any(s.is_surge for s in signals)


def test_a_real_surge_in_a_source_with_holes_is_still_found() -> None:
    retries = [(float(t), "pricing", f"retrying order {t % 991}") for t in range(30 * 60, 33 * 60)]
    retries += [
        (float(t), "pricing", f"retrying order {t % 991}") for lo, _ in KEPT[:2] for t in range(lo, lo + 60, 20)
    ]
    shifts = log_shifts(_chunked(*retries), onset=ONSET, baseline_start=T0, end=END)
    assert [(s.service, s.kind) for s in shifts] == [("pricing", "up")]


def test_a_stream_first_seen_as_the_source_came_back_may_have_begun_in_the_hole() -> None:
    """Its first line is only when the source showed it: one right after a hole says "by then"."""
    lo = KEPT[2][0]  # the source came back at the onset, after a hole from 22 min
    panics = [(lo + 4.0 + 6.0 * i, "pricing", "panic recovered: nil pointer dereference") for i in range(25)]
    signals, _ = log_signals(_chunked(*panics), onset=ONSET, baseline_start=T0, end=END)
    [panic] = [s for s in signals if "panic" in s.template]
    assert panic.began_unseen == _at(KEPT[1][1] - 0.25)  # the last line before the hole
    # Begun well into the stretch, later than its own spacing leaves quiet by chance: it began there.
    late = [(lo + 60.0 + 6.0 * i, "pricing", "panic recovered: nil pointer dereference") for i in range(15)]
    signals, _ = log_signals(_chunked(*late), onset=ONSET, baseline_start=T0, end=END)
    assert [s.began_unseen for s in signals if "panic" in s.template] == [None]
    # Nor do a few lines, minutes apart, have a pace to judge by.
    few = [(lo + 4.0, "pricing", "retrying idempotent call"), (lo + 150.0, "pricing", "retrying idempotent call")]
    signals, _ = log_signals(_chunked(*few), onset=ONSET, baseline_start=T0, end=END)
    assert [s.began_unseen for s in signals if "retrying" in s.template] == [None]
    # A source with no holes hides nothing.
    covered = Coverage(_at(0.5 * i) for i in range(3000))
    assert covered.began_unseen(_at(4.0), _at(100.0), 20) is None
