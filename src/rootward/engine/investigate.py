"""Entry point: investigate one incident bundle in-process.

Placeholder until the engine lands: loads the bundle and reports that no
engine ran, in the result shape of the spec. The evaluation harness and the
CLI call `investigate_bundle`, so the engine replaces only this body.
"""

from __future__ import annotations

import time
from pathlib import Path

from rootward.domain.investigation import InvestigationResult, Timing
from rootward.sources.bundle import load_bundle


def investigate_bundle(path: str | Path) -> InvestigationResult:
    started = time.monotonic()
    bundle = load_bundle(path)
    return InvestigationResult(
        bundle=bundle.id,
        status="failed",
        gaps=[*bundle.gaps(), "engine not available yet"],
        timing=Timing(total_ms=int((time.monotonic() - started) * 1000)),
    )
