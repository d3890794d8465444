"""What Jaeger tags and OpenTelemetry attributes say about a span: ids, kind, status, pod, host.

Both trace connectors map their backend's wording onto the same `Span`
fields with these tables, so a span reads the same whichever backend
stored it. OpenTelemetry's semantic conventions come first, then the older
Jaeger/OpenTracing client names.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from rootward.domain.telemetry import SpanKind

TRACE_ID_HEX = 32
SPAN_ID_HEX = 16
_HEX = re.compile(r"^[0-9a-fA-F]+$")
POD_KEYS = ("k8s.pod.name", "pod.name", "pod")
HOST_KEYS = ("host.name", "hostname", "k8s.node.name", "host")
KINDS: dict[str, SpanKind] = {
    "server": "server",
    "client": "client",
    "producer": "producer",
    "consumer": "consumer",
    "internal": "internal",
}


def hex_id(value: Any, width: int) -> str:
    """A trace or span id as lowercase hex of OpenTelemetry's width (32 for traces, 16 for spans).

    Jaeger may print a 64-bit trace id, or drop leading zeros; Tempo's protobuf
    JSON sends base64. Padded hex is what both mean, so the same span reads the
    same from either backend. An empty id stays empty (no parent).
    """
    text = str(value or "")
    if not text:
        return ""
    if _HEX.match(text) and len(text) <= width:
        return text.lower().rjust(width, "0")
    try:
        return base64.b64decode(text, validate=True).hex().rjust(width, "0")
    except (binascii.Error, ValueError):
        return text.lower()


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
