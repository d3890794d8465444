"""Alert webhooks: `POST /api/v1/alerts/alertmanager` and `POST /api/v1/alerts` (docs/intake.md).

The handlers only check the request (token 401, size 413, content type 415,
schema 400), parse it with `ingest.payloads`, and hand the alerts to the
group-commit writer; they answer 202 with the alert and group ids once the
alerts are stored.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from rootward.domain.alert import Alert
from rootward.ingest.payloads import FieldError, PayloadError, parse_alertmanager, parse_generic
from rootward.runtime.intake import Submission
from rootward.runtime.intake_writer import IntakeWriter, WriterOverloaded
from rootward.settings import IntakeSettings, Settings

log = logging.getLogger(__name__)
router = APIRouter(tags=["intake"])
TOKEN_FILE = "intake-token"


def resolve_intake_token(settings: Settings) -> str | None:
    """The bearer token webhooks must send; None when `intake.auth: none`.

    Without a configured token, one is generated once and kept (mode 0600) in
    `<data_dir>/intake-token`, so a fresh install is never open by default.
    """
    if settings.intake.auth == "none":
        return None
    if settings.intake.token is not None:
        return settings.intake.token.get_secret_value()
    path = Path(settings.data_dir) / TOKEN_FILE
    if path.is_file():
        return path.read_text(encoding="utf-8").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    path.write_text(token + "\n", encoding="utf-8")
    path.chmod(0o600)
    log.warning("generated an intake token in %s (set intake.token to choose one)", path)
    return token


def json_response(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json", headers=headers)


def _error(status: int, message: str, fields: list[FieldError] | None = None) -> Response:
    body: dict[str, Any] = {"error": message}
    if fields:
        body["fields"] = [{"field": f.field, "message": f.message} for f in fields]
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return json_response(status, body, headers)


def _unauthorized(request: Request) -> Response | None:
    expected: str | None = request.app.state.intake_token
    if expected is None:
        return None
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if not header:
        return _error(401, "missing bearer token: send 'Authorization: Bearer <intake.token>'")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected.encode()):
        return _error(401, "invalid bearer token")
    return None


async def _read_body(request: Request, limit: int) -> bytes | Response:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return _error(413, f"body of {declared} bytes is over intake.max_body_bytes ({limit})")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return _error(413, f"body is over intake.max_body_bytes ({limit})")
        chunks.append(chunk)
    return b"".join(chunks)


async def _intake(request: Request, source: str, parse: Callable[[bytes, IntakeSettings], list[Alert]]) -> Response:
    denied = _unauthorized(request)
    if denied is not None:
        return denied
    intake: IntakeSettings = request.app.state.settings.intake
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        return _error(415, f"content type must be application/json, got '{media_type or 'none'}'")
    body = await _read_body(request, intake.max_body_bytes)
    if isinstance(body, Response):
        return body
    try:
        alerts = parse(body, intake)
    except PayloadError as exc:
        return _error(400, f"invalid {source} payload: {exc}", exc.errors)
    writer: IntakeWriter = request.app.state.intake_writer
    try:
        result = await writer.submit(Submission(source, alerts))
    except WriterOverloaded as exc:
        return _error(503, f"intake is overloaded ({exc}); retry later")
    except Exception as exc:
        log.error("intake could not store %d alerts: %s", len(alerts), exc)
        return _error(503, "alerts could not be stored; retry later")
    return json_response(202, result.as_json())


@router.post("/api/v1/alerts/alertmanager", status_code=202)
async def alertmanager_webhook(request: Request) -> Response:
    """Alertmanager webhook (payload version 4)."""
    return await _intake(
        request, "alertmanager", lambda body, s: parse_alertmanager(body, max_alerts=s.max_alerts_per_request)
    )


@router.post("/api/v1/alerts", status_code=202)
async def generic_alerts(request: Request) -> Response:
    """One generic alert object, or a list of them (docs/intake.md)."""
    return await _intake(
        request,
        "generic",
        lambda body, s: parse_generic(body, datetime.now(UTC), max_alerts=s.max_alerts_per_request),
    )
