"""Grafana Alerting's webhook contact point (`POST /api/v1/alerts/grafana`), the unified alerting payload.

Grafana posts Alertmanager-shaped alerts (`status`, `labels`, `annotations`,
`startsAt`, `endsAt`, `generatorURL`, `fingerprint`) plus its own fields;
each becomes an alert as an Alertmanager one would, with the dashboard and
panel links and the evaluated values kept as annotations. Authentication is
what the contact point is set to send: its HMAC signature (`hmac`), basic
auth (`basic_auth`), or else the intake token as its `Authorization` header
credentials (`webhook_auth.py` checks each).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.domain.alert import Alert
from rootward.domain.alertmanager import AmAlert, to_alert
from rootward.ingest.admission import AlertFields, StoreLimits, service_field
from rootward.ingest.payloads import AlertBatch, FieldError, PayloadError, admit_items, check_count, json_payload
from rootward.ingest.signatures import BasicAuthSettings

FIELDS = AlertFields(
    name="labels.alertname", service="labels.service", fingerprint="fingerprint", starts_at="startsAt", ends_at="endsAt"
)
KEPT = {"dashboardURL": "grafana_dashboard", "panelURL": "grafana_panel", "silenceURL": "grafana_silence",
        "valueString": "grafana_values"}  # fmt: skip


class GrafanaSignature(BaseModel):
    """The contact point's *HMAC Signature* settings, as set in Grafana."""

    model_config = ConfigDict(extra="forbid")

    secret: SecretStr = Field(description="The contact point's HMAC secret.")
    header: str = Field(default="X-Grafana-Alerting-Signature", description="Header holding the hex signature.")
    timestamp_header: str | None = Field(
        default=None,
        description="The contact point's timestamp header, if set: the timestamp is signed too, a delivery older "
        "than max_age_s and a replayed one are refused.",
    )
    max_age_s: float = Field(default=300, gt=0, description="Oldest accepted timestamp (seconds).")


class GrafanaSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hmac: GrafanaSignature | None = Field(
        default=None, description="Check the contact point's HMAC-SHA256 signature instead of the intake token."
    )
    basic_auth: BasicAuthSettings | None = Field(
        default=None, description="Check the contact point's basic auth instead of the intake token."
    )

    service_label: str = Field(
        default="service",
        description="Label naming the service; without it the usual labels (job, app, ...) are tried.",
    )


def _alert(item: Any, settings: GrafanaSettings) -> tuple[Alert, AlertFields]:
    alert = to_alert(AmAlert.model_validate(item))
    extra = {ann: str(item[key]) for key, ann in KEPT.items() if isinstance(item, dict) and item.get(key)}
    service = alert.labels.get(settings.service_label) or alert.service
    labels = {**alert.labels, "source": alert.labels.get("source", "grafana")}
    alert = replace(alert, service=service, labels=labels, annotations={**alert.annotations, **extra})
    field = f"labels.{settings.service_label}" if settings.service_label in alert.labels else service_field(labels)
    return alert, replace(FIELDS, service=field)


def read_grafana(
    body: bytes, now: datetime, settings: GrafanaSettings, *, limits: StoreLimits | None = None, max_alerts: int = 1000
) -> AlertBatch:
    payload = json_payload(body)
    items = payload.get("alerts") if isinstance(payload, dict) else None
    if not isinstance(items, list):
        raise PayloadError([FieldError("alerts", "a Grafana webhook body has a list of alerts")])
    check_count(items, max_alerts, "alerts")
    return admit_items(items, "alerts.", lambda item: _alert(item, settings), limits or StoreLimits(), now)
