"""Metric anomalies: which series moved, which way, how much, and since when.

For every series, a robust change point: for each candidate onset t, compare
the median of a short "after" stretch with the median and MAD of the baseline
right before t (so a fault earlier in the data does not poison the baseline),
and keep the t with the largest robust score. Only sustained moves count: a
one-sample blip cannot carry the median of the "after" stretch.

Metric names are free text, so each series is put in a *family* (cpu, memory,
latency...) by generic technology words in its name; families are what the
engine reasons with.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel

from rootward.context.hinge import best_hinge
from rootward.context.median import median
from rootward.context.metric_names import CAPACITY_RATIO, Family, family_of, success_ceiling
from rootward.context.window import ONSET_GAP_S, derive_onset
from rootward.domain.evidence import EvidenceRef, metric_cite
from rootward.domain.telemetry import MetricSeries

RESOURCE_FAMILIES: frozenset[str] = frozenset(
    {"cpu", "memory", "disk", "restarts", "packet_loss", "connections", "locks", "network", "silence"}
)
SILENCE_SCORE = 50.0
# What every victim shows; a burst of these may well be what the alert is about, even once it is over.
SYMPTOM_FAMILIES: frozenset[str] = frozenset({"latency", "errors", "traffic"})

DEFAULT_THRESHOLD = 4.0
BASELINE_SPAN = 30 * 60
AFTER_SPAN = 4 * 60
MIN_BASELINE = 5
# A baseline of coarse samples (5-minute periods) spans at least this many of them: the spread of
# six samples is mostly luck, and a chance-tight one makes any wiggle after it read as a change.
BASELINE_SAMPLES = 12
MIN_AFTER = 3
# An alert rule on coarse data needs several periods to fire (a CloudWatch alarm on 3 of 5-minute
# datapoints fires 15 minutes in): the onset is looked for at least this many samples before the alert.
LOOKBACK_STEPS = 3
SCORE_CAP = 1000.0
# A lone excursion back at normal for this many samples before a move had ended (one sample is a
# dip in the move), as a stretch of joint abnormality ends at `metric_change.QUIET_CELLS` normal cells.
ENDED_AFTER = 2


# How a series moved: held a new level, climbed, spiked, or climbed and fell back again and again.
Shape = Literal["step", "ramp", "spike", "resets"]
# A reset falls from the top of the rise (this share of it) to its bottom (under this share) in one sample.
RESET_FROM = 0.75
RESET_TO = 0.4
MIN_RESETS = 2
# CPU per request rising at every service (at least this many) within this many samples is common-mode.
COMMON_MODE_MIN = 3
COMMON_MODE_SPREAD_STEPS = 2


class Anomaly(BaseModel):
    """One series that moved. `cite` covers the samples from the onset to the window end."""

    service: str
    metric: str
    family: Family
    direction: Literal["up", "down"]
    score: float  # robust z of the post-onset median against the baseline, capped
    baseline: float  # baseline median
    after: float  # post-onset median
    peak: float  # most extreme value since the onset
    onset: int  # epoch seconds of the change point
    start: int
    end: int
    evidence: EvidenceRef
    derived: str = ""  # non-empty when the score comes from a derived ratio (e.g. per request)
    shape: Shape = "step"
    # Where it sits in the last quarter of its samples since the onset (`_end_level`): the level a held
    # move reached, read at the same moments for every series of the window, unlike `after`, whose
    # stretch starts at each series' own change point and may fall inside a climb.
    level: float | None = None

    @property
    def ratio(self) -> float:
        return self.after / self.baseline if self.baseline else float("inf") if self.after else 1.0


class ScoredSeries(BaseModel):
    """A series' best change point, anomalous or not (the engine also needs "did not move")."""

    service: str
    metric: str
    family: Family
    score: float
    signed: float
    baseline: float
    after: float
    peak: float
    onset: int
    # Latency only: how scattered its samples are about their level before the onset and since, as a
    # share of that level; 0 where either side has fewer than SPREAD_SAMPLES (`relative_spreads`).
    spread_before: float = 0.0
    spread_after: float = 0.0


# Samples each side needs for its spread to be read, and the neighbourhood each sample's is read in.
SPREAD_SAMPLES = 20
LOCAL_SPAN = 5


def relative_spreads(ts: np.ndarray, vs: np.ndarray, onset: int, end: int) -> tuple[float, float]:
    """How scattered a series is about its level before the onset and since, each side (`_relative_spread`).

    Whether a latency moved as a block or turned erratic tells two faults apart that
    its level alone does not (`engine.tail_latency.erratic`).
    """
    before = vs[(ts >= onset - baseline_span(ts)) & (ts < onset)]
    after = vs[(ts >= onset) & (ts <= end)]
    before, after = before[~np.isnan(before)], after[~np.isnan(after)]
    if before.size < SPREAD_SAMPLES or after.size < SPREAD_SAMPLES:
        return 0.0, 0.0
    return _relative_spread(before), _relative_spread(after)


def _relative_spread(values: np.ndarray) -> float:
    """The median distance of each sample from the median of its neighbours (LOCAL_SPAN of them), over the
    median: a move from one level to another disturbs the samples next to it only, so an onset read a
    little early or late does not make a steady series look scattered."""
    level = float(median(values))
    if not level:
        return 0.0
    half = LOCAL_SPAN // 2
    padded = np.pad(values, half, mode="edge")
    local = np.median(np.lib.stride_tricks.sliding_window_view(padded, LOCAL_SPAN), axis=1)
    return float(median(np.abs(values - local))) / abs(level)


