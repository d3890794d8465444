"""Webhook bodies to `Alert`s: the Alertmanager v4 payload and rootward's generic alert JSON.

Pure functions over bytes, so the HTTP layer does nothing but call them. A
body that is not a payload at all (not JSON, no alerts, too many) raises
`PayloadError`, whose message names each offending field, which the API
returns as a 400. Inside a valid body each alert is checked on its own
(`ingest.admission`): `read_*` return the alerts to store and, separately,
the ones rejected with their index, field and reason, so one bad alert never
costs the others their place. `parse_*` are the strict forms (any rejection
is a `PayloadError`) for callers that hold one trusted batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rootward.domain.alert import Alert, service_of, severity_from_label
from rootward.domain.alertmanager import AmAlert, label_fingerprint, to_alert
from rootward.ingest.admission import (
    AlertFields,
    Rejection,
    StoreLimits,
    admit,
    service_field,
    without_nul_json,
)

MAX_ERRORS_PER_ALERT = 5


@dataclass(frozen=True)
class FieldError:
    field: str
    message: str


class PayloadError(ValueError):
    """A body rootward cannot accept; `errors` names each field and why."""

    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e.field}: {e.message}" for e in errors))


@dataclass(frozen=True)
class AlertBatch:
    """The alerts of one body that can be stored (with their index in it), and those that cannot."""

    alerts: list[Alert] = field(default_factory=list)
    indexes: list[int] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)

    @property
    def rejected_indexes(self) -> list[int]:
        return sorted({r.index for r in self.rejected})


class GenericAlert(BaseModel):
    """One alert of `POST /api/v1/alerts` (see docs/intake.md)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, description="What fired, e.g. HighErrorRate.")
    service: str | None = Field(
        default=None, description="Affected service; default: labels service, job, app, deployment, instance."
    )
    severity: str = Field(default="warning", description="page/P0, critical/P1, warning/P2, info/P3.")
    status: Literal["firing", "resolved"] = "firing"
    starts_at: datetime | None = Field(default=None, description="RFC 3339; default: when received.")
    ends_at: datetime | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    fingerprint: str | None = Field(default=None, description="Dedup key; default: hash of name, service and labels.")
    generator_url: str = ""

    @field_validator("starts_at", "ends_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


AM_FIELDS = AlertFields(
    name="labels.alertname", service="labels.service", fingerprint="fingerprint", starts_at="startsAt", ends_at="endsAt"
)
GENERIC_FIELDS = AlertFields(
    name="name", service="service", fingerprint="fingerprint", starts_at="starts_at", ends_at="ends_at"
)


def _json(body: bytes) -> Any:
    try:
        return without_nul_json(orjson.loads(body))
    except orjson.JSONDecodeError as exc:
        raise PayloadError([FieldError("body", f"Invalid JSON: {exc}")]) from None


def _check_count(items: list[Any], limit: int, where: str) -> None:
    if not items:
        raise PayloadError([FieldError(where, "at least one alert is required")])
    if len(items) > limit:
        raise PayloadError([FieldError(where, f"{len(items)} alerts in one request; the limit is {limit}")])


def _schema_rejections(exc: ValidationError, index: int, prefix: str) -> list[Rejection]:
    out = []
    for err in exc.errors(include_url=False)[:MAX_ERRORS_PER_ALERT]:
        loc = ".".join(str(p) for p in err["loc"]) or "alert"
        out.append(Rejection(index, loc, err["msg"], f"{prefix}{loc}"))
    return out


def _admit_all(
    items: list[Any],
    prefix: str | None,
    convert: Callable[[Any], tuple[Alert, AlertFields]],
    limits: StoreLimits,
    now: datetime,
    indexes: list[int] | None = None,
) -> AlertBatch:
    """Convert and admit each item; `prefix` None: a single object whose fields are at the root.

    `indexes`: each item's position in the body, when only some of its items are admitted.
    """
    batch = AlertBatch()
    for index, item in zip(indexes if indexes is not None else range(len(items)), items, strict=True):
        item_prefix = f"{prefix}{index}." if prefix is not None else ""
        try:
            alert, fields = convert(item)
        except ValidationError as exc:
            batch.rejected.extend(_schema_rejections(exc, index, item_prefix))
            continue
        admitted = admit(alert, index=index, prefix=item_prefix, fields=fields, limits=limits, now=now)
        if isinstance(admitted, Alert):
            batch.alerts.append(admitted)
            batch.indexes.append(index)
        else:
            batch.rejected.extend(admitted)
    return batch


def _am_alert(item: Any) -> tuple[Alert, AlertFields]:
    alert = to_alert(AmAlert.model_validate(item))
    return alert, replace(AM_FIELDS, service=service_field(alert.labels))


def read_alertmanager(
    body: bytes, now: datetime, *, limits: StoreLimits | None = None, max_alerts: int = 1000
) -> AlertBatch:
    """Alertmanager webhook v4 (optional fields may be absent), each alert admitted on its own."""
    payload = _json(body)
    if not isinstance(payload, dict):
        raise PayloadError([FieldError("body", "must be a JSON object (Alertmanager webhook payload)")])
    items = payload.get("alerts")
    if not isinstance(items, list):
        raise PayloadError([FieldError("alerts", "must be a list of alerts")])
    _check_count(items, max_alerts, "alerts")
    return _admit_all(items, "alerts.", _am_alert, limits or StoreLimits(), now)


def generic_to_alert(item: GenericAlert, now: datetime) -> Alert:
    labels = dict(item.labels)
    labels.setdefault("alertname", item.name)
    if item.service:
        labels.setdefault("service", item.service)
    service = item.service or service_of(labels)
    return Alert(
        fingerprint=item.fingerprint or label_fingerprint(labels),
        name=item.name,
        service=service,
        severity=severity_from_label(item.severity),
        status=item.status,
        starts_at=item.starts_at or now,
        labels=labels,
        annotations=dict(item.annotations),
        ends_at=item.ends_at,
        generator_url=item.generator_url,
    )


def read_generic(
    body: bytes, now: datetime, *, limits: StoreLimits | None = None, max_alerts: int = 1000
) -> AlertBatch:
    """One generic alert object, or a JSON list of them, each alert admitted on its own."""
    payload = _json(body)
    many = isinstance(payload, list)
    items = payload if many else [payload]
    _check_count(items, max_alerts, "alerts")

    def convert(item: Any) -> tuple[Alert, AlertFields]:
        generic = GenericAlert.model_validate(item)
        alert = generic_to_alert(generic, now)
        service = "service" if generic.service else service_field(alert.labels)
        return alert, replace(GENERIC_FIELDS, service=service)

    return _admit_all(items, "" if many else None, convert, limits or StoreLimits(), now)


def _strict(batch: AlertBatch) -> list[Alert]:
    if batch.rejected:
        raise PayloadError([FieldError(r.path, r.message) for r in batch.rejected])
    return batch.alerts


def parse_alertmanager(body: bytes, *, max_alerts: int = 1000, now: datetime | None = None) -> list[Alert]:
    """Every alert of an Alertmanager body, or a `PayloadError` naming each bad field."""
    return _strict(read_alertmanager(body, now or datetime.now(UTC), max_alerts=max_alerts))


def parse_generic(body: bytes, now: datetime, *, max_alerts: int = 1000) -> list[Alert]:
    """Every alert of a generic body, or a `PayloadError` naming each bad field."""
    return _strict(read_generic(body, now, max_alerts=max_alerts))


# What the other connectors (`ingest/<name>.py`) share with these two readers.
json_payload = _json
check_count = _check_count
admit_items = _admit_all


def under(batch: AlertBatch, prefix: str) -> AlertBatch:
    """The batch with each rejection's path seen from the body's root, for an alert that sits under `prefix`."""
    return replace(batch, rejected=[replace(r, path=prefix + r.path) for r in batch.rejected])
