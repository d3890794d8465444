"""Keep (the open-source alert hub) through its webhook provider (`POST /api/v1/alerts/keep`).

A Keep workflow's webhook step posts an alert as Keep holds it (its
`AlertDto`: `name`, `status`, `severity`, `service`, `fingerprint`,
`lastReceived`, `labels`, `url`, ...), one object or a list. Keep's own
fingerprint is the dedup key; `firing` and `pending` are firing, `resolved`
is resolved, `acknowledged` and `suppressed` are accepted and not stored.
Authentication is an API key the step sends in a header (`api_key`,
`api_key_header`), or else the intake token in its `Authorization` header.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from rootward.domain.alert import Alert, severity_from_label
from rootward.domain.alertmanager import label_fingerprint
from rootward.ingest.admission import AlertFields, StoreLimits
from rootward.ingest.payloads import AlertBatch, admit_items, check_count, json_payload

FIRING = {"firing", "pending"}
RESOLVED = {"resolved"}
FIELDS = AlertFields(name="name", service="service", fingerprint="fingerprint", starts_at="lastReceived", ends_at="")


class KeepSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    api_key: SecretStr | None = Field(default=None, description="API key the webhook step sends in api_key_header.")
    api_key_header: str = Field(default="X-API-KEY", description="The header holding the API key.")

    environments: list[str] = Field(
        default_factory=list, description="Only alerts of these Keep environments (empty: every environment)."
    )


class _KeepAlert(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(min_length=1)
    status: str = "firing"
    severity: str = "warning"
    service: str | None = None
    environment: str = ""
    fingerprint: str | None = None
    lastReceived: datetime | None = None
    message: str = ""
    description: str = ""
    url: str | None = None
    source: list[str] = Field(default_factory=list)
    labels: dict[str, str] = Field(default_factory=dict)

    @field_validator("labels", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else value


def _alert(item: Any, now: datetime) -> Alert:
    keep = _KeepAlert.model_validate(item)
    labels = {**keep.labels, "alertname": keep.name, "source": ",".join(keep.source) or "keep"}
    service = keep.service or labels.get("service") or "unknown"
    labels["service"] = service
    if keep.environment:
        labels["environment"] = keep.environment
    annotations = {k: v for k, v in (("summary", keep.message), ("description", keep.description)) if v}
    return Alert(
        fingerprint=f"keep:{keep.fingerprint or label_fingerprint(labels)}",
        name=keep.name,
        service=service,
        severity=severity_from_label(keep.severity),
        status="resolved" if keep.status in RESOLVED else "firing",
        starts_at=keep.lastReceived or now,
        labels=labels,
        annotations=annotations,
        generator_url=keep.url or "",
    )


def _wanted(item: Any, settings: KeepSettings) -> bool:
    if not isinstance(item, dict):
        return True  # not an alert at all: the schema check names it
    status_ok = str(item.get("status", "firing")) in FIRING | RESOLVED
    return status_ok and (not settings.environments or item.get("environment") in settings.environments)


def read_keep(
    body: bytes, now: datetime, settings: KeepSettings, *, limits: StoreLimits | None = None, max_alerts: int = 1000
) -> AlertBatch:
    payload = json_payload(body)
    many = isinstance(payload, list)
    items = payload if many else [payload]
    check_count(items, max_alerts, "alerts")
    wanted = [i for i, item in enumerate(items) if _wanted(item, settings)]
    return admit_items(
        [items[i] for i in wanted],
        "" if many else None,
        lambda item: (_alert(item, now), FIELDS),
        limits or StoreLimits(),
        now,
        indexes=wanted,
    )
