"""Background delivery in `rootward serve`: the outbox dispatcher and the Matrix approval listener.

Channels are built from the `notify:` section; one that cannot be built
(bad settings) is skipped with a log line, and its queued messages wait in
the outbox until it is fixed: nothing is dropped.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.channels import Channel
from rootward.notify.outbox import OutboxDispatcher
from rootward.notify.settings import NotifySettings

log = logging.getLogger("rootward.notify")


def build_channels(settings: NotifySettings) -> dict[str, Channel]:
    channels: dict[str, Channel] = {}
    if settings.slack is not None:
        from rootward.notify.slack import SlackChannel

        try:
            channels["slack"] = SlackChannel(settings.slack)
        except ValueError as exc:
            log.error("slack channel disabled: %s", exc)
    if settings.matrix is not None:
        from rootward.notify.matrix import MatrixChannel

        channels["matrix"] = MatrixChannel(settings.matrix)
    from rootward.notify.webhook import WebhookChannel

    for hook in settings.webhooks:
        channels[hook.name] = WebhookChannel(hook)
    return channels


def start_background(
    settings: NotifySettings,
    sessions: sessionmaker[Session],
    stop: threading.Event,
    *,
    extra: Sequence[Callable[[threading.Event], None]] = (),
) -> list[threading.Thread]:
    """Start the outbox dispatcher (and any extra loops); they end when `stop` is set."""
    threads = []
    channels = build_channels(settings)
    if channels:
        dispatcher = OutboxDispatcher(sessions, channels)
        threads.append(
            threading.Thread(target=dispatcher.run, args=(stop, settings.poll_s), name="outbox", daemon=True)
        )
    for loop in extra:
        threads.append(threading.Thread(target=loop, args=(stop,), name=getattr(loop, "__name__", "loop"), daemon=True))
    for thread in threads:
        thread.start()
    return threads
