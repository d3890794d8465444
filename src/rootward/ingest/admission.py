"""Per-alert admission: one unstorable alert is refused alone, never its whole batch.

Alertmanager retries a request until it gets a 2xx or a 4xx; a batch that the
database refuses for one bad value (PostgreSQL: a `VARCHAR(n)` overflow, a NUL)
would be retried forever and none of its good alerts stored. So each alert is
checked here against the store's real column lengths (`StoreLimits`, built by
the caller from the table definitions) and against a plausible clock:

- `service` or `fingerprint` too long: the alert is rejected (`Rejection`).
  They are identities, the group key and the dedup key: a shortened value
  could merge different services' groups or different alerts into one.
- the alert name too long: shortened with a marker (`…[+N]`). It is a display
  value (dedup uses the fingerprint), and the full name stays in the labels.
- `startsAt` outside the plausible window (`domain.alert_time`): the receive
  time is used instead and the original value kept in the annotation
  `rootward_adjusted`, so the alert is neither lost nor able to break the
  investigation of its group. An implausible `endsAt` is dropped the same way.

NUL characters are removed before validation (`without_nul_json`), on every
backend alike, so an alert reads the same whichever database stores it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from rootward.domain.alert import Alert, service_label
from rootward.domain.alert_time import is_plausible

ADJUSTED_ANNOTATION = "rootward_adjusted"


@dataclass(frozen=True)
class StoreLimits:
    """The longest value (in characters) the alert tables hold for each field; None: unbounded."""

    name: int | None = None
    service: int | None = None
    fingerprint: int | None = None


@dataclass(frozen=True)
class Rejection:
    """One reason an alert of a request was not stored: its position, the field, and why."""

    index: int
    field: str
    message: str
    path: str  # the field as seen from the body's root, e.g. `alerts.3.labels.service`


@dataclass(frozen=True)
class AlertFields:
    """Where an alert's values came from in its payload, for messages that name the field."""

    name: str
    service: str
    fingerprint: str
    starts_at: str
    ends_at: str


def without_nul_json(value: Any) -> Any:
    """A parsed JSON value with NUL characters removed from every string and key."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [without_nul_json(item) for item in value]
    if isinstance(value, dict):
        return {without_nul_json(k): without_nul_json(v) for k, v in value.items()}
    return value


def service_field(labels: dict[str, str]) -> str:
    """The label `service_of` takes the service from, for messages."""
    return f"labels.{service_label(labels) or 'service'}"


def truncated(value: str, limit: int) -> str:
    """`value` shortened to `limit` characters, ending in a marker that says how many were cut."""
    if len(value) <= limit:
        return value

    def marker(keep: int) -> str:
        return f"…[+{len(value) - keep}]"

    keep = max(0, limit - len(marker(0)))  # the longest marker: the real one counts fewer cut characters
    while keep + 1 + len(marker(keep + 1)) <= limit:  # at most a step or two, as the count loses digits
        keep += 1
    return (value[:keep] + marker(keep))[:limit]


def _too_long(field: str, length: int, limit: int, why: str) -> str:
    return f"{field} is {length} characters; the store holds at most {limit} ({why})"


def _identity_errors(alert: Alert, fields: AlertFields, limits: StoreLimits) -> list[tuple[str, str]]:
    errors = []
    if limits.service is not None and len(alert.service) > limits.service:
        why = "it names the alert's group: a shortened one could merge different services"
        errors.append((fields.service, _too_long("the service", len(alert.service), limits.service, why)))
    if limits.fingerprint is not None and len(alert.fingerprint) > limits.fingerprint:
        why = "it is the dedup key: a shortened one could merge different alerts"
        errors.append(
            (fields.fingerprint, _too_long("the fingerprint", len(alert.fingerprint), limits.fingerprint, why))
        )
    return errors


def _bounded_times(alert: Alert, fields: AlertFields, now: datetime) -> Alert:
    notes = []
    starts_at, ends_at = alert.starts_at, alert.ends_at
    if not is_plausible(starts_at, now):
        notes.append(f"{fields.starts_at} {starts_at.isoformat()} is implausible; the receive time is used")
        starts_at = now
    if ends_at is not None and not is_plausible(ends_at, now):
        notes.append(f"{fields.ends_at} {ends_at.isoformat()} is implausible and was dropped")
        ends_at = None
    if not notes:
        return alert
    annotations = {**alert.annotations, ADJUSTED_ANNOTATION: "; ".join(notes)}
    return replace(alert, starts_at=starts_at, ends_at=ends_at, annotations=annotations)


def admit(
    alert: Alert, *, index: int, prefix: str, fields: AlertFields, limits: StoreLimits, now: datetime
) -> Alert | list[Rejection]:
    """The alert as it will be stored, or why it cannot be (`prefix` leads each rejection's path)."""
    errors = _identity_errors(alert, fields, limits)
    if errors:
        return [Rejection(index, field, message, f"{prefix}{field}") for field, message in errors]
    if limits.name is not None and len(alert.name) > limits.name:
        alert = replace(alert, name=truncated(alert.name, limits.name))
    return _bounded_times(alert, fields, now)
