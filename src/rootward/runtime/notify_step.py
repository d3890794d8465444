"""The `notify` step: the three-layer message into the durable outbox, one per investigation.

The outbox key is the investigation, so a re-run step enqueues nothing twice;
a channel that is down keeps the message there for replay. The write-backs
(PagerDuty note, Jira / GitHub comment) are queued in the same transaction
(notify/writeback_queue.py). Shadow-mode groups notify no one.
"""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.proposal_state import proposal_states
from rootward.notify.compose import compose_notification
from rootward.notify.outbox import enqueue
from rootward.notify.settings import NotifySettings
from rootward.notify.writeback_queue import enqueue_writebacks, group_refs
from rootward.runtime.job_state import JobState
from rootward.store.approvals import approval_facts, approvals_of


def channel_names(notify: NotifySettings) -> list[str]:
    return notify.chat_channels()


class NotifyStep:
    def __init__(
        self, notify: NotifySettings, sessions: sessionmaker[Session], executor_verbs: frozenset[str] = frozenset()
    ) -> None:
        self.settings = notify
        self.sessions = sessions
        self.executor_verbs = executor_verbs  # what an approval would actually run (actions.executor)

    def __call__(self, state: JobState) -> JobState:
        if state.shadow:
            return state.model_copy(update={"notified": []})
        investigation_id = state.investigation_id or state.job_id
        result = state.result()
        with self.sessions() as session:
            approvals = [approval_facts(a) for a in approvals_of(session, investigation_id)]
            refs = group_refs(session, state.group_id, self.settings)
        note = compose_notification(
            result,
            title=f"[{state.source}] {state.title}" if state.source != "live" else state.title,
            service=state.service,
            tier=state.tier,
            severity=state.severity,
            investigation_id=investigation_id,
            console_url=self.settings.console_url,
            alerts=state.alert_names,
            safe_actions=state.safe_actions,
            approval_id=state.approval_id,
            proposals=proposal_states(result.proposals, approvals, self.executor_verbs),
        )
        channels = channel_names(self.settings)
        key = f"investigation:{investigation_id}"
        with self.sessions() as session, session.begin():
            enqueue(session, note, channels, key=key)
            channels += enqueue_writebacks(session, note, refs, self.settings, key=key)
        return state.model_copy(update={"notified": channels})
