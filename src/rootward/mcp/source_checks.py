"""`sources_check`: one cheap call to every configured live connector, and what came back.

A stopgap until `rootward sources check` (issue 17) lands: it asks each
connector the least expensive question of a protocol it provides (topology,
then recent changes, then a minute of spans, logs or one metric) and reports
ok, unavailable (the connector's own sentence: timed out, refused, breaker
open) or error. It never raises for a dead source: finding dead sources is
its job.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from rootward.sources.base import SourceUnavailable
from rootward.sources.resilience import ConnectorSettings
from rootward.sources.settings import CONNECTORS

PROBE_WINDOW = timedelta(minutes=1)
CheckStatus = Literal["ok", "unavailable", "error", "idle"]


class SourceCheck(BaseModel):
    name: str = Field(description="The connector's config section (prometheus, loki, kubernetes, ...)")
    provides: list[str]
    status: CheckStatus = Field(description="ok | unavailable (the source's sentence) | error | idle (asks nothing)")
    probe: str = Field(description="The call that was made")
    ms: float
    detail: str = ""


class SourcesReport(BaseModel):
    sources: list[SourceCheck]
    unconfigured: list[str] = Field(description="Connectors with no section in the config")


def _probe(source: Any, provides: frozenset[str], now: datetime) -> tuple[str, Callable[[], object]]:
    """The cheapest question this source answers, as (what it is, the call)."""
    start = now - PROBE_WINDOW
    if "topology" in provides:
        return "topology graph", source.graph
    if "changes" in provides:
        return "changes of the last minute", lambda: source.recent(None, start, now)
    if "traces" in provides:
        return "spans of the last minute", lambda: source.spans(None, start, now)
    if "logs" in provides:
        return "logs of the last minute", lambda: source.query(None, start, now)
    return "one metric of the last minute", lambda: source.series(None, start, now, "request_rate")


def _one(name: str, provides: frozenset[str], build: Callable[[], object | None], now: datetime) -> SourceCheck:
    kinds = sorted(provides)
    began = time.monotonic()

    def elapsed() -> float:
        return round((time.monotonic() - began) * 1000, 1)

    try:
        source = build()
    except Exception as exc:  # a bad section must not hide the other connectors' state
        return SourceCheck(name=name, provides=kinds, status="error", probe="build", ms=elapsed(), detail=str(exc))
    if source is None:
        return SourceCheck(name=name, provides=kinds, status="idle", probe="none", ms=0.0, detail="asks nothing")
    what, call = _probe(source, provides, now)
    try:
        call()
    except SourceUnavailable as exc:
        return SourceCheck(name=name, provides=kinds, status="unavailable", probe=what, ms=elapsed(), detail=str(exc))
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}"
        return SourceCheck(name=name, provides=kinds, status="error", probe=what, ms=elapsed(), detail=detail)
    return SourceCheck(name=name, provides=kinds, status="ok", probe=what, ms=elapsed())


def check_sources(sections: Mapping[str, ConnectorSettings], *, now: datetime | None = None) -> SourcesReport:
    """Probe every configured connector section (`Settings.connector_sections()`), in the table's order."""
    at = now or datetime.now(UTC)
    checks = []
    for connector in CONNECTORS:
        section = sections.get(connector.name)
        if section is not None:
            build = (lambda c, s: lambda: c.source(s))(connector, section)
            checks.append(_one(connector.name, frozenset(connector.provides), build, at))
    return SourcesReport(sources=checks, unconfigured=[c.name for c in CONNECTORS if c.name not in sections])
