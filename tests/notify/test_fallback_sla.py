"""The fallback SLA: whatever fails (the LLM, a data source, the channel), a notification goes out.

Each case composes the notification from an investigation result the way the
pipeline does, queues it in the outbox, and checks what the receiver finally
got: the raw facts (alert, event, gaps) are always there.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.investigation import InvestigationResult
from rootward.notify.compose import compose_notification
from rootward.notify.message import Notification, plain_text
from rootward.notify.outbox import OutboxDispatcher, backlog, enqueue
from rootward.notify.webhook import WebhookChannel, WebhookSettings
from tests.notify.conftest import Receiver

GAPS = ["no logs for fraud: source missing", "prometheus unavailable: ReadTimeout after 10 s"]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 14, 14, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _compose(result: dict[str, Any], **kw: Any) -> Notification:
    args: dict[str, Any] = {
        "title": "HighLatencyP99 on checkout",
        "service": "checkout",
        "tier": "L2",
        "severity": "P2",
        "investigation_id": "inv-42",
        "console_url": "https://rootward.example",
        "alerts": ["HighLatencyP99 checkout (firing since 14:29)"],
        "safe_actions": ["flag_for_human_review: ok"],
    }
    # The pipeline always hands over a complete record; an empty one is a failed result with nothing in it.
    typed = InvestigationResult.model_validate({"bundle": "inc-42", "status": "failed", **result})
    return compose_notification(typed, **(args | kw))


def _deliver(
    sessions: sessionmaker[Session], receiver: Receiver, note: Notification, *, clock: Clock | None = None
) -> OutboxDispatcher:
    channel = WebhookChannel(WebhookSettings(url=receiver.url + "/hook", secret=SecretStr("s3cret"), timeout_s=2))
    clock = clock or Clock()
    with sessions() as s, s.begin():
        enqueue(s, note, ["webhook"], key=f"investigation:{note.investigation_id}", now=clock.now)
    dispatcher = OutboxDispatcher(sessions, {"webhook": channel}, clock=clock)
    dispatcher.deliver_once()
    return dispatcher


def test_llm_down_the_rule_summary_goes_out_with_the_raw_facts(
    sessions: sessionmaker[Session], receiver: Receiver
) -> None:
    result = {
        "status": "validated",
        "summary_source": "rule",  # the LLM timed out: rule mode wrote the claims
        "hypotheses": [
            {
                "id": "H1",
                "entity": "payment-db",
                "fault_type": "connection_pool_exhaustion",
                "status": "validated",
                "confidence": 0.71,
                "evidence": ["E7"],
            }
        ],
        "claims": [{"text": "payment's DB pool saturated at 14:29 (20/20 connections).", "evidence": ["E7"]}],
        "evidence": {"E7": {"kind": "metric", "cite": "metrics.csv:payment/db_connections_in_use@1-2"}},
        "gaps": ["llm unavailable: daily call cap reached, rule mode used"],
    }
    note = _compose(result)
    assert note.summary_source == "rule" and "pool saturated" in note.summary
    _deliver(sessions, receiver, note)
    (got,) = receiver.received
    body = got["body"]
    assert body["summary_source"] == "rule"
    assert body["evidence"] == ["metrics.csv:payment/db_connections_in_use@1-2"]
    assert "alert: HighLatencyP99 checkout (firing since 14:29)" in body["facts"]
    assert "gap: llm unavailable: daily call cap reached, rule mode used" in body["facts"]
    assert body["executed_actions"] == ["flag_for_human_review: ok"]


@pytest.mark.parametrize(
    "result",
    [
        {"status": "failed", "hypotheses": [], "claims": [], "evidence": {}, "gaps": GAPS},
        {"status": "failed", "gaps": GAPS},  # the engine died before filling anything else in
    ],
)
def test_data_sources_down_the_failed_investigation_lists_its_gaps(
    sessions: sessionmaker[Session], receiver: Receiver, result: dict[str, Any]
) -> None:
    note = _compose(result)
    assert note.summary_source == "template" and "failed" in note.summary
    text = plain_text(note)
    for gap in GAPS:
        assert f"gap: {gap}" in note.facts and gap in text
    assert "event: L2 on checkout (P2), investigation failed" in note.facts
    _deliver(sessions, receiver, note)
    (got,) = receiver.received
    assert [f for f in got["body"]["facts"] if f.startswith("gap: ")] == [f"gap: {g}" for g in GAPS]
    assert got["body"]["console_url"] == "https://rootward.example/incidents/inv-42"


def test_nothing_at_all_from_the_engine_still_yields_alert_and_event(
    sessions: sessionmaker[Session], receiver: Receiver
) -> None:
    note = _compose({})
    assert note.facts[0].startswith("alert: HighLatencyP99") and note.summary
    _deliver(sessions, receiver, note)
    assert receiver.received[0]["body"]["investigation_id"] == "inv-42"


def test_channel_down_the_outbox_keeps_it_until_the_channel_returns(
    sessions: sessionmaker[Session], receiver: Receiver
) -> None:
    """Everything fails at once: LLM and sources down, and the chat bridge is down for an hour."""
    clock = Clock()
    receiver.up = False
    note = _compose({"status": "failed", "gaps": ["llm unavailable: connection refused", *GAPS]})
    dispatcher = _deliver(sessions, receiver, note, clock=clock)
    for _ in range(12):  # an hour of retries, every 5 minutes
        clock.now += timedelta(minutes=5)
        assert dispatcher.deliver_once() == 0
    with sessions() as s:
        assert backlog(s) == {"webhook": 1}
    receiver.up = True
    clock.now += timedelta(minutes=1)
    assert dispatcher.deliver_once() == 1
    assert dispatcher.deliver_once() == 0
    (got,) = receiver.received
    assert Notification.from_dict(got["body"]) == note
    with sessions() as s:
        assert backlog(s) == {}
