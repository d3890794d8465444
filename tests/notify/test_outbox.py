from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import SecretStr
from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.message import Notification
from rootward.notify.outbox import OutboxDispatcher, backlog, enqueue
from rootward.notify.slack import SlackChannel, SlackSettings
from rootward.notify.webhook import WebhookChannel, WebhookSettings, sign
from tests.notify.conftest import Receiver


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 14, 14, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _note(i: int) -> Notification:
    return Notification(
        investigation_id=f"inv-{i}",
        title=f"HighLatencyP99 on checkout #{i}",
        tier="L2",
        summary="payment-db connection pool saturated",
        summary_source="rule",
        facts=("alert HighLatencyP99 on checkout",),
        evidence=("metrics.csv:payment/db_connections_in_use@1-2",),
        executed_actions=("silence_alert BatchJobSlow for 1h",),
    )


def test_channel_down_then_up_delivers_all_100_in_order_none_twice(
    sessions: sessionmaker[Session], receiver: Receiver
) -> None:
    clock = Clock()
    channel = WebhookChannel(WebhookSettings(url=receiver.url + "/hook", secret=SecretStr("s3cret")))
    with sessions() as s, s.begin():
        for i in range(100):
            enqueue(s, _note(i), ["webhook"], key=f"k{i}", now=clock.now)
    dispatcher = OutboxDispatcher(sessions, {"webhook": channel}, clock=clock)
    receiver.up = False
    for _ in range(20):  # an hour of retries against a dead channel
        assert dispatcher.deliver_once() == 0
        clock.now += timedelta(minutes=3)
    with sessions() as s:
        assert backlog(s) == {"webhook": 100}
    receiver.up = True
    clock.now += timedelta(minutes=2)
    assert dispatcher.deliver_once() == 100
    ids = [r["body"]["investigation_id"] for r in receiver.received]
    assert ids == [f"inv-{i}" for i in range(100)]
    assert dispatcher.deliver_once() == 0
    assert len(receiver.received) == 100
    with sessions() as s:
        assert backlog(s) == {}


def test_failed_head_blocks_later_messages_until_its_backoff_passes(
    sessions: sessionmaker[Session], receiver: Receiver
) -> None:
    clock = Clock()
    channel = WebhookChannel(WebhookSettings(url=receiver.url, secret=SecretStr("x")))
    with sessions() as s, s.begin():
        enqueue(s, _note(1), ["webhook"], key="a", now=clock.now)
        enqueue(s, _note(2), ["webhook"], key="b", now=clock.now)
    dispatcher = OutboxDispatcher(sessions, {"webhook": channel}, clock=clock)
    receiver.up = False
    dispatcher.deliver_once()
    receiver.up = True
    assert dispatcher.deliver_once() == 0  # head is backing off; b must not overtake it
    clock.now += timedelta(seconds=2)
    assert dispatcher.deliver_once() == 2
    assert [r["body"]["investigation_id"] for r in receiver.received] == ["inv-1", "inv-2"]


def test_same_key_is_queued_once(sessions: sessionmaker[Session]) -> None:
    with sessions() as s, s.begin():
        assert len(enqueue(s, _note(1), ["webhook", "slack"], key="same")) == 2
        assert enqueue(s, _note(1), ["webhook", "slack"], key="same") == []


def test_webhook_is_signed_with_timestamped_hmac(sessions: sessionmaker[Session], receiver: Receiver) -> None:
    channel = WebhookChannel(WebhookSettings(url=receiver.url, secret=SecretStr("k")))
    channel.send(_note(7), idempotency_key="key-7")
    headers = receiver.headers[0]
    import json

    body = json.dumps(receiver.received[0]["body"], sort_keys=True).encode()
    assert headers["x-rootward-signature"] == sign("k", headers["x-rootward-timestamp"], body)
    assert headers["idempotency-key"] == "key-7"


def test_slack_chat_post_message_through_slack_sdk_carries_three_layers(receiver: Receiver) -> None:
    settings = SlackSettings(bot_token=SecretStr("xoxb-test"), channel="C1", api_url=receiver.url + "/api/")
    receipt = SlackChannel(settings).send(_note(3), idempotency_key="k")
    assert receipt == "1.0001"
    call = receiver.received[0]
    assert call["path"] == "/api/chat.postMessage"
    text = str(call["body"])
    assert "payment-db connection pool saturated" in text  # summary
    assert "metrics.csv:payment/db_connections_in_use@1-2" in text  # raw facts / evidence
    assert "silence_alert" in text  # executed safe actions
    assert "inv-3" in text


def test_slack_incoming_webhook(receiver: Receiver) -> None:
    settings = SlackSettings(webhook_url=SecretStr(receiver.url + "/services/T/B/X"))
    assert SlackChannel(settings).send(_note(4), idempotency_key="k") == "webhook"
    assert receiver.received[0]["body"]["blocks"][0]["type"] == "header"
