"""The harness: the investigation never sees truth.json; crashes are scored, not fatal."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rootward.bundle.format import TruthAccessDenied
from rootward.bundle.load import _read_text, load_bundle
from rootward.cli import app
from rootward.domain.investigation import InvestigationResult
from rootward.eval.runner import discover_bundles, evaluate, investigation_view

SEEN: dict[str, object] = {}


def peeking_engine(path: Path) -> InvestigationResult:
    """An engine that tries every way it can think of to read the answer."""
    SEEN["truth_exists"] = (Path(path) / "truth.json").exists()
    SEEN["anywhere"] = [str(p) for p in Path(path).rglob("truth.json")]
    try:
        _read_text(Path(path), "truth.json")
        SEEN["loader"] = "read"
    except TruthAccessDenied:
        SEEN["loader"] = "denied"
    bundle = load_bundle(path)
    return InvestigationResult(bundle=bundle.id, status="inconclusive")


def crashing_engine(path: Path) -> InvestigationResult:
    raise RuntimeError("boom")


def answering_engine(path: Path) -> InvestigationResult:
    bundle = load_bundle(path)
    first = bundle.alerts[0]
    return InvestigationResult.model_validate(
        {
            "bundle": bundle.id,
            "status": "validated",
            "hypotheses": [
                {
                    "id": "H1",
                    "entity": "payment",
                    "fault_type": "connection_pool_exhaustion",
                    "status": "validated",
                    "confidence": 0.9,
                    "evidence": ["E1", "E2"],
                }
            ],
            "claims": [{"text": "the first alert fired", "evidence": ["E1"]}],
            "evidence": {
                "E1": {"kind": "alert", "cite": f"alerts.json:{first.fingerprint}"},
                "E2": {"kind": "log", "cite": "logs.jsonl:999999"},
            },
        }
    )


@pytest.fixture
def example(example_bundles: list[Path], tmp_path: Path) -> Path:
    src = next((p for p in example_bundles if p.name == "shop-connection-pool-exhaustion-00"), example_bundles[0])
    dest = tmp_path / src.name
    shutil.copytree(src, dest)
    return dest


def test_investigation_view_of_a_directory_has_no_truth(example: Path) -> None:
    with investigation_view(example) as view:
        assert (view / "incident.yaml").is_file()
        assert not list(view.rglob("truth.json"))
    assert (example / "truth.json").is_file()


def test_investigation_view_of_a_tar_gz_has_no_truth(example: Path, tmp_path: Path) -> None:
    archive = tmp_path / "b.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(example, arcname="bundle")
    with investigation_view(archive) as view:
        assert (view / "incident.yaml").is_file() and not list(view.rglob("truth.json"))


def test_engine_cannot_read_truth_during_evaluation(example: Path) -> None:
    SEEN.clear()
    [scored] = evaluate([example], entry="tests.eval.test_runner:peeking_engine")
    assert SEEN == {"truth_exists": False, "anywhere": [], "loader": "denied"}
    assert scored.score.status == "inconclusive"


def test_loader_refuses_truth_even_when_present(example: Path) -> None:
    with pytest.raises(TruthAccessDenied):
        _read_text(example, "truth.json")
    with pytest.raises(TruthAccessDenied):
        _read_text(example, "sub/truth.json")


def test_engine_crash_is_scored_as_failed(example: Path) -> None:
    [scored] = evaluate([example], entry="tests.eval.test_runner:crashing_engine")
    assert scored.score.status == "failed" and scored.score.error == "RuntimeError: boom"
    assert scored.score.hit_rank is None


def test_answers_and_cites_are_scored_against_the_bundle(example: Path) -> None:
    [scored] = evaluate([example], entry="tests.eval.test_runner:answering_engine")
    s = scored.score
    assert s.hit_rank == 1  # truth: payment/connection_pool_exhaustion
    assert (s.cites_total, s.cites_resolved) == (2, 1)
    assert s.claims_with_evidence == 1


def test_tar_gz_bundles_are_scored_with_their_truth(example: Path, tmp_path: Path) -> None:
    archive = tmp_path / "b.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(example, arcname="bundle")
    [scored] = evaluate([archive], entry="tests.eval.test_runner:answering_engine")
    assert scored.score.truth == "payment/connection_pool_exhaustion" and scored.score.hit_rank == 1
    assert scored.score.cites_resolved == 1


def test_discover_finds_dirs_and_archives(example: Path, tmp_path: Path) -> None:
    archive = tmp_path / "z.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(example, arcname="bundle")
    assert discover_bundles(tmp_path) == sorted([example, archive])


@pytest.mark.slow
def test_generate_15_then_eval_end_to_end(tmp_path: Path) -> None:
    """Fifteen bundles are one of each fault type over the three built-in topologies: the smallest full set."""
    runner = CliRunner()
    gen = runner.invoke(app, ["sim", "generate", "--out", str(tmp_path / "set"), "--count", "15", "--seed", "1"])
    assert gen.exit_code == 0, gen.output
    report_md = tmp_path / "report.md"
    report_json = tmp_path / "report.json"
    res = runner.invoke(app, ["eval", str(tmp_path / "set"), "--out", str(report_md), "--json-out", str(report_json)])
    assert res.exit_code == 0, res.output
    assert "# rootward evaluation" in res.output and "By fault type" in res.output
    report = json.loads(report_json.read_text())
    assert report["summary"]["bundles"] == 15
    assert len(report["by_fault_type"]) == 15 and len(report["by_topology"]) == 3
    assert report_md.read_text().startswith("# rootward evaluation")
