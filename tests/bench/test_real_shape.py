"""The real-shape copy keeps what real fault-injection data has, and loses what only a simulator records."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from bench.real_shape import NAMELESS, copy_bundle

from rootward.bundle.load import load_bundle
from rootward.context.metric_names import family_of
from rootward.sim.generate import generate
from rootward.sim.traces import WRONG_ANSWER_KEY


def test_a_copy_has_no_changes_no_span_status_few_series_and_callers_naming_nobody(tmp_path: Path) -> None:
    (made,) = generate(tmp_path / "sim", count=1, seed=7, topologies=["shop"], faults=["deploy_regression"])
    src = made.path
    copy_bundle(src, tmp_path / "real" / src.name)
    dst = tmp_path / "real" / src.name
    bundle = load_bundle(dst)
    original = load_bundle(src)
    assert original.changes and bundle.changes == []
    assert bundle.spans and all(s.status is None and s.kind is None and not s.attributes for s in bundle.spans)
    assert original.spans is not None and len(bundle.spans) == len(original.spans)

    alerting = {a.service for a in bundle.alerts}
    with (dst / "metrics.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    families = {(r["service"], family_of(r["metric"])) for r in rows}
    assert {f for _, f in families} <= {"cpu", "memory", "latency", "traffic", "errors"}
    assert {s for s, f in families if f == "errors"} <= alerting

    entities = set(bundle.topology.entities) if bundle.topology else set()
    lines = [json.loads(line) for line in (dst / "logs.jsonl").read_text().splitlines()]
    before = [json.loads(line) for line in (src / "logs.jsonl").read_text().splitlines()]
    assert len(lines) == len(before)
    named = [r for r in before if any(e in r["message"] for e in entities - {r["service"]})]
    assert named  # the simulator's callers name the callee that failed them ...
    for record in lines:  # ... and no copied line names another entity of the map
        words = set(record["message"].replace(":", " ").replace("/", " ").split())
        assert not (words & (entities - {record["service"]})), record["message"]
    assert any(NAMELESS in r["message"] for r in lines)
    assert (dst / "truth.json").read_text() == (src / "truth.json").read_text()


def test_span_logs_add_a_start_and_an_end_line_per_served_span_with_its_ids_or_bare(tmp_path: Path) -> None:
    (made,) = generate(tmp_path / "sim", count=1, seed=7, topologies=["shop"], faults=["dependency_down"])
    src = made.path
    served = [s for s in load_bundle(src).spans or () if s.kind in ("server", "consumer")]
    before = len((src / "logs.jsonl").read_text().splitlines())
    for mode in ("ids", "bare"):
        copy_bundle(src, tmp_path / mode / src.name, mode)
        lines = [json.loads(x) for x in (tmp_path / mode / src.name / "logs.jsonl").read_text().splitlines()]
        added = lines[before:]
        assert len(added) == 2 * len(served)
        assert sum("handling" in r["message"] for r in added) == len(served)
        failed = {s.span_id for s in served if s.status == "error"}
        assert failed and sum(r["level"] == "ERROR" for r in added) == len(failed)
        with_ids = [r for r in added if r["message"].startswith("TraceID: ")]
        assert len(with_ids) == (len(added) if mode == "ids" else 0)


def test_a_span_that_answered_wrongly_logs_no_end_line(tmp_path: Path) -> None:
    """A wrong return cuts the method short: its start line is there, its end line is not."""
    (made,) = generate(tmp_path / "sim", count=1, seed=14, topologies=["shop"], faults=["deploy_regression"])
    src = made.path
    wrong = {s.span_id for s in load_bundle(src).spans or () if s.attributes.get(WRONG_ANSWER_KEY)}
    assert wrong, "the fixture is a wrong-answer regression"
    copy_bundle(src, tmp_path / "real" / src.name, "ids")
    added = [json.loads(x) for x in (tmp_path / "real" / src.name / "logs.jsonl").read_text().splitlines()]
    lines_of: dict[str, list[str]] = {}
    for r in added:
        if r["message"].startswith("TraceID: "):
            lines_of.setdefault(r["message"].split()[3], []).append(r["message"])
    assert all(len(lines_of[s]) == 1 and "handling" in lines_of[s][0] for s in wrong)
    assert sum(len(v) == 2 for v in lines_of.values()) > len(wrong)
