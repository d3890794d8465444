"""Turn whatever the investigation produced into the three-layer notification.

It never fails for lack of an RCA: a failed investigation still yields the
alert, its event type and the gaps as raw facts (the fallback SLA). The
summary is labelled with who wrote it, as the engine recorded it
(`InvestigationResult.summary_source`): the model, the rule templates, or a
template of the raw facts when no claim could be made. A `no_fault` verdict
is delivered as tier L0 with its reason leading the summary ("No current
fault: ...") and no action to approve.
"""

from __future__ import annotations

from typing import Any

from rootward.domain.headline import headline, hypothesis_label
from rootward.domain.investigation import InvestigationResult, SummarySource
from rootward.domain.proposal_state import ProposalState, proposal_states
from rootward.notify.message import Notification

SUMMARY_CLAIMS = 3
MAX_EVIDENCE = 8
MAX_RULED_OUT = 3
# A no-fault verdict needs no one to act: it goes out as the lowest tier, with nothing to approve.
NO_FAULT_TIER = "L0"


def _summary(result: InvestigationResult) -> tuple[str, SummarySource]:
    claims = [c.text for c in result.claims if c.text]
    if result.status == "no_fault" and claims and not claims[0].lower().startswith("no current fault"):
        claims[0] = f"No current fault: {claims[0]}"
    if claims:
        source: SummarySource = result.summary_source if result.summary_source != "template" else "rule"
        return " ".join(claims[:SUMMARY_CLAIMS]), source
    return f"Investigation {result.status}: no root cause could be established from the evidence.", "template"


def _facts(result: InvestigationResult, *, tier: str, service: str, severity: str, alerts: list[str]) -> list[str]:
    facts = [f"alert: {a}" for a in alerts]
    facts.append(f"event: {tier} on {service} ({severity}), investigation {result.status}")
    for i, h in enumerate(result.hypotheses[:3]):  # alternatives labelled as weaker, never as the cause
        facts.append(f"{h.id}: {h.entity} {h.fault_type} {hypothesis_label(result, i)} ({h.confidence:.2f})")
    for r in result.ruled_out[:MAX_RULED_OUT]:
        cites = ", ".join(result.cites_of(r.evidence)[:2])
        facts.append(f"ruled out: {r.entity} {r.fault_type}: {r.reason}" + (f" [{cites}]" if cites else ""))
    return facts + [f"gap: {g}" for g in result.gaps]


def _cited(result: InvestigationResult) -> list[str]:
    """The cites behind the summary's claims, first seen first."""
    cited: list[str] = []
    for claim in result.claims[:SUMMARY_CLAIMS]:
        for cite in result.cites_of(claim.evidence):
            if cite not in cited:
                cited.append(cite)
    return cited[:MAX_EVIDENCE]


def compose_notification(
    result: InvestigationResult,
    *,
    title: str,
    service: str,
    tier: str,
    severity: str,
    investigation_id: str,
    console_url: str = "",
    alerts: list[str] | None = None,
    safe_actions: list[str] | None = None,
    approval_id: str | None = None,
    proposals: list[ProposalState] | None = None,
) -> Notification:
    """`proposals`: the result's proposals with their approval requests (their one status); by default unrequested."""
    summary, source = _summary(result)
    no_fault = result.status == "no_fault"
    if no_fault:
        tier = NO_FAULT_TIER
    states = proposal_states(result.proposals, [], frozenset()) if proposals is None else proposals
    link = f"{console_url.rstrip('/')}/incidents/{investigation_id}" if console_url else ""
    extra: dict[str, Any] = {"approval_id": approval_id} if approval_id and not no_fault else {}
    return Notification(
        investigation_id=investigation_id,
        title=title,
        tier=tier,
        summary=summary,
        summary_source=source,
        facts=tuple(_facts(result, tier=tier, service=service, severity=severity, alerts=alerts or [])),
        evidence=tuple(_cited(result)),
        executed_actions=tuple(safe_actions or ()),
        suggested_actions=() if no_fault else tuple(f"{p.text} ({p.words})" for p in states),
        console_url=link,
        severity=severity,
        extra=extra,
        headline=headline(result, states[0] if states and not no_fault else None),
    )
