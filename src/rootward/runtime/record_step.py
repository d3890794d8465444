"""The `record` step: keep the investigation where the console, `rootward show` and the learners find it.

Idempotent on the job id: re-run after a crash between its write and its
checkpoint, it finds its own row (and findings) and writes nothing twice.
"""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from rootward.bundle.live import link_evidence, read_live
from rootward.bundle.load import load_bundle
from rootward.domain.investigation import Finding
from rootward.engine.evidence_view import evidence_data
from rootward.runtime.job_state import JobState
from rootward.store.audit import append_audit
from rootward.store.findings import DbWorkingMemory
from rootward.store.investigations import InvestigationRow, save_investigation
from rootward.store.worldmodel import save_proposals


class RecordStep:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def __call__(self, state: JobState) -> JobState:
        state = _with_live_links(state)
        result = state.result()
        investigation_id = str(state.job_id)
        with self.sessions() as session, session.begin():
            if session.get(InvestigationRow, investigation_id) is None:
                data = {}
                if not state.engine_failed and state.bundle_path is not None:
                    data = evidence_data(result, load_bundle(state.bundle_path))
                save_investigation(
                    session,
                    result,
                    title=state.title,
                    service=state.service,
                    severity=state.severity,
                    tier=state.tier,
                    shadow=state.shadow,
                    job_id=investigation_id,
                    group_id=state.group_id,
                    evidence_data=data,
                    investigation_id=investigation_id,
                    bundle_path=state.bundle_path,
                    source=state.source,
                )
                if result.proposals:
                    save_proposals(session, investigation_id, [p.model_dump(mode="json") for p in result.proposals])
                append_audit(
                    session,
                    "investigation.recorded",
                    investigation_id,
                    {"status": result.status, "group_id": state.group_id, **_prompt_data(state)},
                )
        self._keep_findings(investigation_id, state.engine.findings if state.engine else [])
        return state.model_copy(update={"investigation_id": investigation_id})

    def _keep_findings(self, investigation_id: str, findings: list[Finding]) -> None:
        """The specialists' typed findings, queryable per hypothesis (the console's "tested by")."""
        with self.sessions() as session:
            memory = DbWorkingMemory(session, investigation_id)
            if memory.findings():
                return  # written before a crash: never twice
            for finding in findings:
                memory.add(finding)


def _prompt_data(state: JobState) -> dict[str, str]:
    """LLM mode: the prompt version the investigation ran with, and its trial arm."""
    if state.prompts is None:
        return {}
    data = {"prompt_version": state.prompts.version}
    if state.prompts.trial_id:
        data |= {"trial_id": state.prompts.trial_id, "arm": state.prompts.arm}
    return data


def _with_live_links(state: JobState) -> JobState:
    """The engine's result with each live cite's query and UI link (bundle `live.json`), kept for notify too."""
    if state.engine is None or state.engine.result is None or state.engine_failed or state.bundle_path is None:
        return state
    linked = link_evidence(state.engine.result, read_live(state.bundle_path), state.bundle_path)
    return state.model_copy(update={"engine": state.engine.model_copy(update={"result": linked})})
