"""Report rendering and the baseline gate."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from rootward.cli import app
from rootward.eval.report import build_report, compare, to_markdown
from rootward.eval.score import BundleScore


def _score(name: str, fault: str, hit: int | None) -> BundleScore:
    return BundleScore(
        bundle=name, topology="shop", fault_type=fault, truth=f"x/{fault}", status="validated", hit_rank=hit
    )


def test_report_has_breakdowns_and_lists_misses() -> None:
    report = build_report([_score("a", "disk_full", 1), _score("b", "oom_kill", 2), _score("c", "oom_kill", None)])
    assert report["by_fault_type"]["oom_kill"]["ac@3"] == 0.5
    assert report["by_topology"]["shop"]["bundles"] == 3
    md = to_markdown(report)
    assert "| AC@1 | 33.3% |" in md and "## Misses" in md and "| b | x/oom_kill |" in md


def _summary(ac1: float, cites: float | None) -> dict[str, object]:
    return {"summary": {"ac@1": ac1, "citation_accuracy": cites}}


def test_baseline_gate_allows_drops_within_margin_only() -> None:
    assert compare(_summary(0.70, 1.0), _summary(0.74, 1.0)) == []
    [r] = compare(_summary(0.60, 1.0), _summary(0.74, 1.0))
    assert r.metric == "ac@1"
    [r] = compare(_summary(0.74, 0.99), _summary(0.74, 1.0))
    assert r.metric == "citation_accuracy"
    assert compare(_summary(0.74, None), _summary(0.74, 0.5))[0].current == 0.0


def test_eval_cli_exits_nonzero_on_regression(example_bundles: list[Path], tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"summary": {"ac@1": 2.0, "citation_accuracy": 0.0}}))
    res = CliRunner().invoke(app, ["eval", str(example_bundles[0]), "--json", "--baseline", str(baseline)])
    assert res.exit_code == 1
    assert "REGRESSION: ac@1" in res.output
    baseline.write_text(json.dumps({"summary": {"ac@1": 0.0, "citation_accuracy": 0.0}}))
    ok = CliRunner().invoke(
        app,
        ["eval", str(example_bundles[0]), "--baseline", str(baseline), "--results-dir", str(tmp_path / "r")],
    )
    assert ok.exit_code == 0, ok.output
    saved = json.loads((tmp_path / "r" / f"{example_bundles[0].name}.json").read_text())
    assert saved["bundle"] == example_bundles[0].name


def test_eval_skips_bundles_without_truth(example_bundles: list[Path], tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "set" / "no-truth"
    shutil.copytree(example_bundles[0], copy)
    (copy / "truth.json").chmod(0o644)
    (copy / "truth.json").unlink()
    res = CliRunner().invoke(app, ["eval", str(tmp_path / "set")])
    assert res.exit_code == 2
    assert "no truth.json" in res.output


def _rates(recall: float | None, false_rate: float | None, healthy: int = 20, faults: int = 80) -> dict[str, object]:
    summary = {"ac@1": 0.9, "citation_accuracy": 1.0, "no_fault_bundles": healthy, "fault_bundles": faults}
    return {"summary": summary | {"no_fault_recall": recall, "false_no_fault_rate": false_rate}}


def test_no_fault_gate_holds_both_rates_to_their_limits() -> None:
    base = _rates(1.0, 0.0)
    assert compare(_rates(0.9, 0.02), base) == []
    [low] = compare(_rates(0.85, 0.0), base)
    assert low.metric == "no_fault_recall" and "below its limit 0.9000" in str(low)
    [high] = compare(_rates(1.0, 0.05), base)
    assert high.metric == "false_no_fault_rate" and "above its limit 0.0200" in str(high)
    assert compare(_rates(None, 0.0, healthy=0), base) == []  # a set without healthy bundles has no recall
    assert compare(_rates(0.5, 0.0), base, min_no_fault=0.4) == []


def test_report_shows_both_no_fault_rates() -> None:
    healthy = BundleScore(bundle="h", topology="shop", fault_type="no_fault", truth="no_fault", status="no_fault",
                          hit_rank=1, no_fault_truth=True)  # fmt: skip
    md = to_markdown(build_report([healthy, _score("a", "disk_full", 1)]))
    assert "| no_fault on healthy bundles | 100.0% (1 bundles) |" in md
    assert "| no_fault on fault bundles | 0.0% (1 bundles) |" in md
