"""Which prompts an investigation ran with: its prompt version and, for a trial sample, the trial and arm.

Written once per investigation, when its engine starts (a resumed or re-run
step finds the row and writes nothing twice), so the judge step, the console
and a later audit all read the same arm the reasoner rendered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import DateTime, Index, String, Text
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.base import Base


class InvestigationPromptRow(Base):
    __tablename__ = "investigation_prompts"

    investigation_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    prompt_version: Mapped[str] = mapped_column(String(200), nullable=False)
    variants: Mapped[str] = mapped_column(Text, nullable=False)  # JSON {template: arm}
    trial_id: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    arm: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (Index("ix_investigation_prompts_trial", "trial_id", "arm"),)


@dataclass(frozen=True)
class InvestigationPrompts:
    investigation_id: str
    prompt_version: str
    variants: dict[str, str]
    trial_id: str
    arm: str


def record_prompts(session: Session, prompts: InvestigationPrompts) -> InvestigationPromptRow:
    """The investigation's prompt arms; the first write stands (a re-run of its step keeps the arm it had)."""
    row = session.get(InvestigationPromptRow, prompts.investigation_id)
    if row is not None:
        return row
    row = InvestigationPromptRow(
        investigation_id=prompts.investigation_id,
        prompt_version=prompts.prompt_version,
        variants=json.dumps(prompts.variants, sort_keys=True),
        trial_id=prompts.trial_id,
        arm=prompts.arm,
        at=datetime.now(UTC),
    )
    session.add(row)
    session.flush()
    return row


def prompts_of(session: Session, investigation_id: str) -> InvestigationPrompts | None:
    row = session.get(InvestigationPromptRow, investigation_id)
    if row is None:
        return None
    variants = {str(k): str(v) for k, v in json.loads(row.variants).items()}
    return InvestigationPrompts(row.investigation_id, row.prompt_version, variants, row.trial_id, row.arm)
