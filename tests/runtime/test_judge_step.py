"""Every finished investigation judged by the pipeline itself, and a judge that fails never fails it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from rootward.llm.judge import rubric
from rootward.llm.settings import JudgeSettings, LLMSettings
from rootward.runtime.investigation_steps import InvestigationSteps
from rootward.runtime.judge_step import JUDGE_FAILED, JUDGED
from rootward.sources.bundle import bundle_sources
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.investigations import InvestigationRow
from rootward.store.judge_scores import JudgeScoreRow
from tests.runtime.judged_pipeline import PipelineEnv, pipeline_env, run_pipeline


@pytest.fixture
def env(tmp_path: Path) -> PipelineEnv:
    return pipeline_env(tmp_path)


def _rows(sessions: Any, kind: str | None = None) -> tuple[list[JudgeScoreRow], list[AuditRow]]:
    with sessions() as s:
        scores = list(s.scalars(select(JudgeScoreRow)))
        audit = list(s.scalars(select(AuditRow).where(AuditRow.kind == kind))) if kind else []
        s.expunge_all()
    return scores, audit


class AlwaysFailing:
    """A judge endpoint that answers every request with HTTP 500, counting them."""

    def __init__(self) -> None:
        self.hits = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                owner.hits += 1
                self.rfile.read(int(self.headers.get("content-length", 0)))
                body = b'{"error": {"message": "judge model crashed", "type": "server_error"}}'
                self.send_response(500)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> AlwaysFailing:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def failing_judge() -> Iterator[AlwaysFailing]:
    with AlwaysFailing() as server:
        yield server


def test_a_rule_mode_pipeline_run_is_judged_with_the_rubric_once(env) -> None:  # type: ignore[no-untyped-def]
    settings, sessions, bundle, job = env
    steps = InvestigationSteps(settings, sessions, sources=bundle_sources(bundle))
    state = run_pipeline(steps, job)
    steps.judge(state)  # a worker died after the write, before the checkpoint: nothing is judged twice
    [row], [event] = _rows(sessions, JUDGED)
    expected = rubric(state.result())
    assert (row.investigation_id, row.service, row.judge) == (job.id, state.service, "rubric-1")
    assert row.overall == expected.overall and row.evidence_grounding == expected.evidence_grounding
    assert row.prompt_version == "rule" and (row.trial_id, row.arm, row.note) == ("", "", "")
    assert json.loads(event.data)["overall"] == expected.overall and event.subject == job.id
    with sessions() as s:
        assert verify_chain(s).ok


def test_a_judge_endpoint_answering_500_leaves_the_rubric_scores_and_why(env, failing_judge) -> None:  # type: ignore[no-untyped-def]
    settings, sessions, bundle, job = env
    judge_model = LLMSettings(provider="openai", base_url=failing_judge.base_url, model="judge-m", timeout_s=5)
    live = settings.model_copy(update={"judge": JudgeSettings(model=judge_model)})
    state = run_pipeline(InvestigationSteps(live, sessions, sources=bundle_sources(bundle)), job)
    assert failing_judge.hits >= 1, "the configured judge model was never asked"
    assert state.result().status in ("validated", "inconclusive")
    with sessions() as s:
        assert s.get(InvestigationRow, job.id) is not None
    [row], [event] = _rows(sessions, JUDGED)
    assert row.judge == "rubric-1" and row.overall == rubric(state.result()).overall
    assert row.note.startswith("judge model unavailable") and "rubric used" in row.note
    assert json.loads(event.data)["note"] == row.note


def test_an_unexpected_judge_error_is_audited_and_the_investigation_stands(
    env,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    import rootward.runtime.judge_step as judge_step

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("rubric bug")

    monkeypatch.setattr(judge_step, "judge_noted", broken)
    settings, sessions, bundle, job = env
    state = run_pipeline(InvestigationSteps(settings, sessions, sources=bundle_sources(bundle)), job)
    assert state.investigation_id == job.id
    with sessions() as s:
        assert s.get(InvestigationRow, job.id) is not None
    scores, [failed] = _rows(sessions, JUDGE_FAILED)
    assert scores == [] and json.loads(failed.data) == {"reason": "RuntimeError: rubric bug"}


def test_judging_is_off_when_the_judge_section_says_so(env) -> None:  # type: ignore[no-untyped-def]
    settings, sessions, bundle, job = env
    off = settings.model_copy(update={"judge": JudgeSettings(enabled=False)})
    run_pipeline(InvestigationSteps(off, sessions, sources=bundle_sources(bundle)), job)
    assert _rows(sessions)[0] == []
