"""Template shifts: which log templates appeared, vanished or changed rate at the onset, whatever their level.

Real services often log a code fault at INFO, or not as an error at all: a new
branch runs and prints a line nobody has seen before, a periodic line stops,
a retry line that came once a minute now comes ten times a second. So each
service's template frequencies after the onset are compared with before, and
every significant difference is a typed, cited finding in its own right.

The test. Under "nothing changed", a template's lines fall into the baseline
and the onset window in proportion to their lengths: of its `n` lines, the
number after the onset is Binomial(n, p0) with p0 = after / (before + after)
seconds. The chance of a split at least as lopsided as the one seen is bounded
by the Chernoff-Hoeffding bound exp(-n * KL(k/n || p0)), which is exact for the
all-or-nothing splits (a new template: p0**n; a vanished one: (1-p0)**n) and
conservative in between, so small counts are never over-read: three lines of a
new template after a 15-minute window against a 30-minute baseline have a
chance of 1/27, which is noise when a service has dozens of templates. Each
service's templates are tested together (Bonferroni: alpha / templates), and a
rate shift must also be large (the rate ratio, smoothed by half a line in each
window, at least `min_ratio`), because with 20,000 lines a 10 % drift is
"significant" and means nothing.

Windows count only the time the log source actually covers (from the first
to the last record of any service, less the holes where every service fell
silent: `context.log_coverage`), so a source that starts late, stops early or
kept only some minutes does not make every template look new, vanished or
surging; a single service that goes quiet while others keep logging does
show its templates as vanished.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from rootward.context.log_coverage import Coverage
from rootward.context.log_signals import injection_check
from rootward.context.logs import Assigner, cluster_logs
from rootward.domain.evidence import EvidenceRef, log_cite
from rootward.domain.telemetry import LogRecord

ShiftKind = Literal["new", "vanished", "up", "down"]


@dataclass(frozen=True)
class ShiftConfig:
    """How sure and how large a change must be to count (one setting for every system).

    `alpha` is the chance, per service, of reporting any shift at all when
    nothing changed (split over that service's templates). `min_ratio` is the
    smallest rate change worth a finding. `min_baseline_lines`: a service that
    logged fewer lines than this before the onset has no baseline to be "new"
    against (its logs may simply start at the onset), so only its rate shifts
    and vanished templates are tested.
    """

    alpha: float = 0.01
    min_ratio: float = 2.0
    smoothing: float = 0.5
    min_baseline_lines: int = 5
    max_per_service: int = 12


class LogShift(BaseModel):
    """One template of one service whose frequency changed at the onset."""

    service: str
    template: str
    kind: ShiftKind
    baseline_count: int
    onset_count: int
    baseline_per_min: float
    onset_per_min: float
    log_ratio: float  # natural log of the smoothed onset/baseline rate ratio
    p_value: float  # upper bound of the chance of a split this lopsided under "no change"
    levels: dict[str, int]
    at: datetime | None  # first line after the onset (new, up) or last line before it (vanished, down)
    evidence: EvidenceRef
    example: str = ""  # the cited line's raw text (masking hides names in the template)

    @property
    def appeared(self) -> bool:
        """More of it after the onset: a new template or a rate that rose."""
        return self.kind in ("new", "up")


def kl_bernoulli(q: float, p: float) -> float:
    """KL(q || p) between Bernoulli distributions, in nats (0 log 0 = 0)."""
    total = 0.0
    if q > 0:
        total += q * math.log(q / p)
    if q < 1:
        total += (1 - q) * math.log((1 - q) / (1 - p))
    return total


def split_p_value(after: int, before: int, p0: float) -> float:
    """Bound on P(a split at least as far from p0 as after/(after+before)) when lines fall with p0.

    One-sided in the direction observed (Chernoff-Hoeffding); 1.0 when the
    split is on the expected side of p0.
    """
    n = after + before
    if n == 0 or not 0.0 < p0 < 1.0:
        return 1.0
    q = after / n
    if abs(q - p0) < 1e-12:
        return 1.0
    return min(1.0, math.exp(-n * kl_bernoulli(q, p0)))


@dataclass(frozen=True)
class _Windows:
    """The two windows as the log source covers them."""

    baseline_start: datetime
    onset: datetime
    before_s: float
    after_s: float
    stretches: tuple[tuple[float, float], ...] = ()  # the baseline's covered stretches (epoch seconds)

    def p0(self, before_s: float | None = None) -> float:
        """Share of a steady template's lines expected after the onset (over `before_s` of baseline)."""
        before = self.before_s if before_s is None else before_s
        return self.after_s / (before + self.after_s)


def _coverage(covered: Coverage, baseline_start: datetime, onset: datetime, end: datetime) -> _Windows:
    """Seconds of baseline and onset window that the log source actually covers (`context.log_coverage`)."""
    return _Windows(
        baseline_start,
        onset,
        covered.seconds(baseline_start, onset),
        covered.seconds(onset, end),
        tuple(covered.stretches(baseline_start, onset)),
    )


def log_shifts(
    records: Sequence[LogRecord],
    *,
    onset: datetime,
    baseline_start: datetime,
    end: datetime,
    config: ShiftConfig | None = None,
    coverage: Coverage | None = None,
    assign: Assigner | None = None,
) -> list[LogShift]:
    """Significant template shifts per service, most significant first within each service.

    `coverage`: what the log source covers, when the caller has it already (else read off `records`).
    `assign`: the lines' templates, when the caller has found them already (`context.log_template_book`).
    """
    config = config or ShiftConfig()
    inside = [r for r in records if baseline_start <= r.ts <= end]
    if not inside:
        return []
    windows = _coverage(coverage or Coverage(r.ts for r in inside), baseline_start, onset, end)
    if windows.before_s < 1.0 or windows.after_s < 1.0:
        return []  # one side unobserved: nothing to compare
    by_service: dict[str, list[LogRecord]] = {}
    for r in inside:
        by_service.setdefault(r.service, []).append(r)
    looks_like_injection = injection_check()
    out: list[LogShift] = []
    for service in sorted(by_service):
        shifts = _service_shifts(service, by_service[service], windows, config, assign)
        # Checked on what would be shown (template and cited line), not on every line: same effect, a
        # fraction of the cost. A line that instructs a model never becomes a finding.
        out += [s for s in shifts if not looks_like_injection(s.template) and not looks_like_injection(s.example)]
    return out


def _service_shifts(
    service: str,
    records: list[LogRecord],
    windows: _Windows,
    config: ShiftConfig,
    assign: Assigner | None,
) -> list[LogShift]:
    onset, after_s = windows.onset, windows.after_s
    clusters = cluster_logs(
        records, onset=onset, baseline_start=windows.baseline_start, assign=assign, stretches=windows.stretches
    )
    has_baseline = sum(c.baseline_count for c in clusters) >= config.min_baseline_lines
    threshold = config.alpha / max(1, len(clusters))
    record_of = {(r.line or i + 1): r for i, r in enumerate(records)}  # the line numbers cluster_logs gives
    ts_of = {line: r.ts for line, r in record_of.items()}
    found: list[LogShift] = []
    for c in clusters:
        a, b = c.onset_count, c.baseline_count
        before_s = c.baseline_seconds or windows.before_s  # one stretch of the baseline, or all of it
        p = split_p_value(a, b, windows.p0(before_s))
        if p > threshold:
            continue
        ratio = math.log(((a + config.smoothing) / after_s) / ((b + config.smoothing) / before_s))
        kind: ShiftKind
        if b == 0:
            if not has_baseline:
                continue
            kind = "new"
        elif a == 0:
            kind = "vanished"
        elif abs(ratio) >= math.log(config.min_ratio):
            kind = "up" if ratio > 0 else "down"
        else:
            continue
        line = _cite_line(c.lines, ts_of, onset, after=kind in ("new", "up"))
        found.append(
            LogShift(
                service=service,
                template=c.template,
                kind=kind,
                baseline_count=b,
                onset_count=a,
                baseline_per_min=round(60 * b / before_s, 3),
                onset_per_min=round(60 * a / after_s, 3),
                log_ratio=round(ratio, 3),
                p_value=p,
                levels=dict(c.levels),
                at=ts_of.get(line),
                example=record_of[line].message[:500],
                evidence=EvidenceRef("log", log_cite(line), _summary(service, kind, c.template, a, b)),
            )
        )
    found.sort(key=lambda s: (s.p_value, s.template))
    return found[: config.max_per_service]


def _cite_line(lines: tuple[int, ...], ts_of: dict[int, datetime], onset: datetime, *, after: bool) -> int:
    """The first line after the onset (what appeared) or the last before it (what stopped)."""
    if after:
        return next((n for n in lines if ts_of[n] >= onset), lines[0])
    return next((n for n in reversed(lines) if ts_of[n] < onset), lines[-1])


def _summary(service: str, kind: ShiftKind, template: str, after: int, before: int) -> str:
    text = template if len(template) <= 160 else template[:157] + "..."
    what = {
        "new": f"new template after the onset (x{after}, none before)",
        "vanished": f"template stopped at the onset (x{before} before, none after)",
        "up": f"template rate rose at the onset ({before} -> {after} lines)",
        "down": f"template rate fell at the onset ({before} -> {after} lines)",
    }[kind]
    return f"{service}: {what}: {text}"
