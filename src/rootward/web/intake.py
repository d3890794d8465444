"""Alert webhooks: `POST /api/v1/alerts/alertmanager` and `POST /api/v1/alerts` (docs/intake.md).

The handlers only check the request (token 401, size 413, content type 415,
schema 400), parse it with `ingest.payloads` against the store's own limits,
and hand the admitted alerts to the group-commit writer; they answer 202 with
the alert and group ids once those are stored, and name each rejected alert
(index, field, why) beside them. A body whose every alert is rejected is a
400: the sender must not retry what can never be stored.
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
from sqlalchemy.exc import DataError

from rootward.ingest.admission import Rejection
from rootward.ingest.payloads import AlertBatch, FieldError, PayloadError, read_alertmanager, read_generic
from rootward.runtime.intake import AcceptResult, Submission, store_limits
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


def _error(
    status: int, message: str, fields: list[FieldError] | None = None, *, rejected: list[Rejection] | None = None
) -> Response:
    body: dict[str, Any] = {"error": message}
    if fields:
        body["fields"] = [{"field": f.field, "message": f.message} for f in fields]
    if rejected:
        body["rejected"] = _rejections(rejected)
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


def _rejections(rejected: list[Rejection]) -> list[dict[str, Any]]:
    return [{"index": r.index, "field": r.field, "error": r.message, "status": 400} for r in rejected]


def _accepted(batch: AlertBatch, result: AcceptResult) -> dict[str, Any]:
    body = result.as_json()
    for entry, index in zip(body["alerts"], batch.indexes, strict=True):
        entry["index"] = index
    if batch.rejected:
        body["rejected"] = _rejections(batch.rejected)
    return body


async def _intake(request: Request, source: str, parse: Callable[[bytes, IntakeSettings], AlertBatch]) -> Response:
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
        batch = parse(body, intake)
    except PayloadError as exc:
        return _error(400, f"invalid {source} payload: {exc}", exc.errors)
    return await store_batch(request, source, batch)


async def store_batch(request: Request, source: str, batch: AlertBatch) -> Response:
    """Hand the admitted alerts of a parsed body to the writer; 202 with their ids, or why not."""
    if not batch.alerts:
        fields = [FieldError(r.path, r.message) for r in batch.rejected]
        message = f"invalid {source} payload: every alert was rejected: {PayloadError(fields)}"
        return _error(400, message, fields, rejected=batch.rejected)
    writer: IntakeWriter = request.app.state.intake_writer
    try:
        result = await writer.submit(Submission(source, batch.alerts))
    except WriterOverloaded as exc:
        return _error(503, f"intake is overloaded ({exc}); retry later")
    except DataError as exc:  # a value the edge did not catch: retrying cannot help, so no 503
        log.error("the database refused %d alerts: %s", len(batch.alerts), exc.orig)
        return _error(400, f"alerts could not be stored: the database refused a value ({exc.orig})")
    except Exception as exc:
        log.error("intake could not store %d alerts: %s", len(batch.alerts), exc)
        return _error(503, "alerts could not be stored; retry later")
    return json_response(202, _accepted(batch, result))


@router.post("/api/v1/alerts/alertmanager", status_code=202)
async def alertmanager_webhook(request: Request) -> Response:
    """Alertmanager webhook (payload version 4)."""
    return await _intake(
        request,
        "alertmanager",
        lambda body, s: read_alertmanager(
            body, datetime.now(UTC), limits=store_limits(), max_alerts=s.max_alerts_per_request
        ),
    )


@router.post("/api/v1/alerts", status_code=202)
async def generic_alerts(request: Request) -> Response:
    """One generic alert object, or a list of them (docs/intake.md)."""
    return await _intake(
        request,
        "generic",
        lambda body, s: read_generic(
            body, datetime.now(UTC), limits=store_limits(), max_alerts=s.max_alerts_per_request
        ),
    )
