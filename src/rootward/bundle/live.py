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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rootward.domain.investigation import EvidenceItem, InvestigationResult
from rootward.domain.live import EntityCoverage, LiveQuery, TemplateMatch

LIVE_FILE = "live.json"


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

    def first(self, kind: str, entity: str = "") -> LiveQuery | None:
        """The query of `kind` for `entity`, or the one asked about every entity."""
        mine = [q for q in self.queries if q.kind == kind]
        return next((q for q in mine if q.entity == entity), None) or next((q for q in mine if not q.entity), None)


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


def _live_query_of(cite: str, record: LiveRecord) -> tuple[str, str]:
    """(query, url) behind one bundle cite, from what the snapshot asked; ("", "") when unknown."""
    kind, _, rest = cite.partition(":")
    if kind == "metrics.csv":
        service, _, tail = rest.partition("/")
        found = record.metric_query(service, tail.rsplit("@", 1)[0])
    elif kind == "logs.jsonl":
        found = record.first("logs")
    elif kind == "traces.jsonl":
        service = rest.split("@", 1)[0].split("->")[-1] if "@" in rest else ""
        found = record.first("traces", service)
    elif kind == "alerts.json":
        url = record.alert_links.get(rest, "")
        return "", url
    else:
        found = None
    return (found.query, found.url) if found is not None else ("", "")


def link_evidence(result: InvestigationResult, record: LiveRecord | None) -> InvestigationResult:
    """The result with each live evidence item's exact query and UI link (`query`, `url`) beside its cite.

    Cites keep pointing into the bundle (they must resolve against files that stay put); the query
    is how to see the same data in the live source again."""
    if record is None:
        return result
    evidence: dict[str, EvidenceItem] = {}
    for eid, item in result.evidence.items():
        query, url = _live_query_of(item.cite, record)
        url = url if url.startswith(("http://", "https://")) else ""  # a generatorURL is sender-supplied
        extra = {k: v for k, v in (("query", query), ("url", url)) if v}
        evidence[eid] = item.model_copy(update=extra) if extra else item
    return result.model_copy(update={"evidence": evidence})
