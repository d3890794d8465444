"""A span's outcome read from its attributes, for spans stored without a status.

Instrumentation records the outcome in more than one place: OpenTelemetry's
span status, Jaeger's and OpenTracing's `error` tag (and `otel.status_code`,
as Jaeger prints an OpenTelemetry status), the HTTP response code, the gRPC
status code. An exporter or a converter that copies the tags but not the
status leaves a span that failed with a 503 looking like one whose outcome
is unknown, and every "errors originate here" reading of the traces goes
blind. So, where no status was recorded, the attributes decide, in the order
instrumentation sets them: an explicit error flag or status first, then what
the call ended with (`error.type`, an error message, a recorded exception:
a refused connection has no response code), then the response codes that
OpenTelemetry's semantic conventions call a server-side failure (HTTP 5xx;
gRPC UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE,
DATA_LOSS). A client's 4xx or a NOT_FOUND is the caller's
business, not a failure of the service (a cache miss is a 404).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rootward.domain.telemetry import SpanStatus

# What the call ended with (OpenTelemetry's `error.type`) or the exception it raised: it failed.
ERROR_KEYS = ("error.type", "error.message", "exception.type", "exception.message")
HTTP_CODE_KEYS = ("http.response.status_code", "http.status_code")
GRPC_CODE_KEYS = ("rpc.grpc.status_code", "grpc.status_code")
GRPC_SERVER_FAILURES = frozenset({2, 4, 12, 13, 14, 15})
_GRPC_NAMES = {
    "ok": 0,
    "unknown": 2,
    "deadline_exceeded": 4,
    "unimplemented": 12,
    "internal": 13,
    "unavailable": 14,
    "data_loss": 15,
}


def _is_true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _is_false(value: Any) -> bool:
    return value is False or (isinstance(value, str) and value.lower() == "false")


def tagged_status(tags: Mapping[str, Any]) -> SpanStatus | None:
    """The outcome an error flag or a recorded status states (`error=true`, `otel.status_code=ERROR`)."""
    code = str(tags.get("otel.status_code", "")).upper()
    if _is_true(tags.get("error")) or code == "ERROR":
        return "error"
    if code == "OK" or _is_false(tags.get("error")):
        return "ok"
    return None


def _code(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text)
        return _GRPC_NAMES.get(text.lower().removeprefix("status_code_"))
    return None


def attribute_status(attributes: Mapping[str, Any]) -> SpanStatus | None:
    """The outcome the attributes state: a flag or status, else the HTTP or gRPC code; None when silent."""
    tagged = tagged_status(attributes)
    if tagged is not None:
        return tagged
    if any(attributes.get(key) not in (None, "", False) for key in ERROR_KEYS):
        return "error"
    for key in HTTP_CODE_KEYS:
        if (code := _code(attributes.get(key))) is not None and 100 <= code <= 599:
            return "error" if code >= 500 else "ok"
    for key in GRPC_CODE_KEYS:
        if (code := _code(attributes.get(key))) is not None:
            return "error" if code in GRPC_SERVER_FAILURES else "ok"
    return None
