from __future__ import annotations

import builtins
import io
import shutil
import tarfile
from pathlib import Path

import pytest

from rootward.bundle.format import BundleError
from rootward.bundle.load import load_bundle
from rootward.sources.base import SourceUnavailable
from rootward.sources.bundle import BundleLogSource

OPTIONAL = ("logs.jsonl", "metrics.csv", "traces.jsonl", "changes.json", "knowledge")


def test_example_bundles_load_and_name_exactly_the_sources_they_lack(example_bundles: list[Path]) -> None:
    for path in example_bundles:
        bundle = load_bundle(path)
        assert bundle.alerts and bundle.topology and bundle.metrics
        absent = [name for name in OPTIONAL if not (path / name).exists()]
        assert sorted(bundle.missing) == sorted(absent), path.name


def test_loading_never_opens_truth_json(example_bundles: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = builtins.open
    opened: list[str] = []

    def spy(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    load_bundle(example_bundles[0])
    assert not [f for f in opened if f.endswith("truth.json")]


def test_missing_logs_is_a_gap_not_an_error(example_bundles: list[Path], tmp_path: Path) -> None:
    copy = tmp_path / "b"
    shutil.copytree(example_bundles[0], copy)
    (copy / "logs.jsonl").unlink()
    bundle = load_bundle(copy)
    assert "logs.jsonl" in bundle.missing
    with pytest.raises(SourceUnavailable):
        BundleLogSource(bundle).query(None, bundle.meta.window_start, bundle.meta.window_end)


def test_bad_metric_value_names_file_and_line(example_bundles: list[Path], tmp_path: Path) -> None:
    copy = tmp_path / "b"
    shutil.copytree(example_bundles[0], copy)
    with open(copy / "metrics.csv", "a") as fh:
        fh.write("1780657200,frontend,latency_p99_ms,abc\n")
    lines = (copy / "metrics.csv").read_text().count("\n")
    with pytest.raises(BundleError, match=rf"metrics.csv line {lines}: value 'abc' is not a number"):
        load_bundle(copy)


def test_tar_gz_bundle_loads_without_truth(example_bundles: list[Path], tmp_path: Path) -> None:
    archive = tmp_path / "b.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(example_bundles[0], arcname="bundle")
    bundle = load_bundle(archive)
    assert not (bundle.root / "truth.json").exists()
    assert bundle.id == example_bundles[0].name
