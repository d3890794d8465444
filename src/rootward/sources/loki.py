"""Loki as a `LogSource`: LogQL `query_range`, paginated, lines as `LogRecord`s.

`query(service, start, end, filter)` becomes
`{service="payment"} |~ "(?i)timeout"` (or `|=` when case-sensitive
filtering is configured) and is paged through until `max_lines` or the end of
the window. Lines that are JSON objects give their `level`/`message` fields;
stream labels give service, level, host and pod. The LogQL and range are kept
in `last_invocations` for citation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import Field, SecretStr

from rootward.domain.live import LiveQuery
from rootward.domain.telemetry import LogRecord
from rootward.sources.connector import Connector
from rootward.sources.httpapi import authenticated_api
from rootward.sources.links import grafana_explore_url
from rootward.sources.resilience import ConnectorSettings, Guard, SourceResponseError

SOURCE = "Loki"
Direction = Literal["forward", "backward"]
_LEVEL_KEYS = ("level", "severity", "detected_level", "lvl")
_HOST_KEYS = ("host", "node", "hostname", "instance")
_POD_KEYS = ("pod", "pod_name")
_MESSAGE_KEYS = ("message", "msg", "log")


class LokiSettings(ConnectorSettings):
    base_url: str = Field(description="Loki base URL, e.g. http://loki:3100 (no /loki/api/v1).")
    service_label: str = Field(default="service", description="Stream label whose value is the service name.")
    selector: str = Field(
        default="",
        description='Extra stream matchers added to every query, e.g. `namespace="prod"`.',
    )
    direction: Direction = Field(
        default="forward", description="Order Loki returns lines in; `backward` keeps the newest when capped."
    )
    page_size: int = Field(default=1000, gt=0, le=5000, description="Lines per query_range request.")
    max_lines: int = Field(default=5000, gt=0, description="Stop paging after this many lines per query.")
    slices: int = Field(
        default=6,
        ge=1,
        description="When a window holds more than max_lines, read it again as this many equal slices "
        "with an equal share of max_lines each, so the lines cover the whole window, not only its start.",
    )
    case_insensitive_filter: bool = Field(
        default=True, description='Match the filter text case-insensitively (`|~ "(?i)..."`) rather than `|=`.'
    )
    tenant_id: str | None = Field(default=None, description="Sent as X-Scope-OrgID for multi-tenant Loki.")
    bearer_token: SecretStr | None = Field(default=None, description="Sent as `Authorization: Bearer`.")
    username: str | None = Field(default=None, description="Basic-auth user (with `password`).")
    password: SecretStr | None = Field(default=None, description="Basic-auth password.")
    verify_tls: bool = Field(default=True, description="Verify the server's TLS certificate.")
    grafana_url: str | None = Field(default=None, description="Grafana base URL: log cites link to Explore.")
    grafana_datasource: str | None = Field(default=None, description="Grafana uid of this Loki data source.")


@dataclass(frozen=True)
class LokiEntry:
    ns: int
    line: str
    stream: dict[str, str]


def logql_string(value: str) -> str:
    """A double-quoted LogQL string literal."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def build_logql(settings: LokiSettings, service: str | None, filter: str | None) -> str:
    matchers = []
    if service is not None:
        matchers.append(f"{settings.service_label}={logql_string(service)}")
    else:
        matchers.append(f'{settings.service_label}=~".+"')
    if settings.selector.strip():
        matchers.append(settings.selector.strip())
    query = "{" + ", ".join(matchers) + "}"
    if filter:
        if settings.case_insensitive_filter:
            query += " |~ " + logql_string("(?i)" + re.escape(filter))
        else:
            query += " |= " + logql_string(filter)
    return query


def parse_streams(body: Any) -> list[LokiEntry]:
    if not isinstance(body, dict) or body.get("status") != "success":
        raise SourceResponseError(f"status is not success: {str(body)[:120]}")
    data = body.get("data") or {}
    if data.get("resultType") != "streams":
        raise SourceResponseError(f"expected resultType 'streams', got {data.get('resultType')!r}")
    out: list[LokiEntry] = []
    for stream in data.get("result") or []:
        labels = {str(k): str(v) for k, v in (stream.get("stream") or {}).items()}
        for value in stream.get("values") or []:
            out.append(LokiEntry(int(value[0]), str(value[1]), labels))
    return out


def _first(mapping: dict[str, Any], keys: Sequence[str]) -> str:
    for key in keys:
        value = mapping.get(key)
        if value not in (None, ""):
            return str(value)
    return ""


def to_record(entry: LokiEntry, service_label: str, fallback_service: str | None) -> LogRecord:
    """Stream labels first; a JSON line may add level, message, host and pod."""
    labels = entry.stream
    message = entry.line
    fields: dict[str, Any] = {}
    if entry.line.startswith("{"):
        try:
            parsed = json.loads(entry.line)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            fields = parsed
            message = _first(parsed, _MESSAGE_KEYS) or entry.line
    level = _first(labels, _LEVEL_KEYS) or _first(fields, _LEVEL_KEYS)
    used = {service_label, *_LEVEL_KEYS, *_HOST_KEYS, *_POD_KEYS}
    return LogRecord(
        ts=datetime.fromtimestamp(entry.ns / 1e9, tz=UTC),
        service=labels.get(service_label) or fallback_service or "",
        message=message,
        level=level.upper(),
        host=_first(labels, _HOST_KEYS) or _first(fields, _HOST_KEYS),
        pod=_first(labels, _POD_KEYS) or _first(fields, _POD_KEYS),
        line=0,
        extra={k: v for k, v in labels.items() if k not in used},
    )


