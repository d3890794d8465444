"""What an on-call engineer receives, in three layers that always keep the raw facts.

1. summary: the model's or the rule engine's one-paragraph RCA;
2. raw facts: the alert, the event type, the cited evidence;
3. actions: safe actions already executed and remediation awaiting approval;
plus the investigation id and a console link. Pure data: channels render it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rootward.domain.headline import Headline
from rootward.domain.investigation import SummarySource


@dataclass(frozen=True)
class Notification:
    investigation_id: str
    title: str
    tier: str
    summary: str
    summary_source: SummarySource  # who wrote the summary: "llm" | "rule" | "template"
    facts: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()  # cites
    executed_actions: tuple[str, ...] = ()
    suggested_actions: tuple[str, ...] = ()
    console_url: str = ""
    severity: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    headline: Headline | None = None  # the card every surface leads with (domain/headline.py)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["headline"] = self.headline.model_dump(mode="json") if self.headline is not None else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Notification:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for key in ("facts", "evidence", "executed_actions", "suggested_actions"):
            if key in known:
                known[key] = tuple(known[key])
        if known.get("headline") is not None:
            known["headline"] = Headline.model_validate(known["headline"])
        return cls(**known)


def plain_text(n: Notification) -> str:
    lines = [f"[{n.tier}{' ' + n.severity if n.severity else ''}] {n.title}", ""]
    if n.headline is not None:
        lines += [*n.headline.lines(), ""]
    lines.append(n.summary)
    if n.summary_source != "template":
        lines.append(f"(summary by {n.summary_source})")
    if n.facts:
        lines += ["", "Raw facts:"] + [f"- {f}" for f in n.facts]
    if n.evidence:
        lines += ["", "Evidence:"] + [f"- {c}" for c in n.evidence]
    if n.executed_actions:
        lines += ["", "Safe actions executed:"] + [f"- {a}" for a in n.executed_actions]
    if n.suggested_actions:
        lines += ["", "Awaiting approval:"] + [f"- {a}" for a in n.suggested_actions]
    ref = f"Investigation {n.investigation_id}"
    lines += ["", f"{ref}: {n.console_url}" if n.console_url else ref]
    return "\n".join(lines)


def slack_blocks(n: Notification) -> list[dict[str, Any]]:
    """Block Kit: header, summary, facts, actions, context with the id and link."""

    def section(text: str) -> dict[str, Any]:
        return {"type": "section", "text": {"type": "mrkdwn", "text": text[:2900]}}

    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": f"[{n.tier}] {n.title}"[:150]}},
    ]
    if n.headline is not None:
        blocks.append(section(headline_mrkdwn(n.headline)))
        if n.extra.get("approval_id"):  # the one suggested action's buttons, right under it
            blocks.append(approval_buttons(str(n.extra["approval_id"])))
    blocks.append(section(f"{n.summary}\n_summary by {n.summary_source}_"))
    if n.facts:
        blocks.append(section("*Raw facts*\n" + "\n".join(f"• {f}" for f in n.facts)))
    if n.evidence:
        blocks.append(section("*Evidence*\n" + "\n".join(f"• `{c}`" for c in n.evidence)))
    if n.executed_actions:
        blocks.append(section("*Safe actions executed*\n" + "\n".join(f"• {a}" for a in n.executed_actions)))
    if n.suggested_actions:
        blocks.append(section("*Awaiting approval*\n" + "\n".join(f"• {a}" for a in n.suggested_actions)))
    if n.extra.get("approval_id") and n.headline is None:
        blocks.append(approval_buttons(str(n.extra["approval_id"])))
    link = f" · <{n.console_url}|open in console>" if n.console_url else ""
    blocks.append(
        {"type": "context", "elements": [{"type": "mrkdwn", "text": f"investigation `{n.investigation_id}`{link}"}]}
    )
    return blocks


def headline_mrkdwn(card: Headline) -> str:
    """The headline card in Slack's mrkdwn: verdict and cause in bold, then when, how sure, what to do."""
    first, *rest = card.lines()
    return "\n".join([f"*{first}*", *rest])


def approval_buttons(approval_id: str) -> dict[str, Any]:
    """Approve/Reject buttons; Slack posts the click to /api/v1/slack/interactions."""
    return {
        "type": "actions",
        "block_id": f"approval:{approval_id}",
        "elements": [
            {
                "type": "button",
                "action_id": "approve",
                "style": "primary",
                "value": approval_id,
                "text": {"type": "plain_text", "text": "Approve"},
            },
            {
                "type": "button",
                "action_id": "reject",
                "style": "danger",
                "value": approval_id,
                "text": {"type": "plain_text", "text": "Reject"},
            },
        ],
    }