def baseline_span(ts: np.ndarray) -> int:
    """How far back a candidate's baseline reaches: BASELINE_SPAN, or BASELINE_SAMPLES typical intervals."""
    if len(ts) < 2:
        return BASELINE_SPAN
    return max(BASELINE_SPAN, BASELINE_SAMPLES * int(median(np.diff(ts))))


def quantum_of(values: list[float]) -> float:
    """The step of a small integer-valued series (lock waits, connections in use): moving by one step is noise."""
    unique = set(values)
    if len(unique) > 20:  # decided before sorting: a 1 Hz series has thousands of distinct values
        return 0.0
    distinct = sorted(unique)
    if any(v != int(v) for v in distinct):
        return 0.0
    steps = [b - a for a, b in zip(distinct, distinct[1:], strict=False)]
    return min(steps) if steps else 0.0


def change_point(
    ts: np.ndarray, vs: np.ndarray, lo: int, hi: int, end: int, family: str = "other", ceiling: float = 0.0
) -> tuple[float, int, float, float, float] | None:
    """Best change point with onset in [lo, hi]: (signed score, onset, baseline median, after median, peak).

    The baseline and "after" windows slide forward with the candidate, so they
    are kept sorted (`_scan`) rather than sorted again per candidate:
    the same medians, in time that stays small at one sample a second. A NaN
    is no sample (the Prometheus source drops them too): it has no place in a
    sorted window. `ceiling`: the bound of a success share (`metric_names.success_ceiling`),
    whose spread floor is a share of its distance from that bound, not of its level.
    """
    if np.isnan(vs).any():
        keep = ~np.isnan(vs)
        ts, vs = ts[keep], vs[keep]
    values = vs.tolist()
    full_max = float(np.abs(vs).max()) if len(values) else 0.0
    quantum = 0.0 if family == "restarts" else quantum_of(values)  # a restart is never noise
    floor = max(1e-3 * full_max, quantum, 1e-12)
    starts = np.searchsorted(ts, ts - baseline_span(ts))
    last = int(np.searchsorted(ts, end, side="right"))
    ks, b0s, a1s = _candidate_windows(ts, lo, hi, end, starts)
    scored = _scan(values, ks, b0s, a1s, floor, ceiling)
    if not scored:
        return None
    magnitudes = [abs(c[0]) for c in scored]
    top = scored[magnitudes.index(max(magnitudes))]  # the first of the largest |z|
    # The change is where the first sample itself leaves the baseline, at or after the
    # earliest candidate that sees most of the move (a strong step keeps every later
    # candidate at the cap, so "the best candidate" alone would drift late).
    sign = 1.0 if top[0] >= 0 else -1.0
    first = next(c for c in scored if c[0] * sign >= 0.7 * abs(top[0]))
    z, k, med, after, scale = first
    onset_k = next(
        (i for i in range(k, min(len(values), k + len(scored))) if (values[i] - med) * sign / scale >= 4.0), k
    )
    # An intermittent fault (a flapping link) shows first as isolated excursions before
    # the median moves: take the first of those leading up to the sustained move.
    early = _excursions_before(values, ts, onset_k, int(starts[k]) + MIN_BASELINE, med, sign * scale)
    if len(early) >= 2 and (_runs(early) >= 2 or onset_k - early[-1] - 1 < ENDED_AFTER):
        onset_k = early[0]  # repeated, or leading straight into the move: not a lone spike or an ended blip
    tail = values[onset_k:last] or [after]
    # The most extreme value the way it moved: a dip inside a rise (a missed scrape) is not its peak.
    peak = max(tail) if sign > 0 else min(tail)
    return (top[0], int(ts[onset_k]), med, after, peak)


def _runs(indices: list[int]) -> int:
    """How many separate excursions sample indices make: a run of consecutive samples out is one.

    One run that was back to normal for ENDED_AFTER samples before the move is an event that
    came and went (the previous fault of a fault-injection run), not the first flap of this
    one; two runs are a flap (`change_point`).
    """
    return sum(1 for i, k in enumerate(indices) if i == 0 or k != indices[i - 1] + 1)


def _excursions_before(
    values: list[float], ts: np.ndarray, onset_k: int, floor_k: int, med: float, signed_scale: float
) -> list[int]:
    """The isolated excursions (8 scales out, the way the series moved) that lead up to `onset_k`.

    A flapping link or an intermittent fault shows as excursions minutes apart
    before the median itself moves. Each one found within AFTER_SPAN before the
    earliest so far extends the chain back, so a flap every few minutes is dated
    by its first excursion, not by the one just before the median moved; a gap
    longer than AFTER_SPAN ends it. A chain is only this event's when the
    baseline holds a stretch as long before it with under half as many: a
    series that always spikes now and then (a lock wait of 0 or 1) keeps only
    the excursions of the AFTER_SPAN just before the move.
    """

    def out(lo: int, hi: int) -> list[int]:
        return [i for i in range(lo, hi) if (values[i] - med) / signed_scale >= 8.0]

    def window_before(k: int, span: float) -> int:
        return max(int(np.searchsorted(ts, ts[k] - span)), floor_k)

    first = out(window_before(onset_k, AFTER_SPAN), onset_k)
    chain = list(first)
    while chain and (hits := out(window_before(chain[0], AFTER_SPAN), chain[0])):
        chain = hits + chain
    span = float(ts[onset_k] - ts[chain[0]]) if chain else 0.0
    if len(chain) > len(first) and ts[chain[0]] - span >= ts[floor_k]:
        habit = out(window_before(chain[0], span), chain[0])
        if 2 * len(habit) < len(chain):
            return chain
    return first