class LokiSource:
    """`LogSource` over Loki's HTTP API."""

    def __init__(self, settings: LokiSettings, *, guard: Guard | None = None) -> None:
        self.settings = settings
        self.guard = guard or Guard(SOURCE, settings)
        tenant = {"X-Scope-OrgID": settings.tenant_id} if settings.tenant_id else {}
        self.api = authenticated_api(self.guard, settings, tenant)
        self.last_invocations: tuple[str, ...] = ()
        self._asked: list[tuple[str, str]] = []  # (service or "", LogQL) of each query() since the last live_queries

    def live_queries(self, start: datetime, end: datetime) -> list[LiveQuery]:
        """The LogQL of the queries since the last call, each with its Grafana Explore link when configured."""
        s = self.settings
        out = [
            LiveQuery(
                "logs",
                SOURCE,
                service,
                f"LogQL {logql} [{_iso(start)} .. {_iso(end)}]",
                url=grafana_explore_url(s.grafana_url, s.grafana_datasource, {"expr": logql}, start, end)
                if s.grafana_url
                else "",
            )
            for service, logql in dict.fromkeys(self._asked)
        ]
        self._asked = []
        return out

    def query_range(
        self,
        logql: str,
        start: datetime,
        end: datetime,
        *,
        limit: int | None = None,
        direction: Direction | None = None,
    ) -> list[LokiEntry]:
        """All entries of `logql` in [start, end], paged, capped at `limit` (default `max_lines`).

        Pages move the window edge to the last timestamp seen (inclusive, then
        de-duplicated), so lines sharing a nanosecond across a page boundary
        are neither lost nor doubled.
        """
        return self._range_ns(logql, _ns(start), _ns(end), limit or self.settings.max_lines, direction)

    def _range_ns(self, logql: str, lo: int, hi: int, cap: int, direction: Direction | None = None) -> list[LokiEntry]:
        order: Direction = direction or self.settings.direction
        seen: set[tuple[int, str, tuple[tuple[str, str], ...]]] = set()
        out: list[LokiEntry] = []
        while len(out) < cap and lo <= hi:
            # Full pages even near the cap: a page starts with the lines of the previous page's edge.
            page_limit = self.settings.page_size
            params = {
                "query": logql,
                "start": str(lo),
                "end": str(hi),
                "limit": str(page_limit),
                "direction": order,
            }
            page = parse_streams(self.api.get_json("/loki/api/v1/query_range", params, what="query_range"))
            fresh = []
            for entry in page:
                key = (entry.ns, entry.line, tuple(sorted(entry.stream.items())))
                if key not in seen:
                    seen.add(key)
                    fresh.append(entry)
            fresh.sort(key=lambda e: e.ns, reverse=order == "backward")
            out += fresh[: cap - len(out)]
            if len(page) < page_limit or not fresh:
                break
            if order == "forward":
                lo = max(e.ns for e in page)
            else:
                hi = min(e.ns for e in page)
        return out

    def query(
        self, service: str | None, start: datetime, end: datetime, filter: str | None = None
    ) -> Sequence[LogRecord]:
        logql = build_logql(self.settings, service, filter)
        self.last_invocations = (f"LogQL {logql} [{_iso(start)} .. {_iso(end)}]",)
        self._asked.append((service or "", logql))
        entries = self.query_range(logql, start, end)
        if len(entries) >= self.settings.max_lines and self.settings.slices > 1:
            entries = self._spread(logql, start, end)
        records = [to_record(e, self.settings.service_label, service) for e in entries]
        records.sort(key=lambda r: r.ts)
        return records

    def _spread(self, logql: str, start: datetime, end: datetime) -> list[LokiEntry]:
        """The capped window again, as equal slices with an equal share of the cap each.

        A busy window capped from one end would show only its first (or last)
        minutes; baseline and incident must both be seen for surges to show.
        """
        count = self.settings.slices
        share = max(1, self.settings.max_lines // count)
        lo, hi = _ns(start), _ns(end)
        width = (hi - lo) // count
        out: list[LokiEntry] = []
        for index in range(count):
            s_lo = lo + index * width
            s_hi = hi if index == count - 1 else s_lo + width - 1
            out += self._range_ns(logql, s_lo, s_hi, share)
        return out

    def close(self) -> None:
        self.api.close()


def _ns(moment: datetime) -> int:
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


CONNECTOR = Connector(
    name="loki",
    settings=LokiSettings,
    description="Logs; empty: no live logs.",
    provides=frozenset({"logs"}),
    build=LokiSource,
)
