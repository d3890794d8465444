"""Is it still happening? Alert resolutions, signals back at baseline, and what each alert fired on.

An on-call engineer's first question is whether something is broken *now*.
This module answers the parts of it that need the raw data, so the engine can
decide a `no_fault` verdict from typed values:

* `alert_states`: for each firing alert, whether the monitor itself said it
  resolved (a `resolved` notification, or an end time inside the data), how
  often the same monitor fired on the same service before, and how far the
  alerting service's own series of the alert's kind stood from their baseline
  when it fired (the robust z of the level around the firing against the half
  hour before it);
* `settled_at`: when a series that moved came back to its baseline for good,
  if it did before the data ends. A flapping series that goes quiet for a while
  and comes back is not settled: the quiet tail must outlast every quiet gap
  between its earlier excursions;
* `chronic`: whether a series was already at the level it moved to, more than
  once, before the incident (a chronically noisy series).

Everything here is generic over metric names: series are put in families by
`anomaly.family_of`, alerts by the same words in their names.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel

from rootward.context.anomaly import Anomaly, family_of
from rootward.domain.alert import Alert
from rootward.domain.evidence import EvidenceRef, metric_cite
from rootward.domain.telemetry import MetricSeries

# The level around the firing: from this long before the alert to this long after it.
AT_ALERT_BEFORE_S = 4 * 60
AT_ALERT_AFTER_S = 4 * 60
# Its baseline: the half hour that ends a few minutes before the alert (rules fire after their cause).
BASELINE_S = 30 * 60
BASELINE_GAP_S = 5 * 60
MIN_SAMPLES = 3
# Back at baseline: within this share of the move (and of the baseline's own noise), for good.
SETTLE_BAND = 0.25
SETTLE_NOISE = 3.0
MIN_QUIET_S = 5 * 60
# A level seen this many separate times before the incident is the series' habit, not news.
CHRONIC_EPISODES = 2
ROLLING_S = 4 * 60
SYMPTOMS = ("latency", "errors")


class AlertState(BaseModel):
    """One firing alert, and what the monitor and the data say about it."""

    fingerprint: str
    name: str
    service: str
    starts_at: datetime
    resolved_at: datetime | None = None
    earlier_firings: int = 0  # the same monitor on the same service, fired and cleared before this one
    family: str = "other"  # the kind of signal its name says it watches
    signal_z: float | None = None  # the service's most moved series of that kind, at the firing; None: no data
    signal: EvidenceRef | None = None  # that series around the firing, cited
    evidence: EvidenceRef


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _scale(base: Sequence[float], med: float) -> float:
    mad = 1.4826 * _median([abs(v - med) for v in base])
    return max(mad, 0.05 * abs(med), 1e-9)


def _samples(s: MetricSeries, lo: float, hi: float) -> list[float]:
    return [v for t, v in zip(s.timestamps, s.values, strict=True) if lo <= t <= hi]


def _fmt(v: float) -> str:
    return f"{v:.4g}" if abs(v) < 100 else f"{v:.0f}"


def _at_alert(s: MetricSeries, fired: int) -> tuple[float, EvidenceRef] | None:
    """The robust z of the level around the firing against the half hour before, with its cite."""
    base = _samples(s, fired - BASELINE_GAP_S - BASELINE_S, fired - BASELINE_GAP_S)
    around = [
        (t, v) for t, v in zip(s.timestamps, s.values, strict=True)
        if fired - AT_ALERT_BEFORE_S <= t <= fired + AT_ALERT_AFTER_S
    ]  # fmt: skip
    if len(base) < MIN_SAMPLES or len(around) < MIN_SAMPLES:
        return None
    med = _median(base)
    level = _median([v for _, v in around])
    z = (level - med) / _scale(base, med)
    if family_of(s.metric) == "errors" and "success" in s.metric.lower():
        z = -z  # a success rate that falls is the bad way
    start, end = around[0][0], around[-1][0]
    excerpt = f"{s.service} {s.metric} {_fmt(level)} around the alert (baseline {_fmt(med)}, robust z {z:+.1f})"
    return z, EvidenceRef("metric", metric_cite(s.service, s.metric, start, end), excerpt)


def _alert_family(name: str) -> str:
    family = family_of(name)
    if family == "other" and any(w in name.lower() for w in ("slow", "latency", "duration")):
        return "latency"
    return family


def alert_signal(
    series: Sequence[MetricSeries], service: str, family: str, fired: int
) -> tuple[float, EvidenceRef] | None:
    """How far the service's series of the alert's kind (else its symptoms) stood from baseline at the firing."""
    own = [s for s in series if s.service == service]
    watched = [s for s in own if family_of(s.metric) == family] or [s for s in own if family_of(s.metric) in SYMPTOMS]
    found = [r for s in watched if (r := _at_alert(s, fired)) is not None]
    return max(found, key=lambda r: r[0]) if found else None


def _episodes(alerts: Sequence[Alert]) -> dict[str, dict[datetime, datetime | None]]:
    """fingerprint -> {start of each firing episode: when it resolved, or None}.

    Alertmanager keeps one fingerprint per label set, so a monitor that fires,
    clears and fires again shows as episodes of one fingerprint with their own
    `startsAt`; a `resolved` notification closes the episode it names.
    """
    out: dict[str, dict[datetime, datetime | None]] = {}
    for a in alerts:
        episodes = out.setdefault(a.fingerprint, {})
        if a.status == "firing":
            episodes.setdefault(a.starts_at, None)
        elif a.ends_at is not None:
            episodes[a.starts_at] = min(a.ends_at, episodes.get(a.starts_at) or a.ends_at)
    return out


def current_firings(alerts: Sequence[Alert]) -> list[Alert]:
    """One firing alert per fingerprint: its latest open episode, else its latest episode."""
    episodes = _episodes(alerts)
    out: list[Alert] = []
    for fingerprint, spans in episodes.items():
        firing = [a for a in alerts if a.fingerprint == fingerprint and a.status == "firing"]
        if not firing:
            continue
        open_starts = [t for t, ended in spans.items() if ended is None]
        start = max(open_starts) if open_starts else max(a.starts_at for a in firing)
        out.append(next((a for a in firing if a.starts_at == start), firing[-1]))
    return out


def alert_states(
    alerts: Sequence[Alert], series: Sequence[MetricSeries], data_end: datetime, cite: dict[str, EvidenceRef]
) -> list[AlertState]:
    """Every firing alert of the context (`cite`: fingerprint -> its evidence) with its resolution and signal."""
    episodes = _episodes(alerts)
    current = {a.fingerprint: a for a in current_firings(alerts)}
    out: list[AlertState] = []
    for fingerprint, ref in cite.items():
        alert = current[fingerprint]
        ended = episodes[fingerprint].get(alert.starts_at)
        if ended is not None and (ended > data_end or ended < alert.starts_at):
            ended = None
        same = [fp for fp, a in current.items() if a.name == alert.name and a.service == alert.service]
        earlier = [
            t for fp in same for t, until in episodes[fp].items()
            if t < alert.starts_at and until is not None and until <= alert.starts_at
        ]  # fmt: skip
        family = _alert_family(alert.name)
        signal = alert_signal(series, alert.service, family, int(alert.starts_at.timestamp()))
        out.append(
            AlertState(
                fingerprint=fingerprint,
                name=alert.name,
                service=alert.service,
                starts_at=alert.starts_at,
                resolved_at=ended,
                earlier_firings=len(earlier),
                family=family,
                signal_z=None if signal is None else round(signal[0], 2),
                signal=None if signal is None else signal[1],
                evidence=ref,
            )
        )
    return out


def _band(s: MetricSeries, a: Anomaly) -> float:
    base = _samples(s, a.onset - BASELINE_S, a.onset - 1)
    noise = _scale(base, _median(base)) if len(base) >= MIN_SAMPLES else 0.0
    move = max(abs(a.after - a.baseline), abs(a.peak - a.baseline))
    return max(SETTLE_BAND * move, SETTLE_NOISE * noise)


def settled_at(s: MetricSeries, a: Anomaly, end: int) -> int | None:
    """When the series came back to its baseline for good (epoch seconds), if it did before `end`."""
    band = _band(s, a)
    tail = [(t, v) for t, v in zip(s.timestamps, s.values, strict=True) if a.onset <= t <= end]
    away = [t for t, v in tail if abs(v - a.baseline) > band]
    if not away:
        return None  # it never left the band we judge by: nothing to say about settling
    quiet = [t for t, _ in tail if t > away[-1]]
    if len(quiet) < MIN_SAMPLES or end - quiet[0] < MIN_QUIET_S:
        return None
    gaps = [b - x for x, b in zip(away, away[1:], strict=False)]
    if gaps and end - away[-1] <= max(gaps):
        return None  # a flapping series: this lull is no longer than the ones between its excursions
    return quiet[0]


def chronic(s: MetricSeries, a: Anomaly) -> bool:
    """Whether the series already stood at the level it moved to, in separate episodes, before the move."""
    before = [(t, v) for t, v in zip(s.timestamps, s.values, strict=True) if t < a.onset - BASELINE_GAP_S]
    if len(before) < 2 * MIN_SAMPLES:
        return False
    sign = 1.0 if a.direction == "up" else -1.0
    level = a.baseline + 0.8 * (a.after - a.baseline)
    episodes, inside = 0, False
    for i, (t, _) in enumerate(before):
        window = [v for u, v in before[max(0, i - MIN_SAMPLES + 1) : i + 1] if t - u <= ROLLING_S]
        high = len(window) >= 2 and (_median(window) - level) * sign >= 0
        if high and not inside:
            episodes += 1
        inside = high
    return episodes >= CHRONIC_EPISODES


def recovery_of(
    series: Sequence[MetricSeries], anomalies: Sequence[Anomaly], end: int
) -> tuple[dict[str, int], list[str]]:
    """For the anomalies: cite -> when it settled (those that did), and the cites of chronic ones."""
    by_key = {(s.service, s.metric): s for s in series}
    settled: dict[str, int] = {}
    habitual: list[str] = []
    for a in anomalies:
        s = by_key.get((a.service, a.metric))
        if s is None or a.derived or a.family == "silence":
            continue
        when = settled_at(s, a, end)
        if when is not None:
            settled[a.evidence.cite] = when
        if chronic(s, a):
            habitual.append(a.evidence.cite)
    return settled, habitual
