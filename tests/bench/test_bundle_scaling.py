"""The benchmark's scaled bundles are valid bundles (by the repo's own loader) and scale what they say."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from bench.bundle_scaling import LOG_JITTER_S, SPAN_SHIFT_S, VARIANTS, Scaling, scale_bundle, scale_set

from rootward.bundle.load import load_bundle

START = datetime(2026, 3, 14, 14, 0, tzinfo=UTC)
FIRED = START + timedelta(minutes=20)
END = START + timedelta(minutes=30)


def _iso(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _write_bundle(root: Path, name: str, *, logs: bool = True, shift: timedelta = timedelta()) -> Path:
    """A small bundle in the shape of a real one: 40 traces of 3 spans, minute metrics, logs with hex ids."""
    out = root / name
    out.mkdir(parents=True)
    start, fired, end = START + shift, FIRED + shift, END + shift
    (out / "incident.yaml").write_text(
        f"format: rootward-bundle/v1\nid: {name}\ntitle: t\nfired_at: '{_iso(fired)}'\n"
        f"window:\n  start: '{_iso(start)}'\n  end: '{_iso(end)}'\n"
    )
    alert = {
        "status": "firing", "labels": {"alertname": "HighLatency", "service": "front"}, "annotations": {},
        "startsAt": _iso(fired), "endsAt": "0001-01-01T00:00:00Z", "generatorURL": "", "fingerprint": "f1",
    }  # fmt: skip
    (out / "alerts.json").write_text(json.dumps({"version": "4", "status": "firing", "alerts": [alert]}))
    (out / "topology.yaml").write_text("entities:\n  front: {depends_on: [cart]}\n  cart: {}\n")
    (out / "truth.json").write_text('{"root_cause": {"entity": "cart", "fault_type": "cpu_saturation"}}')
    spans = []
    for i in range(40):
        at = start + timedelta(seconds=5 + 44 * i)  # the first trace sits 5 s after the window opens
        trace = f"{i:032x}"
        spans += [
            {"trace_id": trace, "span_id": f"{3 * i:016x}", "parent_id": None, "service": "front",
             "start": _iso(at), "duration_ms": 12.5, "kind": "server"},
            {"trace_id": trace, "span_id": f"{3 * i + 1:016x}", "parent_id": f"{3 * i:016x}", "service": "cart",
             "start": _iso(at + timedelta(milliseconds=2)), "duration_ms": 8.0, "status": "ok"},
            {"trace_id": trace, "span_id": f"{3 * i + 2:016x}", "parent_id": f"{3 * i + 1:016x}", "service": "cart",
             "start": _iso(at + timedelta(milliseconds=3)), "duration_ms": 1.0},
        ]  # fmt: skip
    (out / "traces.jsonl").write_text("".join(json.dumps(s) + "\n" for s in spans))
    if logs:
        lines = [
            {"ts": _iso(fired + timedelta(seconds=7 * i)), "service": "cart", "level": "INFO",
             "message": f"TraceID: {i:032x} SpanID: {i:016x} served cart in {i % 9} ms"}
            for i in range(50)
        ]  # fmt: skip
        (out / "logs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    rows = ["timestamp,service,metric,value"]
    for minute in range(31):
        t = int((start + timedelta(minutes=minute)).timestamp())
        rows += [f"{t},cart,cpu_usage,{0.2 + 0.03 * math.sin(1.3 * minute) + (0.5 if minute >= 20 else 0)}"]
        rows += [f"{t},cart,restarts_total,0.0"]
    (out / "metrics.csv").write_text("\n".join(rows) + "\n")
    return out


def test_doubled_bundle_is_valid_with_twice_the_spans_and_padded_logs(tmp_path: Path) -> None:
    src = _write_bundle(tmp_path / "in", "b-01")
    out = scale_bundle(src, tmp_path / "out" / "b-01", Scaling(span_copies=1, log_lines=500))
    before, after = load_bundle(src), load_bundle(out)
    assert before.spans is not None and after.spans is not None and after.logs is not None
    assert len(after.spans) == 2 * len(before.spans)
    assert len(after.logs) == 500
    assert all(START <= s.start <= END for s in after.spans)
    assert all(START <= r.ts <= END for r in after.logs)
    assert [r.ts for r in after.logs] == sorted(r.ts for r in after.logs)
    assert (out / "truth.json").read_text() == (src / "truth.json").read_text()


def test_span_copies_are_whole_traces_with_fresh_ids_shifted_together(tmp_path: Path) -> None:
    src = _write_bundle(tmp_path / "in", "b-01")
    after = load_bundle(scale_bundle(src, tmp_path / "out", Scaling(span_copies=2)))
    before = load_bundle(src)
    assert before.spans is not None and after.spans is not None
    real, copies = after.spans[: len(before.spans)], after.spans[len(before.spans) :]
    assert [(s.trace_id, s.span_id, s.start) for s in real] == [(s.trace_id, s.span_id, s.start) for s in before.spans]
    assert len({s.span_id for s in after.spans}) == len(after.spans)
    assert not {s.trace_id for s in copies} & {s.trace_id for s in real}
    by_id = {s.span_id: s for s in after.spans}
    originals = {(s.service, s.duration_ms, s.trace_id) for s in before.spans}
    for span in copies:
        if span.parent_id is not None:
            assert by_id[span.parent_id].trace_id == span.trace_id  # the parent is in the same copy
    for trace in {s.trace_id for s in copies}:
        members = [s for s in copies if s.trace_id == trace]
        assert len(members) == 3
        gaps = {(m.start - members[0].start) for m in members}
        assert gaps == {timedelta(), timedelta(milliseconds=2), timedelta(milliseconds=3)}  # moved as one
    starts = sorted(s.start for s in before.spans if s.parent_id is None)
    moved = sorted(s.start for s in copies if s.parent_id is None)
    assert all(abs((m - o).total_seconds()) <= SPAN_SHIFT_S for m, o in zip(moved, sorted(starts * 2), strict=True))
    assert {(s.service, s.duration_ms) for s in copies} == {(o[0], o[1]) for o in originals}


def test_one_second_metrics_keep_the_real_samples_and_add_the_series_own_noise(tmp_path: Path) -> None:
    src = _write_bundle(tmp_path / "in", "b-01")
    after = load_bundle(scale_bundle(src, tmp_path / "out", Scaling(metric_step_s=1)))
    before = load_bundle(src)
    assert before.metrics is not None and after.metrics is not None
    for old, new in zip(before.metrics, after.metrics, strict=True):
        assert (old.service, old.metric) == (new.service, new.metric)
        assert new.timestamps == tuple(range(old.timestamps[0], old.timestamps[-1] + 1))
        samples = dict(zip(new.timestamps, new.values, strict=True))
        assert all(samples[t] == v for t, v in zip(old.timestamps, old.values, strict=True))
        assert min(new.values) >= 0.0
    cpu, restarts = (next(s for s in after.metrics if s.metric == m) for m in ("cpu_usage", "restarts_total"))
    assert set(restarts.values) == {0.0}  # a flat series has no spread, so no noise
    assert len(set(cpu.values)) > 1000  # the in-between samples are not a straight line


def test_a_bundle_without_logs_borrows_a_donors_lines_at_its_own_time(tmp_path: Path) -> None:
    donor = _write_bundle(tmp_path / "in", "a-donor")
    bare = _write_bundle(tmp_path / "in", "b-bare", logs=False, shift=timedelta(hours=3))
    out = scale_set([bare, donor], tmp_path / "out", Scaling(log_lines=200))
    loaded = load_bundle(out[1])
    assert out[1].name == "b-bare" and loaded.logs is not None and len(loaded.logs) == 200
    shifted = (START + timedelta(hours=3), END + timedelta(hours=3))
    assert all(shifted[0] <= r.ts <= shifted[1] for r in loaded.logs)
    first = min(r.ts for r in loaded.logs)
    assert first >= FIRED + timedelta(hours=3) - timedelta(seconds=LOG_JITTER_S)


def test_padded_lines_get_new_hex_ids_and_keep_their_wording(tmp_path: Path) -> None:
    src = _write_bundle(tmp_path / "in", "b-01")
    loaded = load_bundle(scale_bundle(src, tmp_path / "out", Scaling(log_lines=300)))
    assert loaded.logs is not None
    messages = [r.message for r in loaded.logs]
    assert len(set(messages)) > 250  # copies are not the same line again
    assert all(m.startswith("TraceID: ") and " served cart in " in m for m in messages)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_benchmark_variant_is_deterministic_and_valid(tmp_path: Path, variant: str) -> None:
    src = _write_bundle(tmp_path / "in", "b-01")
    small = Scaling(**{**VARIANTS[variant].__dict__, "log_lines": min(VARIANTS[variant].log_lines, 400)})
    first = scale_bundle(src, tmp_path / "one", small)
    second = scale_bundle(src, tmp_path / "two", small)
    load_bundle(first)
    for name in ("traces.jsonl", "logs.jsonl", "metrics.csv"):
        assert (first / name).read_bytes() == (second / name).read_bytes()


def test_wide_metrics_add_noisy_named_copies_up_to_about_the_target(tmp_path: Path) -> None:
    src = _write_bundle(tmp_path / "in", "b-01")
    after = load_bundle(scale_bundle(src, tmp_path / "out", Scaling(metric_step_s=1, metric_series=20)))
    resampled = load_bundle(scale_bundle(src, tmp_path / "plain", Scaling(metric_step_s=1)))
    assert after.metrics is not None and resampled.metrics is not None
    by_name = {(s.service, s.metric): s for s in after.metrics}
    assert len(by_name) == 20  # two series, each with nine copies
    for original in resampled.metrics:
        assert by_name[(original.service, original.metric)] == original  # the series themselves are unchanged
        copies = [by_name[(original.service, f"{original.metric}_x{k}")] for k in range(9)]
        for copy in copies:
            assert copy.timestamps == original.timestamps
            ratios = [c / o for c, o in zip(copy.values, original.values, strict=True) if o]
            assert all(abs(r - 1.0) < 0.1 for r in ratios)  # 1% noise: never 10 sigma away
        if any(original.values):
            assert len({c.values for c in copies}) == 9  # each copy has noise of its own (a flat zero stays zero)