def _scan(
    values: list[float], ks: list[int], b0s: list[int], a1s: list[int], floor: float, ceiling: float = 0.0
) -> list[tuple[float, int, float, float, float]]:
    """(z, k, baseline median, after median, scale) of every candidate k: baseline values[b0:k], after values[k:a1].

    The hot loop of a 1 Hz series (hundreds of candidates per series, hundreds
    of series in a wide bundle). Both windows are sorted lists that only slide
    forward. The baseline's MAD is a selection in the two sorted runs of
    deviations either side of the median (below it, med - v grows leftwards;
    above, v - med rightwards), galloping from the previous candidate's answer,
    without building them. It and `max`/`min` (`max(a, b)` is
    `b if b > a else a`) are written out here: a method call and a helper per
    candidate were a good part of a wide bundle's scan. Same arithmetic in the
    same order, so the same floats (tests/context/test_anomaly_scan.py; every
    window against sorting it again: test_anomaly_scan_windows.py).
    """
    base: list[float] = []
    stretch: list[float] = []
    b_lo = b_hi = s_lo = s_hi = 0
    taken = 0  # the previous MAD's count from the left run: where the next search starts
    scored: list[tuple[float, int, float, float, float]] = []
    append = scored.append
    for k, b0, a1 in zip(ks, b0s, a1s, strict=True):
        if b0 >= b_hi:
            base.clear()
            b_lo = b_hi = b0
        while b_lo < b0:
            del base[bisect_left(base, values[b_lo])]
            b_lo += 1
        while b_hi < k:
            insort(base, values[b_hi])
            b_hi += 1
        if k >= s_hi:
            stretch.clear()
            s_lo = s_hi = k
        while s_lo < k:
            del stretch[bisect_left(stretch, values[s_lo])]
            s_lo += 1
        while s_hi < a1:
            insort(stretch, values[s_hi])
            s_hi += 1
        n = b_hi - b_lo
        mid = n >> 1
        med = base[mid] if n & 1 else (base[mid - 1] + base[mid]) / 2
        m = s_hi - s_lo
        half = m >> 1
        after = stretch[half] if m & 1 else (stretch[half - 1] + stretch[half]) / 2
        relative = 0.05 * abs(med - ceiling)  # ceiling 0.0 leaves med's float as it is
        relative = floor if floor > relative else relative
        below, above = med - base[0], base[-1] - med
        if 1.4826 * (above if above > below else below) <= relative:
            scale = relative
        else:
            # median |v - med| of the baseline: selection in the two sorted runs of deviations either side of med
            split = bisect_left(base, med)
            right = n - split
            lo = mid + 1 - right if mid + 1 > right else 0
            hi = split if split < mid + 1 else mid + 1
            guess = lo if taken < lo else hi if taken > hi else taken
            step = 1
            if guess < hi and med - base[split - 1 - guess] < base[split + mid - guess] - med:
                lo = guess + 1
                while lo < hi:
                    probe = guess + step
                    if probe >= hi:
                        break
                    if med - base[split - 1 - probe] < base[split + mid - probe] - med:
                        lo = probe + 1
                        step *= 2
                    else:
                        hi = probe
                        break
            else:
                hi = guess
                while lo < hi:
                    probe = guess - step
                    if probe < lo:
                        break
                    if med - base[split - 1 - probe] < base[split + mid - probe] - med:
                        lo = probe + 1
                        break
                    hi = probe
                    step *= 2
            while lo < hi:
                a = (lo + hi) >> 1
                if med - base[split - 1 - a] < base[split + mid - a] - med:
                    lo = a + 1
                else:
                    hi = a
            taken = lo
            taken_right = mid + 1 - lo
            if not taken_right or (lo and med - base[split - lo] >= base[split + taken_right - 1] - med):
                kth = med - base[split - lo]
                if n & 1:
                    mad = kth
                else:
                    down: float | None = base[split + taken_right - 1] - med if taken_right else None
                    if lo > 1:
                        previous = med - base[split - lo + 1]
                        down = previous if down is None or previous > down else down
                    assert down is not None
                    mad = (down + kth) / 2
            else:
                kth = base[split + taken_right - 1] - med
                if n & 1:
                    mad = kth
                else:
                    down = med - base[split - lo] if lo else None
                    if taken_right > 1:
                        previous = base[split + taken_right - 2] - med
                        down = previous if down is None or previous > down else down
                    assert down is not None
                    mad = (down + kth) / 2
            mad *= 1.4826
            scale = relative if relative > mad else mad
        z = (after - med) / scale
        z = z if z < SCORE_CAP else SCORE_CAP
        z = z if z > -SCORE_CAP else -SCORE_CAP
        append((z, k, med, after, scale))
    return scored


