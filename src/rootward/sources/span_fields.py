"""What Jaeger tags and OpenTelemetry attributes say about a span: kind, status, pod, host.

Both trace connectors map their backend's wording onto the same `Span`
fields with these tables, so a span reads the same whichever backend
stored it. OpenTelemetry's semantic conventions come first, then the older
Jaeger/OpenTracing client names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rootward.domain.telemetry import SpanKind, SpanStatus

POD_KEYS = ("k8s.pod.name", "pod.name", "pod")
HOST_KEYS = ("host.name", "hostname", "k8s.node.name", "host")
KINDS: dict[str, SpanKind] = {
    "server": "server",
    "client": "client",
    "producer": "producer",
    "consumer": "consumer",
    "internal": "internal",
}


def first_value(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = attributes.get(key)
        if value not in (None, ""):
            return str(value)
    return ""


def span_kind(value: Any) -> SpanKind | None:
    """`server`, `SERVER` or OTLP's `SPAN_KIND_SERVER`; anything else (unspecified) is unknown."""
    if not isinstance(value, str):
        return None
    return KINDS.get(value.lower().removeprefix("span_kind_"))


def is_true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def tag_status(tags: Mapping[str, Any]) -> SpanStatus | None:
    """Jaeger's `error=true` or `otel.status_code=ERROR` is an error; `OK` (or `error=false`) ok; else unknown."""
    code = str(tags.get("otel.status_code", "")).upper()
    if is_true(tags.get("error")) or code == "ERROR":
        return "error"
    if code == "OK" or tags.get("error") is False or str(tags.get("error", "")).lower() == "false":
        return "ok"
    return None
