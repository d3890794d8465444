"""Signed approval links: an Approve or Reject button that is a URL, for channels that cannot call back.

A Teams incoming webhook posts a card and hears nothing back, so its buttons
are `Action.OpenUrl` links to rootward. Each link is a token
`<claims>.<signature>`: the claims (base64url JSON) name the approval
request, the decision, the channel, the expiry and a random nonce; the
signature is HMAC-SHA256 over them with `notify.teams.link_secret`.

Reading a link checks the signature (a changed claim is a forged link) and
the expiry; it does not decide anything. Who decides is whoever opens it,
signed in to rootward, and the approval's role model says whether they may
(actions/approval_links.py); the nonce makes the link single-use
(store/approval_links.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Literal

LinkDecision = Literal["approve", "reject"]
_CONTEXT = b"rootward-approval-link.v1."
LINK_PATH = "/links/approvals/"


class LinkRefused(Exception):
    """A link that is malformed, not signed with this secret, or expired; the message says which."""


@dataclass(frozen=True)
class ApprovalLink:
    approval_id: str
    decision: LinkDecision
    channel: str
    expires_at: int  # unix seconds
    nonce: str


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(secret: str, claims: str) -> str:
    return _b64(hmac.new(secret.encode(), _CONTEXT + claims.encode(), hashlib.sha256).digest())


def mint(secret: str, approval_id: str, decision: LinkDecision, *, channel: str, now: float, ttl_s: int) -> str:
    body = {"a": approval_id, "d": decision, "c": channel, "e": int(now) + ttl_s, "n": secrets.token_urlsafe(16)}
    claims = _b64(json.dumps(body, separators=(",", ":"), sort_keys=True).encode())
    return f"{claims}.{_signature(secret, claims)}"


def link_url(base_url: str, token: str) -> str:
    return f"{base_url.rstrip('/')}{LINK_PATH}{token}"


def read(secret: str, token: str, *, now: float) -> ApprovalLink:
    """The link's claims, if its signature is this rootward's and it has not expired."""
    claims, dot, signature = token.partition(".")
    if not dot or not claims or not signature or not token.isascii():
        raise LinkRefused("malformed approval link: expected <claims>.<signature>")
    if not hmac.compare_digest(signature, _signature(secret, claims)):
        raise LinkRefused("invalid signature: the approval link was altered or not issued by this rootward")
    try:
        body = json.loads(_unb64(claims))
        link = ApprovalLink(str(body["a"]), body["d"], str(body["c"]), int(body["e"]), str(body["n"]))
    except (ValueError, KeyError, TypeError):
        raise LinkRefused("malformed approval link claims") from None
    if link.decision not in ("approve", "reject"):
        raise LinkRefused(f"unknown decision {link.decision!r} in the approval link")
    if link.expires_at <= now:
        raise LinkRefused(f"the approval link expired {int(now - link.expires_at)} s ago: decide in the console")
    return link
