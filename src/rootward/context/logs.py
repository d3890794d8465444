"""Log template clustering with Drain3, and what changed at the onset.

An investigation cannot show a model 14,382 copies of the same stack trace; it
shows one template with a count, when it started, which levels and services
it came from, and whether it is new or surging compared with the baseline.

Speed matters because this runs inside every investigation, so the work is
done once per distinct text: messages that differ only in digits and hex ids
are masked once (masking is blind to their values, so this is exact), and
each distinct masked form is sent to Drain once, so identical masked text
always lands in the same cluster (re-adding it could land elsewhere once a
template has generalised). One Drain call per distinct masked form.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from drain3.drain import Drain

from rootward.context.chance import chance_of_rise
from rootward.context.field_values import mask_fields, variable_keys
from rootward.context.indexed_drain import IndexedDrain
from rootward.context.log_drain import ConstantsDrain
from rootward.context.log_templates import (
    masked_varying_words,
    merge_equivalent_templates,
    merge_subsumed,
    merge_varying_position,
    split_low_cardinality,
)
from rootward.context.masking import mask_message
from rootward.context.scrub import scrub_text
from rootward.domain.telemetry import LogRecord

ERROR_LEVELS = frozenset(
    {"ERROR", "ERR", "FATAL", "CRITICAL", "CRIT", "PANIC", "EMERG", "EMERGENCY", "ALERT", "SEVERE"}
)
WARN_LEVELS = frozenset({"WARN", "WARNING"})
# A template first written just before the onset began with it only if it was already
# repeating there: a burst, not a background line that happened to fall before the onset.
LEAD_MIN_LINES = 2
# A covered stretch of the baseline shorter than this is too short to say a template's rate in it.
MIN_STRETCH_S = 60.0
# A rise in a template's rate is no surge when chance alone makes it this likely or more (one in twenty).
SURGE_CHANCE = 0.05
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
# A lower-case hex id (SHA, trace id, UUID part) as the HEX mask sees it: 8+
# hex characters with a digit and a letter, standing apart from word characters.
_HEX_ID = re.compile(rb"(?<![A-Za-z0-9_.])(?=[0-9a-f]*0)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}(?![A-Za-z0-9_])")


def _canonical_hex(match: re.Match[bytes]) -> bytes:
    return b"0" + b"a" * (len(match.group(0)) - 1)


def message_shape(message: str) -> bytes:
    """A key shared by messages whose masked forms are certainly identical.

    Masking treats every digit alike and removes them all, and it always masks
    a hex id away whatever its letters are (its patterns see only character
    classes, and the a-f letters are one class for all of them). So digits
    become `0` and hex ids a canonical run of the same length: messages that
    differ only in numbers, addresses, trace ids or SHAs share a shape and are
    masked once.
    """
    shape = message.encode("utf-8", "surrogatepass").translate(_DIGITS_TO_ZERO)
    return _HEX_ID.sub(_canonical_hex, shape)


@dataclass(frozen=True)
class ClusterConfig:
    """The one clustering configuration used for every system.

    `sim_th` and `depth` are Drain's similarity threshold and prefix-tree depth,
    chosen on the LogHub samples as one setting for all of them (see
    docs/context.md). The threshold is high because masked values count as
    matching tokens (`<IP>` equals `<IP>`), so only free-text words differ, and
    two messages differing in a free-text word are usually different events.
    """

    sim_th: float = 0.8
    depth: int = 3
    mask_fields: bool = True  # mask key=value word values that vary in the stream (field_values.py)
    similarity: str = "drain"  # "drain" (Drain3's own) or "constants" (log_drain.ConstantsDrain)
    max_children: int = 100
    extra_delimiters: tuple[str, ...] = ()
    merge_templates: bool = True
    merge_varying: bool = True
    merge_subsumed: bool = True  # a template another of its length matches whole joins it (log_templates)
    split_constants: bool = True
    surge_factor: float = 3.0
    min_surge_count: int = 5


@dataclass(frozen=True)
class LogCluster:
    """One log template with what an investigator needs to judge it."""

    id: int
    template: str
    count: int
    lines: tuple[int, ...]  # 1-based logs.jsonl lines (LogRecord.line) or input line numbers
    first_ts: datetime | None
    last_ts: datetime | None
    levels: dict[str, int]
    services: dict[str, int]
    baseline_count: int  # records before onset
    onset_count: int  # records at/after onset
    is_new: bool  # none in baseline, some after onset
    is_surge: bool  # after-onset rate >= surge_factor x baseline rate, beyond chance
    representative: int  # line number of a representative record (for the cite)
    example: str = field(default="", compare=False)  # raw text of the representative line
    # More lines after the onset than the baseline's rate makes likely by chance (`beyond_chance`).
    beyond_chance: bool = False
    # Seconds the baseline count is over, where it is one stretch of the baseline only (`_healthiest`).
    baseline_seconds: float | None = None


def _new_drain(config: ClusterConfig) -> Drain:
    """Drain3's tree, used directly: masking is done once per distinct message, nothing is persisted."""
    kind = ConstantsDrain if config.similarity == "constants" else IndexedDrain
    return kind(
        depth=config.depth,
        sim_th=config.sim_th,
        max_children=config.max_children,
        extra_delimiters=tuple(config.extra_delimiters),
        parametrize_numeric_tokens=True,
    )


