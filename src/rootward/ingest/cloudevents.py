"""CloudEvents 1.0 over HTTP (`POST /api/v1/alerts/cloudevents`): structured, batched or binary mode.

Any producer that speaks CloudEvents sends alerts as events whose `data` is
rootward's generic alert object (`name`, `service`, `severity`, `status`,
`labels`, `annotations`, `fingerprint`, ...; docs/intake.md), with the
envelope filling what `data` leaves out: `subject` is the service, `time`
the start, `type` the name, and a type ending in one of `resolved_suffixes`
resolves. The three content modes of the HTTP binding:

- structured: `application/cloudevents+json`, one event;
- batched: `application/cloudevents-batch+json`, a list of events;
- binary: the attributes in `ce-*` headers, `data` as the JSON body.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rootward.domain.alert import Alert
from rootward.ingest.admission import AlertFields, StoreLimits, service_field
from rootward.ingest.payloads import (
    GENERIC_FIELDS,
    AlertBatch,
    FieldError,
    GenericAlert,
    PayloadError,
    admit_items,
    check_count,
    generic_to_alert,
    json_payload,
)

STRUCTURED = "application/cloudevents+json"
BATCH = "application/cloudevents-batch+json"
MEDIA_TYPES = (STRUCTURED, BATCH, "application/json")
REQUIRED = ("specversion", "id", "source", "type")


class CloudEventsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    types: list[str] = Field(
        default_factory=list, description="Accept only events whose `type` starts with one of these (empty: any)."
    )
    resolved_suffixes: list[str] = Field(
        default_factory=lambda: [".resolved"], description="An event `type` ending in one of these resolves."
    )


class _Envelope(BaseModel):
    model_config = ConfigDict(extra="allow")
    specversion: str = Field(pattern=r"^1\.")
    id: str = Field(min_length=1)
    source: str = Field(min_length=1)
    type: str = Field(min_length=1)
    subject: str | None = None
    time: datetime | None = None
    data: dict[str, Any] = Field(default_factory=dict)


def _convert(item: Any, settings: CloudEventsSettings, now: datetime) -> tuple[Alert, AlertFields]:
    event = _Envelope.model_validate(item)
    data = dict(event.data)
    data.setdefault("name", event.type)
    if event.subject:
        data.setdefault("service", event.subject)
    if event.time is not None:
        data.setdefault("starts_at", event.time.isoformat())
    if any(event.type.endswith(s) for s in settings.resolved_suffixes):
        data["status"] = "resolved"
    data.setdefault("labels", {})
    data["labels"] = {**data["labels"], "source": data["labels"].get("source", event.source)}
    generic = GenericAlert.model_validate(data)
    alert = generic_to_alert(generic, now)
    fields = {k: f"data.{getattr(GENERIC_FIELDS, k)}" for k in ("name", "fingerprint", "starts_at", "ends_at")}
    service = "data.service" if generic.service else f"data.{service_field(alert.labels)}"
    return alert, AlertFields(service=service, **fields)


def events_of(body: bytes, media_type: str, headers: Mapping[str, str]) -> tuple[list[Any], bool]:
    """The events of a request in any content mode, and whether it was a batch."""
    if media_type == BATCH:
        payload = json_payload(body)
        if not isinstance(payload, list):
            raise PayloadError([FieldError("body", "a CloudEvents batch is a JSON list of events")])
        return payload, True
    if media_type == STRUCTURED:
        return [json_payload(body)], False
    attributes = {k.lower()[3:]: v for k, v in headers.items() if k.lower().startswith("ce-")}
    missing = [a for a in REQUIRED if a not in attributes]
    if missing:
        fields = [FieldError(f"ce-{a}", "required header of a binary-mode CloudEvent") for a in missing]
        raise PayloadError(fields)
    return [{**attributes, "data": json_payload(body)}], False


def read_cloudevents(
    body: bytes,
    media_type: str,
    headers: Mapping[str, str],
    now: datetime,
    settings: CloudEventsSettings,
    *,
    limits: StoreLimits | None = None,
    max_alerts: int = 1000,
) -> AlertBatch:
    events, many = events_of(body, media_type, headers)
    check_count(events, max_alerts, "events")
    prefixes = tuple(settings.types)
    wanted = [
        i
        for i, e in enumerate(events)
        if not prefixes or not isinstance(e, dict) or str(e.get("type", "")).startswith(prefixes)
    ]
    return admit_items(
        [events[i] for i in wanted],
        "" if many else None,
        lambda item: _convert(item, settings, now),
        limits or StoreLimits(),
        now,
        indexes=wanted,
    )
