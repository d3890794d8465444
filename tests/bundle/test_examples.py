"""The sample bundles that ship in examples/: valid, small, and each with its provenance written down."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from tests.conftest import EXAMPLES

README = (EXAMPLES / "README.md").read_text()
REAL_MAX_BYTES = 300_000  # a trimmed real case stays small enough to clone with the code


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def test_every_sample_loads_has_ground_truth_and_is_described_in_the_readme(example_bundles: list[Path]) -> None:
    for path in example_bundles:
        bundle = load_bundle(path)
        truth = json.loads((path / "truth.json").read_text())
        assert truth["root_cause"]["entity"] in bundle.topology.entities, path.name
        assert f"`{path.name}`" in README, f"{path.name} has no provenance row in examples/README.md"


def test_real_samples_are_trimmed_and_carry_their_licence(example_bundles: list[Path]) -> None:
    real = [p for p in example_bundles if p.name.startswith("nezha-ob-")]
    assert len(real) >= 2
    for path in real:
        assert _size(path) <= REAL_MAX_BYTES, f"{path.name}: {_size(path)} bytes"
        assert (path / "traces.jsonl").is_file()
    assert "MIT" in README and "IntelligentDDS/Nezha" in README and "Permission is hereby granted" in README


def _trimmer():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("trim_nezha", EXAMPLES / "trim_nezha.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_trimmer_keeps_whole_traces_and_every_error_line() -> None:
    trim = _trimmer()
    spans = [json.dumps({"trace_id": t, "span_id": f"{t}{n}"}) for t in "abcdef" for n in range(3)]
    kept = [json.loads(line) for line in trim.trim_traces(spans, 7)]
    per_trace = {s["trace_id"]: sum(1 for k in kept if k["trace_id"] == s["trace_id"]) for s in kept}
    assert len(kept) == 6 and set(per_trace.values()) == {3}
    logs = [json.dumps({"level": "ERROR" if n % 10 == 0 else "INFO", "n": n}) for n in range(100)]
    trimmed = [json.loads(line) for line in trim.trim_logs(logs, 20)]
    assert len(trimmed) == 20 and sum(1 for r in trimmed if r["level"] == "ERROR") == 10
    assert [r["n"] for r in trimmed] == sorted(r["n"] for r in trimmed)


def test_every_alert_of_a_sample_resolves_as_a_cite(example_bundles: list[Path]) -> None:
    for path in example_bundles:
        bundle = load_bundle(path)
        resolver = BundleCiteResolver(bundle)
        assert all(resolver.resolves(f"alerts.json:{a.fingerprint}") for a in bundle.alerts), path.name
