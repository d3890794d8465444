"""`rootward sim ...` and `rootward demo` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from rootward.cli import app


def test_sim_generate_and_vary(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        app, ["sim", "generate", "--out", str(tmp_path / "g"), "--count", "2", "--seed", "4", "--faults", "disk_full"]
    )
    assert res.exit_code == 0, res.output
    assert "2 bundles" in res.output
    bundle = sorted((tmp_path / "g").iterdir())[0]
    res = runner.invoke(app, ["sim", "vary", str(bundle), "--out", str(tmp_path / "v"), "--count", "2"])
    assert res.exit_code == 0, res.output
    assert len(list((tmp_path / "v").iterdir())) == 2


def test_sim_generate_rejects_unknown_topology(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["sim", "generate", "--out", str(tmp_path), "--topology", "mars"])
    assert res.exit_code == 2 and "unknown topology" in res.output


def test_demo_prints_rca_and_truth() -> None:
    res = CliRunner().invoke(app, ["demo", "--seed", "2", "--fault", "disk_full"])
    assert res.exit_code == 0, res.output
    assert "Simulated truth:" in res.output and "disk_full" in res.output


def test_golden_can_include_the_sample_bundles(tmp_path: Path, example_bundles: list[Path], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import rootward.sim.generate as gen

    monkeypatch.setattr(gen, "GOLDEN_PER_FAULT", 0)  # the samples only; the 75 are covered elsewhere
    res = CliRunner().invoke(
        app, ["sim", "golden", "--out", str(tmp_path), "--examples", str(example_bundles[0].parent)]
    )
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "examples").iterdir()) == sorted(p.name for p in example_bundles)


def test_sim_generate_with_earlier_faults(tmp_path: Path) -> None:
    args = ["sim", "generate", "--out", str(tmp_path / "g"), "--count", "1", "--max-spans", "300"]
    res = CliRunner().invoke(app, [*args, "--previous", "8,16", "--faults", "cpu_saturation"])
    assert res.exit_code == 0, res.output
    truth = json.loads(next((tmp_path / "g").glob("*/truth.json")).read_text())
    assert [p["fault_type"] for p in truth["previous_faults"]] == ["cpu_saturation"] * 2
    for bad, says in (("3", "at least 6 minutes"), ("8,x", "whole minutes")):
        res = CliRunner().invoke(app, [*args, "--previous", bad])
        assert res.exit_code == 2 and says in res.output
