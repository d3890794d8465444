"""Who may post to a connector's endpoint: each alerting system's own credential, checked its documented way.

A connector section that configures its system's credential (PagerDuty's
signing secrets, Grafana's HMAC secret or basic auth, Opsgenie's shared
token header or basic auth, Keep's API key) is checked by it alone; one
that configures none falls back to the intake token (`None` here), as
before. A refusal names what was missing or wrong, never the expected
value. Grafana with a timestamp header is the one sender whose deliveries
can be told apart from a replay: the timestamp is signed, so an old one is
refused, and the signature is a replay key the caller remembers once the
delivery is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import SecretStr

from rootward.ingest.grafana import GrafanaSettings
from rootward.ingest.keep import KeepSettings
from rootward.ingest.opsgenie import OpsgenieSettings
from rootward.ingest.pagerduty import PagerDutySettings
from rootward.ingest.signatures import (
    BasicAuthSettings,
    any_signature_matches,
    basic_auth_matches,
    grafana_signature_matches,
    same_secret,
)


@dataclass(frozen=True)
class Checked:
    refusal: str | None = None  # why the delivery gets 401; None: it is authentic
    replay_key: str | None = None  # remembered once stored: a second delivery carrying it is a replay
    keep_s: float = 0.0  # how long the replay key must be remembered


OK = Checked()


def _basic(headers: Mapping[str, str], auth: BasicAuthSettings, system: str) -> Checked:
    header = headers.get("authorization")
    if not header:
        return Checked(f"missing {system} basic auth: send 'Authorization: Basic …' (intake.{system}.basic_auth)")
    if not basic_auth_matches(header, auth.username, auth.password.get_secret_value()):
        return Checked(f"invalid {system} basic auth credentials")
    return OK


def _header_secret(headers: Mapping[str, str], header: str, secret: SecretStr, what: str) -> Checked:
    given = headers.get(header.lower())
    if given is None:
        return Checked(f"missing {what} header ({header})")
    if not same_secret(given, secret.get_secret_value()):
        return Checked(f"invalid {what} ({header})")
    return OK


def check_pagerduty(section: PagerDutySettings, headers: Mapping[str, str], body: bytes) -> Checked:
    header = headers.get("x-pagerduty-signature")
    if not header:
        return Checked("missing pagerduty signature (X-PagerDuty-Signature)")
    if not any_signature_matches(body, header, [s.get_secret_value() for s in section.signing_secrets]):
        return Checked("invalid pagerduty signature (X-PagerDuty-Signature)")
    return OK


def check_grafana(section: GrafanaSettings, headers: Mapping[str, str], body: bytes, now: float) -> Checked | None:
    if section.basic_auth is not None and section.hmac is None:
        return _basic(headers, section.basic_auth, "grafana")
    signing = section.hmac
    if signing is None:
        return None
    signature = headers.get(signing.header.lower())
    if not signature:
        return Checked(f"missing grafana signature ({signing.header})")
    timestamp = headers.get(signing.timestamp_header.lower()) if signing.timestamp_header else None
    if signing.timestamp_header:
        if not timestamp or not timestamp.strip().isdigit():
            return Checked(f"missing or malformed grafana timestamp ({signing.timestamp_header})")
        if abs(now - int(timestamp)) > signing.max_age_s:
            return Checked(f"stale grafana delivery: timestamp over {signing.max_age_s:.0f} s from now (a replay?)")
    if not grafana_signature_matches(body, signature, signing.secret.get_secret_value(), timestamp):
        return Checked(f"invalid grafana signature ({signing.header})")
    if section.basic_auth is not None and (refused := _basic(headers, section.basic_auth, "grafana")).refusal:
        return refused
    if timestamp is None:
        return OK
    return Checked(replay_key=f"grafana:{signature.strip().lower()}", keep_s=2 * signing.max_age_s)


def check_opsgenie(section: OpsgenieSettings, headers: Mapping[str, str]) -> Checked | None:
    if section.token is not None:
        return _header_secret(headers, section.token_header, section.token, "opsgenie token")
    return _basic(headers, section.basic_auth, "opsgenie") if section.basic_auth is not None else None


def check_keep(section: KeepSettings, headers: Mapping[str, str]) -> Checked | None:
    if section.api_key is None:
        return None
    return _header_secret(headers, section.api_key_header, section.api_key, "keep API key")
