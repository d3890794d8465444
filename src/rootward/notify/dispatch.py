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


def build_channels(settings: NotifySettings, sessions: sessionmaker[Session] | None = None) -> dict[str, Channel]:
    """The configured channels; the issue trackers (Jira, GitHub) need `sessions` to remember their issues."""
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
    if settings.teams is not None:
        from rootward.notify.teams import TeamsChannel

        channels["teams"] = TeamsChannel(settings.teams, settings.console_url)
    from rootward.notify.webhook import WebhookChannel

    for hook in settings.webhooks:
        channels[hook.name] = WebhookChannel(hook)
    return channels | writeback_channels(settings, sessions)


def writeback_channels(settings: NotifySettings, sessions: sessionmaker[Session] | None) -> dict[str, Channel]:
    channels: dict[str, Channel] = {}
    if settings.pagerduty is not None:
        from rootward.notify.pagerduty_notes import PagerDutyNotesChannel

        channels["pagerduty"] = PagerDutyNotesChannel(settings.pagerduty)
    from rootward.notify.github import GitHubTracker
    from rootward.notify.issues import IssueChannel, IssueTracker
    from rootward.notify.jira import JiraTracker

    trackers: list[IssueTracker] = []
    if settings.jira is not None:
        trackers.append(JiraTracker(settings.jira))
    if settings.github is not None:
        trackers.append(GitHubTracker(settings.github))
    for tracker in trackers:
        if sessions is None:
            log.error("%s write-back disabled: it needs the database to remember its issues", tracker.name)
            continue
        channels[tracker.name] = IssueChannel(tracker, sessions)
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
    channels = build_channels(settings, sessions)
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
