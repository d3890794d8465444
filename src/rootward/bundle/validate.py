"""Validate one bundle file at a time and turn it into domain records.

Each parser takes a file's text and either returns its records or raises a
`BundleError` that names the file, the line and the field, so a user fixes a
hand-written bundle from the message alone. Pure functions over text: the
loader does the file access (and keeps truth.json out of reach).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any, TypeVar

import orjson
import yaml
from pydantic import ValidationError

from rootward.bundle import typed_lines
from rootward.bundle.format import CHANGE_KINDS, FORMAT, ID_PATTERN, SPAN_KINDS, SPAN_STATUSES, TRACES_FILE, BundleError
from rootward.bundle.metrics_columns import read_metric_columns
from rootward.domain.alert import Alert
from rootward.domain.alertmanager import AmPayload, alerts_of
from rootward.domain.incident import IncidentMeta
from rootward.domain.knowledge import Document, DocumentKind
from rootward.domain.span_status import attribute_status
from rootward.domain.telemetry import Change, LogRecord, MetricSeries, Span
from rootward.domain.topology import Entity, Topology

T = TypeVar("T")
# How exports write a sample that is missing: empty (pandas, spreadsheets), or one of these words.
MISSING_VALUES = frozenset({"", "nan", "null", "none", "na", "n/a"})


def parse_time(value: Any, where: str) -> datetime:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise BundleError(f"{where}: timestamp '{value.isoformat()}' has no time zone")
        return value
    if not isinstance(value, str) or not value:
        raise BundleError(f"{where}: expected an RFC 3339 timestamp, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BundleError(f"{where}: '{value}' is not an RFC 3339 timestamp") from None
    if parsed.tzinfo is None:
        raise BundleError(f"{where}: timestamp '{value}' has no time zone")
    return parsed


def _as_list(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    return (str(value),)


# libyaml's parser where PyYAML was built with it: the same safe loading, a tenth of the time on a
# topology of a few hundred entities (~60 ms of a bundle's load in pure Python).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_YAML_LOADER)


def parse_incident(text: str) -> IncidentMeta:
    try:
        data = _load_yaml(text)
    except yaml.YAMLError as exc:
        raise BundleError(f"incident.yaml: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise BundleError("incident.yaml: expected a mapping at the top level")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise BundleError(f"incident.yaml: field 'format' must be '{FORMAT}', got {fmt!r}")
    for key in ("id", "title", "fired_at", "window"):
        if key not in data:
            raise BundleError(f"incident.yaml: required field '{key}' is missing")
    bundle_id = str(data["id"])
    if not ID_PATTERN.match(bundle_id):
        raise BundleError(f"incident.yaml: field 'id' must match [a-z0-9._-]+, got {bundle_id!r}")
    window = data["window"]
    if not isinstance(window, dict) or "start" not in window or "end" not in window:
        raise BundleError("incident.yaml: field 'window' must have 'start' and 'end'")
    start = parse_time(window["start"], "incident.yaml: field 'window.start'")
    end = parse_time(window["end"], "incident.yaml: field 'window.end'")
    if end <= start:
        raise BundleError("incident.yaml: field 'window.end' must be after 'window.start'")
    return IncidentMeta(
        id=bundle_id,
        title=str(data["title"]),
        fired_at=parse_time(data["fired_at"], "incident.yaml: field 'fired_at'"),
        window_start=start,
        window_end=end,
    )


def parse_alerts(text: str) -> tuple[list[dict[str, Any]], list[Alert]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"alerts.json line {exc.lineno}: not valid JSON ({exc.msg})") from None
    payloads = data if isinstance(data, list) else [data]
    if not payloads:
        raise BundleError("alerts.json: holds no payload")
    alerts: list[Alert] = []
    for index, raw in enumerate(payloads):
        if not isinstance(raw, dict):
            raise BundleError(f"alerts.json payload {index}: expected an object")
        try:
            payload = AmPayload.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise BundleError(f"alerts.json payload {index}: field '{loc}': {err['msg']}") from None
        alerts += alerts_of(payload)
    return payloads, alerts


def _attribute(value: object) -> str:
    """An entity attribute as text; a YAML list (`aliases: [pay, payments-api]`) as its items, comma-separated."""
    return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)


def parse_topology(text: str) -> Topology:
    try:
        data = _load_yaml(text)
    except yaml.YAMLError as exc:
        raise BundleError(f"topology.yaml: not valid YAML ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("entities"), dict):
        raise BundleError("topology.yaml: field 'entities' must be a mapping of name to entity")
    entities: dict[str, Entity] = {}
    for name, spec in data["entities"].items():
        spec = spec or {}
        if not isinstance(spec, dict):
            raise BundleError(f"topology.yaml: entity '{name}' must be a mapping")
        attrs = {str(k): _attribute(v) for k, v in spec.items() if k not in ("kind", "depends_on", "runs_on")}
        entities[str(name)] = Entity(
            name=str(name),
            kind=str(spec.get("kind", "service")),
            # An entity that depends on itself says nothing (and no walk of the graph may loop on it).
            depends_on=tuple(d for d in _as_list(spec.get("depends_on")) if d != str(name)),
            runs_on=tuple(r for r in _as_list(spec.get("runs_on")) if r != str(name)),
            attributes=attrs,
        )
    # Entities named only as targets still exist in the graph.
    for entity in list(entities.values()):
        for target in entity.dependencies:
            entities.setdefault(target, Entity(name=target, kind="unknown"))
    return Topology(entities=entities)


def _constructor(cls: type[T]) -> Callable[..., T]:
    """A constructor of the frozen dataclass `cls` taking every field, in order, that sets them in one step.

    A frozen dataclass's `__init__` sets each field through
    `object.__setattr__`, which is a good part of parsing 20,000 spans or log
    lines; this stores each field straight into the new instance's own
    `__dict__`, in field order, so the objects are the same (equal, same repr).
    Filling the instance's dict, rather than assigning a new dict to it, keeps
    the dict CPython lays out for instances of the class (smaller than a fresh
    dict of the same fields), and less memory to allocate is less time. Only for
    plain dataclasses: anything with `__post_init__` or slots gets `cls` itself.
    """
    if hasattr(cls, "__post_init__") or "__slots__" in vars(cls):
        return cls
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    # One statement per field, as dataclasses writes its own __init__: a loop over the names
    # cost as much again as the stores (~1.5 us of the ~2.5 us a log line took to build).
    params = ", ".join(f"v{i}" for i in range(len(names)))
    stores = "".join(f"    d[{name!r}] = v{i}\n" for i, name in enumerate(names))
    source = f"def make({params}):\n    obj = new(cls)\n    d = obj.__dict__\n{stores}    return obj\n"
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    exec(source, namespace)  # noqa: S102 - the source is built from the dataclass's own field names
    make: Callable[..., T] = namespace["make"]
    make.__qualname__ = f"{cls.__name__}.make"
    return make


_new_log = _constructor(LogRecord)
_new_span = _constructor(Span)


def parse_logs(text: str) -> list[LogRecord]:
    """`logs.jsonl`, one record a line, each with its 1-based `line` for cites.

    Real bundles hold tens of thousands of lines within the first hypothesis's
    one-second budget, so each line goes through orjson first; only a line
    orjson refuses goes through the standard library, which accepts what it
    always did (NaN, huge integers) and raises the same error for the rest.
    Before either, the whole file is tried in C (`bundle.typed_lines`), which
    reads the common case the same way in a fraction of the time.
    """
    typed = typed_lines.logs(text, _new_log)
    if typed is not None:
        return typed
    records: list[LogRecord] = []
    append = records.append
    fast = orjson.loads
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = fast(line)
        except orjson.JSONDecodeError:
            obj = _json_line(line, number)
        if not isinstance(obj, dict):
            raise BundleError(f"logs.jsonl line {number}: expected an object")
        for key in ("ts", "service", "message"):
            if key not in obj:
                raise BundleError(f"logs.jsonl line {number}: required field '{key}' is missing")
        # Most lines hold only the known fields: their `extra` is empty without looking at each one.
        extra = {} if obj.keys() <= _LOG_FIELDS else {k: str(v) for k, v in obj.items() if k not in _LOG_FIELDS}
        append(
            _new_log(
                _log_time(obj["ts"], number),
                str(obj["service"]),
                str(obj["message"]),
                str(obj.get("level") or "").upper(),
                str(obj.get("host") or ""),
                str(obj.get("pod") or ""),
                number,
                extra,
            )
        )
    return records


_LOG_FIELDS = frozenset(("ts", "service", "message", "level", "host", "pod"))


def _json_line(line: str, number: int) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise BundleError(f"logs.jsonl line {number}: not valid JSON ({exc.msg})") from None


def _log_time(value: Any, number: int) -> datetime:
    """`parse_time` of a log line's `ts`, without building its error location unless it fails."""
    if type(value) is str:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            return parsed
    return parse_time(value, f"logs.jsonl line {number}: field 'ts'")


