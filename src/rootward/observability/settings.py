"""Settings of rootward's own telemetry (traces); metrics need none."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class TracingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    exporter: Literal["none", "console", "otlp"] = Field(
        default="none",
        description="Where spans go: `otlp` (OTLP/HTTP to `otlp_endpoint`), `console` (stderr), or `none`.",
    )
    otlp_endpoint: str = Field(
        default="http://127.0.0.1:4318/v1/traces",
        description="OTLP/HTTP traces endpoint of a collector (Tempo, Jaeger, the OpenTelemetry Collector).",
    )
    otlp_headers: dict[str, str] = Field(default_factory=dict, description="Extra headers, e.g. an API key.")
    service_name: str = Field(default="rootward", description="`service.name` of the spans.")