def assign_templates(messages: Iterable[str], config: ClusterConfig | None = None) -> tuple[list[int], dict[int, str]]:
    """Cluster `messages`; return each message's cluster id and each id's template.

    This is the pure grouping step shared by `cluster_logs`, `cluster_messages`
    and the LogHub accuracy evaluation.
    """
    config = config or ClusterConfig()
    by_shape: dict[bytes, str] = {}
    counts: dict[str, int] = {}  # masked message -> lines
    masked_of_line: list[str] = []
    append = masked_of_line.append
    for message in messages:
        shape = message_shape(message)
        masked = by_shape.get(shape)
        if masked is None:
            masked = by_shape[shape] = mask_message(message)
        counts[masked] = counts.get(masked, 0) + 1
        append(masked)
    # Second pass over distinct forms only: mask field values the stream shows varying, then Drain.
    keys = variable_keys(counts) if config.mask_fields else set()
    drain = _new_drain(config)
    final_of = {masked: mask_fields(masked, keys) for masked in counts}
    # A position many otherwise-equal forms vary in is a variable before Drain sees it
    # (`log_templates.masked_varying_words`): one Drain input for all of them. What follows reads
    # the Drain inputs, whose tokens are the templates' own.
    premasked = masked_varying_words(set(final_of.values())) if config.merge_varying else {}
    input_of = {masked: premasked.get(final, final) for masked, final in final_of.items()}
    forms: dict[str, list[int]] = {}  # Drain input -> [drain cluster id, lines]
    for masked, count in counts.items():
        text = input_of[masked]
        form = forms.get(text)
        if form is None:
            form = forms[text] = [drain.add_log_message(text)[0].cluster_id, 0]
        form[1] += count
    form_of_line = [input_of[masked] for masked in masked_of_line]
    templates = {c.cluster_id: c.get_template() for c in drain.clusters}
    cluster_of_form = {text: form[0] for text, form in forms.items()}
    if config.split_constants:
        cluster_of_form, templates = split_low_cardinality(
            templates, {masked: (form[0], form[1]) for masked, form in forms.items()}
        )
    if config.merge_templates:
        remap, templates = merge_equivalent_templates(templates)
        cluster_of_form = {masked: remap[cid] for masked, cid in cluster_of_form.items()}
    if config.merge_varying:
        remap, templates = merge_varying_position(templates, sim_th=config.sim_th)
        cluster_of_form = {masked: remap[cid] for masked, cid in cluster_of_form.items()}
    if config.merge_subsumed:
        remap, templates = merge_subsumed(templates)
        cluster_of_form = {masked: remap[cid] for masked, cid in cluster_of_form.items()}
    assignment = [cluster_of_form[masked] for masked in form_of_line]
    return assignment, templates


@dataclass
class _Tally:
    lines: list[int] = field(default_factory=list)
    first_ts: datetime | None = None
    first_after: datetime | None = None  # the first line at or after the onset
    last_ts: datetime | None = None
    levels: Counter[str] = field(default_factory=Counter)
    services: Counter[str] = field(default_factory=Counter)
    baseline: int = 0
    onset: int = 0
    by_stretch: Counter[int] = field(default_factory=Counter)  # baseline lines per covered stretch
    representative: int = 0
    example: str = ""
    rank: int = 99  # severity rank of the representative (0 = error after onset)


def _severity_rank(level: str) -> int:
    upper = level.upper()
    if upper in ERROR_LEVELS:
        return 0
    if upper in WARN_LEVELS:
        return 1
    return 2


# Templates of records found elsewhere (`context.log_template_book`): each record's id and the templates by id.
Assigner = Callable[[Sequence[LogRecord]], tuple[list[int], dict[int, str]]]


