"""Where the spans themselves say the incident began, for when the metrics cannot say.

The trace comparison needs an onset: calls before it are the baseline, calls after
it the incident. The metrics usually give one. When they give none before the alert
(sparse or coarse series, or a change point that lies after the alert and so is
not this incident's), a fixed stretch before the alert would mix calls from before
the fault into the "after" side, or the fault's calls into the baseline, and blur
the very change the attribution reads.

The spans carry their own change points. For every call edge (the time outside the
callee's spans: network, queue) and every service (its own work per call) the calls
are scanned for the split in time where the median moved up most, against the calls
just before it, with the same robust statistics as the comparison itself. The
strongest splits are then grouped into bursts like metric change points
(`window.derive_onset`): the incident is the burst carrying the most score. Only
slower is read: recovery from an earlier event makes things faster, not slower.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

import numpy as np

from rootward.context.anomaly import AFTER_SPAN
from rootward.context.median import median as middle
from rootward.context.span_graph import SpanTable, span_graph
from rootward.context.trace_evidence import MIN_CALLS, MIN_RELATIVE, MS_FLOOR, SCALE_FLOOR, Z_CHANGED, _shift
from rootward.context.window import derive_onset
from rootward.domain.telemetry import Span

# Splits tried per series: enough to place an onset within a few percent of the stretch.
MAX_SPLITS = 60
# A split counts towards the onset when its score is at least this share of the series' best
# (a strong step keeps the later splits strong too; its start is the first of them).
NEAR_BEST = 0.7


def _series(spans: Sequence[Span], table: SpanTable | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(start times, values) per call edge's network time and per service's self time, in time order."""
    graph = table.graph() if table is not None else span_graph(list(spans))
    e, c = graph.edges, graph.calls
    width = len(graph.services) + 1
    keys = e.caller * width + e.callee
    for key in np.unique(keys):
        yield e.at[keys == key], e.network_ms[keys == key]
    for code in np.unique(c.service):
        yield c.at[c.service == code], c.self_ms[c.service == code]


def _best_split(at: np.ndarray, values: np.ndarray, lo: float, hi: float) -> tuple[float, float] | None:
    """The earliest split in [lo, hi] at which the calls got clearly slower: (time, robust z)."""
    ok = ~np.isnan(values)
    order = np.argsort(at[ok], kind="stable")
    at, values = at[ok][order], values[ok][order]
    inside = at[(at >= lo) & (at <= hi)]
    if inside.size < MIN_CALLS or at.size < 2 * MIN_CALLS:
        return None
    picks = np.unique(inside[np.linspace(0, inside.size - 1, min(MAX_SPLITS, inside.size)).astype(int)])
    scored: list[tuple[float, float, int, float]] = []  # (split, z, its index, the baseline's upper bound)
    for t in picks.tolist():
        b0, k, a1 = np.searchsorted(at, [t - AFTER_SPAN, t, t + AFTER_SPAN], side="left")
        before, after = values[b0:k], values[k:a1]
        if before.size < MIN_CALLS or after.size < MIN_CALLS:
            continue
        median, _, z, changed = _shift(before, after)
        if changed and z > 0:
            bound = median + Z_CHANGED * spread(before, median) + MIN_RELATIVE * abs(median)
            scored.append((t, z, int(k), bound))
    if not scored:
        return None
    top = max(c[1] for c in scored)
    t, z, k, bound = next(c for c in scored if c[1] >= NEAR_BEST * top)
    # A split before the change still sees it in the calls after it: the change is where the
    # calls themselves first leave the baseline, at or after that split.
    first = next((i for i in range(k, at.size) if values[i] > bound), k)
    return float(at[first]), z


def spread(values: np.ndarray, median: float) -> float:
    """The baseline's robust spread (MAD), with the floors the comparison uses."""
    mad = 1.4826 * middle(np.abs(values - median))
    return max(mad, SCALE_FLOOR * abs(median), MS_FLOOR)


def trace_onset(spans: Sequence[Span], lo: datetime, hi: datetime, table: SpanTable | None = None) -> datetime | None:
    """The start of the strongest burst of slowdowns in the spans between `lo` and `hi`, if any.

    `table`: the spans' columns, when the caller has read them already (`span_graph.SpanTable` of `spans`).
    """
    if not spans:
        return None
    a, b = lo.timestamp(), hi.timestamp()
    splits = [s for at, v in _series(spans, table) if (s := _best_split(at, v, a, b)) is not None]
    onset = derive_onset([(int(t), z) for t, z in splits])
    return None if onset is None else datetime.fromtimestamp(onset, UTC)
