"""The RCA's lead sentence: what failed, where, since when, and why, in the evidence's own words.

An engineer greps for the words the system wrote: `OOMKilled`, `exit code 137`,
`ImagePullBackOff`, `no space left on device`, `max_connections`, a metric
name with its values. So the lead quotes the cited evidence verbatim instead of
paraphrasing it: the log line (or Kubernetes event) that carries the fault's
signature, the metric that moved with its before and after, the change that
preceded it. It is built from the typed findings (rule mode), never by a model.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from rootward.context.assemble import Context
from rootward.domain.evidence import EvidenceRef
from rootward.engine.signatures import LOG_SIGNATURES
from rootward.engine.supervisor import Assessment

MAX_QUOTES = 3
QUOTE_CHARS = 160
LEADS = {"validated": "Root cause", "invalidated": "Ruled out by the evidence"}
_COUNT = re.compile(r"\s*\(x(\d+)\)$")
# Up to the values of a metric excerpt ("svc metric up from 9 to 20 (peak 20, ..."): the part worth quoting.
_METRIC = re.compile(r"^(?P<what>.+? (?:up|down) from \S+ to \S+)(?: \(peak (?P<peak>[^,)]+))?")


def _clock(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M")


def log_quote(ref: EvidenceRef, fault_type: str) -> str:
    """A log excerpt ("svc: message (xN)") as `svc logs "message" (xN)`, cut around the fault's own words."""
    service, _, rest = ref.excerpt.partition(": ")
    count = _COUNT.search(rest)
    message = _COUNT.sub("", rest).strip()
    if len(message) > QUOTE_CHARS:
        pattern = LOG_SIGNATURES.get(fault_type)
        m = pattern.search(message) if pattern is not None else None
        start = max(0, (m.start() if m else 0) - QUOTE_CHARS // 3)
        message = ("…" if start else "") + message[start : start + QUOTE_CHARS].rstrip() + "…"
    times = f" (x{count.group(1)})" if count and count.group(1) != "1" else ""
    return f'{service} logs "{message}"{times}'


def metric_quote(ref: EvidenceRef) -> str:
    m = _METRIC.match(ref.excerpt)
    if m is None:
        return ref.excerpt[:QUOTE_CHARS]
    peak = m.group("peak")
    return m.group("what") + (f" (peak {peak})" if peak and peak not in m.group("what").rsplit(" ", 1)[-1] else "")


def _rank(ref: EvidenceRef, fault_type: str, entity: str) -> tuple[int, int]:
    """Signature-bearing logs first, then the entity's own metrics, then changes, then everything else."""
    pattern = LOG_SIGNATURES.get(fault_type)
    if ref.kind == "log":
        return (
            0 if pattern is not None and pattern.search(ref.excerpt) else 2,
            0 if ref.excerpt.startswith(entity) else 1,
        )
    if ref.kind == "metric":
        return (1, 0 if f":{entity}/" in ref.cite else 1)
    if ref.kind == "change":
        return (3, 0)
    return (9, 0)


def mechanism_refs(top: Assessment) -> list[EvidenceRef]:
    """The evidence whose words the lead quotes: signals, not context (alerts, topology, notes)."""
    h = top.hypothesis
    refs = list(h.evidence) + [e for f in top.findings if f.status == "validated" for e in f.evidence]
    signals = [r for r in dict.fromkeys(refs) if r.kind in ("log", "metric", "change", "trace")]
    signals.sort(key=lambda r: _rank(r, h.fault_type, h.entity))
    picked: list[EvidenceRef] = []
    kinds: dict[str, int] = {}
    for r in signals:
        if kinds.get(r.kind, 0) < 2 and len(picked) < MAX_QUOTES:
            picked.append(r)
            kinds[r.kind] = kinds.get(r.kind, 0) + 1
    return picked


def quote(ref: EvidenceRef, fault_type: str) -> str:
    if ref.kind == "log":
        return log_quote(ref, fault_type)
    if ref.kind == "metric":
        return metric_quote(ref)
    return ref.excerpt[:QUOTE_CHARS]


def first_signs(ctx: Context, entity: str) -> list[tuple[int, EvidenceRef]]:
    """When each of the entity's own signs began: its anomalies, changed failure templates, and span
    aggregates that changed the harmful way (from the first call they cite after the onset)."""
    signs = [(a.onset, a.evidence) for a in ctx.anomalies if a.service == entity]
    signs += [
        (int(s.first_ts.timestamp()), s.evidence)
        for s in ctx.logs
        if s.service == entity and s.changed and s.is_failure and s.first_ts is not None
    ]
    signs += [(f.since, f.evidence) for f in ctx.trace_findings if f.entity == entity and f.harmful and f.since]
    return signs


def since(ctx: Context, entity: str) -> int | None:
    """When the entity's own trouble began: its earliest sign, else the incident's onset."""
    signs = first_signs(ctx, entity)
    if signs:
        return min(at for at, _ in signs)
    return int(ctx.window.onset.timestamp()) if ctx.window.onset else None


def lead_sentence(ctx: Context, top: Assessment, words: str, confidence: float) -> tuple[str, list[EvidenceRef]]:
    """(sentence, the evidence it quotes): "Root cause: <fault> at <entity> since HH:MM (...): <quotes>."."""
    h = top.hypothesis
    refs = mechanism_refs(top)
    lead = LEADS.get(top.status, "Leading but unconfirmed")
    start = since(ctx, h.entity)
    when = f" since {_clock(start)}" if start is not None else ""
    head = f"{lead}: {words} at {h.entity}{when} ({h.fault_type}, confidence {confidence:.2f})"
    if not refs:
        return head + ".", list(h.evidence[:3])
    return head + ": " + "; ".join(quote(r, h.fault_type) for r in refs) + ".", refs
