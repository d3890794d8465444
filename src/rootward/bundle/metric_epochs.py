"""metrics.csv timestamps written in milliseconds (or micro-, nanoseconds) are read as seconds.

The format says epoch seconds, but exporters and dataframes often write epoch
milliseconds (`Date.now()`, pandas' `to_json`, Prometheus' API in ms): read as
seconds they lie tens of thousands of years from the incident, no sample falls
in any window, and the investigation silently runs without metrics. The unit is
unambiguous against the incident's own time: a series of this incident stamped
in milliseconds reads about a thousand times the alert's epoch second. The
series are converted (floor to the second) and the bundle notes what was read
(`Bundle.partial_gaps`), so the reader knows the file was off-format. A file
whose samples all lie outside the incident's window (a time zone applied
twice, another day's export) is noted with the span it does hold, so "no
metrics" comes with the reason to look for.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from datetime import UTC, datetime

from rootward.domain.telemetry import MetricSeries

# Units a timestamp may be in, by how many of them make a second.
_UNITS = ((1_000, "milliseconds"), (1_000_000, "microseconds"), (1_000_000_000, "nanoseconds"))
NOTE_KEY = "metrics.csv:timestamps"
SPAN_KEY = "metrics.csv:span"


def unit_of(series: Sequence[MetricSeries], reference: int) -> tuple[int, str] | None:
    """(per second, unit name) when the stamps read that many times `reference` (epoch seconds); else None."""
    firsts = [s.timestamps[0] for s in series if s.timestamps]
    if not firsts or reference <= 0:
        return None
    ratio = statistics.median(firsts) / reference
    for per_second, name in _UNITS:
        if per_second / 2 <= ratio <= per_second * 2:
            return per_second, name
    return None


def in_seconds(series: list[MetricSeries], reference: int) -> tuple[list[MetricSeries], str | None]:
    """The series stamped in epoch seconds, and a note when they were not (None when they were)."""
    unit = unit_of(series, reference)
    if unit is None:
        return series, None
    per_second, name = unit
    converted = [
        MetricSeries(s.service, s.metric, tuple(t // per_second for t in s.timestamps), s.values) for s in series
    ]
    return converted, f"metrics.csv: timestamps are epoch {name}, not seconds; read as seconds"


def outside_note(series: Sequence[MetricSeries], start: datetime, end: datetime) -> str | None:
    """A note naming the file's span when no sample lies in [start, end] (None when one does, or none at all)."""
    stamps = [t for s in series for t in (s.timestamps[0], s.timestamps[-1]) if s.timestamps]
    if not stamps:
        return None
    lo, hi = int(start.timestamp()), int(end.timestamp())
    if any(any(lo <= t <= hi for t in s.timestamps) for s in series):
        return None
    first, last = (datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M") for t in (min(stamps), max(stamps)))
    return (
        f"metrics.csv: no sample in the incident window {start:%Y-%m-%d %H:%M}-{end:%H:%M} UTC; "
        f"its samples span {first} to {last} UTC"
    )
