"""OpenTelemetry spans for investigations, pipeline steps and tool calls.

`span(name, **attrs)` is all instrumented code uses; it goes through the
global tracer provider, which is a no-op until `configure_tracing` installs
one (the CLI does, from `tracing:` settings). Tests pass their own exporter
(an `InMemorySpanExporter`) to `configure_tracing`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
)
from opentelemetry.trace import Span, Status, StatusCode

from rootward import __version__
from rootward.observability.settings import TracingSettings

TRACER_NAME = "rootward"
AttrValue = str | bool | int | float

_provider: TracerProvider | None = None
_configured: set[str] = set()  # settings already exporting, so a second create_app adds no duplicate


def _exporter(settings: TracingSettings) -> SpanExporter | None:
    if settings.exporter == "console":
        return ConsoleSpanExporter()
    if settings.exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter(endpoint=settings.otlp_endpoint, headers=settings.otlp_headers or None)
    return None


def configure_tracing(
    settings: TracingSettings | None = None, *, exporter: SpanExporter | None = None
) -> TracerProvider | None:
    """Install this process's tracer provider; None (spans stay no-ops) when nothing exports.

    An explicit `exporter` is attached synchronously (for tests); configured
    exporters are batched so a slow collector never slows an investigation.
    """
    global _provider
    settings = settings or TracingSettings()
    key = settings.model_dump_json()
    if exporter is None and key in _configured:
        return _provider
    chosen = exporter or _exporter(settings)
    if chosen is None:
        return None
    if exporter is None:
        _configured.add(key)
    if _provider is None:
        resource = Resource.create({"service.name": settings.service_name, "service.version": __version__})
        _provider = TracerProvider(resource=resource)
        trace.set_tracer_provider(_provider)
    processor = SimpleSpanProcessor(chosen) if exporter is not None else BatchSpanProcessor(chosen)
    _provider.add_span_processor(processor)
    return _provider


def tracer() -> trace.Tracer:
    return (_provider or trace.get_tracer_provider()).get_tracer(TRACER_NAME, __version__)


@contextmanager
def span(name: str, **attrs: AttrValue | None) -> Iterator[Span]:
    """A span named `name` with `rootward.*` attributes (None values left out); errors mark it failed."""
    with tracer().start_as_current_span(name, record_exception=True, set_status_on_exception=False) as current:
        for key, value in attrs.items():
            if value is not None:
                current.set_attribute(key if "." in key else f"rootward.{key}", value)
        try:
            yield current
        except BaseException as exc:
            current.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
            raise
