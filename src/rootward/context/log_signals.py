"""Per-service log signals: which templates are new or surge after the onset.

Wraps the Drain clustering of `context.logs` per service (a template on one
service is a different signal from the same words on another) and keeps what
an investigation needs: the template, counts before/after, levels, and one
representative line to cite. Lines that look like instructions to a model are
dropped before clustering, so an adversarial log line cannot steer anything.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel

from rootward.context.log_coverage import Coverage
from rootward.context.logs import ERROR_LEVELS, WARN_LEVELS, Assigner, LogCluster, cluster_logs, message_shape
from rootward.domain.evidence import EvidenceRef, log_cite
from rootward.domain.telemetry import LogRecord

# Words that mark a line as a failure even when the level field is missing or INFO.
_FAILURE_WORDS = re.compile(
    r"error|exception|fail|refused|timed? ?out|timeout|unreachable|unavailable|denied|invalid|"
    r"exhaust|no space|oom|killed|panic|fatal|crash|back-?off|x509|expired|nxdomain|no such host|"
    r"deadlock|lock wait|reset by peer|broken pipe|circuit breaker|throttl|too many|overload|"
    r"cannot|could not|unable|"
    # ... that a call or a task did not complete in time (gRPC's DEADLINE_EXCEEDED, a slow
    # query, a health check that took longer than its limit, a hung task) ...
    r"deadline|slow|took (?:too long|longer than)|longer than expected|stall|starv|\bhung\b|\bstuck\b|"
    r"blocked for|misbehav|premature|abort|disconnect|unhealthy|degrad|(?:is|went|going) down\b|"
    # ... or was turned away or dropped (a retry, a rate limiter, an eviction) ...
    r"\bretr(?:y|ies|ying|ied)\b|reject|evict|dropped|dropping|"
    # ... or that a resource is running out (memory pressure, a usage above its limit, a full disk).
    r"exceed|pressure|(?:usage|load|utili[sz]ation) (?:is )?(?:too |very )?high\b|\bhigh (?:memory|cpu|load|usage)\b|"
    r"\blow on\b|running low|(?:is|almost|nearly) full\b|limit reached|reached (?:the |its )?limit",
    re.I,
)
# Words that say nothing failed, though they hold a failure word: a resolver's `NOERROR` answer code
# (CoreDNS logs one per query), "no errors", "0 failures", "errors=0".
_NO_FAILURE = re.compile(
    r"\bno ?errors?\b|\b(?:0|zero|no|without) (?:errors?|failures?|exceptions?)\b"
    r"|\b(?:errors?|failures?|failed|exceptions?) ?[=:] ?0(?![\d.])",
    re.I,
)
MAX_SIGNALS_PER_SERVICE = 12
# Clustering cost grows with distinct lines; beyond this the info-level remainder is sampled.
MAX_LINES = 1200
MIN_BASELINE_LINES = 5


def names_failure(text: str) -> bool:
    """Whether the words of a line or template say something failed, whatever its level."""
    return bool(_FAILURE_WORDS.search(_NO_FAILURE.sub(" ", text)))


class LogSignal(BaseModel):
    service: str
    template: str
    count: int
    baseline_count: int
    onset_count: int
    is_new: bool
    is_surge: bool
    severity: str  # error | warning | info
    failure_words: bool  # the text itself says something failed
    first_ts: datetime | None
    evidence: EvidenceRef
    last_ts: datetime | None = None
    example: str = ""  # the representative line's raw text (masking hides host names in templates)
    # Where a hole of the log source began that its lines may have begun in (`Coverage.began_unseen`).
    began_unseen: datetime | None = None

    @property
    def changed(self) -> bool:
        return self.is_new or self.is_surge

    @property
    def is_failure(self) -> bool:
        return self.severity in ("error", "warning") or self.failure_words


def names_entity(signal: LogSignal, entity: str, aliases: Sequence[str] = ()) -> bool:
    """Whether the signal's template or representative line names `entity`, or a host it goes by.

    A name inside a path (`GET /api/profile`, `/data/orders/state.db`) names a route or a
    file, not a service: only one standing alone or as a URL's host (`http://profile:8080`) counts.
    `aliases` are the host names its map gives it (`sms.example.io`): a caller names a third
    party by the host it dialled.
    """
    return _names(signal.template, signal.example, entity, tuple(aliases))


# The ranking asks this for every pair of entities it weighs, of the same signals each time: on a
# 40-service map, thousands of calls a bundle, each compiling its pattern anew past `re`'s cache.
@functools.lru_cache(maxsize=16384)
def _names(template: str, example: str, entity: str, aliases: tuple[str, ...]) -> bool:
    pattern = _name_pattern(entity, aliases)
    return pattern.search(template) is not None or pattern.search(example) is not None


@functools.lru_cache(maxsize=4096)
def _name_pattern(entity: str, aliases: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(re.escape(n) for n in (entity, *aliases))
    return re.compile(rf"(?:(?<=//)|(?<![\w/-]))(?:{names})(?![\w-])", re.I)


def injection_check() -> Callable[[str], bool]:
    """Whether a line looks like an instruction to a model (such lines are left out of every log signal)."""
    try:
        from rootward.context import injection
    except (ImportError, SyntaxError):  # the guard is optional; without it nothing is dropped
        return lambda _message: False
    rule = getattr(injection, "injection_rule", None)
    if callable(rule):
        return lambda message: rule(message) is not None
    return lambda _message: False


def _sample(records: list[LogRecord], cap: int) -> list[LogRecord]:
    """Keep every failure line and an even sample of the rest (rates stay comparable).

    A failure line is one at error or warning level or, for a line that states no level at
    all (logs shipped without levels), one whose words say something failed: the one
    `OOMKilled` among 20,000 level-less lines must not be sampled away. A stated INFO is
    taken at its word here (reading every INFO line's words would cost more than the
    clustering it bounds). The words are read once per message shape.
    """
    if len(records) <= cap:
        return records
    loud = ERROR_LEVELS | WARN_LEVELS
    verdicts: dict[bytes, bool] = {}

    def failing(r: LogRecord) -> bool:
        if r.level:
            return r.level in loud
        shape = message_shape(r.message)
        verdict = verdicts.get(shape)
        if verdict is None:
            verdict = verdicts[shape] = names_failure(r.message)
        return verdict

    keep: list[LogRecord] = []
    rest: list[LogRecord] = []
    for r in records:
        (keep if failing(r) else rest).append(r)
    room = max(cap - len(keep), cap // 4)
    step = max(1, -(-len(rest) // room))
    return sorted(keep + rest[::step], key=lambda r: r.line)


def _began_unseen(covered: Coverage, c: LogCluster) -> datetime | None:
    if c.first_ts is None or c.last_ts is None:
        return None
    return covered.began_unseen(c.first_ts, c.last_ts, c.count)


def log_signals(
    records: Sequence[LogRecord],
    *,
    onset: datetime,
    baseline_start: datetime,
    end: datetime,
    coverage: Coverage | None = None,
    assign: Assigner | None = None,
    lead: timedelta = timedelta(0),
) -> tuple[list[LogSignal], int]:
    """Signals per service (changed and failing templates first) and how many lines were dropped as injection.

    `coverage`: what the log source covers, when the caller has it already (else read off `records`).
    `assign`: the lines' templates, when the caller has found them already (`context.log_template_book`).
    `lead`: how early before `onset` the incident may have begun (`logs.cluster_logs`).
    """
    by_service: dict[str, list[LogRecord]] = defaultdict(list)
    dropped = 0
    looks_like_injection = injection_check()
    verdicts: dict[str, bool] = {}  # a repeated line (the same error, again and again) is read once
    for r in _sample(list(records), MAX_LINES):
        if r.ts < baseline_start or r.ts > end:
            continue
        verdict = verdicts.get(r.message)
        if verdict is None:
            verdict = verdicts[r.message] = looks_like_injection(r.message)
        if verdict:
            dropped += 1
            continue
        by_service[r.service].append(r)
    # Rates are per second the source covered: its holes (every service silent) are no time.
    covered = coverage or Coverage(r.ts for r in records if baseline_start <= r.ts <= end)
    stretches = covered.stretches(baseline_start, onset)  # a template's healthiest is its baseline
    out: list[LogSignal] = []
    for service in sorted(by_service):
        clusters = cluster_logs(
            by_service[service],
            onset=onset,
            baseline_start=baseline_start,
            holes=covered.hole_seconds,
            assign=assign,
            lead=lead,
            stretches=stretches,
        )
        # "New" means nothing without a baseline: a service whose logs start at the onset
        # has only new templates. Then only error/warning lines count as changed.
        has_baseline = sum(c.baseline_count for c in clusters) >= MIN_BASELINE_LINES
        signals = []
        for c in clusters:
            levels = {k.upper() for k in c.levels}
            severity = "error" if levels & ERROR_LEVELS else "warning" if levels & WARN_LEVELS else "info"
            failure = names_failure(c.template)
            if not (c.is_new or c.is_surge or severity != "info" or failure):
                continue
            # A thin service's warning is news, unless it goes on after the onset as often as before.
            news = severity != "info" and (not c.baseline_count or not c.onset_count or c.beyond_chance)
            is_new, is_surge = (c.is_new, c.is_surge) if has_baseline else (news, False)
            excerpt = c.example if len(c.example) <= 240 else c.example[:237] + "..."
            signals.append(
                LogSignal(
                    service=service,
                    template=c.template,
                    count=c.count,
                    baseline_count=c.baseline_count,
                    onset_count=c.onset_count,
                    is_new=is_new,
                    is_surge=is_surge,
                    severity=severity,
                    failure_words=failure,
                    first_ts=c.first_ts,
                    last_ts=c.last_ts,
                    example=c.example[:500],
                    began_unseen=_began_unseen(covered, c),
                    evidence=EvidenceRef("log", log_cite(c.representative), f"{service}: {excerpt} (x{c.count})"),
                )
            )
        signals.sort(key=lambda s: (not s.changed, not s.is_failure, -s.onset_count))
        out += signals[:MAX_SIGNALS_PER_SERVICE]
    return out, dropped
