"""Risk checks: for one entity's series, will something break, and when?

Each check takes the series the collector read (`RiskSeries`: what was asked,
of which entity, the samples) and returns an `Assessment` that says what
will be crossed, when, and on which series it rests, or None:

- **fill** (disk bytes, inodes, memory against its limit, saturation of a
  bounded resource): the series must still be growing (`trends.growing`: a
  plateau is no risk) and its recent Theil–Sen line must reach the
  threshold; the time is measured from now;
- **error-budget burn** (the SRE workbook's multi-window, multi-burn-rate
  alerts): burn rate is the error ratio over the budget `1 - SLO`; a pair of
  windows fires when both the long and the short window burn faster than
  the pair's factor (1 h and 5 m at 14.4, 6 h and 30 m at 6: page; 24 h and
  2 h at 3, 72 h and 6 h at 1: ticket). The time is when the period's budget
  runs out at the long window's rate;
- **certificate expiry**: the probe's earliest expiry (epoch seconds, e.g.
  `probe_ssl_earliest_cert_expiry`) is the crossing itself;
- **restarts**: a restart counter's increase over the window (resets
  count as restarts); at `min_restarts` or more it is happening now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from rootward.worldmodel.risk.trends import growing, seconds_until

HOUR = 3600.0
# (long window, short window, burn factor, severity): the SRE workbook's table for a 30-day SLO.
BURN_WINDOWS: tuple[tuple[float, float, float, str], ...] = (
    (1 * HOUR, 300.0, 14.4, "page"),
    (6 * HOUR, 1800.0, 6.0, "page"),
    (24 * HOUR, 2 * HOUR, 3.0, "ticket"),
    (72 * HOUR, 6 * HOUR, 1.0, "ticket"),
)
# What each fill check is about, and the fault it would become (for the blast radius).
FILL_KINDS: dict[str, tuple[str, str]] = {
    "disk": ("disk_fill", "disk_full"),
    "inodes": ("inode_fill", "disk_full"),
    "memory": ("memory_growth", "oom_kill"),
    "saturation": ("saturation", "cpu_saturation"),
}


@dataclass(frozen=True)
class RiskSeries:
    """One series the collector read: which check it feeds, of which entity, the query and its samples."""

    check: str  # disk | inodes | memory | saturation | errors | requests | certificate | restarts
    entity: str
    query: str
    labels: tuple[tuple[str, str], ...]
    timestamps: tuple[int, ...]
    values: tuple[float, ...]
    threshold: float | None = None  # where a fill check breaks (1.0: full)

    @property
    def cite(self) -> str:
        """The series as a citation: the query, its labels and the time range read."""
        labels = ",".join(f'{k}="{v}"' for k, v in self.labels)
        span = f"{self.timestamps[0]}-{self.timestamps[-1]}" if self.timestamps else "empty"
        return f"prometheus:{self.query}{{{labels}}}@{span}"

    @property
    def where(self) -> str:
        """The labels that tell two series of one entity apart (mount point, pod, container)."""
        keep = ("mountpoint", "device", "container", "pod", "cn", "target", "instance")
        return ", ".join(f"{k}={v}" for k, v in self.labels if k in keep)


@dataclass(frozen=True)
class Assessment:
    entity: str
    kind: str  # disk_fill | inode_fill | memory_growth | saturation | error_budget_burn | certificate_expiry | restarts
    fault_type: str
    crosses_in_s: float  # from now until the threshold is crossed; 0: it already is
    threshold: float
    current: float
    summary: str
    cites: tuple[str, ...]
    rate_per_hour: float | None = None
    severity: str = ""  # page | ticket, for burn rates


def _human(seconds: float) -> str:
    if seconds <= 0:
        return "now"
    if seconds < 2 * HOUR:
        return f"in {seconds / 60:.0f} min"
    if seconds < 72 * HOUR:
        return f"in {seconds / HOUR:.1f} h"
    return f"in {seconds / 86400:.1f} days"


def fill(series: RiskSeries, now: datetime) -> Assessment | None:
    """A growing series that will reach its threshold: when, at its recent rate."""
    kind, fault_type = FILL_KINDS[series.check]
    threshold = series.threshold if series.threshold is not None else 1.0
    trend = growing(list(series.timestamps), list(series.values))
    if trend is None:
        return None
    until = seconds_until(trend, threshold)
    if until is None:
        return None
    crosses_in = max(0.0, until - (now.timestamp() - trend.last_t))
    where = f" ({series.where})" if series.where else ""
    per_hour = trend.fit.slope * HOUR
    summary = (
        f"{series.entity}{where}: {series.check} at {trend.level:.3g}, rising {per_hour:.3g}/h "
        f"(Mann-Kendall z {trend.z:.1f}), reaches {threshold:g} {_human(crosses_in)}"
    )
    return Assessment(
        series.entity, kind, fault_type, crosses_in, threshold, trend.level, summary, (series.cite,), per_hour
    )


def _ratio(errors: RiskSeries, requests: RiskSeries, start: float, end: float) -> float | None:
    """Errors over requests in (start, end], summed sample by sample (both are per-second rates)."""
    err = sum(v for t, v in zip(errors.timestamps, errors.values, strict=True) if start < t <= end)
    req = sum(v for t, v in zip(requests.timestamps, requests.values, strict=True) if start < t <= end)
    return err / req if req > 0 else None


def burn(errors: RiskSeries, requests: RiskSeries, *, slo: float, period_s: float, now: datetime) -> Assessment | None:
    """The first of the workbook's window pairs whose long and short windows both burn too fast."""
    budget = 1.0 - slo
    end = now.timestamp()
    for long_s, short_s, factor, severity in BURN_WINDOWS:
        long_ratio, short_ratio = (
            _ratio(errors, requests, end - long_s, end),
            _ratio(errors, requests, end - short_s, end),
        )
        if long_ratio is None or short_ratio is None:
            continue
        long_burn, short_burn = long_ratio / budget, short_ratio / budget
        if long_burn < factor or short_burn < factor:
            continue
        exhausted_in = period_s / long_burn  # the whole period's budget, spent at this rate
        summary = (
            f"{errors.entity}: error budget of SLO {100 * slo:g}% burning {long_burn:.1f}x over "
            f"{long_s / HOUR:g} h ({short_burn:.1f}x over {short_s / 60:g} min; alert at {factor:g}x): "
            f"a {period_s / 86400:g}-day budget is gone {_human(exhausted_in)}"
        )
        return Assessment(
            errors.entity,
            "error_budget_burn",
            "dependency_down",
            exhausted_in if severity == "ticket" else 0.0,
            factor,
            long_burn,
            summary,
            (errors.cite, requests.cite),
            severity=severity,
        )
    return None


