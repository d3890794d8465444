"""What a worker carries from step to step for one job: one typed, versioned record.

The runtime checkpoints this model's JSON after every step (with its
`schema_version`), so it holds everything later steps need: a resumed worker
sees nothing but the last checkpoint. The engine's own state is one field
(`engine`); the investigation's result is the engine's (`engine.result`), or,
when the engine failed, the template result `result()` derives from the
failure, the same every time it is asked, so record, act and notify agree.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rootward.domain.investigation import InvestigationResult, Timing
from rootward.engine.state import EngineState
from rootward.store.jobs import Job

SCHEMA_VERSION = 1


class CheckpointUnreadable(ValueError):
    """A checkpoint this version cannot resume from; the message says which and what to do."""


class StepRecord(BaseModel):
    """A placeholder step's bookkeeping: that it ran, and when."""

    step: str
    at: str
    placeholder: bool = True


class PromptArms(BaseModel):
    """The prompts an LLM-mode investigation runs with: the arm of each template, and its trial sample."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="`template@arm` of each template a trial decided or is deciding, or control")
    variants: dict[str, str] = Field(default_factory=dict, description="template -> the arm its prompt renders")
    trial_id: str = Field(default="", description="the running trial this investigation is a sample of")
    arm: str = ""


class JobState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Keys of an unversioned (dict-shaped) checkpoint that are the engine's, and their new names.
    ENGINE_KEYS: ClassVar[dict[str, str]] = {
        **{k: k for k in EngineState.model_fields if k not in ("trace", "bundle_path")},
        "audit": "trace",
    }

    schema_version: int = SCHEMA_VERSION
    job_id: str
    group_id: str
    tier: str
    priority: int = 2
    # snapshot
    bundle_path: str | None = None
    title: str = ""
    service: str = ""
    severity: str = "P2"
    shadow: bool = False
    source: str = Field(
        default="live", description="live, or simulated / replay when the snapshot is a replayed bundle"
    )
    alert_names: list[str] = Field(default_factory=list)
    snapshot_gaps: dict[str, str] = Field(default_factory=dict)
    # engine
    engine: EngineState | None = None
    engine_failure: str | None = Field(default=None, description="the gap naming the stage that failed")
    prompts: PromptArms | None = Field(default=None, description="LLM mode: the prompt arms routed at start_engine")
    # record, act, notify
    investigation_id: str | None = None
    acted: bool = False
    safe_actions: list[str] = Field(default_factory=list)
    approval_id: str | None = None
    notified: list[str] = Field(default_factory=list)
    # placeholder pipeline
    steps: list[StepRecord] = Field(default_factory=list)

    @classmethod
    def of(cls, job: Job) -> JobState:
        """What the first step sees: the job's identity, nothing else yet."""
        return cls(job_id=job.id, group_id=job.group_id, tier=job.tier, priority=job.priority)

    @property
    def engine_failed(self) -> bool:
        return self.engine_failure is not None

    def result(self) -> InvestigationResult:
        """The investigation's one result: the engine's, or a failed template naming what went wrong."""
        if self.engine is not None and self.engine.result is not None and not self.engine_failed:
            return self.engine.result
        gaps = list(self.engine.gaps) if self.engine is not None else []
        gaps.append(self.engine_failure or "engine failed: it finished without a result")
        return InvestigationResult(
            bundle=f"inc-{self.job_id}".lower(),
            status="failed",
            gaps=gaps,
            timing=Timing(first_hypothesis_ms=None, total_ms=0),
            summary_source="template",
        )

    @classmethod
    def load(cls, raw: dict[str, Any], *, where: str = "checkpoint") -> JobState:
        """A checkpoint's JSON as state: this version's, or an unversioned one (dict-shaped) migrated."""
        version = raw.get("schema_version")
        try:
            if version == SCHEMA_VERSION:
                return cls.model_validate(raw)
            if version is None:
                return cls.model_validate(cls._migrate_unversioned(raw))
        except (ValidationError, TypeError, ValueError) as exc:
            kind = "an unversioned (pre-schema)" if version is None else f"a schema {version}"
            raise CheckpointUnreadable(
                f"{where} is {kind} checkpoint that cannot be resumed: {_first_error(exc)}; "
                "the job fails; the alert group is investigated again when its alerts fire again"
            ) from None
        raise CheckpointUnreadable(
            f"{where} has schema version {version!r}, newer than this rootward ({SCHEMA_VERSION}): "
            "upgrade the worker to resume it"
        )

    @classmethod
    def _migrate_unversioned(cls, raw: dict[str, Any]) -> dict[str, Any]:
        """The old dict state (engine keys at the top level, `final` beside `result`) in this shape."""
        old = dict(raw)
        engine: dict[str, Any] = {}
        for key, new in cls.ENGINE_KEYS.items():
            if key in old:
                engine[new] = old.pop(key)
        old.pop("final", None)  # the same result as the engine's, or the failed template derived below
        failed = old.pop("engine_failed", False)
        gaps = list(engine.get("gaps", []))
        if failed:
            old["engine_failure"] = next((g for g in reversed(gaps) if g.startswith("engine failed")), "engine failed")
            engine["gaps"] = [g for g in gaps if g != old["engine_failure"]]
        if "started_at" in engine:
            old["engine"] = {"bundle_path": old.get("bundle_path"), **engine}
        return old


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
    return str(exc)
