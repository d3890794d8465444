"""Turn whatever the investigation produced into the three-layer notification.

It never fails for lack of an RCA: a failed investigation still yields the
alert, its event type and the gaps as raw facts (the fallback SLA).
"""

from __future__ import annotations

from typing import Any

from rootward.notify.message import Notification


def _summary(result: dict[str, Any]) -> tuple[str, str]:
    claims = [c.get("text", "") for c in result.get("claims") or [] if c.get("text")]
    if claims:
        source = "llm" if result.get("summary_source") == "llm" else "rule"
        return " ".join(claims[:3]), source
    status = result.get("status", "failed")
    return f"Investigation {status}: no root cause could be established from the evidence.", "template"


def compose_notification(
    result: dict[str, Any],
    *,
    title: str,
    service: str,
    tier: str,
    severity: str,
    investigation_id: str,
    console_url: str = "",
    alerts: list[str] | None = None,
    safe_actions: list[str] | None = None,
    proposals: list[dict[str, Any]] | None = None,
    approval_id: str | None = None,
) -> Notification:
    summary, source = _summary(result)
    facts = [f"alert: {a}" for a in alerts or []]
    facts.append(f"event: {tier} on {service} ({severity}), investigation {result.get('status', 'failed')}")
    for h in (result.get("hypotheses") or [])[:3]:
        facts.append(
            f"{h.get('id')}: {h.get('entity')} {h.get('fault_type')} {h.get('status')} "
            f"({float(h.get('confidence', 0)):.2f})"
        )
    facts += [f"gap: {g}" for g in result.get("gaps") or []]
    evidence = result.get("evidence") or {}
    cited = []
    for claim in (result.get("claims") or [])[:3]:
        for eid in claim.get("evidence") or []:
            cite = (evidence.get(eid) or {}).get("cite")
            if cite and cite not in cited:
                cited.append(cite)
    suggested = []
    for p in proposals or []:
        action = p.get("action") or {}
        suggested.append(
            f"{action.get('verb')} {action.get('target')} {action.get('params') or ''} "
            f"[{p.get('status')}{': ' + str(p.get('reason')) if p.get('reason') else ''}]".strip()
        )
    link = f"{console_url.rstrip('/')}/incidents/{investigation_id}" if console_url else ""
    extra: dict[str, Any] = {"approval_id": approval_id} if approval_id else {}
    return Notification(
        investigation_id=investigation_id,
        title=title,
        tier=tier,
        summary=summary,
        summary_source=source,
        facts=tuple(facts),
        evidence=tuple(cited[:8]),
        executed_actions=tuple(safe_actions or ()),
        suggested_actions=tuple(suggested),
        console_url=link,
        severity=severity,
        extra=extra,
    )