def cluster_logs(
    records: Sequence[LogRecord],
    *,
    onset: datetime | None = None,
    baseline_start: datetime | None = None,
    end: datetime | None = None,
    config: ClusterConfig | None = None,
    holes: Callable[[datetime, datetime], float] | None = None,
    assign: Assigner | None = None,
    lead: timedelta = timedelta(0),
    stretches: Sequence[tuple[float, float]] = (),
) -> list[LogCluster]:
    """Cluster log records and flag templates that are new or surge after `onset`.

    Records before `onset` (and at or after `baseline_start`, when given) are
    the baseline; records at or after `onset` are the onset window. Rates are
    per second of each window: the baseline from `baseline_start` (default:
    the first record) to `onset`, the onset window from `onset` to `end`
    (default: the last record), less what `holes` says the log source did not
    cover in each (`context.log_coverage`). Without `onset`, every record counts
    as onset and nothing is new or surging. `assign`: the records' templates as
    found already (else they are clustered here, with `config`). `lead`: how early before
    `onset` the onset may really lie (an onset read off sampled metrics lags the lines
    that stamp the moment): a template first written within it, and already repeating
    there (`LEAD_MIN_LINES`; one line says nothing of when anything began), began with
    the incident, and its lines there count as the onset window's. `stretches`: the
    stretches of the baseline the log source covers (epoch seconds, `Coverage.stretches`);
    with two or more, a template's baseline is its healthiest stretch where they differ
    (`_healthiest`).
    """
    config = config or ClusterConfig()
    if assign is not None:
        assignment, templates = assign(records)
    else:
        assignment, templates = assign_templates((r.message for r in records), config)
    tallies: dict[int, _Tally] = {}
    starts = [lo for lo, _ in stretches]
    for index, (record, cluster_id) in enumerate(zip(records, assignment, strict=True)):
        tally = tallies.get(cluster_id)
        if tally is None:
            tally = tallies[cluster_id] = _Tally()
        line = record.line or index + 1
        tally.lines.append(line)
        ts = record.ts
        if tally.first_ts is None or ts < tally.first_ts:
            tally.first_ts = ts
        if tally.last_ts is None or ts > tally.last_ts:
            tally.last_ts = ts
        if record.level:
            tally.levels[record.level.upper()] += 1
        if record.service:
            tally.services[record.service] += 1
        if onset is not None and ts < onset:
            if baseline_start is None or ts >= baseline_start:
                tally.baseline += 1
                if len(stretches) >= 2:
                    tally.by_stretch[bisect_right(starts, ts.timestamp()) - 1] += 1
        else:
            tally.onset += 1
            if tally.first_after is None or ts < tally.first_after:
                tally.first_after = ts
        # Representative: the most severe record, preferring the onset window.
        rank = _severity_rank(record.level) * 2 + (1 if onset is not None and ts < onset else 0)
        if rank < tally.rank:
            tally.rank = rank
            tally.representative = line
            tally.example = record.message
    if onset is not None and lead > timedelta(0):
        for tally in tallies.values():
            if tally.baseline >= LEAD_MIN_LINES and tally.first_ts is not None and tally.first_ts >= onset - lead:
                tally.onset, tally.baseline = tally.onset + tally.baseline, 0
    baseline_seconds, onset_seconds = _window_seconds(records, onset, baseline_start, end, holes)
    clusters = []
    for cid, tally in tallies.items():
        seconds: float | None = None
        failing = any(level in ERROR_LEVELS or level in WARN_LEVELS for level in tally.levels)
        k = _healthiest(tally, stretches) if failing and tally.baseline and len(stretches) >= 2 else None
        if k is not None:
            tally.baseline, seconds = tally.by_stretch[k], stretches[k][1] - stretches[k][0]
            # Its lines in the other stretches were an earlier event's: this one's began at the onset.
            tally.first_ts = tally.first_after or tally.first_ts
        cluster = _build(cid, templates[cid], tally, onset, seconds or baseline_seconds, onset_seconds, config)
        clusters.append(replace(cluster, baseline_seconds=seconds))
    return sort_by_relevance(clusters)


def _healthiest(tally: _Tally, stretches: Sequence[tuple[float, float]]) -> int | None:
    """The one stretch of the baseline to count a template over, or None for all of them.

    A store that kept only the minutes around each fault injection has as baseline the
    minutes of earlier injections, and a template an earlier fault wrote (a service failing
    on its dependency's wrong answers) is then neither new nor surging when this fault
    makes the same service fail. Where a warning or error template's rate in one
    stretch is beyond chance at its rate in the quietest (`beyond_chance`), the quietest
    is its normal: a fault raises a failure line's rate. An ordinary line's rate follows
    the calls a service happened to serve, either way, so its baseline stays whole.
    Stretches shorter than MIN_STRETCH_S are too short to say a rate.
    """
    spans = [hi - lo for lo, hi in stretches]
    usable = [k for k, s in enumerate(spans) if s >= MIN_STRETCH_S]
    if len(usable) < 2:
        return None
    counts = tally.by_stretch
    low = min(usable, key=lambda k: (counts[k] / spans[k], -k))
    if any(beyond_chance(counts[low], counts[k], spans[low], spans[k]) for k in usable if k != low):
        return low
    return None