def _candidate_windows(
    ts: np.ndarray, lo: int, hi: int, end: int, starts: np.ndarray
) -> tuple[list[int], list[int], list[int]]:
    """The candidate onsets k in [lo, hi] with enough samples around them, and their windows' bounds.

    The baseline of k is [b0, k), its "after" stretch [k, a1): at most
    `AFTER_SPAN` (not past `end`), at least `MIN_AFTER` samples when the series
    has them. Worked out for all candidates at once, so the scan only slides.
    """
    ks = np.nonzero((ts >= lo) & (ts <= hi))[0]
    b0s = starts[ks]
    a1s = np.searchsorted(ts, np.minimum(ts[ks] + AFTER_SPAN, end), side="right")
    a1s = np.where(a1s - ks < MIN_AFTER, np.minimum(len(ts), ks + MIN_AFTER), a1s)
    keep = (ks - b0s >= MIN_BASELINE) & (a1s - ks >= MIN_AFTER)
    return ks[keep].tolist(), b0s[keep].tolist(), a1s[keep].tolist()


def _ramp(series: MetricSeries, fired_at: int, end: int) -> ScoredSeries | None:
    family = family_of(series.metric)
    if family not in RAMP_FAMILIES or "/" in series.metric:
        return None
    ts = np.asarray(series.timestamps, dtype=np.int64)
    keep = (ts >= fired_at - RAMP_SPAN) & (ts <= end)
    vs = np.asarray(series.values, dtype=float)[keep]
    found = ramp_fit(ts[keep], vs)
    if found is None or found[0] < RAMP_MIN_SCORE:
        found = _filled(series.metric, ts[keep], vs)
    if found is None or found[0] < RAMP_MIN_SCORE:
        return None
    score, onset, level, end_value = found
    return ScoredSeries(
        service=series.service,
        metric=series.metric,
        family=family,
        score=score,
        signed=score,
        baseline=level,
        after=end_value,
        peak=end_value,
        onset=onset,
    )


def _filled(metric: str, ts: np.ndarray, vs: np.ndarray) -> tuple[float, int, float, float] | None:
    """The climb of a capacity share that reached its limit and stayed there (a disk or a memory filled up).

    Disks fill for hours: the window holds the end of the climb and the plateau at
    the limit, which a change point misses (its baseline is already climbing) and
    a hinge does not fit (there is no flat start, and the plateau bends the line).
    The climb up to the first sample at the limit is fitted as a ramp instead.
    Only a share of capacity says where the limit is; a level that sat at it from
    the window's start shows no climb, and one that fell back from it held nothing.
    """
    if family_of(metric) not in FILLING_FAMILIES or not CAPACITY_RATIO.search(metric):
        return None
    keep = ~np.isnan(vs)
    ts, vs = ts[keep], vs[keep]
    if len(vs) < MIN_BASELINE:
        return None
    ceiling = 1.0 if float(np.max(vs)) <= 1.5 else 100.0  # a ratio (a noisy one may pass 1) or a percentage
    full = np.nonzero(vs >= FULL_SHARE * ceiling)[0]
    if not len(full) or full[0] == 0 or np.mean(vs[full[0] :] >= HELD_SHARE * ceiling) < HELD_FOR:
        return None
    climb = ramp_fit(ts[: full[0] + 1], vs[: full[0] + 1])
    if climb is None:
        return None
    score, onset, level, _ = climb
    return score, onset, level, float(median(vs[full[0] :]))


def score_series(
    series: MetricSeries, fired_at: int, lookback: int, end: int, latest: int | None = None
) -> ScoredSeries | None:
    """The series' best change point from `lookback` before the alert (at least LOOKBACK_STEPS samples)."""
    ts = np.asarray(series.timestamps, dtype=np.int64)
    vs = np.asarray(series.values, dtype=float)
    if len(ts) >= 2:
        lookback = max(lookback, LOOKBACK_STEPS * int(median(np.diff(ts))))
    hi = min(max(fired_at, latest or fired_at) + 300, end)
    ceiling = success_ceiling(series.metric, series.values)
    family = family_of(series.metric)
    found = change_point(ts, vs, fired_at - lookback, hi, end, family, ceiling)
    if found is None:
        return None
    if family not in SYMPTOM_FAMILIES and abs(found[0]) >= DEFAULT_THRESHOLD:  # only a move can have ended
        found = _later_episode(ts, vs, found, max(fired_at, latest or fired_at), end, family, ceiling) or found
    elif family not in SYMPTOM_FAMILIES and abs(found[0]) >= NEAR_MISS:
        found = _behind_an_earlier_episode(ts, vs, found, (fired_at - lookback, hi), latest or fired_at, end) or found
    z, onset, base, after, peak = found
    spreads = relative_spreads(ts, vs, onset, end) if family == "latency" else (0.0, 0.0)
    return ScoredSeries(
        service=series.service,
        metric=series.metric,
        family=family_of(series.metric),
        score=abs(z),
        signed=z,
        baseline=base,
        after=after,
        peak=peak,
        onset=onset,
        spread_before=spreads[0],
        spread_after=spreads[1],
    )


# A series back within RECOVERED_BAND of its baseline for this long (and two samples) ended an episode.
EPISODE_GAP_S = 60
# The later move counts when it is a change in its own right, and not a ripple of a far larger first one.
LATER_EPISODE_SHARE = 0.25


