"""Entry point: investigate one incident bundle in-process.

The evaluation harness and the CLI call `investigate_bundle`; it runs the
whole state machine of `engine.stages` with the caller's `EngineDeps`
(rule mode and default settings when none are given) and returns the spec's
result JSON.
"""

from __future__ import annotations

import time
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.domain.investigation import InvestigationResult, Timing
from rootward.engine.dependencies import EngineDeps
from rootward.engine.stages import run_investigation


def investigate_bundle(path: str | Path, deps: EngineDeps | None = None) -> InvestigationResult:
    started = time.monotonic()
    try:
        return run_investigation(path, deps)
    except Exception as exc:  # a programming error must not lose the incident: publish it as failed
        bundle = load_bundle(path)
        return InvestigationResult(
            bundle=bundle.id,
            status="failed",
            gaps=[*bundle.gaps(), f"engine failed: {type(exc).__name__}: {exc}"],
            timing=Timing(total_ms=int((time.monotonic() - started) * 1000)),
            summary_source="template",
        )
