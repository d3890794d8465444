"""The incident window: which slice of time is "during" and which is "before".

Alerts fire after a fault starts, so the window opens a few minutes before
`fired_at`; the baseline is the quiet stretch right before the onset, which the
data (not the alert) decides once anomalies are known.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from pydantic import BaseModel

from rootward.domain.alert_time import as_utc, is_windowable, shifted

DEFAULT_BEFORE = timedelta(minutes=5)
DEFAULT_AFTER = timedelta(minutes=10)
DEFAULT_BASELINE = timedelta(minutes=30)
# How far before fired_at a change point may lie and still count as this incident's onset.
ONSET_LOOKBACK = timedelta(minutes=30)


class IncidentWindow(BaseModel):
    fired_at: datetime
    start: datetime  # incident window (logs, anomalies) opens here
    end: datetime
    baseline_start: datetime
    baseline_end: datetime
    onset: datetime | None = None  # derived from the data; None until anomalies are known
    last_alert: datetime | None = None  # the latest start of the group's alerts, when later than fired_at

    def contains(self, ts: datetime) -> bool:
        return self.start <= ts <= self.end

    @property
    def alerted_by(self) -> datetime:
        """When the group's last alert had fired: a fault this incident is about had begun by then.

        The first alert of a group may be one that fired on its own just before (a job that
        failed, then resolved); the alerts of the fault itself join the group after it.
        """
        return max(self.fired_at, self.last_alert or self.fired_at)


def fired_at_of(starts: Iterable[datetime], now: datetime) -> datetime:
    """When the incident fired: the earliest of its alerts' starts that can be windowed, else `now`.

    A start at the ends of the calendar (`domain.alert_time.is_windowable`: a
    hostile sender clock in a row stored before intake bounded times) is left
    out, so one such alert cannot move the window of a whole group to year 1,
    where "an hour before" does not exist. Old but real starts (a replayed
    incident) count.
    """
    usable = [as_utc(start) for start in starts if is_windowable(start)]
    return min(usable, default=now)


def incident_window(
    fired_at: datetime,
    *,
    before: timedelta = DEFAULT_BEFORE,
    after: timedelta = DEFAULT_AFTER,
    baseline: timedelta = DEFAULT_BASELINE,
) -> IncidentWindow:
    """The window the spec asks for: `fired_at - before` to `fired_at + after`, baseline before it.

    The arithmetic saturates at the representable range, so an extreme
    `fired_at` yields a degenerate window, not an OverflowError.
    """
    start = shifted(fired_at, -before)
    return IncidentWindow(
        fired_at=fired_at,
        start=start,
        end=shifted(fired_at, after),
        baseline_start=shifted(start, -baseline),
        baseline_end=start,
    )


def with_onset(
    window: IncidentWindow, onset: datetime | None, *, baseline: timedelta = DEFAULT_BASELINE
) -> IncidentWindow:
    """Move the window's start back to a data-derived onset (never later than the default start).

    The baseline then ends at the onset, so "before" really is before the fault.
    """
    if onset is None:
        return window
    onset = max(onset, shifted(window.fired_at, -ONSET_LOOKBACK))
    start = min(window.start, onset)
    return window.model_copy(
        update={"onset": onset, "start": start, "baseline_end": start, "baseline_start": shifted(start, -baseline)}
    )


# Strong change points further apart than this are separate events, not one cascade.
ONSET_GAP_S = 5 * 60


def derive_onset(onsets_and_scores: list[tuple[int, float]], alerted: int | None = None) -> int | None:
    """The incident's onset (epoch seconds): where its burst of strong change points begins.

    "Strong" is relative (at least a third of the strongest score) so that one slow,
    unrelated drift does not drag the onset back by half an hour. Strong change points
    more than ONSET_GAP_S apart belong to different events; the incident is the burst
    that carries the most score, so an isolated earlier step (a traffic bump, the
    previous incident's tail) does not become the onset of this one.

    Change points more than ONSET_GAP_S after `alerted` (the last alert, epoch seconds) count
    only when none came earlier: what moved that long after the alert fired is what the fault
    went on to do (a restart, a failover, errors spreading), and its burst may well carry more
    score than the quiet start the alert fired on. Closer to the alert they still count, as
    the fault's own (an alert may be stamped the moment the fault began).
    """
    if alerted is not None and any(onset <= alerted + ONSET_GAP_S for onset, _ in onsets_and_scores):
        onsets_and_scores = [(onset, score) for onset, score in onsets_and_scores if onset <= alerted + ONSET_GAP_S]
    if not onsets_and_scores:
        return None
    top = max(score for _, score in onsets_and_scores)
    strong = sorted((onset, score) for onset, score in onsets_and_scores if score >= top / 3)
    if not strong:
        return None
    bursts: list[list[tuple[int, float]]] = [[strong[0]]]
    for point in strong[1:]:
        if point[0] - bursts[-1][-1][0] > ONSET_GAP_S:
            bursts.append([])
        bursts[-1].append(point)
    main = max(bursts, key=lambda burst: sum(score for _, score in burst))
    return main[0][0]