_SPAN_REQUIRED = ("trace_id", "span_id", "service", "start", "duration_ms")
_SPAN_STATUS_OR_NONE = (None, *SPAN_STATUSES)
_SPAN_KIND_OR_NONE = (None, *SPAN_KINDS)


def parse_traces(text: str | bytes) -> tuple[Span, ...]:
    """`traces.jsonl`, one span a line, in file order, each with its 1-based `line` for cites.

    Real bundles hold tens of thousands of spans and the investigation's first
    hypothesis has a one-second budget, so this is a plain loop over orjson
    objects with one fast check per span, not a model validated per line; only
    a span that fails it goes through `_span_error` to name the field.
    """
    raw = text.encode("utf-8") if isinstance(text, str) else text
    typed = typed_lines.spans(raw, _new_span)  # the common case, in C (`bundle.typed_lines`)
    if typed is not None:
        return typed
    spans: list[Span] = []
    append = spans.append
    loads = orjson.loads
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except orjson.JSONDecodeError as exc:
            raise BundleError(f"{TRACES_FILE} line {number}: not valid JSON ({exc})") from None
        if type(obj) is not dict:
            raise BundleError(f"{TRACES_FILE} line {number}: expected an object")
        append(_span(obj, number))
    return tuple(spans)


def _span(obj: dict[str, Any], number: int) -> Span:
    """One span, or the `BundleError` that names its line and field."""
    get = obj.get
    trace_id, span_id, service, start = get("trace_id"), get("span_id"), get("service"), get("start")
    duration, parent, status, kind = get("duration_ms"), get("parent_id"), get("status"), get("kind")
    attributes = get("attributes")
    if (
        type(trace_id) is str
        and trace_id
        and type(span_id) is str
        and span_id
        and type(service) is str
        and service
        and type(start) is str
        and (type(duration) is float or type(duration) is int)
        and duration >= 0
        and (parent is None or type(parent) is str)
        and status in _SPAN_STATUS_OR_NONE
        and kind in _SPAN_KIND_OR_NONE
        and (attributes is None or type(attributes) is dict)
    ):
        try:
            at = datetime.fromisoformat(start)
        except ValueError:
            at = None
        if at is not None and at.tzinfo is not None:
            operation, pod, host = get("operation"), get("pod"), get("host")
            return _new_span(
                trace_id,
                span_id,
                service,
                at,
                float(duration),
                parent or None,
                status if status is not None or not attributes else attribute_status(attributes),
                kind,
                str(operation) if operation else "",
                str(pod) if pod else "",
                str(host) if host else "",
                attributes or {},
                number,
            )
    raise _span_error(obj, f"{TRACES_FILE} line {number}")


