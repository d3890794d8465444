"""Copies of bundles in the shape real fault-injection data has, to check what the method leans on.

    python -m bench.real_shape SRC DST

A simulated bundle carries what a well-kept production stack records: a change
log, span status and kind, peer attributes, an error series at every service,
and callers whose failure lines name the callee that failed them. Real
fault-injection sets (Nezha, RCAEval, the AIOps challenges) have none of that,
and a method that scores well only because of it will not hold on them. Each
copy keeps what such sets do have:

- no change record (`changes.json` is `[]`): injecting a fault deploys nothing;
- spans with timings only: no `status`, `kind` or `attributes`;
- per service its CPU, memory, latency and request series; an error series
  only at the alerting entity (a front end's success rate);
- log lines that name no other entity of the map: a caller says "503 Service
  Unavailable" or "request failed", not which dependency answered so (each
  other entity's name becomes `upstream`).

Everything else (alerts, topology, truth) is copied as it is.

With `--span-logs`, each service also logs two lines in every span it served
(`TraceID: ... SpanID: ... handling <operation>` as it starts, and
`... request failed|handled <operation>` as it ends, at ERROR where the span
failed), as services whose logs carry the span do while their tracer records
timings only. A span that answered wrongly (a wrong return value) logs no end
line: its code returned early, the way Nezha's TrainTicket root causes show as
a missing transition between two log statements. `--span-logs=bare` writes the
same lines without the ids, to tell what the ids add from what the lines add.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.bundle_copies import copy_each
from rootward.bundle.load import load_bundle
from rootward.context.metric_names import family_of
from rootward.sim.traces import WRONG_ANSWER_KEY

KEPT_FAMILIES = frozenset({"cpu", "memory", "latency", "traffic"})
SPAN_KEYS_DROPPED = ("status", "kind", "attributes")
NAMELESS = "upstream"


def _keep_series(row: dict[str, str], alerting: set[str]) -> bool:
    family = family_of(row["metric"])
    return family in KEPT_FAMILIES or (family == "errors" and row["service"] in alerting)


def _write_metrics(src: Path, dst: Path, alerting: set[str]) -> None:
    with src.open(newline="") as f, dst.open("w", newline="") as g:
        out = csv.writer(g)
        out.writerow(["timestamp", "service", "metric", "value"])
        for row in csv.DictReader(f):
            if _keep_series(row, alerting):
                out.writerow([row["timestamp"], row["service"], row["metric"], row["value"]])


def _served_lines(span: dict[str, Any]) -> list[dict[str, str]]:
    """What a service logs in a span it served: a line as it starts, and one as it ends.

    The end line says how it ended: `handled` (INFO) or `failed` (ERROR). A span
    that answered wrongly (the simulator's mark) took another path and returned
    early, so it logs no end line, as a method cut short by a wrong return does.
    """
    ids = f"TraceID: {span['trace_id']} SpanID: {span['span_id']} "
    operation = span.get("operation", "")
    start = datetime.fromisoformat(str(span["start"]).replace("Z", "+00:00"))
    end = start + timedelta(milliseconds=float(span.get("duration_ms", 0.0)))
    line = {"service": span["service"], "ids": ids}
    out = [{**line, "ts": span["start"], "level": "INFO", "message": f"handling {operation}".strip()}]
    if span.get("attributes", {}).get(WRONG_ANSWER_KEY):
        return out
    failed = span.get("status") == "error"
    ended = {"ts": end.isoformat().replace("+00:00", "Z"), "level": "ERROR" if failed else "INFO"}
    return [*out, {**line, **ended, "message": f"request {'failed' if failed else 'handled'} {operation}".strip()}]


def _write_spans(src: Path, dst: Path) -> list[dict[str, str]]:
    """Writes the spans with timings only; returns the log lines of the spans the services served."""
    served: list[dict[str, str]] = []
    with src.open() as f, dst.open("w") as g:
        for line in f:
            span = json.loads(line)
            if span.get("kind") in ("server", "consumer"):
                served += _served_lines(span)
            for key in SPAN_KEYS_DROPPED:
                span.pop(key, None)
            g.write(json.dumps(span) + "\n")
    return served


def _append_span_logs(dst: Path, served: list[dict[str, str]], with_ids: bool) -> None:
    with dst.open("a") as g:
        for line in served:
            ids = line["ids"] if with_ids else ""
            record = {"ts": line["ts"], "service": line["service"], "level": line["level"]}
            g.write(json.dumps({**record, "message": ids + line["message"]}) + "\n")


def _write_logs(src: Path, dst: Path, entities: list[str]) -> None:
    if not entities:
        shutil.copyfile(src, dst)
        return
    longest_first = sorted(entities, key=len, reverse=True)
    names = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in longest_first) + r")(?![\w-])")

    def nameless(own: str) -> Callable[[re.Match[str]], str]:
        return lambda m: m.group(0) if m.group(0) == own else NAMELESS

    with src.open() as f, dst.open("w") as g:
        for line in f:
            record = json.loads(line)
            record["message"] = names.sub(nameless(str(record.get("service"))), str(record["message"]))
            g.write(json.dumps(record) + "\n")


def copy_bundle(src: Path, dst: Path, span_logs: str = "") -> None:
    """One bundle in the real shape, written to `dst` (replaced if it exists); `span_logs`: "", "ids" or "bare"."""
    bundle = load_bundle(src)
    entities = list(bundle.topology.entities) if bundle.topology else []
    alerting = {a.service for a in bundle.alerts}
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    (dst / "changes.json").write_text("[]\n")
    served = _write_spans(src / "traces.jsonl", dst / "traces.jsonl") if (src / "traces.jsonl").exists() else []
    if (src / "metrics.csv").exists():
        _write_metrics(src / "metrics.csv", dst / "metrics.csv", alerting)
    if (src / "logs.jsonl").exists():
        _write_logs(src / "logs.jsonl", dst / "logs.jsonl", entities)
    if span_logs:
        _append_span_logs(dst / "logs.jsonl", served, with_ids=span_logs == "ids")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="a directory of bundles")
    parser.add_argument("dst", type=Path, help="where the copies go (created)")
    parser.add_argument(
        "--span-logs",
        nargs="?",
        const="ids",
        default="",
        choices=["ids", "bare"],
        help="also log a line in every span a service served (with the span's ids, or bare)",
    )
    args = parser.parse_args()
    copy_each(parser, args.src, args.dst, lambda src, dst: copy_bundle(src, dst, args.span_logs))


if __name__ == "__main__":
    main()
