"""The LLM client whose calls are charged to an investigation, as the worker and the console build it.

Every call a model makes for an investigation (its engine steps in a worker,
a runbook draft from the console) is kept as an `llm_calls` row against that
investigation and its service, so `rootward costs` and the console add up the
same calls; the provider's daily call cap is counted from the same rows, so
it holds across every process that shares the database.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.llm_calls import CallRecord
from rootward.llm.client import LLMClient
from rootward.llm.settings import LLMSettings
from rootward.store.llm_calls import LLMCallRow, record_llm_call

# (investigation id, service) a call is charged to; None: the call is not recorded.
ChargeTo = Callable[[], tuple[str, str] | None]


def charged_llm_client(settings: LLMSettings, sessions: sessionmaker[Session], charge_to: ChargeTo) -> LLMClient | None:
    """The configured model with its calls recorded against `charge_to()`; None in rule mode."""
    if settings.provider == "none":
        return None

    def on_call(call: CallRecord) -> None:
        charged = charge_to()
        if charged is None:
            return
        with sessions() as session, session.begin():
            record_llm_call(session, call, charged[0], charged[1])

    def calls_today(provider: str) -> int:
        start = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        with sessions() as session:
            count = session.scalar(
                select(func.count())
                .select_from(LLMCallRow)
                .where(LLMCallRow.provider == provider, LLMCallRow.at >= start)
            )
        return int(count or 0)

    return LLMClient(settings, on_call=on_call, calls_today=calls_today)