def _window_seconds(
    records: Sequence[LogRecord],
    onset: datetime | None,
    baseline_start: datetime | None,
    end: datetime | None,
    holes: Callable[[datetime, datetime], float] | None,
) -> tuple[float, float]:
    if onset is None or not records:
        return 0.0, 0.0
    first = baseline_start or min(r.ts for r in records)
    last = end or max(r.ts for r in records)
    baseline = (onset - first).total_seconds() - (holes(first, onset) if holes else 0.0)
    after = (last - onset).total_seconds() - (holes(onset, last) if holes else 0.0)
    return max(baseline, 1.0), max(after, 1.0)


def _build(
    cluster_id: int,
    template: str,
    tally: _Tally,
    onset: datetime | None,
    baseline_seconds: float,
    onset_seconds: float,
    config: ClusterConfig,
) -> LogCluster:
    is_new = onset is not None and tally.baseline == 0 and tally.onset > 0
    surprising = onset is not None and beyond_chance(tally.baseline, tally.onset, baseline_seconds, onset_seconds)
    is_surge = False
    if onset is not None and tally.baseline > 0 and tally.onset >= config.min_surge_count:
        baseline_rate = tally.baseline / baseline_seconds
        onset_rate = tally.onset / onset_seconds
        is_surge = onset_rate >= config.surge_factor * baseline_rate and surprising
    return LogCluster(
        id=cluster_id,
        template=template,
        count=len(tally.lines),
        lines=tuple(tally.lines),
        first_ts=tally.first_ts,
        last_ts=tally.last_ts,
        levels=dict(tally.levels),
        services=dict(tally.services),
        baseline_count=tally.baseline,
        onset_count=tally.onset,
        is_new=is_new,
        is_surge=is_surge,
        representative=tally.representative,
        example=tally.example,
        beyond_chance=surprising,
    )


def beyond_chance(baseline_count: int, onset_count: int, baseline_seconds: float, onset_seconds: float) -> bool:
    """Whether a template's count after the onset is more than chance makes likely at its baseline rate.

    A background line written a few times an hour, 3 times in 30 minutes and then 5 times
    in the next 17, runs at three times its rate, and chance alone does that one time in
    eight: over `SURGE_CHANCE`, so no surge (nor is a thin service's 1 line after 3 news).
    """
    chance = chance_of_rise(baseline_count, onset_count, baseline_seconds, onset_seconds)
    return onset_count > 0 and chance < SURGE_CHANCE


def is_error(cluster: LogCluster) -> bool:
    return any(level in ERROR_LEVELS for level in cluster.levels)


def is_warning(cluster: LogCluster) -> bool:
    return any(level in WARN_LEVELS for level in cluster.levels)


def sort_by_relevance(clusters: Iterable[LogCluster]) -> list[LogCluster]:
    """New or surging first, then errors, then warnings, then by count."""

    def key(cluster: LogCluster) -> tuple[int, int, int, int]:
        changed = 0 if (cluster.is_new or cluster.is_surge) else 1
        severity = 0 if is_error(cluster) else 1 if is_warning(cluster) else 2
        return (changed, severity, -cluster.count, cluster.lines[0] if cluster.lines else 0)

    return sorted(clusters, key=key)


def cluster_messages(messages: Sequence[str], config: ClusterConfig | None = None) -> list[LogCluster]:
    """Cluster plain lines (line numbers are 1-based positions; blank lines are skipped)."""
    numbered = [(i + 1, m.rstrip("\r\n")) for i, m in enumerate(messages)]
    numbered = [(n, m) for n, m in numbered if m.strip()]
    assignment, templates = assign_templates((m for _, m in numbered), config)
    lines: dict[int, list[int]] = {}
    first_message: dict[int, str] = {}
    for (number, message), cluster_id in zip(numbered, assignment, strict=True):
        lines.setdefault(cluster_id, []).append(number)
        first_message.setdefault(cluster_id, message)
    clusters = [
        LogCluster(
            id=cid,
            template=templates[cid],
            count=len(numbers),
            lines=tuple(numbers),
            first_ts=None,
            last_ts=None,
            levels={},
            services={},
            baseline_count=0,
            onset_count=len(numbers),
            is_new=False,
            is_surge=False,
            representative=numbers[0],
            example=first_message[cid],
        )
        for cid, numbers in lines.items()
    ]
    return sort_by_relevance(clusters)


def scrubbed(cluster: LogCluster) -> LogCluster:
    """The cluster with its template and example scrubbed of PII and secrets.

    Raw lines never leave the local store; templates and examples do, so
    this is the scrub point for log text on its way to an LLM.
    """
    return replace(cluster, template=scrub_text(cluster.template), example=scrub_text(cluster.example))
