"""Alertmanager webhook payload (version 4) and its conversion to `Alert`.

Pure data: used by HTTP intake and by bundle loading alike, so both read alerts
the same way.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from rootward.domain.alert import Alert, service_of, severity_from_label

ZERO_TIME_PREFIX = "0001-01-01"


class AmAlert(BaseModel):
    model_config = ConfigDict(extra="ignore")

    status: str = Field(pattern="^(firing|resolved)$")
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    startsAt: datetime
    endsAt: str | None = None
    generatorURL: str = ""
    fingerprint: str | None = None


class AmPayload(BaseModel):
    """Optional fields (`truncatedAlerts`, `notification_reason`, `routeLabels`) may be absent."""

    model_config = ConfigDict(extra="ignore")

    version: str = "4"
    groupKey: str = ""
    status: str = "firing"
    receiver: str = ""
    groupLabels: dict[str, str] = Field(default_factory=dict)
    commonLabels: dict[str, str] = Field(default_factory=dict)
    commonAnnotations: dict[str, str] = Field(default_factory=dict)
    externalURL: str = ""
    truncatedAlerts: int | None = None
    alerts: list[AmAlert] = Field(min_length=1)


def label_fingerprint(labels: dict[str, str]) -> str:
    """Stable hash of the sorted labels, for alerts that arrive without a fingerprint."""
    canonical = "\x1f".join(f"{k}\x1e{labels[k]}" for k in sorted(labels))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _end_time(raw: str | None) -> datetime | None:
    if not raw or raw.startswith(ZERO_TIME_PREFIX):
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None


def to_alert(am: AmAlert) -> Alert:
    labels = dict(am.labels)
    return Alert(
        fingerprint=am.fingerprint or label_fingerprint(labels),
        name=labels.get("alertname", "unnamed"),
        service=service_of(labels),
        severity=severity_from_label(labels.get("severity")),
        status="resolved" if am.status == "resolved" else "firing",
        starts_at=am.startsAt,
        labels=labels,
        annotations=dict(am.annotations),
        ends_at=_end_time(am.endsAt),
        generator_url=am.generatorURL,
    )


def alerts_of(payload: AmPayload) -> list[Alert]:
    return [to_alert(a) for a in payload.alerts]
