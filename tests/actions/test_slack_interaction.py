from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import urlencode

import pytest

from rootward.actions.slack_interaction import SlackRequestRefused, SlackVerifier, parse_click

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
NOW = 1_773_498_600


def _signed(body: bytes, ts: int = NOW, secret: str = SECRET) -> tuple[str, str]:
    mac = hmac.new(secret.encode(), f"v0:{ts}:".encode() + body, hashlib.sha256).hexdigest()
    return str(ts), f"v0={mac}"


def _body(action: str = "approve", value: str = "appr-1", user: str = "U42") -> bytes:
    payload = {"type": "block_actions", "user": {"id": user}, "actions": [{"action_id": action, "value": value}]}
    return urlencode({"payload": json.dumps(payload)}).encode()


def test_valid_signature_passes_and_click_is_parsed() -> None:
    body = _body()
    SlackVerifier(SECRET, now=lambda: NOW + 3).verify(body, *_signed(body))
    click = parse_click(body)
    assert (click.slack_user_id, click.decision, click.approval_id) == ("U42", "approve", "appr-1")


def test_unsigned_request_is_refused() -> None:
    with pytest.raises(SlackRequestRefused, match="unsigned"):
        SlackVerifier(SECRET, now=lambda: NOW).verify(_body(), None, None)


def test_wrong_secret_is_refused() -> None:
    body = _body()
    with pytest.raises(SlackRequestRefused, match="bad signature"):
        SlackVerifier(SECRET, now=lambda: NOW).verify(body, *_signed(body, secret="other"))


def test_tampered_body_is_refused() -> None:
    ts, sig = _signed(_body("reject"))
    with pytest.raises(SlackRequestRefused, match="bad signature"):
        SlackVerifier(SECRET, now=lambda: NOW).verify(_body("approve"), ts, sig)


def test_stale_request_is_refused() -> None:
    body = _body()
    with pytest.raises(SlackRequestRefused, match="stale"):
        SlackVerifier(SECRET, now=lambda: NOW + 301).verify(body, *_signed(body))


def test_replayed_request_is_refused() -> None:
    body = _body()
    verifier = SlackVerifier(SECRET, now=lambda: NOW)
    verifier.verify(body, *_signed(body))
    with pytest.raises(SlackRequestRefused, match="replayed"):
        verifier.verify(body, *_signed(body))


def test_unknown_button_is_refused() -> None:
    with pytest.raises(SlackRequestRefused, match="unknown action"):
        parse_click(_body(action="delete_everything"))
