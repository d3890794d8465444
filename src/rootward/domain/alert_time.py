"""When an alert may plausibly have started, and time arithmetic that cannot overflow.

A sender's clock is input like any other: a `startsAt` of `0001-01-01` or
`9999-12-31` parses, but a window of "an hour before it" cannot be computed
(`OverflowError: date value out of range`) and would fail the investigation of
every alert grouped with it. Intake bounds times to this window around the
moment it receives them (docs/intake.md), and the investigation picks its
incident time from the same window, so neither the receive path nor a later
step depends on the other having caught every case.

The window is wide on purpose: Alertmanager re-sends an alert that has been
firing for weeks with its original `startsAt`, and such an alert is real.
A start more than an hour in the future is a wrong clock or a wrong zone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

PLAUSIBLE_PAST = timedelta(days=30)
PLAUSIBLE_FUTURE = timedelta(hours=1)

_EARLIEST = datetime.min.replace(tzinfo=UTC)
_LATEST = datetime.max.replace(tzinfo=UTC)


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are UTC (what SQLite hands back); aware ones keep their instant."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def is_plausible(moment: datetime, now: datetime) -> bool:
    """Whether `moment` lies within [now - PLAUSIBLE_PAST, now + PLAUSIBLE_FUTURE]."""
    return now - PLAUSIBLE_PAST <= as_utc(moment) <= now + PLAUSIBLE_FUTURE


def shifted(moment: datetime, delta: timedelta) -> datetime:
    """`moment + delta`, saturating at the first and last representable instant instead of raising."""
    try:
        return as_utc(moment) + delta
    except OverflowError:
        return _LATEST if delta > timedelta(0) else _EARLIEST