def _later_episode(
    ts: np.ndarray,
    vs: np.ndarray,
    found: tuple[float, int, float, float, float],
    fired: int,
    end: int,
    family: str,
    ceiling: float,
) -> tuple[float, int, float, float, float] | None:
    """A second move of the same series after the first one ended, scored without the first.

    A window that holds the tail of an earlier event (a previous fault, a batch job) on the
    same series hides a new move: the baseline of any later candidate holds the earlier
    excursion, so the earlier change scores best and dates the series minutes too early.
    When the series was away for MIN_AFTER samples or more (a lone excursion is a flap of
    the fault itself), came back to its baseline for EPISODE_GAP_S and then left it again
    the same way, the later move is scored with the earlier excursion left out (its
    baseline is the quiet before and between): a resource acting when the alert fired
    is this incident's, the earlier one was over. A move that began after the last alert
    (`fired`) is not what the alert is about: the next event, not this one.
    """
    z, onset, base, after, peak = found
    band = RECOVERED_BAND * max(abs(after - base), abs(peak - base))
    keep = ~np.isnan(vs)
    t, v = ts[keep], vs[keep]
    k0 = int(np.searchsorted(t, onset))
    near = np.nonzero(np.abs(v[k0 + 1 :] - base) <= band)[0] + k0 + 1  # samples back near the baseline
    if not len(near):
        return None
    cuts = np.nonzero(np.diff(near) > 1)[0]
    runs = zip(np.concatenate([near[:1], near[cuts + 1]]), np.concatenate([near[cuts], near[-1:]]), strict=True)
    # The first stretch back for EPISODE_GAP_S (two samples or more) that the series left again.
    back = next((int(a) for a, b in runs if b > a and t[b] - t[a] >= EPISODE_GAP_S and b + 1 < len(t)), None)
    if back is None or t[back] > fired or back - k0 < MIN_AFTER:
        return None  # lone excursions leading up to a move are one intermittent fault, not an episode that ended
    rest = np.concatenate([np.arange(k0), np.arange(back, len(t))])
    later = change_point(t[rest], v[rest], int(t[back]), fired, end, family, ceiling)
    if later is None or later[0] * z <= 0 or later[1] <= t[back]:
        return None
    if abs(later[0]) < max(DEFAULT_THRESHOLD, LATER_EPISODE_SHARE * abs(z)):
        return None
    return later


# A move this strong that misses the threshold may be one hidden by an earlier episode in its baseline.
NEAR_MISS = 2.0


def _behind_an_earlier_episode(
    ts: np.ndarray,
    vs: np.ndarray,
    found: tuple[float, int, float, float, float],
    searched: tuple[int, int],
    fired: int,
    end: int,
    family: str = "other",
    ceiling: float = 0.0,
) -> tuple[float, int, float, float, float] | None:
    """A move near the alert scored without an earlier episode of the same series that its baseline holds.

    `_later_episode` finds a second move behind a first one that began within the look-back;
    a previous fault at the same pod a quarter of an hour before began earlier still, sits
    whole in the baseline of every candidate near the alert, and widens its spread: a CPU
    that tripled read as 3 spreads. The earlier episode is looked for over the whole
    baseline the series has, and where it was a change in its own right that ended, the move
    near the alert is its later episode, scored with it left out. Only a move that is already
    there (`NEAR_MISS` spreads) and in the same direction is rescored; one that ends up
    beginning elsewhere than the one found (`searched`) is left as it was.
    """
    z = found[0]
    earlier = change_point(ts, vs, int(ts[0]), searched[0], end, family, ceiling)
    if earlier is None or abs(earlier[0]) < DEFAULT_THRESHOLD or earlier[0] * z <= 0:
        return None
    later = _later_episode(ts, vs, earlier, fired, end, family, ceiling)
    if later is None or not searched[0] <= later[1] <= searched[1] or abs(later[0]) <= abs(z):
        return None
    return later


RAMP_FAMILIES = frozenset({"memory", "disk", "connections"})
# Levels that fail at their limit (ENOSPC, OOM), reached at this share of capacity and held at
# HELD_SHARE or more for HELD_FOR of the samples since (`_filled`).
FILLING_FAMILIES = frozenset({"memory", "disk"})
FULL_SHARE = 0.98
HELD_SHARE = 0.95
HELD_FOR = 0.8
RAMP_SPAN = 60 * 60
RAMP_MIN_SCORE = 8.0


def ramp_fit(ts: np.ndarray, vs: np.ndarray) -> tuple[float, int, float, float] | None:
    """Flat-then-linear ("hinge") fit, when it beats any single step: (score, onset, level, end value).

    Leaks and filling disks climb steadily, often from long before the alert;
    a change-point test against a recent baseline misses them because the
    baseline is already climbing. The score is the rise over the residual
    noise; None when the series is better described by a step or by nothing.
    The hinge is found in linear time (`context.hinge`); a flat series has no
    climb, and a NaN is no sample.
    """
    if np.isnan(vs).any():
        keep = ~np.isnan(vs)
        ts, vs = ts[keep], vs[keep]
    n = len(ts)
    if n < 10:
        return None
    t = (ts - ts[0]).astype(float)
    # Fitted in units of the series' largest value: every test below is a ratio, and the sums
    # of squares of a counter in the 1e160s would overflow to NaN.
    scale = float(np.max(np.abs(vs)))
    if scale == 0.0 or not np.isfinite(scale):
        return None
    y = vs.astype(float) / scale
    if float(np.ptp(y)) == 0.0:
        return None
    fit = best_hinge(t, y, candidates=n - 4)
    if fit.slope <= 0 or t[-1] - t[fit.index] < AFTER_SPAN:
        return None  # not climbing, or climbing for less time than a change point needs to call a move sustained
    # Best single step, for comparison (prefix sums).
    cs, cs2 = np.cumsum(y), np.cumsum(y**2)
    total = cs2[-1]
    k = np.arange(1, n)
    left = cs[:-1] ** 2 / k
    right = (cs[-1] - cs[:-1]) ** 2 / (n - k)
    step_sse = float(np.min(total - left - right))
    if fit.sse > 0.7 * step_sse:
        return None
    r = fit.residuals
    noise = max(1.4826 * float(median(np.abs(r - median(r)))), 1e-12)
    level = fit.level
    end_value = float(fit.level + fit.slope * fit.regressor[-1])
    rise = end_value - level
    if rise < 0.1 * max(abs(level), 1e-12):
        return None
    return (min(SCORE_CAP, rise / noise), int(ts[fit.index]), level * scale, end_value * scale)


