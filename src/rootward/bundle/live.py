"""`live.json`: what a live snapshot asked its sources, kept beside the files it wrote.

The bundle's own files hold the data; this one holds where it came from: the
exact query behind each metric series (and the log and trace queries), a
link to each in the source's UI, and per entity which templates matched. It
is optional and only a live snapshot writes it, so bundles from elsewhere
load unchanged (unknown files are ignored by the loader), and cites still
resolve against the files alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rootward.bundle.format import LOGS_FILE
from rootward.domain.investigation import EvidenceItem, InvestigationResult
from rootward.domain.live import EntityCoverage, LiveQuery, TemplateMatch

LIVE_FILE = "live.json"
KUBERNETES = "Kubernetes"  # the connector's display name; its log lines name it in their `source`


@dataclass(frozen=True)
class LiveRecord:
    queries: tuple[LiveQuery, ...] = ()
    coverage: tuple[EntityCoverage, ...] = ()
    alert_links: dict[str, str] = field(default_factory=dict)  # alert fingerprint -> its generatorURL

    def metric_query(self, service: str, metric: str) -> LiveQuery | None:
        """The query behind `metrics.csv:<service>/<metric>@...`."""
        return next(
            (q for q in self.queries if q.kind == "metrics" and (q.entity, q.metric) == (service, metric)), None
        )

    def first(self, kind: str, entity: str = "", source: str | None = None) -> LiveQuery | None:
        """The query of `kind` for `entity`, or the one asked about every entity; of `source` when given."""
        mine = [q for q in self.queries if q.kind == kind and (source is None or q.source == source)]
        return next((q for q in mine if q.entity == entity), None) or next((q for q in mine if not q.entity), None)

    def log_query(self, origin: str) -> LiveQuery | None:
        """The query behind a log line whose `source` field is `origin` (Kubernetes lines say `kubernetes.*`)."""
        sources = {q.source for q in self.queries if q.kind == "logs"}
        wanted = next((s for s in sources if origin.lower().startswith(s.lower())), None)
        if wanted is not None:
            return self.first("logs", source=wanted)
        return next((q for q in self.queries if q.kind == "logs" and q.source != KUBERNETES), None) or self.first(
            "logs"
        )


def write_live(out: Path, record: LiveRecord) -> None:
    body = {
        "queries": [asdict(q) for q in record.queries],
        "coverage": [
            {**asdict(c), "summary": c.summary(), "missing_signals": list(c.missing_signals)} for c in record.coverage
        ],
        "alert_links": record.alert_links,
    }
    (out / LIVE_FILE).write_text(json.dumps(body, indent=1))


def read_live(root: str | Path) -> LiveRecord | None:
    """The snapshot's record, or None for a bundle without one (or with one this version cannot read)."""
    path = Path(root) / LIVE_FILE
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text())
        return LiveRecord(
            queries=tuple(LiveQuery(**q) for q in raw.get("queries", [])),
            coverage=tuple(_coverage(c) for c in raw.get("coverage", [])),
            alert_links={str(k): str(v) for k, v in (raw.get("alert_links") or {}).items()},
        )
    except (ValueError, TypeError, AttributeError):
        return None


def _coverage(raw: dict[str, Any]) -> EntityCoverage:
    fields = {k: v for k, v in raw.items() if k not in ("summary", "missing_signals")}
    fields["templates"] = tuple(TemplateMatch(**t) for t in fields.get("templates", []))
    fields["discovered"] = tuple(fields.get("discovered", []))
    fields["notes"] = tuple(fields.get("notes", []))
    return EntityCoverage(**fields)


def _log_origins(root: str | Path | None) -> Callable[[str], str]:
    """Line number -> that `logs.jsonl` line's `source` field ("" when absent), read once when first asked."""
    origins: dict[str, str] | None = None

    def origin(line: str) -> str:
        nonlocal origins
        if origins is None:
            origins = {}
            path = Path(root) / LOGS_FILE if root is not None else None
            if path is not None and path.is_file():
                with path.open(encoding="utf-8") as fh:
                    for number, text in enumerate(fh, start=1):
                        with suppress(ValueError, AttributeError):
                            origins[str(number)] = str(json.loads(text).get("source") or "")
        return origins.get(line, "")

    return origin


def _live_query_of(cite: str, record: LiveRecord, log_origin: Callable[[str], str]) -> tuple[str, str]:
    """(query, url) behind one bundle cite, from what the snapshot asked; ("", "") when unknown."""
    kind, _, rest = cite.partition(":")
    if kind == "metrics.csv":
        service, _, tail = rest.partition("/")
        found = record.metric_query(service, tail.rsplit("@", 1)[0])
    elif kind == "logs.jsonl":
        found = record.log_query(log_origin(rest))
    elif kind == "traces.jsonl":
        service = rest.split("@", 1)[0].split("->")[-1] if "@" in rest else ""
        found = record.first("traces", service)
    elif kind == "alerts.json":
        url = record.alert_links.get(rest, "")
        return "", url
    else:
        found = None
    return (found.query, found.url) if found is not None else ("", "")


def link_evidence(
    result: InvestigationResult, record: LiveRecord | None, root: str | Path | None = None
) -> InvestigationResult:
    """The result with each live evidence item's exact query and UI link (`query`, `url`) beside its cite.

    Cites keep pointing into the bundle (they must resolve against files that stay put); the query
    is how to see the same data in the live source again. `root` is the bundle, whose log lines say
    which source they came from (a Kubernetes event's query is an API path, not the LogQL)."""
    if record is None:
        return result
    evidence: dict[str, EvidenceItem] = {}
    log_origin = _log_origins(root)
    for eid, item in result.evidence.items():
        query, url = _live_query_of(item.cite, record, log_origin)
        url = url if url.startswith(("http://", "https://")) else ""  # a generatorURL is sender-supplied
        extra = {k: v for k, v in (("query", query), ("url", url)) if v}
        evidence[eid] = item.model_copy(update=extra) if extra else item
    return result.model_copy(update={"evidence": evidence})
