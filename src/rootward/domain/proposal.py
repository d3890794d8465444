"""A remediation proposal: the typed action, its committed prediction and the gate's decision.

The engine's risk gate writes these into `InvestigationResult.proposals`; the
runtime asks for approval with them, notify renders them and the console shows
them, all from this one model (never a dict read by key).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Reversibility = Literal["reversible", "compensable", "irreversible"]
ProposalStatus = Literal["pending_approval", "withheld"]

# How a verb can be undone: reversible by the inverse action, compensable with effort, or not at all.
VERB_REVERSIBILITY: dict[str, Reversibility] = {
    "restart": "compensable",
    "rollback": "reversible",
    "scale": "reversible",
    "config_change": "reversible",
    "drain": "reversible",
    "failover": "compensable",
    "reboot": "compensable",
}
# The remediation verbs the world model can predict and the executor can run.
ACTION_VERBS: tuple[str, ...] = tuple(VERB_REVERSIBILITY)


class ProposedAction(BaseModel):
    """What the executor would run. Frozen: a changed action is a different action."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verb: str = Field(description=f"one of {', '.join(ACTION_VERBS)}")
    target: str
    params: dict[str, Any] = Field(default_factory=dict)
    reversibility: Reversibility

    @field_validator("verb")
    @classmethod
    def _known_verb(cls, verb: str) -> str:
        if verb not in ACTION_VERBS:
            raise ValueError(f"unknown verb {verb!r}; expected one of {', '.join(ACTION_VERBS)}")
        return verb

    @classmethod
    def of(cls, verb: str, target: str, **params: Any) -> ProposedAction:
        return cls(verb=verb, target=target, params=params, reversibility=VERB_REVERSIBILITY[verb])


class Proposal(BaseModel):
    """One entry of the result's `proposals`: what to do, what it is predicted to do, whether it may be asked."""

    model_config = ConfigDict(extra="allow")

    action: ProposedAction
    action_class: str = Field(
        default="", description="verb and target kind, e.g. restart:service (autonomy is earned per class)"
    )
    proposal_hash: str = Field(description="sha256 of the action's canonical JSON; the prediction is keyed by it")
    prediction: dict[str, Any] | None = Field(
        default=None, description="the spec's prediction object (`domain.prediction.Prediction.to_json()`)"
    )
    status: ProposalStatus
    reason: str | None = Field(default=None, description="why it was withheld (kill_switch, no_prediction, ...)")
    hypothesis: str = Field(default="", description="id of the hypothesis it remedies")
    why: str = ""

    @property
    def pending(self) -> bool:
        return self.status == "pending_approval"

    def describe(self) -> str:
        """One line for a notification: `verb target params [status: reason]`."""
        reason = f": {self.reason}" if self.reason else ""
        return f"{self.action.verb} {self.action.target} {self.action.params or ''} [{self.status}{reason}]".strip()
