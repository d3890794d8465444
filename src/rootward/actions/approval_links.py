"""Deciding an approval through a signed link (a Teams card's Approve / Reject button).

The link (notify/approval_links.py) says which request, which decision and
which channel; the person is whoever opened it, signed in to the console or
calling the API with their token, and `decide` applies the same role model
and audit as every other surface, with the link's channel as `via`. Refusals
of the link itself (forged, expired, used before) are 403s with the reason;
a viewer is refused by `decide` (403) without using the link up, so the
approver it was meant for can still use it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session

from rootward.actions.approvals import DecisionOutcome, Via, decide
from rootward.domain.roles import Role
from rootward.notify.approval_links import ApprovalLink, LinkRefused, read
from rootward.store.approval_links import first_use
from rootward.store.audit import append_audit
from rootward.store.audit_refusals import RefusalThrottle
from rootward.store.users import User

LINK_CHANNELS: tuple[Via, ...] = ("teams",)


def check_link(secret: str | None, token: str, *, now: datetime) -> ApprovalLink:
    """The link's claims, or `LinkRefused` saying why it cannot be used."""
    if secret is None:
        raise LinkRefused("approval links are not configured (notify.teams.link_secret)")
    link = read(secret, token, now=now.timestamp())
    if link.channel not in LINK_CHANNELS:
        raise LinkRefused(f"approval links of channel {link.channel!r} are not accepted")
    return link


def decide_by_link(
    session: Session,
    link: ApprovalLink,
    user: User,
    *,
    now: datetime | None = None,
    refusals: RefusalThrottle | None = None,
) -> DecisionOutcome:
    """Record the link's decision by `user`, once; a second use is refused as forbidden."""
    at = now or datetime.now(UTC)
    via: Via = "teams"
    if user.role.at_least(Role.APPROVER) and not first_use(session, link.nonce, link.approval_id, user.name, at):
        reason = "this approval link was already used: each link decides once"
        append_audit(session, "approval.refused", link.approval_id, {"by": user.name, "via": via, "reason": reason})
        return DecisionOutcome(False, "used", reason, "forbidden")
    return decide(session, link.approval_id, user, link.decision, via=via, now=at, refusals=refusals)
