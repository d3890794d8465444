"""Metric change scores: one onset for the whole incident, then how far each series moved from before it.

The per-series change points of `context.anomaly` need a dozen samples around
every onset; at coarse sampling (a 5-minute CloudWatch period holds a whole
incident in two or three samples) they find nothing, and at fine sampling each
series picks its own, noisy onset. This module follows the idea of BARO
(Pham et al., FSE 2024) instead, written from the idea:

1. **One joint onset.** Every series is put on a common time grid and measured,
   cell by cell, in robust units from what it did before the first alert; the
   incident's abnormality in a cell is the mean of the largest sqrt(S) of those
   S deviations. The onset is where the stretch of joint abnormality that was
   under way when the alert fired begins (an earlier fault that was over by
   then is another event); without one, the caller's default onset.
2. **A robust change score per series**: the largest departure after the onset
   from the median before it, in units of the interquartile range before it,
   `max|after - median(before)| / IQR(before)`. The scale has a floor (a share
   of the series' own level) so a flat series that wiggles cannot explode (see
   `robust_scale`). Beyond BARO, the score is weighted by the share of samples
   after the onset that stayed far out (`sustained_share`), so the lone spike of
   a spiky series does not outrank a change that holds.
3. **Per entity**, the best score of its series, citing that series in the
   metrics cite form (so the cite resolves in the bundle).

Nothing here knows a metric name, a service name or a sampling interval: the
grid step is the series' own sampling step, and the look-back and the minimum
sample counts are counted in it (the look-back is at least ONSET_LOOKBACK_S).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from rootward.context.median import median
from rootward.context.metric_names import family_of, success_ceiling
from rootward.domain.evidence import EvidenceRef, metric_cite
from rootward.domain.telemetry import MetricSeries

# The onset is looked for from this long before the first alert (at least ONSET_LOOKBACK_STEPS
# samples: an alert rule on coarse data needs several periods to fire) ...
ONSET_LOOKBACK_S = 10 * 60
ONSET_LOOKBACK_STEPS = 3
# ... to one sample after the last alert.
ONSET_GRACE_STEPS = 1
# The joint onset needs this many grid cells before it (a baseline) and one after.
MIN_BEFORE_CELLS = 3
# The scale of a change is never below this share of the series' level or peak:
# a move of a few percent of what a series reads is no change an operator would page on.
SCALE_FLOOR_SHARE = 0.05
SCORE_CAP = 1000.0
# A change score below this (interquartile ranges) is within what noise does over a window.
MIN_CHANGE = 4.0
# Tukey's far-out fence: this many scales beyond the quartile is clearly out of the normal range.
FENCE = 3.0
# In Page's CUSUM of the joint abnormality, a cell counts as abnormal this many robust spreads above normal.
ALLOWANCE = 3.0
# A stretch of joint abnormality ends after this many normal cells in a row.
QUIET_CELLS = 2
# Above this many grid cells the grid step is widened (fine-grained data over a long window).
MAX_CELLS = 4000


class JointOnset(BaseModel):
    """Where the incident's series changed level together."""

    onset: int  # epoch seconds: start of the first grid cell after the change
    step: int  # grid step in seconds (the typical sampling interval)
    detected: bool  # a stretch of joint abnormality was under way at the alert (else: a fallback split)
    series: int  # series that took part


class SeriesChange(BaseModel):
    """One series' robust before/after change around the joint onset."""

    service: str
    metric: str
    score: float  # max |after - median(before)| / floored IQR(before), capped
    direction: Literal["up", "down"]
    baseline: float  # median before the onset
    peak: float  # the most extreme value after it
    level: float  # median after it: where the series stayed, which one spike does not move
    scale: float  # the floored IQR the score is in units of
    start: int  # first sample at or after the onset
    end: int  # last sample in the window


class SeriesMove(BaseModel):
    """Another family's best series of the same entity: a CPU that rose with the latency that moved most."""

    metric: str
    score: float
    direction: Literal["up", "down"]
    evidence: EvidenceRef
    baseline: float = 0.0  # median before the onset
    level: float = 0.0  # median after it

    @property
    def ratio(self) -> float | None:
        """Where the series stayed after the onset over where it was before, when that was a positive level."""
        return self.level / self.baseline if self.baseline > 0 else None


class MetricChange(BaseModel):
    """An entity's metric change: its best series, the score of that series, and each other family's best."""

    entity: str
    metric: str
    score: float
    direction: Literal["up", "down"]
    baseline: float
    peak: float
    onset: int
    series: int  # series of the entity that were scored
    evidence: EvidenceRef
    others: list[SeriesMove] = Field(default_factory=list)  # per other metric family, its best series


