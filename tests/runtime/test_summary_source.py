"""Who wrote the summary is what Slack and Matrix say: an investigation whose summary the model wrote
(through the real OpenAI SDK against the local protocol server) is labelled "llm", a rule-mode one "rule"."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

from sqlalchemy import select

from rootward.notify.matrix import matrix_html
from rootward.notify.message import Notification, plain_text, slack_blocks
from rootward.runtime.execution import run_job
from rootward.runtime.queue import claim
from rootward.runtime.worker import pipeline_for
from rootward.settings import load_settings
from rootward.store.investigations import InvestigationRow
from rootward.store.outbox import OutboxRow
from tests.fixtures.fake_llm import FakeLLMServer
from tests.runtime.simulated import queue_bundle, simulated_bundle, write_config

MODEL_SENTENCE = "A bad recommendation deploy started the errors."
PROPOSE_MARKER = "suggest root-cause hypotheses"
WRITE_MARKER = "You write the summary"
AGENT_MARKER = "You are the model specialist"
PAGER = {"webhooks": [{"name": "pager", "url": "http://127.0.0.1:9/hook", "secret": "s"}]}


def _notified(tmp_path: Path, **sections: object) -> tuple[Notification, InvestigationRow]:
    settings = load_settings(write_config(tmp_path / "rootward.yaml", tmp_path, **sections))
    sessions, job = queue_bundle(settings, simulated_bundle(tmp_path))
    with sessions() as session:
        claimed = claim(session, "w1", 120)
    assert claimed is not None
    assert run_job(sessions, claimed, pipeline_for(settings, sessions), lease_s=120) == "done"
    with sessions() as session:
        [queued] = session.scalars(select(OutboxRow)).all()
        row = session.get_one(InvestigationRow, job.id)
    return Notification.from_dict(queued.payload), row


def _labels(note: Notification) -> tuple[str, str]:
    slack = json.dumps(slack_blocks(note))
    return slack, matrix_html(note)


def test_a_summary_the_model_wrote_is_labelled_llm_in_slack_and_matrix(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.routes[PROPOSE_MARKER] = deque(['{"hypotheses": []}'])
        sentence = {"sentences": [{"text": MODEL_SENTENCE, "evidence": ["E1"]}]}
        server.routes[WRITE_MARKER] = deque([json.dumps(sentence)])
        server.routes[AGENT_MARKER] = deque()  # the model specialist is not needed here: it answers 500
        llm = {"provider": "openai", "base_url": server.base_url, "api_key": "t", "model": "m", "timeout_s": 2.0}
        note, row = _notified(tmp_path, llm=llm, notify=PAGER)
    assert row.investigation.summary_source == "llm"
    assert note.summary_source == "llm" and note.summary.startswith(MODEL_SENTENCE)
    slack, matrix = _labels(note)
    assert "_summary by llm_" in slack and "(summary by llm)" in matrix
    assert "(summary by llm)" in plain_text(note)


def test_a_rule_mode_summary_is_labelled_rule(tmp_path: Path) -> None:
    note, row = _notified(tmp_path, notify=PAGER)
    assert row.investigation.summary_source == "rule" and note.summary_source == "rule"
    slack, matrix = _labels(note)
    assert "_summary by rule_" in slack and "(summary by rule)" in matrix
    assert MODEL_SENTENCE not in note.summary
