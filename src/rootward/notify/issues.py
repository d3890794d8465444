"""A comment on the incident's issue in a tracker (Jira, GitHub), creating the issue when configured.

Which issue, in order: the one an alert names (`WritebackRefs`), the fixed
one of the settings, the one rootward created for this incident before
(store/writeback_issues.py), else a new one if the tracker may create
issues. The first write-back of a new issue is its description; later ones
are comments on it.

Never two issues for one incident: the intent to create is recorded before
the create call and the key right after it, each committed on its own. If
the process dies between the target creating the issue and the key being
recorded, or the create timed out after the target took it, the next
attempt finds the row still `creating` and looks the issue up by the
incident's marker (a label or a line in its body) before creating one.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.channels import DeliveryRefused
from rootward.notify.message import Notification
from rootward.notify.writeback import WritebackRefs, refs_of, writeback_text
from rootward.store.writeback_issues import intend_create, remember_issue, remembered_issue


class IssueTracker(Protocol):
    name: str  # the outbox channel, and the `target` of remembered issues

    def named_issue(self, refs: WritebackRefs) -> str:
        """The issue the alerts or the settings name ("" if none)."""
        ...

    @property
    def creates_issues(self) -> bool: ...

    def find(self, incident: str) -> str:
        """The key of an issue created for `incident` earlier, by its marker ("" if there is none)."""
        ...

    def create(self, notification: Notification, incident: str, text: str) -> str:
        """Create the incident's issue, carrying its marker and `text`; returns its key."""
        ...

    def comment(self, issue: str, text: str) -> str:
        """Comment on the issue; returns a receipt (the comment's id or URL)."""
        ...


class IssueChannel:
    """The outbox channel of one tracker."""

    def __init__(
        self,
        tracker: IssueTracker,
        sessions: sessionmaker[Session],
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.name = tracker.name
        self._tracker = tracker
        self._sessions = sessions
        self._clock = clock

    def _remembered(self, incident: str) -> tuple[str, bool]:
        """(the key of the incident's issue, whether a create of it may have been sent unrecorded)."""
        with self._sessions() as session:
            row = remembered_issue(session, self.name, incident)
            if row is None:
                return "", False
            return row.issue_key or "", row.state == "creating"

    def _remember(self, incident: str, key: str) -> None:
        with self._sessions() as session, session.begin():
            remember_issue(session, self.name, incident, key, self._clock())

    def _create(self, notification: Notification, incident: str, text: str) -> str:
        with self._sessions() as session, session.begin():
            intend_create(session, self.name, incident, self._clock())
        key = self._tracker.create(notification, incident, text)
        self._remember(incident, key)
        return key

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        refs = refs_of(notification)
        text = writeback_text(notification)
        named = self._tracker.named_issue(refs)
        if named:
            return self._tracker.comment(named, text)
        key, maybe_sent = self._remembered(refs.incident)
        if not key and maybe_sent:
            key = self._tracker.find(refs.incident)
            if key:  # this message's own create went through: the issue already carries its text
                self._remember(refs.incident, key)
                return f"created {key}"
        if key:
            return self._tracker.comment(key, text)
        if not self._tracker.creates_issues:
            raise DeliveryRefused(f"{self.name}: no issue to comment on: no alert names one and creating is off")
        return f"created {self._create(notification, refs.incident, text)}"