@dataclass(frozen=True)
class _Samples:
    """One series as arrays, converted once (tuples of a few thousand floats are slow to convert twice)."""

    series: MetricSeries
    ts: np.ndarray
    vs: np.ndarray


def _samples(series: Iterable[MetricSeries]) -> list[_Samples]:
    out = []
    for s in series:
        if len(s.timestamps) >= 2:
            out.append(_Samples(s, np.fromiter(s.timestamps, np.int64), np.fromiter(s.values, float)))
    return out


def sampling_step(series: Sequence[MetricSeries]) -> int:
    """The typical sampling interval: the median over series of each one's median spacing (0 without any)."""
    return _step(_samples(series))


def _step(samples: Sequence[_Samples]) -> int:
    steps = [float(median(np.diff(s.ts))) for s in samples]
    steps = [x for x in steps if x > 0]
    return max(1, round(float(np.median(steps)))) if steps else 0


def _grid(samples: Sequence[_Samples], step: int, end: int) -> tuple[np.ndarray, np.ndarray]:
    """(cell starts, one row per series of cell means, NaN where a series has no sample)."""
    t0 = min(int(s.ts[0]) for s in samples)
    t1 = min(end, max(int(s.ts[-1]) for s in samples))
    n = max(1, (t1 - t0) // step + 1)
    grid = np.full((len(samples), n), np.nan)
    for i, s in enumerate(samples):
        keep = s.ts <= t1
        idx = (s.ts[keep] - t0) // step
        sums = np.bincount(idx, weights=s.vs[keep], minlength=n)
        counts = np.bincount(idx, minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            grid[i] = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return t0 + step * np.arange(n), grid


def scale_floor(level: float) -> float:
    """The smallest spread a series at `level` is measured in: a share of what it reads."""
    return SCALE_FLOOR_SHARE * abs(level)


def _scales(iqr: np.ndarray, med: np.ndarray, excursion: np.ndarray, moved: np.ndarray) -> np.ndarray:
    """`robust_scale` for many series at once, from their statistics before the split."""
    scale = np.maximum(iqr, SCALE_FLOOR_SHARE * np.abs(med))
    scale = np.where(scale > 0, scale, excursion)
    scale = np.where(scale > 0, scale, SCALE_FLOOR_SHARE * np.abs(moved))
    return np.where(scale > 0, scale, 1.0)


def robust_scale(before: np.ndarray, moved: float) -> float:
    """The unit a change of size `moved` from `before` is measured in.

    The interquartile range before, but never below a share of the level (a steady
    gauge that wiggles by a fraction of a percent does not explode). A series whose
    middle half was flat at zero (an error counter, an idle queue) is measured
    against its largest earlier excursion; one that never moved at all counts a
    departure as SCALE_FLOOR_SHARE of its own size, so leaving a perfectly flat
    line scores 1 / SCALE_FLOOR_SHARE, strong but finite.
    """
    q1, med, q3 = np.percentile(before, [25, 50, 75])
    excursion = np.max(np.abs(before - med))
    return float(_scales(np.asarray(q3 - q1), np.asarray(med), np.asarray(excursion), np.asarray(moved)))


def _deviations(grid: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Each series' distance from its normal in every cell, log(1 + |x - median| / scale); 0 where absent.

    Normal is the series' median over the `reference` cells and the scale is
    `robust_scale` there, the same unit the change score uses. The log keeps one
    series with a huge move from drowning the others.
    """
    ref = grid[:, reference]
    usable = np.sum(~np.isnan(ref), axis=1) >= 2
    grid, ref = grid[usable], ref[usable]
    if not len(grid):
        return np.zeros((1, reference.shape[0]))
    with np.errstate(all="ignore"):
        percentile = np.percentile if not np.isnan(ref).any() else np.nanpercentile
        q1, med, q3 = percentile(ref, [25, 50, 75], axis=1)
        dev = np.abs(grid - med[:, None])
        excursion = np.nanmax(np.abs(ref - med[:, None]), axis=1)
        scale = _scales(q3 - q1, med, excursion, np.nanmax(dev, axis=1))
        return np.nan_to_num(np.log1p(dev / scale[:, None]), nan=0.0)


def abnormality(deviations: np.ndarray) -> np.ndarray:
    """The incident's abnormality per cell: the mean of the ceil(sqrt(S)) largest of S series' deviations.

    A mean over all series would dilute a fault that shows in a handful of a few
    hundred series; the largest one alone would follow every series' noise. The
    square root sits between, for any number of series.
    """
    n_series = deviations.shape[0]
    top = max(1, math.ceil(math.sqrt(n_series)))
    part = np.partition(deviations, n_series - top, axis=0)[n_series - top :]
    return np.asarray(part.mean(axis=0))


def excursions(level: np.ndarray, reference: np.ndarray) -> list[tuple[int, int]]:
    """Stretches (first cell, last cell) where the abnormality stands above normal.

    A cell is abnormal when its level is ALLOWANCE robust spreads above the level's
    median over the reference cells. A stretch bridges up to QUIET_CELLS - 1 normal
    cells (a strong fault has quieter moments) and ends at QUIET_CELLS in a row, so
    a fault that is over ends its stretch however strong it was.
    """
    ref = level[reference]
    base = float(median(ref))
    spread = max(1.4826 * float(median(np.abs(ref - base))), 1e-9)
    abnormal = (level - base) / spread >= ALLOWANCE
    out: list[tuple[int, int]] = []
    first = last = -1
    for k, hot in enumerate(abnormal.tolist()):
        if hot:
            if first < 0 or k - last > QUIET_CELLS:
                if first >= 0:
                    out.append((first, last))
                first = k
            last = k
    if first >= 0:
        out.append((first, last))
    return out


def _incident_excursion(found: list[tuple[int, int]], alert_cell: int, hi_cell: int) -> tuple[int, int] | None:
    """The stretch under way when the alert fired (within a cell of it), else the first to begin before `hi_cell`.

    An alert reports something that is happening: an earlier fault that was over
    before it fired is another event, however strong it was.
    """
    live = [e for e in found if e[1] >= alert_cell - 1 and e[0] <= hi_cell]
    return min(live, key=lambda e: (0 if e[0] <= alert_cell <= e[1] else 1, e[0]), default=None)


def joint_onset(
    series: Sequence[MetricSeries],
    *,
    fired_at: int,
    end: int,
    latest: int | None = None,
    fallback: int | None = None,
) -> JointOnset | None:
    """The incident's onset over all series jointly; None without enough data before the alert.

    Normal is what the series did before the first alert (a fault precedes the alert
    that reports it, so most of that stretch is the healthy state). The onset is the
    start of the stretch of joint abnormality under way when the alert fired (not
    earlier than the look-back). Without one, it is `fallback` (the caller's default
    onset) or else the most abnormal cell in reach, marked `detected=False`.
    """
    return _joint_onset(_samples(series), fired_at=fired_at, end=end, latest=latest, fallback=fallback)


def _joint_onset(
    usable: Sequence[_Samples], *, fired_at: int, end: int, latest: int | None, fallback: int | None
) -> JointOnset | None:
    step = _step(usable)
    if not usable or step <= 0:
        return None
    span = min(end, max(int(s.ts[-1]) for s in usable)) - min(int(s.ts[0]) for s in usable)
    step = max(step, math.ceil(span / MAX_CELLS))
    cells, grid = _grid(usable, step, end)
    reference = cells < fired_at
    if reference.sum() < MIN_BEFORE_CELLS:
        return None
    level = abnormality(_deviations(grid, reference))
    lo = fired_at - max(ONSET_LOOKBACK_S, ONSET_LOOKBACK_STEPS * step)
    hi = max(fired_at, latest or fired_at) + ONSET_GRACE_STEPS * step
    k = np.arange(len(cells))
    allowed = (cells >= lo) & (cells <= hi) & (k >= MIN_BEFORE_CELLS)
    if not allowed.any():
        return None
    lo_cell, hi_cell = int(k[allowed][0]), int(k[allowed][-1])
    alert_cell = int(np.searchsorted(cells, fired_at, side="right")) - 1
    chosen = _incident_excursion(excursions(level, reference), alert_cell, hi_cell)
    if chosen is None:
        if fallback is not None:
            return JointOnset(onset=fallback, step=step, detected=False, series=len(usable))
        best = int(np.argmax(np.where(allowed, level, -np.inf)))
        return JointOnset(onset=int(cells[best]), step=step, detected=False, series=len(usable))
    return JointOnset(onset=int(cells[max(chosen[0], lo_cell)]), step=step, detected=True, series=len(usable))


def sustained_share(after: np.ndarray, q1: float, q3: float, moved: float, scale: float) -> float:
    """Share of the samples after the onset beyond Tukey's far-out fence of the before, the way the peak went.

    The fence is the quartile plus three times the scale: what a series crosses
    only when it has really left its normal. A fault keeps a series there; a lone
    spike of a spiky series (a p99 over a handful of requests) crosses it once.
    """
    if moved >= 0:
        return float(np.mean(after > q3 + FENCE * scale))
    return float(np.mean(after < q1 - FENCE * scale))


def change_score(series: MetricSeries, onset: int, end: int, *, sustained: bool = True) -> SeriesChange | None:
    """How far the series moved after `onset` from its distribution before, in robust units.

    BARO's score, `max|after - median(before)| / scale(before)`, times (with
    `sustained`) the share of post-onset samples that stayed beyond the far-out
    fence: a change that holds counts fully, a single excursion by its share.
    `sustained=False` is BARO's score alone (the baseline the evaluation compares with).
    """
    found = _samples([series])
    return _change(found[0], onset, end, sustained) if found else None


def _change(s: _Samples, onset: int, end: int, sustained: bool) -> SeriesChange | None:
    split, stop = np.searchsorted(s.ts, onset), np.searchsorted(s.ts, end, side="right")
    before, after = s.vs[:split], s.vs[split:stop]
    if len(before) < 2 or len(after) == 0:
        return None
    q1, med, q3 = (float(q) for q in np.percentile(before, [25, 50, 75]))
    peak = float(after[np.argmax(np.abs(after - med))])
    moved = peak - med
    excursion = np.max(np.abs(before - med))
    # A success share's floor is a share of its distance from its ceiling (`success_ceiling`).
    room = med - success_ceiling(s.series.metric, s.series.values)
    scale = float(_scales(np.asarray(q3 - q1), np.asarray(room), np.asarray(excursion), np.asarray(moved)))
    score = min(SCORE_CAP, abs(moved) / scale)
    if sustained:
        score *= sustained_share(after, q1, q3, moved, scale)
    return SeriesChange(
        service=s.series.service,
        metric=s.series.metric,
        score=score,
        direction="up" if moved >= 0 else "down",
        baseline=med,
        peak=peak,
        level=float(np.median(after)),
        scale=scale,
        start=int(s.ts[split]),
        end=int(s.ts[stop - 1]),
    )


def entity_changes(changes: Iterable[SeriesChange], onset: int) -> list[MetricChange]:
    """Per entity its best-scoring series, strongest entity first (ties by name, so the order is stable)."""
    by_entity: dict[str, list[SeriesChange]] = {}
    for c in changes:
        by_entity.setdefault(c.service, []).append(c)
    out = []
    for entity, group in by_entity.items():
        best = max(group, key=lambda c: (c.score, c.metric))
        out.append(
            MetricChange(
                entity=entity,
                metric=best.metric,
                score=best.score,
                direction=best.direction,
                baseline=best.baseline,
                peak=best.peak,
                onset=onset,
                series=len(group),
                evidence=_evidence(best),
                others=_family_bests(group, best),
            )
        )
    out.sort(key=lambda m: (-m.score, m.entity))
    return out


def _evidence(c: SeriesChange) -> EvidenceRef:
    excerpt = (
        f"{c.service} {c.metric} {c.direction} to {c.peak:.4g} from a median of {c.baseline:.4g} "
        f"before the onset: {c.score:.1f} interquartile ranges"
    )
    return EvidenceRef("metric", metric_cite(c.service, c.metric, c.start, c.end), excerpt)


def _family_bests(group: Sequence[SeriesChange], best: SeriesChange) -> list[SeriesMove]:
    """Each metric family's best series but the best one's family, strongest first."""
    tops: dict[str, SeriesChange] = {}
    for c in group:
        family = family_of(c.metric)
        if family != family_of(best.metric) and (
            family not in tops or (c.score, c.metric) > (tops[family].score, tops[family].metric)
        ):
            tops[family] = c
    ranked = sorted(tops.values(), key=lambda c: (-c.score, c.metric))
    return [
        SeriesMove(
            metric=c.metric,
            score=c.score,
            direction=c.direction,
            evidence=_evidence(c),
            baseline=c.baseline,
            level=c.level,
        )
        for c in ranked
    ]


def metric_changes(
    series: Sequence[MetricSeries],
    *,
    fired_at: int,
    end: int,
    entities: set[str] | None = None,
    latest: int | None = None,
    fallback: int | None = None,
    sustained: bool = True,
) -> tuple[JointOnset | None, list[MetricChange]]:
    """The joint onset over all series, and each entity's (of `entities`, all when None) best change score.

    The onset is found over every series, also those of entities out of scope:
    the more series see the change, the better it is placed. `fallback` is the
    split to score against when no joint change is found (the caller's default
    incident start).
    """
    samples = _samples(series)
    onset = _joint_onset(samples, fired_at=fired_at, end=end, latest=latest, fallback=fallback)
    if onset is None:
        return None, []
    scored = (
        _change(s, onset.onset, end, sustained) for s in samples if entities is None or s.series.service in entities
    )
    return onset, entity_changes((c for c in scored if c is not None), onset.onset)