def _per_request(series: Sequence[MetricSeries]) -> list[MetricSeries]:
    """CPU per request for each service that has both: saturation that traffic does not explain.

    When load drops everywhere (callers time out), absolute CPU falls on every
    victim, while the saturated entity's CPU per request rises.
    """
    by_service: dict[str, dict[str, MetricSeries]] = {}
    for s in series:
        by_service.setdefault(s.service, {})[family_of(s.metric)] = s
    out = []
    for service, fams in by_service.items():
        cpu, traffic = fams.get("cpu"), fams.get("traffic")
        if cpu is None or traffic is None:
            continue
        times, ratios = _ratio(cpu, traffic)
        if len(times) >= MIN_BASELINE + MIN_AFTER:
            out.append(MetricSeries(service, cpu.metric + "/" + traffic.metric, times, ratios))
    return out


def _ratio(num: MetricSeries, den: MetricSeries) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """`num / den` at each timestamp of `num` where `den` has a positive sample (its last one at that time).

    Both series are in time order (the loaders sort them), so `den`'s sample
    at each of `num`'s timestamps is found by one `searchsorted` rather than a
    dict of thousands of samples at 1 Hz; a `den` out of order is read through
    the dict as before. The division is the same IEEE one either way.
    """
    at = np.asarray(den.timestamps, dtype=np.int64)
    if at.size and bool(np.all(at[1:] >= at[:-1])):
        ts = np.asarray(num.timestamps, dtype=np.int64)
        last = np.maximum(np.searchsorted(at, ts, side="right") - 1, 0)
        rate = np.asarray(den.values, dtype=np.float64)[last]
        keep = (at[last] == ts) & (rate > 0)
        ratio = np.asarray(num.values, dtype=np.float64)[keep] / rate[keep]
        return tuple(ts[keep].tolist()), tuple(ratio.tolist())
    rates = dict(zip(den.timestamps, den.values, strict=True))
    pairs = [(t, v / rates[t]) for t, v in zip(num.timestamps, num.values, strict=True) if rates.get(t, 0) > 0]
    return tuple(t for t, _ in pairs), tuple(v for _, v in pairs)


def detect_anomalies(
    series: Iterable[MetricSeries],
    *,
    fired_at: int,
    end: int,
    entities: set[str] | None = None,
    lookback: int = 6 * 60,
    threshold: float = DEFAULT_THRESHOLD,
    latest: int | None = None,
    earlier: list[Anomaly] | None = None,
) -> tuple[list[Anomaly], list[ScoredSeries]]:
    """Anomalous series of `entities` (all when None), strongest first, plus every series' score.

    Resources that moved and settled back before the first alert are not this incident's
    anomalies; when `earlier` is given they are appended to it (an earlier, settled event).

    Onsets are searched from `lookback` before the first alert (`fired_at`) to a
    few minutes after the last one (`latest`): in an alert storm the alert that
    fired first is not always the one about the fault.
    """
    chosen = [s for s in series if entities is None or s.service in entities]
    raw = {(s.service, s.metric): s for s in chosen}
    scored: list[ScoredSeries] = []
    anomalies: list[Anomaly] = []
    ratios = _per_request(chosen)
    for s in [*chosen, *ratios]:
        sc = score_series(s, fired_at, lookback, end, latest)
        ramp = _ramp(s, fired_at, end)
        if ramp is not None and (sc is None or sc.score < threshold or ramp.onset < sc.onset):
            sc = ramp
        if sc is None:
            continue
        scored.append(sc)
        if sc.score < threshold:
            continue
        base_metric, _, per = s.metric.partition("/")
        if per and not _cpu_held_up(scored, s.service, base_metric):
            continue  # requests fell away while CPU idled: fewer requests, not a busier CPU
        source = raw[(s.service, base_metric)]
        inside = [t for t in source.timestamps if sc.onset <= t <= end]
        if not inside:
            continue
        # A resource that was over before anyone was alerted: an earlier event, kept apart (`earlier`).
        back = None if sc is ramp or sc.family in SYMPTOM_FAMILIES else recovered_before(s, sc, fired_at, end)
        early = back is not None
        if early and earlier is None:
            continue
        # An earlier event is cited over its excursion, so its end is when it settled, not the window's end.
        start, stop = inside[0], (back if back is not None else inside[-1])
        shape = "ramp" if sc is ramp else shape_of(s, sc.onset, end, sc.baseline, sc.after, sc.peak)
        since = [v for t, v in zip(s.timestamps, s.values, strict=True) if sc.onset <= t <= end and not np.isnan(v)]
        direction: Literal["up", "down"] = "up" if sc.signed > 0 else "down"
        what = f"{base_metric} per {per}" if per else base_metric
        excerpt = (
            f"{s.service} {what} {direction} from {_fmt(sc.baseline)} to {_fmt(sc.after)} "
            f"(peak {_fmt(sc.peak)}, robust z {sc.signed:+.1f}) since {_clock(sc.onset)}"
        )
        (earlier if early and earlier is not None else anomalies).append(
            Anomaly(
                service=s.service,
                metric=base_metric,
                family=sc.family,
                direction=direction,
                score=sc.score,
                baseline=sc.baseline,
                after=sc.after,
                peak=sc.peak,
                onset=sc.onset,
                start=start,
                end=stop,
                evidence=EvidenceRef("metric", metric_cite(s.service, base_metric, start, stop), excerpt),
                derived=per,
                shape=shape,
                level=_end_level(since) if since else None,
            )
        )
    anomalies = _without_common_mode(anomalies, ratios)
    anomalies += _silences(chosen, fired_at=fired_at, end=end, lookback=lookback, latest=latest)
    anomalies.sort(key=lambda a: (-a.score, a.service, a.metric))
    return anomalies, scored


