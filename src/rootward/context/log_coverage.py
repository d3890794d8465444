"""How much of a time window a log source actually covers: rates are per covered second.

Template rates before and after the onset are compared per second of each
window. That holds only if the source was shipping lines all along: a log
store with holes (a shipper that was down, retention that kept only some
minutes, a snapshot of a few files) makes a steady template look as if it
surged on whichever side has fewer holes. So the seconds of a window are the
seconds the source covers: a silence of the whole source (every service at
once) much longer than its usual spacing between lines is a hole, not time.

"Much longer" is relative to the source itself: GAP_FACTOR times the median
spacing of its lines, and never under MIN_GAP_S, so a quiet source that
writes a line a minute has no holes at all, while one writing dozens a second
that falls silent for minutes does. One service going quiet while others log
is not a hole: that is a signal (`log_shifts` reports it as vanished).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import numpy as np

GAP_FACTOR = 50.0
MIN_GAP_S = 60.0
# A stream of lines whose first came within this many of its own spacings after the source resumed
# may have begun in the hole: a steady stream leaves that long without a line by chance ~5 % of the time.
RESUMED_SPACINGS = 3.0
# Lines of a stream before its spacing says anything: two or three lines a few minutes apart are no pace.
STREAM_LINES = 5


def hole_threshold(spacings: np.ndarray) -> float:
    """The shortest silence of the whole source that counts as a hole, in seconds."""
    if spacings.size == 0:
        return float("inf")
    return max(MIN_GAP_S, GAP_FACTOR * float(np.median(spacings)))


class Coverage:
    """The stretches of time a log source covers, from the times of all its lines."""

    def __init__(self, times: Iterable[datetime]) -> None:
        ts = np.sort(np.fromiter((t.timestamp() for t in times), dtype=np.float64))
        spacings = np.diff(ts)
        threshold = hole_threshold(spacings)
        holes = np.flatnonzero(spacings > threshold)
        # Covered stretches: from one hole's far side to the next hole's near side.
        self.starts = np.concatenate([ts[:1], ts[holes + 1]])
        self.ends = np.concatenate([ts[holes], ts[-1:]])
        self.hole_starts, self.hole_ends = ts[holes], ts[holes + 1]

    def seconds(self, start: datetime, end: datetime) -> float:
        """Covered seconds between `start` and `end` (0 when the source has no line there)."""
        return _overlap(self.starts, self.ends, start, end)

    def stretches(self, start: datetime, end: datetime) -> list[tuple[float, float]]:
        """The covered stretches between `start` and `end` (epoch seconds), clipped to them."""
        lo, hi = start.timestamp(), end.timestamp()
        a, b = np.maximum(self.starts, lo), np.minimum(self.ends, hi)
        return [(float(x), float(y)) for x, y in zip(a, b, strict=True) if y > x]

    def began_unseen(self, first: datetime, last: datetime, count: int) -> datetime | None:
        """Where the hole began that a stream of `count` lines from `first` to `last` may have begun in.

        Its first line is only when the source showed it: one that came within RESUMED_SPACINGS of
        the stream's own spacing after the source resumed from a hole may have been going all
        through the hole. None when it came later than that, or with no hole before it, or when
        under STREAM_LINES lines give it no pace to judge by.
        """
        if count < STREAM_LINES or not len(self.hole_ends):
            return None
        at = int(np.searchsorted(self.hole_ends, first.timestamp(), side="right")) - 1
        if at < 0:
            return None
        spacing = self.seconds(first, last) / (count - 1)
        if first.timestamp() - self.hole_ends[at] > RESUMED_SPACINGS * spacing:
            return None
        return datetime.fromtimestamp(float(self.hole_starts[at]), first.tzinfo)

    def hole_seconds(self, start: datetime, end: datetime) -> float:
        """Seconds between `start` and `end` that fall in a hole of the source."""
        return _overlap(self.hole_starts, self.hole_ends, start, end)


def _overlap(starts: np.ndarray, ends: np.ndarray, start: datetime, end: datetime) -> float:
    lo, hi = start.timestamp(), end.timestamp()
    return float(np.clip(np.minimum(ends, hi) - np.maximum(starts, lo), 0.0, None).sum())
