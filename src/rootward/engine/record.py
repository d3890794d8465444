"""Investigate a bundle and keep the result where the console and `rootward show` find it."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from rootward.bundle.load import load_bundle
from rootward.domain.alert import Severity
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.evidence_view import evidence_data
from rootward.store.investigations import InvestigationRow, save_investigation


def record_bundle(
    session: Session, path: str | Path, *, tier: str = "L1", shadow: bool = False, source: str = "imported"
) -> InvestigationRow:
    """Investigate the bundle and store it, marked as `source` (imported bundles are not live incidents)."""
    bundle = load_bundle(path)
    result = investigate_bundle(path)
    firing = [a for a in bundle.alerts if a.status == "firing"] or bundle.alerts
    worst = min(firing, key=lambda a: a.severity.rank)
    return save_investigation(
        session,
        result,
        title=bundle.meta.title,
        service=worst.service,
        severity=worst.severity.value if isinstance(worst.severity, Severity) else str(worst.severity),
        tier=tier,
        shadow=shadow,
        evidence_data=evidence_data(result, bundle),
        created_at=bundle.meta.fired_at,
        bundle_path=str(Path(path).resolve()) if Path(path).is_dir() else None,
        source=source,
    )
