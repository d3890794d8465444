"""Run the investigation on every bundle of a directory and score the results.

The investigation gets a staged copy of each bundle without `truth.json`
(`investigation_view`), so not even a careless engine can read the answer;
truth is read afterwards, by `rootward.eval.truth`, in the parent process.
With `jobs > 1` bundles run in worker processes.
"""

from __future__ import annotations

import importlib
import multiprocessing
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rootward.bundle.cites import BundleCiteResolver, CiteCheck
from rootward.bundle.format import BundleError
from rootward.bundle.load import load_bundle
from rootward.domain.investigation import InvestigationResult
from rootward.eval.score import BundleScore, score_result
from rootward.eval.truth import TRUTH_FILE, read_truth

ENTRY_POINT = "rootward.engine.entry_point:investigate_bundle"


def discover_bundles(root: Path) -> list[Path]:
    """Bundle directories (holding incident.yaml) and .tar.gz files under `root`, sorted."""
    if (root / "incident.yaml").is_file() or root.name.endswith((".tar.gz", ".tgz")):
        return [root]
    found = {p.parent for p in root.rglob("incident.yaml")}
    found |= {p for p in root.rglob("*.tar.gz")} | {p for p in root.rglob("*.tgz")}
    return sorted(found)


@contextmanager
def investigation_view(bundle: Path) -> Iterator[Path]:
    """A temporary copy of the bundle with truth.json left out: what the engine may see."""
    with tempfile.TemporaryDirectory(prefix="rootward-eval-") as tmp:
        dest = Path(tmp) / "bundle"
        if bundle.is_dir():
            shutil.copytree(bundle, dest, ignore=shutil.ignore_patterns(TRUTH_FILE))
        else:
            import tarfile

            with tarfile.open(bundle, "r:gz") as tar:
                members = [m for m in tar.getmembers() if Path(m.name).name != TRUTH_FILE]
                tar.extractall(dest, members=members, filter="data")
            roots = sorted((p.parent for p in dest.rglob("incident.yaml")), key=lambda p: len(p.parts))
            if roots:
                dest = roots[0]
        yield dest


def _entry(spec: str) -> Callable[[Path], Any]:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


def run_one(bundle: Path, entry: str = ENTRY_POINT) -> tuple[dict[str, Any] | None, int, str | None]:
    """Investigate one bundle: (result as JSON-able dict or None, wall ms, error)."""
    started = time.monotonic()
    try:
        with investigation_view(bundle) as view:
            raw = _entry(entry)(view)
        result = raw if isinstance(raw, InvestigationResult) else InvestigationResult.model_validate(raw)
        return result.model_dump(mode="json"), int((time.monotonic() - started) * 1000), None
    except Exception as exc:  # an engine crash is a scored failure, not a harness crash
        return None, int((time.monotonic() - started) * 1000), f"{type(exc).__name__}: {exc}"


@dataclass
class Scored:
    path: Path
    score: BundleScore
    result: dict[str, Any] | None


def score_one(bundle: Path, raw: dict[str, Any] | None, wall_ms: int, error: str | None) -> Scored:
    """Score one result; the bundle is loaded (for cite checks) only when the result cites something."""
    truth = read_truth(bundle)
    if raw is None:
        result = InvestigationResult(bundle=bundle.name, status="failed", gaps=[error or "no result"])
    else:
        result = InvestigationResult.model_validate(raw)
    check: Callable[[str], CiteCheck] = _unresolvable
    if result.evidence:
        try:
            check = BundleCiteResolver(load_bundle(bundle)).check
        except BundleError as exc:
            error = error or f"BundleError: {exc}"
    return Scored(bundle, score_result(result, truth, check, wall_ms=wall_ms, error=error), raw)


def _unresolvable(cite: str) -> CiteCheck:
    return CiteCheck(cite, False, "bundle failed to load")


def evaluate(
    bundles: Sequence[Path], jobs: int = 1, entry: str = ENTRY_POINT, progress: Callable[[Scored], None] | None = None
) -> list[Scored]:
    """Investigate and score every bundle; results come back in input order."""
    out: list[Scored] = []
    if jobs <= 1:
        for b in bundles:
            scored = score_one(b, *run_one(b, entry))
            out.append(scored)
            if progress:
                progress(scored)
        return out
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = [pool.submit(run_one, b, entry) for b in bundles]
        for b, fut in zip(bundles, futures, strict=True):
            scored = score_one(b, *fut.result())
            out.append(scored)
            if progress:
                progress(scored)
    return out
