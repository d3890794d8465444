"""Bigger twins of real incident bundles, for the real-data benchmark.

The hidden real systems rootward is measured on hold bundles larger than the
dev set's: 20,000 spans and 20,000 log lines, and metrics sampled every second
instead of every minute. This module makes such bundles from real ones, the
same way each time (seeded by the bundle id), so the benchmark measures what
the engine does with the bigger files, not a synthetic workload:

* spans: every trace gets `span_copies` copies with fresh trace and span ids
  (parent links remapped inside the copy), each copy shifted by up to
  `SPAN_SHIFT_S` seconds and kept inside the incident window, so latency
  distributions before and after the onset stay those of the real data;
* logs: `logs.jsonl` is padded to `log_lines` lines with copies of real lines,
  their hex ids (trace and span ids in the message) re-drawn and their time
  jittered by up to `LOG_JITTER_S` inside the window, the whole file in time
  order; a bundle without logs borrows the lines of a donor bundle of the same
  set (same services), moved by the difference of the two `fired_at`;
* metrics: every series is resampled to `metric_step_s` seconds, linearly
  between the real samples (which are kept exactly) plus Gaussian noise of the
  series' own sample-to-sample spread (robust: MAD of its differences), never
  below zero for a series that never was;
* wide metrics: with `metric_series`, every (resampled) series also gets
  copies, enough for about that many series in all, named `<metric>_x<k>`,
  each the series times (1 + 1% Gaussian noise), seeded by the series and the
  copy: the hundreds of series a real scrape holds, with the real shapes.

Every other file is copied unchanged (truth.json too, so `rootward eval` can
run on a scaled set). The output is a valid bundle per the spec, which the
tests check with the repo's own loader.
"""

from __future__ import annotations

import csv
import hashlib
import io
import random
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import yaml

SCALED_FILES = ("traces.jsonl", "logs.jsonl", "metrics.csv")
SPAN_SHIFT_S = 30.0
LOG_JITTER_S = 30.0
_HEX_ID = re.compile(r"\b[0-9a-f]{16,32}\b")


@dataclass(frozen=True)
class Scaling:
    """How much bigger to make a bundle; the defaults leave it as it is."""

    span_copies: int = 0  # extra copies of every trace: 1 doubles the spans
    log_lines: int = 0  # pad logs.jsonl to this many lines (0: leave the logs alone)
    metric_step_s: int = 0  # resample every series to this step (0: leave the metrics alone)
    metric_series: int = 0  # widen metrics.csv to about this many series with noisy copies (0: no copies)
    seed: int = 20260315


# The variants the benchmark runs, next to the real bundles themselves.
VARIANTS: dict[str, Scaling] = {
    "doubled": Scaling(span_copies=1, log_lines=20_000),
    "metrics_1hz": Scaling(metric_step_s=1),
    "doubled_1hz": Scaling(span_copies=1, log_lines=20_000, metric_step_s=1),
    "wide_1hz": Scaling(metric_step_s=1, metric_series=500),
}
WIDE_NOISE = 0.01  # the copies' multiplicative noise


@dataclass(frozen=True)
class _Window:
    start: datetime
    end: datetime
    fired_at: datetime


def _parse_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _rfc3339(value: datetime) -> str:
    spec = "milliseconds" if value.microsecond % 1000 == 0 else "microseconds"
    return value.astimezone(UTC).isoformat(timespec=spec).replace("+00:00", "Z")


def _window(root: Path) -> _Window:
    meta = yaml.safe_load((root / "incident.yaml").read_text(encoding="utf-8"))
    window = meta["window"]

    def at(value: Any) -> datetime:
        return value if isinstance(value, datetime) else _parse_time(str(value))

    return _Window(at(window["start"]), at(window["end"]), at(meta["fired_at"]))


