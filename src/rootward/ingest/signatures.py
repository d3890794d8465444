"""HMAC-SHA256 signatures of webhook bodies, compared in constant time.

PagerDuty (v3 webhooks) sends `X-PagerDuty-Signature: v1=<hex>[,v1=<hex>...]`
(one per active secret while a secret is rotated); the hex is HMAC-SHA256 of
the raw body with the subscription's secret.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable


def hmac_hex(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def any_signature_matches(body: bytes, header: str | None, secrets: Iterable[str], *, scheme: str = "v1") -> bool:
    """True when one `scheme=<hex>` of the comma-separated header is the body's HMAC under one of the secrets."""
    if not header:
        return False
    given = [part.strip().partition("=") for part in header.split(",")]
    offered = [value.strip().lower() for name, eq, value in given if eq and name.strip() == scheme]
    expected = [hmac_hex(secret, body) for secret in secrets]
    return any(hmac.compare_digest(o, e) for o in offered for e in expected)
