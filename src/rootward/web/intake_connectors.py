"""Alert webhooks of other alerting systems: PagerDuty, Opsgenie, Grafana Alerting, Keep, CloudEvents.

One route per connector (`ingest/<name>.py` parses), each on only while its
`intake.<name>` section is set (404 otherwise). PagerDuty deliveries are
checked by their signature (401 unsigned or badly signed); the others by
the intake token, like `/api/v1/alerts`. A delivery that carries nothing to
store (an acknowledgement, a ping, a filtered event) is answered 202 with
no alerts, so the sender does not retry it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from rootward.ingest.cloudevents import MEDIA_TYPES, read_cloudevents
from rootward.ingest.grafana import read_grafana
from rootward.ingest.keep import read_keep
from rootward.ingest.opsgenie import read_opsgenie
from rootward.ingest.pagerduty import read_pagerduty
from rootward.ingest.payloads import AlertBatch, PayloadError
from rootward.ingest.signatures import any_signature_matches
from rootward.runtime.intake import store_limits
from rootward.settings import IntakeSettings
from rootward.web.intake import _error, _read_body, _unauthorized, json_response, store_batch

router = APIRouter(tags=["intake"])
Parse = Callable[[bytes, IntakeSettings, Any], AlertBatch]


def _section(request: Request, name: str) -> Any:
    return getattr(request.app.state.settings.intake, name)


async def _connector(
    request: Request,
    name: str,
    parse: Parse,
    *,
    media_types: tuple[str, ...] = ("application/json",),
    signed: Callable[[bytes, Any], bool] | None = None,
) -> Response:
    section = _section(request, name)
    if section is None:
        return _error(404, f"the {name} intake is off: set intake.{name} (docs/integrations.md)")
    if signed is None and (denied := _unauthorized(request)) is not None:
        return denied
    intake: IntakeSettings = request.app.state.settings.intake
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type not in media_types:
        return _error(415, f"content type must be {' or '.join(media_types)}, got '{media_type or 'none'}'")
    body = await _read_body(request, intake.max_body_bytes)
    if isinstance(body, Response):
        return body
    if signed is not None and not signed(body, section):
        return _error(401, f"missing or invalid {name} signature")
    try:
        batch = parse(body, intake, section)
    except PayloadError as exc:
        return _error(400, f"invalid {name} payload: {exc}", exc.errors)
    if not batch.alerts and not batch.rejected:
        return json_response(202, {"alerts": [], "groups": [], "ignored": "nothing to store in this delivery"})
    return await store_batch(request, name, batch)


def _now() -> datetime:
    return datetime.now(UTC)


@router.post("/api/v1/alerts/pagerduty", status_code=202)
async def pagerduty_webhook(request: Request) -> Response:
    """PagerDuty v3 webhook subscription (signed with `X-PagerDuty-Signature`)."""
    header = request.headers.get("x-pagerduty-signature")

    def signed(body: bytes, section: Any) -> bool:
        return any_signature_matches(body, header, [s.get_secret_value() for s in section.signing_secrets])

    return await _connector(
        request,
        "pagerduty",
        lambda body, _intake, section: read_pagerduty(body, _now(), section, limits=store_limits()),
        signed=signed,
    )


@router.post("/api/v1/alerts/opsgenie", status_code=202)
async def opsgenie_webhook(request: Request) -> Response:
    """Opsgenie Webhook integration (alert actions); the intake token as a custom header."""
    return await _connector(
        request, "opsgenie", lambda body, _intake, section: read_opsgenie(body, _now(), section, limits=store_limits())
    )


@router.post("/api/v1/alerts/grafana", status_code=202)
async def grafana_webhook(request: Request) -> Response:
    """Grafana Alerting webhook contact point (unified alerting payload)."""
    return await _connector(
        request,
        "grafana",
        lambda body, intake, section: read_grafana(
            body, _now(), section, limits=store_limits(), max_alerts=intake.max_alerts_per_request
        ),
    )


@router.post("/api/v1/alerts/keep", status_code=202)
async def keep_webhook(request: Request) -> Response:
    """Keep's webhook provider: one Keep alert or a list of them."""
    return await _connector(
        request,
        "keep",
        lambda body, intake, section: read_keep(
            body, _now(), section, limits=store_limits(), max_alerts=intake.max_alerts_per_request
        ),
    )


@router.post("/api/v1/alerts/cloudevents", status_code=202)
async def cloudevents_webhook(request: Request) -> Response:
    """CloudEvents 1.0 over HTTP: structured, batched or binary mode; `data` is a generic alert."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    headers = dict(request.headers)
    return await _connector(
        request,
        "cloudevents",
        lambda body, intake, section: read_cloudevents(
            body, media_type, headers, _now(), section, limits=store_limits(), max_alerts=intake.max_alerts_per_request
        ),
        media_types=MEDIA_TYPES,
    )
