"""PagerDuty v3 webhooks (`POST /api/v1/alerts/pagerduty`): incidents triggered, reopened, escalated or resolved.

A v3 webhook subscription signs every delivery (`X-PagerDuty-Signature`,
HMAC-SHA256 of the body with the subscription's secret; `ingest/signatures`).
Each delivery carries one event; an incident event becomes one alert
fingerprinted by the incident id, so its resolution resolves the same alert.
Other events (acknowledged, annotated, `pagey.ping`, service events) are
accepted and not stored.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.domain.alert import Alert, Severity
from rootward.ingest.admission import AlertFields, StoreLimits
from rootward.ingest.payloads import AlertBatch, FieldError, PayloadError, admit_items, json_payload, under

FIRING = {"incident.triggered", "incident.reopened", "incident.escalated", "incident.priority_updated"}
RESOLVED = {"incident.resolved"}
FIELDS = AlertFields(
    name="data.title", service="data.service.summary", fingerprint="data.id", starts_at="occurred_at",
    ends_at="occurred_at",
)  # fmt: skip


class PagerDutySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    signing_secrets: list[SecretStr] = Field(
        min_length=1,
        description="The webhook subscription's secret(s); list two while rotating. Unsigned or badly signed "
        "deliveries get 401.",
    )
    urgency_severity: dict[str, Severity] = Field(
        default_factory=lambda: {"high": Severity.P1, "low": Severity.P2},
        description="Severity of an incident by urgency, when its priority is not P0-P3.",
    )


class _Service(BaseModel):
    model_config = ConfigDict(extra="ignore")
    summary: str = ""


class _Priority(BaseModel):
    model_config = ConfigDict(extra="ignore")
    summary: str = ""


class _Incident(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    html_url: str = ""
    number: int | None = None
    urgency: str = ""
    service: _Service = Field(default_factory=_Service)
    priority: _Priority | None = None


class _Event(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = ""
    event_type: str
    resource_type: str = ""
    occurred_at: datetime
    data: _Incident


def _severity(incident: _Incident, settings: PagerDutySettings) -> Severity:
    priority = (incident.priority.summary if incident.priority else "").upper()
    if priority in Severity.__members__:
        return Severity(priority)
    return settings.urgency_severity.get(incident.urgency, Severity.P2)


def _alert(event: _Event, settings: PagerDutySettings) -> Alert:
    incident = event.data
    service = incident.service.summary or "unknown"
    labels = {"alertname": incident.title, "service": service, "source": "pagerduty", "urgency": incident.urgency}
    return Alert(
        fingerprint=f"pagerduty:{incident.id}",
        name=incident.title,
        service=service,
        severity=_severity(incident, settings),
        status="resolved" if event.event_type in RESOLVED else "firing",
        starts_at=event.occurred_at,
        labels={k: v for k, v in labels.items() if v},
        annotations={"pagerduty_incident": incident.id, "pagerduty_event": event.event_type},
        ends_at=event.occurred_at if event.event_type in RESOLVED else None,
        generator_url=incident.html_url,
    )


def read_pagerduty(
    body: bytes, now: datetime, settings: PagerDutySettings, *, limits: StoreLimits | None = None
) -> AlertBatch:
    """The alert of one v3 webhook delivery; an empty batch for events that are not an incident's state."""
    payload = json_payload(body)
    raw = payload.get("event") if isinstance(payload, dict) else None
    if not isinstance(raw, dict):
        raise PayloadError([FieldError("event", "a PagerDuty v3 webhook body has an `event` object")])
    kind = raw.get("event_type")
    if kind not in FIRING | RESOLVED:
        return AlertBatch()
    batch = admit_items(
        [raw], None, lambda item: (_alert(_Event.model_validate(item), settings), FIELDS), limits or StoreLimits(), now
    )
    return under(batch, "event.")