def certificate(series: RiskSeries, now: datetime) -> Assessment | None:
    if not series.values:
        return None
    expires = series.values[-1]
    crosses_in = max(0.0, expires - now.timestamp())
    when = datetime.fromtimestamp(expires, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
    where = f" ({series.where})" if series.where else ""
    summary = f"{series.entity}{where}: certificate expires {when}, {_human(crosses_in)}"
    return Assessment(
        series.entity, "certificate_expiry", "certificate_expiry", crosses_in, expires, expires, summary, (series.cite,)
    )


def restarts(series: RiskSeries, *, min_restarts: int) -> Assessment | None:
    """Restarts in the window from a counter (a drop is a reset, and the value after it counts as restarts)."""
    total = 0.0
    for before, after in zip(series.values, series.values[1:], strict=False):
        total += after - before if after >= before else after
    if total < min_restarts or len(series.timestamps) < 2:
        return None
    hours = (series.timestamps[-1] - series.timestamps[0]) / HOUR
    where = f" ({series.where})" if series.where else ""
    summary = f"{series.entity}{where}: {total:.0f} restarts in the last {hours:.0f} h ({total / hours:.2g}/h)"
    return Assessment(
        series.entity, "restarts", "crash_loop", 0.0, float(min_restarts), total, summary, (series.cite,), total / hours
    )


def pair_burn_series(series: Sequence[RiskSeries]) -> list[tuple[RiskSeries, RiskSeries]]:
    """(errors, requests) of the same entity."""
    requests = {s.entity: s for s in series if s.check == "requests"}
    return [(s, requests[s.entity]) for s in series if s.check == "errors" and s.entity in requests]
