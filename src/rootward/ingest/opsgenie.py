"""Opsgenie outgoing webhooks (`POST /api/v1/alerts/opsgenie`): alerts created and closed.

Opsgenie's Webhook integration posts `{"action": "Create", "alert": {...}}`
for each alert action; Create (and the actions that change what is firing:
Escalate, UnAcknowledge) is firing, Close is resolved, the rest are accepted
and not stored. The alias is the dedup key, so a Close resolves the alert its
Create opened. Authentication is a shared token the integration sends in a
custom header (`token`, `token_header`), or its basic auth (`basic_auth`), or
else the intake token as a custom `Authorization: Bearer …` header.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from rootward.domain.alert import Alert, Severity
from rootward.ingest.admission import AlertFields, StoreLimits
from rootward.ingest.payloads import AlertBatch, FieldError, PayloadError, admit_items, json_payload, under
from rootward.ingest.signatures import BasicAuthSettings

FIRING = {"Create", "Escalate", "UnAcknowledge"}
RESOLVED = {"Close"}
FIELDS = AlertFields(
    name="message", service="details.service", fingerprint="alias", starts_at="createdAt", ends_at="updatedAt"
)


class OpsgenieSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: SecretStr | None = Field(
        default=None, description="Shared token the Webhook integration sends as a custom header (token_header)."
    )
    token_header: str = Field(default="X-Rootward-Token", description="The custom header's name.")
    basic_auth: BasicAuthSettings | None = Field(
        default=None, description="The integration's basic auth credentials, instead of a token header."
    )

    service_detail: str = Field(default="service", description="Alert detail (extra property) naming the service.")
    service_tag_prefix: str = Field(
        default="service:", description="A tag `service:<name>` names the service when the detail is absent."
    )
    priority_severity: dict[str, Severity] = Field(
        default_factory=lambda: {
            "P1": Severity.P0,
            "P2": Severity.P1,
            "P3": Severity.P2,
            "P4": Severity.P3,
            "P5": Severity.P3,
        },  # fmt: skip
        description="rootward severity of each Opsgenie priority (P1 critical pages).",
    )


class _OgAlert(BaseModel):
    model_config = ConfigDict(extra="ignore")
    alertId: str = Field(min_length=1)
    message: str = Field(min_length=1)
    alias: str = ""
    tinyId: str = ""
    entity: str = ""
    source: str = ""
    priority: str = "P3"
    tags: list[str] = Field(default_factory=list)
    details: dict[str, str] = Field(default_factory=dict)
    createdAt: datetime | None = None
    updatedAt: datetime | None = None

    @field_validator("createdAt", "updatedAt", mode="before")
    @classmethod
    def _epoch_ms(cls, value: Any) -> Any:
        """Opsgenie sends epoch milliseconds."""
        if isinstance(value, int | float):
            return datetime.fromtimestamp(value / 1000, UTC)
        return value


def _service(alert: _OgAlert, settings: OpsgenieSettings) -> str:
    if alert.details.get(settings.service_detail):
        return alert.details[settings.service_detail]
    tagged = [t[len(settings.service_tag_prefix) :] for t in alert.tags if t.startswith(settings.service_tag_prefix)]
    return tagged[0] if tagged and tagged[0] else alert.entity or "unknown"


def _alert(action: str, raw: Any, settings: OpsgenieSettings, now: datetime) -> Alert:
    og = _OgAlert.model_validate(raw)
    service = _service(og, settings)
    resolved = action in RESOLVED
    labels = {"alertname": og.message, "service": service, "source": "opsgenie", "priority": og.priority}
    labels |= {f"tag_{t}": "true" for t in og.tags if not t.startswith(settings.service_tag_prefix)}
    return Alert(
        fingerprint=f"opsgenie:{og.alias or og.alertId}",
        name=og.message,
        service=service,
        severity=settings.priority_severity.get(og.priority, Severity.P2),
        status="resolved" if resolved else "firing",
        starts_at=og.createdAt or now,
        labels=labels,
        annotations={"opsgenie_alert": og.alertId, "opsgenie_action": action, **og.details},
        ends_at=(og.updatedAt or now) if resolved else None,
    )


def read_opsgenie(
    body: bytes, now: datetime, settings: OpsgenieSettings, *, limits: StoreLimits | None = None
) -> AlertBatch:
    payload = json_payload(body)
    if not isinstance(payload, dict) or not isinstance(payload.get("alert"), dict):
        raise PayloadError([FieldError("alert", "an Opsgenie webhook body has an `alert` object")])
    action = str(payload.get("action", ""))
    if action not in FIRING | RESOLVED:
        return AlertBatch()
    batch = admit_items(
        [payload["alert"]],
        None,
        lambda item: (_alert(action, item, settings, now), FIELDS),
        limits or StoreLimits(),
        now,
    )
    return under(batch, "alert.")