def _span_error(obj: dict[str, Any], where: str) -> BundleError:
    """Why `obj` is not a span, naming the first field that breaks the spec."""
    for key in _SPAN_REQUIRED:
        if obj.get(key) is None:
            return BundleError(f"{where}: required field '{key}' is missing")
    for key in ("trace_id", "span_id", "service"):
        if not isinstance(obj[key], str) or not obj[key]:
            return BundleError(f"{where}: field '{key}' must be a non-empty string, got {obj[key]!r}")
    duration = obj["duration_ms"]
    if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not duration >= 0:
        return BundleError(f"{where}: field 'duration_ms' must be a number >= 0, got {duration!r}")
    parent = obj.get("parent_id")
    if parent is not None and not isinstance(parent, str):
        return BundleError(f"{where}: field 'parent_id' must be a string or null, got {parent!r}")
    if obj.get("status") not in _SPAN_STATUS_OR_NONE:
        allowed = ", ".join(SPAN_STATUSES)
        return BundleError(f"{where}: field 'status' must be one of {allowed} or absent, got {obj['status']!r}")
    if obj.get("kind") not in _SPAN_KIND_OR_NONE:
        allowed = ", ".join(SPAN_KINDS)
        return BundleError(f"{where}: field 'kind' must be one of {allowed} or absent, got {obj['kind']!r}")
    attributes = obj.get("attributes")
    if attributes is not None and not isinstance(attributes, dict):
        return BundleError(f"{where}: field 'attributes' must be an object, got {type(attributes).__name__}")
    try:
        parse_time(obj["start"], f"{where}: field 'start'")
    except BundleError as exc:
        return exc
    return BundleError(f"{where}: not a span")


