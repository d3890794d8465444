"""Alert webhooks of other alerting systems: PagerDuty, Opsgenie, Grafana Alerting, Keep, CloudEvents.

One route per connector (`ingest/<name>.py` parses), each on only while its
`intake.<name>` section is set (404 otherwise). Each delivery is checked
by its system's own credential when the section configures one (PagerDuty
and Grafana signatures, Opsgenie's token header or basic auth, Keep's API
key: `ingest/webhook_auth.py`), else by the intake token like
`/api/v1/alerts`; 401 names what was wrong. A timestamped Grafana delivery
is remembered once stored, so a replay of it is a 401 too. A delivery that carries nothing to
store (an acknowledgement, a ping, a filtered event) is answered 202 with
no alerts, so the sender does not retry it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from rootward.ingest.cloudevents import MEDIA_TYPES, read_cloudevents
from rootward.ingest.grafana import read_grafana
from rootward.ingest.keep import read_keep
from rootward.ingest.opsgenie import read_opsgenie
from rootward.ingest.pagerduty import read_pagerduty
from rootward.ingest.payloads import AlertBatch, PayloadError
from rootward.ingest.webhook_auth import Checked, check_grafana, check_keep, check_opsgenie, check_pagerduty
from rootward.runtime.intake import store_limits
from rootward.settings import IntakeSettings
from rootward.store.slack_replays import first_sighting, seen
from rootward.web.intake import _error, _read_body, _unauthorized, json_response, store_batch

router = APIRouter(tags=["intake"])
Parse = Callable[[bytes, IntakeSettings, Any], AlertBatch]
Check = Callable[[Any, Mapping[str, str], bytes], Checked | None]  # None: the section has no credential of its own


def _section(request: Request, name: str) -> Any:
    return getattr(request.app.state.settings.intake, name)


def _replayed(request: Request, checked: Checked) -> bool:
    if checked.replay_key is None:
        return False
    since = datetime.now(UTC) - timedelta(seconds=checked.keep_s)
    with request.app.state.sessions() as session:
        return seen(session, checked.replay_key, since)


def _remember(request: Request, checked: Checked) -> None:
    if checked.replay_key is not None:
        with request.app.state.sessions() as session, session.begin():
            first_sighting(session, checked.replay_key, datetime.now(UTC), timedelta(seconds=checked.keep_s))


async def _connector(
    request: Request,
    name: str,
    parse: Parse,
    *,
    media_types: tuple[str, ...] = ("application/json",),
    check: Check | None = None,
) -> Response:
    section = _section(request, name)
    if section is None:
        return _error(404, f"the {name} intake is off: set intake.{name} (docs/integrations.md)")
    intake: IntakeSettings = request.app.state.settings.intake
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type not in media_types:
        return _error(415, f"content type must be {' or '.join(media_types)}, got '{media_type or 'none'}'")
    body = await _read_body(request, intake.max_body_bytes)
    if isinstance(body, Response):
        return body
    checked = check(section, request.headers, body) if check is not None else None
    if checked is None and (denied := _unauthorized(request)) is not None:
        return denied
    if checked is not None and checked.refusal is not None:
        return _error(401, checked.refusal)
    if checked is not None and _replayed(request, checked):
        return _error(401, f"replayed {name} delivery: this signed request was accepted before")
    try:
        batch = parse(body, intake, section)
    except PayloadError as exc:
        return _error(400, f"invalid {name} payload: {exc}", exc.errors)
    if not batch.alerts and not batch.rejected:
        response = json_response(202, {"alerts": [], "groups": [], "ignored": "nothing to store in this delivery"})
    else:
        response = await store_batch(request, name, batch)
    if checked is not None and response.status_code < 300:
        _remember(request, checked)
    return response


def _now() -> datetime:
    return datetime.now(UTC)


@router.post("/api/v1/alerts/pagerduty", status_code=202)
async def pagerduty_webhook(request: Request) -> Response:
    """PagerDuty v3 webhook subscription (signed with `X-PagerDuty-Signature`)."""
    return await _connector(
        request,
        "pagerduty",
        lambda body, _intake, section: read_pagerduty(body, _now(), section, limits=store_limits()),
        check=check_pagerduty,
    )


@router.post("/api/v1/alerts/opsgenie", status_code=202)
async def opsgenie_webhook(request: Request) -> Response:
    """Opsgenie Webhook integration (alert actions): its token header or basic auth, else the intake token."""
    return await _connector(
        request,
        "opsgenie",
        lambda body, _intake, section: read_opsgenie(body, _now(), section, limits=store_limits()),
        check=lambda section, headers, _body: check_opsgenie(section, headers),
    )


@router.post("/api/v1/alerts/grafana", status_code=202)
async def grafana_webhook(request: Request) -> Response:
    """Grafana Alerting webhook contact point: its HMAC signature or basic auth, else the intake token."""
    return await _connector(
        request,
        "grafana",
        lambda body, intake, section: read_grafana(
            body, _now(), section, limits=store_limits(), max_alerts=intake.max_alerts_per_request
        ),
        check=lambda section, headers, body: check_grafana(section, headers, body, time.time()),
    )


@router.post("/api/v1/alerts/keep", status_code=202)
async def keep_webhook(request: Request) -> Response:
    """Keep's webhook provider: one Keep alert or a list of them; its API key header, else the intake token."""
    return await _connector(
        request,
        "keep",
        lambda body, intake, section: read_keep(
            body, _now(), section, limits=store_limits(), max_alerts=intake.max_alerts_per_request
        ),
        check=lambda section, headers, _body: check_keep(section, headers),
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
