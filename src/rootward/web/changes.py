"""Change log for CI/CD: `POST /api/v1/changes` records a deploy or config change, `GET` lists them.

Same bearer token as the alert webhooks (`intake.token`). A bad payload gets
400 naming each field; a repeated id gets 409, so a CI job that retries a
request which had in fact succeeded learns so instead of recording twice.
Lengths are the `changes` table's own (a longer value is a 400 on every
backend, not a 500 on PostgreSQL only), and NUL characters, which
PostgreSQL text cannot hold, are removed from every field before checking.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.concurrency import run_in_threadpool

from rootward.domain.telemetry import Change
from rootward.ingest.payloads import FieldError
from rootward.store.changes import ChangeRow, DuplicateChange, changes_between, record_change
from rootward.store.text_limits import column_length, without_nul
from rootward.web.intake import _error, _read_body, _unauthorized, json_response

router = APIRouter(tags=["changes"])
DEFAULT_LOOKBACK = timedelta(hours=72)


class ChangeIn(BaseModel):
    """One change as CI/CD sends it; `time` defaults to when rootward receives it."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(
        default=None,
        min_length=1,
        max_length=column_length(ChangeRow.id),
        pattern=r"^[A-Za-z0-9._:/#@-]+$",
        description="Your id for the change (e.g. the CI run); empty: rootward makes one.",
    )
    kind: Literal["deploy", "config", "infra", "feature_flag"]
    service: str = Field(min_length=1, max_length=column_length(ChangeRow.service))
    time: AwareDatetime | None = Field(default=None, description="RFC 3339 with a zone; empty: now.")
    version: str = Field(default="", max_length=column_length(ChangeRow.version))
    author: str = Field(default="", max_length=column_length(ChangeRow.author))
    summary: str = Field(default="", max_length=10_000)
    diff: str = Field(default="", description="The change itself, e.g. a unified diff of the config.")
    source: str = Field(
        default="api",
        max_length=column_length(ChangeRow.source),
        description="Who recorded it, e.g. the CI system's name.",
    )

    @field_validator("id", "service", "version", "author", "summary", "diff", "source", mode="before")
    @classmethod
    def _without_nul(cls, value: object) -> object:
        return without_nul(value) if isinstance(value, str) else value

    def to_change(self, now: datetime) -> Change:
        return Change(
            id=self.id or "",
            kind=self.kind,
            service=self.service,
            time=self.time or now,
            version=self.version,
            author=self.author,
            summary=self.summary,
            diff=self.diff,
        )


def change_json(change: Change) -> dict[str, Any]:
    return {
        "id": change.id,
        "kind": change.kind,
        "service": change.service,
        "time": change.time.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "version": change.version,
        "author": change.author,
        "summary": change.summary,
        "diff": change.diff,
    }


def _field_errors(exc: ValidationError) -> list[FieldError]:
    return [FieldError(".".join(str(p) for p in err["loc"]) or "(body)", err["msg"]) for err in exc.errors()]


@router.post("/api/v1/changes", status_code=201)
async def post_change(request: Request) -> Response:
    """Record one change; 201 with its id."""
    denied = _unauthorized(request)
    if denied is not None:
        return denied
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        return _error(415, f"content type must be application/json, got '{media_type or 'none'}'")
    body = await _read_body(request, request.app.state.settings.intake.max_body_bytes)
    if isinstance(body, Response):
        return body
    try:
        raw = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        return _error(400, f"invalid change: body is not JSON ({exc})")
    try:
        change_in = ChangeIn.model_validate(raw)
    except ValidationError as exc:
        return _error(400, "invalid change", _field_errors(exc))
    now = datetime.now(UTC)
    change = change_in.to_change(now)

    def store() -> str:
        with request.app.state.sessions() as session:
            return record_change(session, change, source=change_in.source, now=now)

    try:
        change_id = await run_in_threadpool(store)
    except DuplicateChange as exc:
        return _error(409, str(exc))
    return json_response(201, {"id": change_id})


@router.get("/api/v1/changes")
async def list_changes(
    request: Request,
    service: Annotated[list[str] | None, Query(description="Repeat for several services.")] = None,
    since: Annotated[datetime | None, Query(description="RFC 3339; default: 72 h ago.")] = None,
    until: Annotated[datetime | None, Query(description="RFC 3339; default: now.")] = None,
    limit: Annotated[int, Query(gt=0, le=1000)] = 100,
) -> Response:
    """Recorded changes, newest first."""
    denied = _unauthorized(request)
    if denied is not None:
        return denied
    now = datetime.now(UTC)
    start = _aware(since) if since else now - DEFAULT_LOOKBACK
    end = _aware(until) if until else None

    def load() -> list[Change]:
        with request.app.state.sessions() as session:
            return changes_between(session, service, start, end, limit=limit)

    changes = await run_in_threadpool(load)
    return json_response(200, {"changes": [change_json(c) for c in changes]})


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