def _csv_rows(text: str) -> Iterator[list[str]]:
    """The rows `csv.reader` reads from `text`, split on commas where that is the same thing.

    Text with no quote, carriage return or NUL, and no field over the csv
    module's size limit, has nothing for the csv dialect to interpret: each
    line is its fields joined by commas, an empty line an empty row. Such text
    (every generated or exported metrics file) is split directly, a few times
    faster at 1 Hz; anything else goes through `csv.reader` itself.
    """
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()  # the newline that ends the last line does not start a row
    plain = not any(char in text for char in _CSV_SPECIAL) and max(map(len, lines), default=0) <= csv.field_size_limit()
    if not plain:
        return csv.reader(io.StringIO(text))
    return (line.split(",") if line else [] for line in lines)


_CSV_SPECIAL = ('"', "\r", "\0")


def parse_metrics(text: str) -> list[MetricSeries]:
    """`metrics.csv` as series; a plain file is read by columns (`metrics_columns`), any other row by row here.

    The row loop below is what the format means: it alone names the line and
    field of an error, and the column reader gives up on anything it would
    have to interpret, so both give the same series.
    """
    columns = read_metric_columns(text)
    if columns is not None:
        return columns
    reader = _csv_rows(text)
    header = next(reader, None)
    expected = ["timestamp", "service", "metric", "value"]
    if header is None or [h.strip() for h in header[:4]] != expected:
        raise BundleError(f"metrics.csv line 1: header must be {','.join(expected)}, got {header!r}")
    points: dict[tuple[str, str], list[tuple[int, float]]] = {}
    epochs: dict[str, int] = {}  # every series of a scrape repeats its timestamp: convert each once
    for number, row in enumerate(reader, start=2):
        if not row:
            continue
        if len(row) < 4:
            raise BundleError(f"metrics.csv line {number}: expected 4 columns, got {len(row)}")
        ts_raw, service, metric, value_raw = row[0], row[1], row[2], row[3]
        ts = epochs.get(ts_raw)
        if ts is None:
            try:
                ts = int(float(ts_raw))
            except ValueError:
                raise BundleError(f"metrics.csv line {number}: timestamp '{ts_raw}' is not epoch seconds") from None
            epochs[ts_raw] = ts
        if not service or not metric:
            raise BundleError(f"metrics.csv line {number}: service and metric must not be empty")
        if value_raw.strip().lower() in MISSING_VALUES:
            continue  # a missing value is no sample (pandas and spreadsheets write it empty, others so)
        try:
            value = float(value_raw)
        except ValueError:
            raise BundleError(f"metrics.csv line {number}: value '{value_raw}' is not a number") from None
        if not math.isfinite(value):
            continue  # NaN (pandas' missing value, Prometheus' 0/0) or an infinity: no measurement
        key = (service, metric)
        samples = points.get(key)
        if samples is None:
            samples = points[key] = []
        samples.append((ts, value))
    out: list[MetricSeries] = []
    for (service, metric), samples in sorted(points.items()):
        samples.sort()
        timestamps, values = zip(*samples, strict=True)
        out.append(MetricSeries(service=service, metric=metric, timestamps=timestamps, values=values))
    return out


