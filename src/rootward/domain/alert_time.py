"""When an alert may plausibly have started, and time arithmetic that cannot overflow.

A sender's clock is input like any other: a `startsAt` of `0001-01-01` or
`9999-12-31` parses, but a window of "an hour before it" cannot be computed
(`OverflowError: date value out of range`) and would fail the investigation of
every alert grouped with it. Intake bounds times to a plausible window
around the moment it receives them (docs/intake.md). Behind it, the
investigation leaves out any start too close to the ends of the calendar to
be windowed (`is_windowable`: a row stored before intake bounded times, or
one that bypassed it), so no step depends on intake having caught every
case; it cannot use the plausible window itself, since replaying a months-old
incident is legitimate there.

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


# Farther than any window, lookback or baseline the investigation computes around an incident.
WINDOW_MARGIN = timedelta(days=366)


def is_windowable(moment: datetime) -> bool:
    """Whether windows around `moment` stay inside the representable range (no OverflowError)."""
    return _EARLIEST + WINDOW_MARGIN <= as_utc(moment) <= _LATEST - WINDOW_MARGIN


def shifted(moment: datetime, delta: timedelta) -> datetime:
    """`moment + delta`, saturating at the first and last representable instant instead of raising."""
    try:
        return as_utc(moment) + delta
    except OverflowError:
        return _LATEST if delta > timedelta(0) else _EARLIEST
