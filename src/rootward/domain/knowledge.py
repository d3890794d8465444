"""Knowledge documents: runbooks, postmortems and team notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Literal

DocumentKind = Literal["runbook", "postmortem", "bits", "other"]


@dataclass(frozen=True)
class Document:
    path: str  # relative to the knowledge root, e.g. "runbooks/payment-latency.md"
    kind: DocumentKind
    text: str  # body without front matter
    services: tuple[str, ...] = ()
    monitors: tuple[str, ...] = ()
    updated: date | None = None
    title: str = ""
    meta: dict[str, object] = field(default_factory=dict)