# Back "at baseline" means within this share of the move, for at least RECOVERED_MIN samples,
# from at least RECOVERED_LEAD_S before the first alert (alert rules fire a while after their cause).
RECOVERED_BAND = 0.2
RECOVERED_MIN = 3
RECOVERED_LEAD_S = 120


def recovered_before(series: MetricSeries, sc: ScoredSeries, fired_at: int, end: int) -> int | None:
    """When the series came back to its baseline for good, if it moved and did so well before `fired_at`.

    An alert fires while its cause is still acting. A resource that spiked and
    settled back well before the first alert, and stayed settled to the end of
    the window, was an earlier event (a previous fault, a deploy's warm-up);
    keeping it would both name the wrong cause and pull the incident's onset
    early. Symptoms (latency, errors, traffic) are not judged this way: an
    alert rule may fire on a burst of them after it ended.
    """
    band = RECOVERED_BAND * max(abs(sc.after - sc.baseline), abs(sc.peak - sc.baseline))
    tail = [(t, v) for t, v in zip(series.timestamps, series.values, strict=True) if sc.onset < t <= end]
    away = [t for t, v in tail if abs(v - sc.baseline) > band]
    settled = [t for t, _ in tail if not away or t > away[-1]]  # the samples after its last excursion
    if len(settled) >= RECOVERED_MIN and settled[0] <= fired_at - RECOVERED_LEAD_S:
        return settled[0]
    return None


def _without_common_mode(anomalies: list[Anomaly], ratios: Sequence[MetricSeries]) -> list[Anomaly]:
    """Drop CPU-per-request rises that every service shows at once: a shared cause, not one service's.

    One service's saturation raises its own CPU per request. When every service
    that reports both CPU and traffic shows that rise within a couple of samples
    of the others, the cause is common to them (the host they share is busy,
    or how CPU is measured changed): naming any one of them saturated would be
    a guess among equals, so none of them is.
    """
    derived = [a for a in anomalies if a.derived]
    if len(ratios) < COMMON_MODE_MIN or {a.service for a in derived} != {s.service for s in ratios}:
        return anomalies
    step = min(int(median(np.diff(s.timestamps))) for s in ratios)
    onsets = [a.onset for a in derived]
    if max(onsets) - min(onsets) > COMMON_MODE_SPREAD_STEPS * step:
        return anomalies
    return [a for a in anomalies if not a.derived]


def _cpu_held_up(scored: list[ScoredSeries], service: str, metric: str) -> bool:
    """Whether absolute CPU at least held up (rose by a sixth or more) while CPU per request climbed."""
    absolute = next((x for x in scored if x.service == service and x.metric == metric), None)
    return absolute is not None and absolute.baseline > 0 and absolute.after >= 1.15 * absolute.baseline


def _silences(
    series: Sequence[MetricSeries], *, fired_at: int, end: int, lookback: int, latest: int | None
) -> list[Anomaly]:
    """Entities whose every series stopped reporting around the incident while others kept going.

    A process that is down exports nothing: its silence is the signal. One
    anomaly per entity, cited over its last samples.
    """
    if not series:
        return []
    now = min(end, max(s.timestamps[-1] for s in series if s.timestamps))
    by_service: dict[str, list[MetricSeries]] = {}
    for s in series:
        if len(s.timestamps) >= MIN_BASELINE + 1:
            by_service.setdefault(s.service, []).append(s)
    out = []
    for service, group in by_service.items():
        last = max(s.timestamps[-1] for s in group)
        step = min(int(median(np.diff(s.timestamps))) for s in group)
        if step <= 0 or now - last < 3 * step:
            continue
        if not fired_at - lookback - 10 * step <= last <= max(fired_at, latest or fired_at) + 300:
            continue
        source = max(group, key=lambda s: s.timestamps[-1])
        start = (
            max(t for t in source.timestamps if t <= last - 5 * step)
            if source.timestamps[0] <= last - 5 * step
            else source.timestamps[0]
        )
        onset = last + step
        out.append(
            Anomaly(
                service=service,
                metric=source.metric,
                family="silence",
                direction="down",
                score=SILENCE_SCORE,
                baseline=float(len(group)),
                after=0.0,
                peak=0.0,
                onset=onset,
                start=start,
                end=last,
                evidence=EvidenceRef(
                    "metric",
                    metric_cite(service, source.metric, start, last),
                    f"{service} stopped reporting metrics after {_clock(last)} "
                    f"(all {len(group)} series silent for {(now - last) // 60} min while others kept reporting)",
                ),
                shape="step",
            )
        )
    return out


