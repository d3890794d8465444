"""Webhook bodies to `Alert`s: the Alertmanager v4 payload and rootward's generic alert JSON.

Pure functions over bytes, so the HTTP layer does nothing but call them; a
body that does not validate raises `PayloadError` whose message names each
offending field (`alerts.0.status: ...`), which the API returns as a 400.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from rootward.domain.alert import Alert, service_of, severity_from_label
from rootward.domain.alertmanager import AmPayload, alerts_of, label_fingerprint


@dataclass(frozen=True)
class FieldError:
    field: str
    message: str


class PayloadError(ValueError):
    """A body rootward cannot accept; `errors` names each field and why."""

    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e.field}: {e.message}" for e in errors))


class GenericAlert(BaseModel):
    """One alert of `POST /api/v1/alerts` (see docs/intake.md)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, description="What fired, e.g. HighErrorRate.")
    service: str | None = Field(
        default=None,
        max_length=200,
        description="Affected service; default: labels service, job, app, deployment, instance.",
    )
    severity: str = Field(default="warning", description="page/P0, critical/P1, warning/P2, info/P3.")
    status: Literal["firing", "resolved"] = "firing"
    starts_at: datetime | None = Field(default=None, description="RFC 3339; default: when received.")
    ends_at: datetime | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    fingerprint: str | None = Field(
        default=None, max_length=128, description="Dedup key; default: hash of name, service and labels."
    )
    generator_url: str = ""

    @field_validator("starts_at", "ends_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


_ONE = TypeAdapter(GenericAlert)
_MANY = TypeAdapter(list[GenericAlert])


def _field_errors(exc: ValidationError) -> list[FieldError]:
    out = []
    for err in exc.errors(include_url=False)[:20]:
        loc = ".".join(str(p) for p in err["loc"]) or "body"
        out.append(FieldError(loc, err["msg"]))
    return out


def _check_count(alerts: list[Alert], limit: int) -> list[Alert]:
    if not alerts:
        raise PayloadError([FieldError("alerts", "at least one alert is required")])
    if len(alerts) > limit:
        raise PayloadError([FieldError("alerts", f"{len(alerts)} alerts in one request; the limit is {limit}")])
    return alerts


def parse_alertmanager(body: bytes, *, max_alerts: int = 1000) -> list[Alert]:
    """Alertmanager webhook v4; the optional fields may be absent."""
    try:
        payload = AmPayload.model_validate_json(body)
    except ValidationError as exc:
        raise PayloadError(_field_errors(exc)) from None
    return _check_count(alerts_of(payload), max_alerts)


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


def parse_generic(body: bytes, now: datetime, *, max_alerts: int = 1000) -> list[Alert]:
    """One generic alert object, or a JSON list of them."""
    many = body.lstrip()[:1] == b"["
    try:
        items = _MANY.validate_json(body) if many else [_ONE.validate_json(body)]
    except ValidationError as exc:
        raise PayloadError(_field_errors(exc)) from None
    return _check_count([generic_to_alert(item, now) for item in items], max_alerts)