def parse_changes(text: str) -> list[Change]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"changes.json line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, list):
        raise BundleError("changes.json: expected a JSON array of changes")
    changes: list[Change] = []
    for index, obj in enumerate(data):
        where = f"changes.json item {index}"
        if not isinstance(obj, dict):
            raise BundleError(f"{where}: expected an object")
        for key in ("id", "kind", "service", "time"):
            if key not in obj:
                raise BundleError(f"{where}: required field '{key}' is missing")
        kind = obj["kind"]
        if kind not in CHANGE_KINDS:
            raise BundleError(f"{where}: field 'kind' must be one of {', '.join(CHANGE_KINDS)}, got {kind!r}")
        changes.append(
            Change(
                id=str(obj["id"]),
                kind=kind,
                service=str(obj["service"]),
                time=parse_time(obj["time"], f"{where}: field 'time'"),
                version=str(obj.get("version") or ""),
                author=str(obj.get("author") or ""),
                summary=str(obj.get("summary") or ""),
                diff=str(obj.get("diff") or ""),
            )
        )
    return changes


def split_front_matter(text: str, where: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        return {}, text
    parts = text.split("\n---", 1)
    if len(parts) != 2:
        return {}, text
    head = parts[0][3:]
    body = parts[1].split("\n", 1)[1] if "\n" in parts[1] else ""
    try:
        meta = _load_yaml(head) or {}
    except yaml.YAMLError as exc:
        raise BundleError(f"{where}: front matter is not valid YAML ({exc})") from None
    if not isinstance(meta, dict):
        raise BundleError(f"{where}: front matter must be a mapping")
    return meta, body


def _doc_kind(rel: str) -> DocumentKind:
    top = rel.split("/", 1)[0]
    return {"runbooks": "runbook", "postmortems": "postmortem", "bits": "bits"}.get(top, "other")  # type: ignore[return-value]


def parse_document(rel: str, text: str) -> Document:
    meta, body = split_front_matter(text, f"knowledge/{rel}")
    kind = _doc_kind(rel)
    services = _as_list(meta.get("service"))
    if kind == "bits" and not services:
        services = (Path(rel).stem,)
    updated = meta.get("updated")
    if isinstance(updated, str):
        try:
            updated = date.fromisoformat(updated[:10])
        except ValueError:
            raise BundleError(f"knowledge/{rel}: front matter 'updated' is not a date: {updated!r}") from None
    elif isinstance(updated, datetime):
        updated = updated.date()
    elif not isinstance(updated, date):
        updated = None
    title = next((ln.lstrip("# ").strip() for ln in body.splitlines() if ln.startswith("#")), Path(rel).stem)
    return Document(
        path=rel,
        kind=kind,
        text=body,
        services=services,
        monitors=_as_list(meta.get("monitors")),
        updated=updated,
        title=title,
        meta={str(k): v for k, v in meta.items()},
    )
