"""Follow-up answers that list every fact of one kind: the changes in a window, the alerts, the times.

Each line cites the investigation's evidence id when the RCA cited that fact,
else the fact's own bundle cite (`changes.json:<id>`, `alerts.json:<fp>`),
which resolves in the data the investigation ran on.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from rootward.domain.investigation import InvestigationResult
from rootward.engine.followup_context import FollowupContext

Reply = tuple[str, tuple[str, ...], tuple[str, ...]]  # text, evidence ids, other cites
_WINDOW = re.compile(r"\b(?:last|past|previous)\s+(\d+\s*)?(minute|min|hour|hr|day)s?\b")
_UNITS = {"minute": timedelta(minutes=1), "min": timedelta(minutes=1), "hour": timedelta(hours=1)}
MAX_LINES = 10
# Words that ask for one kind of change ("which deploys ...?"); a question naming none asks for all.
CHANGE_KINDS = {
    "deploy": ("deploy", "deployment", "release", "rollout", "version"),
    "config": ("config", "configuration", "setting"),
    "feature_flag": ("flag",),
    "infra": ("infra", "infrastructure"),
}
_TOKEN = re.compile(r"[a-z]+")


def _clock(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%H:%M UTC")


def asked_window(question: str) -> timedelta | None:
    """`last hour` → 1 h, `past 30 minutes` → 30 min; None when the question names no window."""
    found = _WINDOW.search(question.lower())
    if found is None:
        return None
    count = int(found.group(1)) if found.group(1) else 1
    return count * _UNITS.get(found.group(2), timedelta(hours=1) if found.group(2) == "hr" else timedelta(days=1))


def _cite_ids(result: InvestigationResult) -> dict[str, str]:
    return {item.cite: eid for eid, item in result.evidence.items()}


def _cited(result: InvestigationResult, cites: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    ids = _cite_ids(result)
    return tuple(ids[c] for c in cites if c in ids), tuple(c for c in cites if c not in ids)


def _ref(ids: dict[str, str], cite: str) -> str:
    return ids.get(cite, cite)


def asked_kinds(question: str) -> set[str]:
    """The change kinds a question names (`deploys` → deploy), by the words' singular form."""
    words = {w[:-1] if w.endswith("s") and len(w) > 4 else w for w in _TOKEN.findall(question.lower())}
    return {kind for kind, names in CHANGE_KINDS.items() if words & set(names)}


def changes_answer(result: InvestigationResult, question: str, ctx: FollowupContext) -> Reply:
    fired = ctx.fired_at or result.fired_at
    window = asked_window(question)
    kinds = asked_kinds(question)
    if not ctx.changes:  # the data is gone: what the RCA cited is all there is
        cites = [e.cite for e in result.evidence.values() if e.kind == "change"]
        if not cites:
            return "The incident's data holds no change (deploy, config, infra, flag) it could cite.", (), ()
        return "Changes the investigation cited:\n" + "\n".join(_cited_change_lines(result)), *_cited(result, cites)
    since = fired - window if (fired is not None and window is not None) else None
    changes = [
        c
        for c in ctx.changes
        if (since is None or c.time >= since) and (fired is None or c.time <= fired) and (not kinds or c.kind in kinds)
    ]
    span = f"in the {_span(window)} before the alert fired ({_clock(fired)})" if since and fired else "before the alert"
    what = " or ".join(sorted(kinds)) if kinds else "change"
    if not changes:
        return f"No {what} {span}; the incident's data holds {len(ctx.changes)} change(s) in all.", (), ()
    ids = _cite_ids(result)
    changes.sort(key=lambda c: c.time, reverse=True)
    lines = [
        f"{c.kind} {c.id} on {c.service} at {_clock(c.time)}"
        + (f" ({c.version})" if c.version else "")
        + (f": {c.summary}" if c.summary else "")
        + f" [{_ref(ids, f'changes.json:{c.id}')}]"
        for c in changes[:MAX_LINES]
    ]
    head = f"{len(changes)} {what}(s) {span}:"
    return head + "\n" + "\n".join(lines), *_cited(result, [f"changes.json:{c.id}" for c in changes[:MAX_LINES]])


def _cited_change_lines(result: InvestigationResult) -> list[str]:
    """The RCA's sentences about changes, then any cited change no sentence mentions."""
    change_ids = {eid for eid, e in result.evidence.items() if e.kind == "change"}
    claims = [c for c in result.claims if change_ids & set(c.evidence)]
    told = {e for c in claims for e in c.evidence}
    lines = [f"{c.text} [{', '.join(c.evidence)}]" for c in claims]
    return lines + [f"{result.evidence[e].excerpt or result.evidence[e].cite} [{e}]" for e in sorted(change_ids - told)]


def _span(window: timedelta | None) -> str:
    if window is None:
        return "window"
    minutes = int(window.total_seconds() // 60)
    if minutes % 1440 == 0:
        return "day" if minutes == 1440 else f"{minutes // 1440} days"
    if minutes % 60 == 0:
        return "hour" if minutes == 60 else f"{minutes // 60} hours"
    return f"{minutes} minutes"


def alerts_answer(result: InvestigationResult, ctx: FollowupContext) -> Reply:
    ids = _cite_ids(result)
    if ctx.alerts:
        alerts = sorted(ctx.alerts, key=lambda a: a.starts_at)
        lines = [
            f"{a.name} on {a.service} ({a.status}) from {_clock(a.starts_at)}"
            + f" [{_ref(ids, f'alerts.json:{a.fingerprint}')}]"
            for a in alerts[:MAX_LINES]
        ]
        services = sorted({a.service for a in alerts})
        head = f"{len(alerts)} alert(s) on {len(services)} service(s) ({', '.join(services)}):"
        return head + "\n" + "\n".join(lines), *_cited(result, [f"alerts.json:{a.fingerprint}" for a in alerts])
    cited = [(eid, e) for eid, e in result.evidence.items() if e.kind == "alert"]
    if not cited:
        return "", (), ()
    lines = [f"{e.excerpt or e.cite} [{eid}]" for eid, e in cited]
    return "Alerts the investigation cited:\n" + "\n".join(lines), tuple(eid for eid, _ in cited), ()


def time_answer(result: InvestigationResult) -> Reply:
    if result.onset is None and result.fired_at is None:
        return "", (), ()
    parts, evidence = [], []
    if result.fired_at is not None:
        parts.append(f"The first alert fired at {_clock(result.fired_at)}.")
    if result.onset is not None:
        parts.append(f"The incident's signals began around {_clock(result.onset)}.")
        onset_id = _cite_ids(result).get(result.onset_cite or "")
        evidence += [onset_id] if onset_id else []
    return " ".join(parts) + (f" [{', '.join(evidence)}]" if evidence else ""), tuple(evidence), ()
