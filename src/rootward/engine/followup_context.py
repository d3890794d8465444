"""What a follow-up question can be answered from besides the RCA's own evidence: the incident's data.

An investigation cites only what it needed; a responder may ask about the rest
("which deploys happened in the last hour?"). When the data it ran on is still
on disk (the bundle, or the live investigation's snapshot), its changes and
alerts are read from there, each answerable with a cite that resolves in that
bundle (`changes.json:<id>`, `alerts.json:<fingerprint>`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rootward.bundle.format import BundleError
from rootward.bundle.load import load_bundle
from rootward.domain.alert import Alert
from rootward.domain.telemetry import Change


@dataclass(frozen=True)
class FollowupContext:
    """The incident's changes and alerts, and when its first alert fired."""

    changes: tuple[Change, ...] = ()
    alerts: tuple[Alert, ...] = ()
    fired_at: datetime | None = None


def context_of(bundle_path: str | Path | None) -> FollowupContext:
    """The incident's context from its bundle; empty when the data is gone or unreadable."""
    if not bundle_path or not Path(bundle_path).is_dir():
        return FollowupContext()
    try:
        bundle = load_bundle(bundle_path)
    except BundleError:
        return FollowupContext()
    return FollowupContext(
        changes=tuple(bundle.changes or ()), alerts=tuple(bundle.alerts), fired_at=bundle.meta.fired_at
    )
