from __future__ import annotations

import pytest

from rootward.notify.message import Notification
from rootward.notify.threads import ThreadRef, parse_thread_text, thread_of, thread_reply


@pytest.mark.parametrize(
    ("text", "kind", "argument"),
    [
        ("<@U0BOT> rerun", "rerun", ""),
        ("ack", "ack", ""),
        ("@rootward:example.org resolve.", "resolve", ""),
        ("!approve ap-123", "approve", "ap-123"),
        ("reject", "reject", ""),
        ("<@U0BOT> why not payment-db?", "why_not", "payment-db"),
        ("Why isn't it the cache", "why_not", "the cache"),
        ("what changed before this?", "ask", ""),
        ("ack the deploy was at 14:02?", "ask", ""),  # a command only when the whole message is one
        ("rerun it please", "ask", ""),
    ],
)
def test_a_thread_message_is_a_command_only_when_it_is_nothing_else(text: str, kind: str, argument: str) -> None:
    command = parse_thread_text(text)
    assert (command.kind, command.argument) == (kind, argument)
    assert "<@" not in command.text and "@rootward" not in command.text


def test_a_thread_reply_survives_the_outboxs_round_trip() -> None:
    where = ThreadRef("C1", "1.0001", "1.0002")
    note = Notification.from_dict(thread_reply("inv-1", "Deploy d-1 [E1]", where).to_dict())
    assert thread_of(note) == where and note.summary == "Deploy d-1 [E1]"
    plain = Notification("inv-1", "t", "L1", "s", "rule")
    assert thread_of(plain) is None
