"""Webhook credentials of the alerting systems: HMAC signatures, shared tokens, basic auth, in constant time.

PagerDuty (v3 webhooks) sends `X-PagerDuty-Signature: v1=<hex>[,v1=<hex>...]`
(one per active secret while a secret is rotated); the hex is HMAC-SHA256 of
the raw body with the subscription's secret. Grafana Alerting's webhook
contact point, with HMAC signing on, sends the hex HMAC-SHA256 of the body
(of `<unix timestamp>:<body>` when a timestamp header is configured) in
`X-Grafana-Alerting-Signature` (the header name is configurable). Opsgenie
and Keep send what they are configured to: a custom header holding a shared
token or API key, or basic auth.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class BasicAuthSettings(BaseModel):
    """HTTP basic auth credentials a sender is configured with."""

    model_config = ConfigDict(extra="forbid")

    username: str = Field(min_length=1)
    password: SecretStr


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


def grafana_signature_matches(body: bytes, header: str | None, secret: str, timestamp: str | None = None) -> bool:
    """Grafana's HMAC-SHA256 hex of the body, or of `<timestamp>:<body>` when a timestamp header is set."""
    if not header:
        return False
    signed = f"{timestamp}:".encode() + body if timestamp is not None else body
    return hmac.compare_digest(header.strip().lower(), hmac_hex(secret, signed))


def same_secret(given: str | None, expected: str) -> bool:
    """A shared token or API key as sent in a header, compared in constant time."""
    return given is not None and hmac.compare_digest(given.strip().encode(), expected.encode())


def basic_auth_matches(header: str | None, username: str, password: str) -> bool:
    """`Authorization: Basic base64(user:password)` for these credentials (both compared in constant time)."""
    scheme, _, encoded = (header or "").partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        given_user, colon, given_password = base64.b64decode(encoded.strip(), validate=True).decode().partition(":")
    except (ValueError, UnicodeDecodeError):
        return False
    user_ok = hmac.compare_digest(given_user.encode(), username.encode())
    return bool(colon) and user_ok & hmac.compare_digest(given_password.encode(), password.encode())
