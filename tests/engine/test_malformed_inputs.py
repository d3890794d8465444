"""Broken data ends in an investigation, not a hang, a crash or an exhausted machine.

Each case is a shape real exports produce: span parent ids that loop, a
topology entity that depends on itself, a log line of a whole request body, a
series of huge counters. Before, each one failed the investigation (or never
let it finish).
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from rootward.bundle.validate import parse_topology
from rootward.context.anomaly import ramp_fit
from rootward.context.log_length import MAX_MESSAGE_CHARS, clipped
from rootward.context.log_templates import merge_varying_position
from rootward.context.span_graph import span_graph
from rootward.domain.telemetry import LogRecord
from rootward.engine.entry_point import investigate_bundle
from tests.conftest import EXAMPLES
from tests.context.span_factory import BASELINE, Phase, incident_spans

EXAMPLE = EXAMPLES / "shop-connection-pool-exhaustion-00"


def _copy(tmp_path: Path) -> Path:
    bundle = tmp_path / "bundle"
    shutil.copytree(EXAMPLE, bundle)
    return bundle


def _investigated(bundle: Path) -> None:
    result = investigate_bundle(bundle)
    assert result.status != "failed" and result.hypotheses, result.gaps


def test_span_parents_that_loop_end_the_walk_up_the_tree() -> None:
    spans = incident_spans({"frontend": ["cart", "catalog"]}, "frontend", Phase(), Phase(), per_side=5)
    first = [n for n, s in enumerate(spans) if s.trace_id == spans[0].trace_id and s.service == "frontend"]
    root, to_cart, to_catalog = first[:3]  # one request's server span and its two client spans
    looped = list(spans)
    for child, parent in ((root, to_catalog), (to_catalog, to_cart), (to_cart, root)):  # a loop of three
        looped[child] = replace(spans[child], parent_id=spans[parent].span_id)
    looped.append(replace(spans[-1], span_id="self", parent_id="self"))  # and a span its own parent
    started = time.monotonic()
    graph = span_graph(looped)
    assert time.monotonic() - started < 5
    assert graph.calls.service.size == span_graph(spans).calls.service.size + 3  # each span in a loop starts one


def test_an_entity_that_depends_on_itself_has_no_self_edge(tmp_path: Path) -> None:
    topology = parse_topology("entities:\n  api: {depends_on: [api, db], runs_on: [api]}\n  db: {}\n")
    assert topology.entities["api"].depends_on == ("db",) and topology.entities["api"].runs_on == ()
    bundle = _copy(tmp_path)
    text = (bundle / "topology.yaml").read_text().replace("depends_on: [", "depends_on: [payment, ", 1)
    (bundle / "topology.yaml").write_text(text)
    _investigated(bundle)


def test_a_log_line_is_read_up_to_a_length_and_a_long_template_is_not_merged_position_by_position() -> None:
    at = BASELINE[0]
    body = "payload " + "k=v " * 50_000
    (record,) = clipped([LogRecord(ts=at, service="api", message=body)])
    assert len(record.message) == MAX_MESSAGE_CHARS and body.startswith(record.message)
    short = LogRecord(ts=at, service="api", message="ok")
    assert clipped([short])[0] is short
    templates = {i: f"user u{i} logged in " + "x " * 2000 for i in range(50)}
    started = time.monotonic()
    remap, merged = merge_varying_position(templates)
    assert time.monotonic() - started < 5 and merged == templates


def test_whole_request_bodies_in_the_logs_are_investigated(tmp_path: Path) -> None:
    bundle = _copy(tmp_path)
    lines = (bundle / "logs.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    for row in rows[::50]:
        row["message"] += " x" * 50_000
    (bundle / "logs.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    started = time.monotonic()
    _investigated(bundle)
    assert time.monotonic() - started < 60


def test_a_ramp_of_huge_values_is_fitted_as_the_same_ramp_scaled() -> None:
    ts = np.arange(0, 7200, 60, dtype=np.int64) + 1_773_490_000
    climb = np.where(np.arange(ts.size) > 40, np.arange(ts.size) - 40, 0).astype(float)
    vs = 100.0 + climb + np.random.default_rng(3).normal(0, 0.5, ts.size)
    small, huge = ramp_fit(ts, vs), ramp_fit(ts, vs * 1e160)
    assert small is not None and huge is not None
    assert huge[0] == small[0] and huge[1] == small[1]
    assert np.isclose(huge[2], small[2] * 1e160) and np.isclose(huge[3], small[3] * 1e160)


def test_huge_metric_values_are_investigated(tmp_path: Path) -> None:
    bundle = _copy(tmp_path)
    lines = (bundle / "metrics.csv").read_text().splitlines()
    rows = [lines[0]] + [",".join([*r.split(",")[:3], f"{float(r.split(',')[3]) * 1e300!r}"]) for r in lines[1:]]
    (bundle / "metrics.csv").write_text("\n".join(rows) + "\n")
    _investigated(bundle)