def shape_of(series: MetricSeries, onset: int, end: int, baseline: float, after: float, peak: float) -> Shape:
    """How the series moved after the onset: a sustained climb (ramp), a jump that holds (step), a spike,
    or climbs that fall back to where they started, again and again (resets).

    A ramp is what a leak looks like: most consecutive samples keep going the same way
    and the end sits well past the middle. Resets are what a process killed at a limit
    and restarted looks like (memory that climbs to the same ceiling and drops in one
    sample, every few minutes).
    """
    vals = [v for t, v in zip(series.timestamps, series.values, strict=True) if onset - 60 <= t <= end]
    if _resets(vals, baseline, peak) >= MIN_RESETS:
        return "resets"
    if abs(peak - baseline) > 4 * max(abs(after - baseline), 1e-12):
        return "spike"
    if len(vals) >= 5:
        sign = 1 if after >= baseline else -1
        diffs = [b - a for a, b in zip(vals, vals[1:], strict=False) if b != a]
        same = sum(1 for d in diffs if d * sign > 0)
        # A leak keeps climbing: it reaches 90% of its rise late, not in the first samples. A symptom's
        # (latency, errors, traffic) rise is where its last quarter sits, not its peak: they are spiky, and
        # one slow spell late in a step is not where it went. A resource's peak is where it got to.
        top = _end_level(vals) if family_of(series.metric) in SYMPTOM_FAMILIES else peak
        target = baseline + 0.9 * (top - baseline)
        reach = next((i for i, v in enumerate(vals) if (v - target) * sign >= 0), len(vals))
        if diffs and same / len(diffs) >= 0.6 and reach >= 0.6 * len(vals):
            return "ramp"
    return "step"


def _end_level(vals: Sequence[float]) -> float:
    """Where a series sits in its last quarter (its median there)."""
    return float(median(np.asarray(vals[-max(1, len(vals) // 4) :], dtype=float)))


def _resets(vals: Sequence[float], baseline: float, peak: float) -> int:
    """How many times a rise fell from near its top to near its start in one sample."""
    rise = peak - baseline
    if rise <= 0:
        return 0
    return sum(
        1
        for a, b in zip(vals, vals[1:], strict=False)
        if a - baseline >= RESET_FROM * rise and b - baseline <= RESET_TO * rise
    )


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1e6 or abs(value) < 1e-3:
        return f"{value:.3g}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.4g}"


def _clock(epoch: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S")


def incident_onset(
    anomalies: Sequence[Anomaly], *, alerted: int | None = None, reach: Callable[[str], set[str]] | None = None
) -> int | None:
    """Where the incident's change points begin, read first from the changes that mark a moment.

    A resource's slow climb (a leak, a disk filling) starts long before anything broke: the
    onset is where things broke. A symptom climbing (latency worsening as failures pile up)
    is the trouble itself, and its start is the incident's.
    A latency or error series that keeps jumping and falling back to its old level is
    intermittent, and its first tooth marks no moment (a p99 over a handful of requests does
    that on its own): it counts only when nothing else moved. A resource doing so (a process
    killed at its limit and restarted, a link flapping) begins where its fault does.

    `alerted`: the last alert (plus one sample interval); change points well after it are the
    incident's consequences, not its start, when any came earlier (`window.derive_onset`).
    A burst that opens with symptoms only began at a weaker change shortly before it, at an
    entity whose faults `reach` what opened it (`reach`: the map's transitive dependents of an
    entity; without a map nothing says what set a burst off), if one came (`_lead_in`).
    """
    sharp = [a for a in anomalies if not _leak(a) and not _intermittent_symptom(a)]
    intermittent = [(a.onset, a.score) for a in anomalies if _intermittent_symptom(a)]
    start = derive_onset([(a.onset, a.score) for a in sharp], alerted)
    if start is None:
        return derive_onset(intermittent, alerted)
    return _lead_in(start, sharp, reach) if reach is not None else start


def _lead_in(start: int, sharp: Sequence[Anomaly], reach: Callable[[str], set[str]]) -> int:
    """Where a burst that opens with latency and errors only was set off: the earliest weaker change
    within ONSET_GAP_S before it (once, not chained), if any.

    A cause is often quieter than what it sets off: a service crashing serves fewer requests, a
    node drops packets, and its callers' errors, many times louder, come minutes later. Read from
    the loud burst alone, the onset comes after the cause's first signs, which then count as its
    baseline. A burst that opens with a resource moving opens with a cause already, and a change
    where nothing it opened with can be reached from is another event (a neighbour's blip).
    """
    opening = [a for a in sharp if a.onset == start]
    if not opening or any(a.family not in SYMPTOM_FAMILIES for a in opening):
        return start
    opened = {a.service for a in opening}
    earlier = [
        a.onset
        for a in sharp
        if start - ONSET_GAP_S <= a.onset < start and (a.service in opened or reach(a.service) & opened)
    ]
    return min(earlier, default=start)


def _intermittent_symptom(a: Anomaly) -> bool:
    return a.shape == "resets" and a.family in SYMPTOM_FAMILIES


def _leak(a: Anomaly) -> bool:
    return a.shape == "ramp" and a.family not in SYMPTOM_FAMILIES
