"""metrics.csv stamped in milliseconds (or finer) is read in seconds, and the bundle says so."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.bundle.metric_epochs import in_seconds, unit_of
from rootward.context.assemble import assemble_context
from rootward.domain.telemetry import MetricSeries
from rootward.sources.bundle import bundle_sources
from tests.conftest import EXAMPLES

EXAMPLE = EXAMPLES / "shop-disk-full-03"
FIRED = 1_776_540_000


@pytest.mark.parametrize(
    ("per_second", "unit"), [(1_000, "milliseconds"), (1_000_000, "microseconds"), (1_000_000_000, "nanoseconds")]
)
def test_finer_units_are_recognised_against_the_incidents_time(per_second: int, unit: str) -> None:
    series = [MetricSeries("api", "cpu_usage", (FIRED * per_second - 60 * per_second, FIRED * per_second), (1.0, 2.0))]
    assert unit_of(series, FIRED) == (per_second, unit)
    converted, note = in_seconds(series, FIRED)
    assert converted[0].timestamps == (FIRED - 60, FIRED)
    assert converted[0].values == (1.0, 2.0)
    assert note is not None and unit in note


def test_seconds_are_left_as_they_are() -> None:
    series = [MetricSeries("api", "cpu_usage", (FIRED - 3600, FIRED), (1.0, 2.0))]
    assert in_seconds(series, FIRED) == (series, None)
    assert in_seconds([], FIRED) == ([], None)


def _restamped(root: Path, stamp: Callable[[int], int]) -> Path:
    """A copy of the example whose metrics.csv timestamps are rewritten by `stamp`."""
    copy = root / "restamped"
    shutil.copytree(EXAMPLE, copy)
    lines = (copy / "metrics.csv").read_text().splitlines()
    body = [f"{stamp(int(ts))},{rest}" for ts, rest in (line.split(",", 1) for line in lines[1:])]
    (copy / "metrics.csv").write_text("\n".join([lines[0], *body]) + "\n")
    return copy


def test_a_bundle_in_milliseconds_is_investigated_as_the_one_in_seconds(tmp_path: Path) -> None:
    copy = _restamped(tmp_path, lambda ts: ts * 1000)
    original, in_ms = load_bundle(EXAMPLE), load_bundle(copy)
    assert in_ms.metrics == original.metrics
    assert any("epoch milliseconds" in gap for gap in in_ms.partial_gaps())
    ctx = assemble_context(bundle_sources(in_ms), in_ms.meta, extra_gaps=in_ms.partial_gaps())
    expected = assemble_context(bundle_sources(original), original.meta)
    assert ctx.anomalies == expected.anomalies and ctx.anomalies
    resolver = BundleCiteResolver(in_ms)
    assert [r.cite for r in ctx.evidence_refs() if not resolver.resolves(r.cite)] == []


def test_metrics_wholly_outside_the_window_are_named_with_the_span_they_hold(tmp_path: Path) -> None:
    bundle = load_bundle(_restamped(tmp_path, lambda ts: ts + 8 * 3600))  # a time zone applied twice
    notes = bundle.partial_gaps()
    assert any("no sample in the incident window" in n and "its samples span" in n for n in notes)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta, extra_gaps=notes)
    assert any(g.startswith("no metrics in the incident window") for g in ctx.gaps)
    assert not ctx.anomalies
    assert load_bundle(EXAMPLE).partial_gaps() == []  # a bundle in its window notes nothing