def _fresh_id(copy: int, old: str, width: int) -> str:
    """A new id of the same width for the `copy`-th duplicate of `old`: stable, and unlike any real one."""
    return hashlib.blake2b(f"{copy}:{old}".encode(), digest_size=max(1, width // 2)).hexdigest()[:width]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [orjson.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def _write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))


def copied_spans(spans: Sequence[dict[str, Any]], copies: int, window: _Window, rng: random.Random) -> list[dict]:
    """The real spans, then `copies` copies of every trace with new ids, each shifted whole inside the window."""
    traces: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        traces.setdefault(span["trace_id"], []).append(span)
    out = list(spans)
    for copy in range(1, copies + 1):
        for trace_id, members in traces.items():
            starts = [_parse_time(s["start"]) for s in members]
            earliest = (min(starts) - window.start).total_seconds()
            latest = (window.end - max(starts)).total_seconds()
            inside = earliest >= 0 and latest >= 0  # a trace already past the window's edge stays where it is
            shift = rng.uniform(max(-SPAN_SHIFT_S, -earliest), min(SPAN_SHIFT_S, latest)) if inside else 0.0
            delta = timedelta(milliseconds=round(shift * 1000))
            new_trace = _fresh_id(copy, trace_id, len(trace_id))
            for span, start in zip(members, starts, strict=True):
                twin = dict(span)
                twin["trace_id"] = new_trace
                twin["span_id"] = _fresh_id(copy, span["span_id"], len(span["span_id"]))
                if span.get("parent_id"):
                    twin["parent_id"] = _fresh_id(copy, span["parent_id"], len(span["parent_id"]))
                twin["start"] = _rfc3339(start + delta)
                out.append(twin)
    return out


def padded_logs(
    logs: Sequence[dict[str, Any]], donor: Sequence[dict[str, Any]], donor_fired: datetime | None,
    lines: int, window: _Window, rng: random.Random,
) -> list[dict[str, Any]]:  # fmt: skip
    """The bundle's own lines (or a donor's, moved to this incident's time), padded to `lines`, in time order."""
    own = list(logs)
    pool = own
    if not own and donor and donor_fired is not None:
        moved = []
        for row in donor:
            at = _parse_time(row["ts"]) - donor_fired + window.fired_at
            if window.start <= at <= window.end:
                moved.append({**row, "ts": _rfc3339(at)})
        own = pool = moved
    if not pool:
        return own
    out = list(own)
    span = (window.start, window.end)
    while len(out) < lines:
        row = pool[rng.randrange(len(pool))]
        at = _parse_time(row["ts"]) + timedelta(milliseconds=round(rng.uniform(-LOG_JITTER_S, LOG_JITTER_S) * 1000))
        at = min(max(at, span[0]), span[1])
        message = _HEX_ID.sub(lambda m: f"{rng.getrandbits(4 * len(m.group(0))):0{len(m.group(0))}x}", row["message"])
        out.append({**row, "ts": _rfc3339(at), "message": message})
    return sorted(out, key=lambda row: _parse_time(row["ts"]))


def resampled_series(timestamps: Sequence[int], values: Sequence[float], step: int, seed: int) -> list[tuple]:
    """One series at `step` seconds: linear between the real samples (kept exactly), plus its own noise."""
    ts = np.asarray(timestamps, dtype=np.int64)
    vs = np.asarray(values, dtype=np.float64)
    if len(ts) < 2 or int(np.min(np.diff(ts))) <= step:
        return list(zip(timestamps, values, strict=True))
    grid = np.arange(int(ts[0]), int(ts[-1]) + 1, step, dtype=np.int64)
    line = np.interp(grid, ts, vs)
    diffs = np.diff(vs)
    spread = 1.4826 * float(np.median(np.abs(diffs - np.median(diffs)))) / np.sqrt(2.0)
    noisy = line + np.random.default_rng(seed).normal(0.0, spread, len(grid)) if spread > 0 else line
    if float(np.min(vs)) >= 0:
        noisy = np.maximum(noisy, 0.0)
    real = np.isin(grid, ts)
    noisy[real] = np.interp(grid[real], ts, vs)
    return list(zip(grid.tolist(), noisy.tolist(), strict=True))


def _series_seed(seed: int, name: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{seed}:{name}".encode(), digest_size=8).digest(), "big")


def widened_series(metric: str, values: Sequence[float], copies: int, seed: int) -> list[tuple[str, list[float]]]:
    """`copies` noisy twins of one series: `<metric>_x<k>`, each value times (1 + `WIDE_NOISE` x N(0, 1))."""
    vs = np.asarray(values, dtype=np.float64)
    out = []
    for copy in range(copies):
        noise = np.random.default_rng(_series_seed(seed, f"{metric}_x{copy}")).normal(0.0, WIDE_NOISE, len(vs))
        out.append((f"{metric}_x{copy}", (vs * (1.0 + noise)).tolist()))
    return out


def resampled_metrics(text: str, step: int, seed: int, series_target: int = 0) -> str:
    """`metrics.csv` with every (service, metric) series resampled to `step` seconds (0: as it is), then widened.

    With `series_target`, each series gets copies (`widened_series`) so that
    the file holds about that many series: at least one copy each.
    """
    rows = list(csv.reader(io.StringIO(text)))
    series: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for row in rows[1:]:
        if len(row) >= 4:
            series.setdefault((row[1], row[2]), []).append((int(float(row[0])), float(row[3])))
    copies = max(1, round(series_target / len(series)) - 1) if series_target and series else 0
    out: list[tuple[int, str, str, float]] = []
    for (service, metric), samples in series.items():
        samples.sort()
        times, values = [t for t, _ in samples], [v for _, v in samples]
        if step:
            resampled = resampled_series(times, values, step, _series_seed(seed, f"{service}/{metric}"))
            times, values = [int(t) for t, _ in resampled], [float(v) for _, v in resampled]
        out += [(t, service, metric, v) for t, v in zip(times, values, strict=True)]
        for name, twin in widened_series(metric, values, copies, _series_seed(seed, service)):
            out += [(t, service, name, v) for t, v in zip(times, twin, strict=True)]
    out.sort()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(rows[0] if rows else ["timestamp", "service", "metric", "value"])
    writer.writerows(out)
    return buffer.getvalue()


def _copy_unscaled(src: Path, dest: Path) -> None:
    """Every file but the scaled ones, contents only (real bundles are often read-only)."""
    for path in sorted(src.rglob("*")):
        if path.is_file() and path.relative_to(src).as_posix() not in SCALED_FILES:
            target = dest / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def scale_bundle(src: Path, dest: Path, scaling: Scaling, log_donor: Path | None = None) -> Path:
    """Write a scaled copy of bundle `src` to `dest`; `log_donor` lends its logs when `src` has none."""
    dest.mkdir(parents=True, exist_ok=True)
    _copy_unscaled(src, dest)
    window = _window(src)
    rng = random.Random(f"{scaling.seed}:{src.name}")
    spans = src / "traces.jsonl"
    if spans.is_file():
        _write_jsonl(dest / "traces.jsonl", copied_spans(_jsonl(spans), scaling.span_copies, window, rng))
    logs = _jsonl(src / "logs.jsonl")
    if scaling.log_lines:
        donor = _jsonl(log_donor / "logs.jsonl") if log_donor is not None and not logs else []
        donor_fired = _window(log_donor).fired_at if donor and log_donor is not None else None
        logs = padded_logs(logs, donor, donor_fired, scaling.log_lines, window, rng)
    if logs:
        _write_jsonl(dest / "logs.jsonl", logs)
    metrics = src / "metrics.csv"
    if metrics.is_file():
        text = metrics.read_text(encoding="utf-8")
        if scaling.metric_step_s or scaling.metric_series:
            text = resampled_metrics(text, scaling.metric_step_s, scaling.seed, scaling.metric_series)
        (dest / "metrics.csv").write_text(text, encoding="utf-8")
    return dest


def scale_set(bundles: Sequence[Path], out: Path, scaling: Scaling) -> list[Path]:
    """Scale every bundle of a set into `out`; a bundle without logs borrows the nearest one's (in name order)."""
    ordered = sorted(bundles)
    with_logs = [i for i, b in enumerate(ordered) if (b / "logs.jsonl").is_file()]
    scaled = []
    for i, bundle in enumerate(ordered):
        donor = ordered[min(with_logs, key=lambda j: (abs(j - i), j))] if with_logs else None
        scaled.append(scale_bundle(bundle, out / bundle.name, scaling, log_donor=donor))
    return scaled
