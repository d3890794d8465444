"""Group commit for intake: the alerts of concurrent requests share one transaction.

A transaction has a fixed cost (a few statements, a commit) that dwarfs the
per-alert work, and SQLite has one writer anyway. So requests hand their
parsed alerts to one writer task, which takes everything waiting (up to
`max_alerts_per_commit`), stores it in one transaction off the event loop,
and answers each request with its own decisions. Every request still gets its
202 only after its alerts are committed. If a shared transaction fails, each
request is retried alone, so one bad request never takes others down with it
and none is half-written.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from rootward.ingest.router import Linked
from rootward.ingest.settings import RouterSettings
from rootward.runtime.intake import AcceptResult, Submission, accept_batches

log = logging.getLogger(__name__)

_Item = tuple[Submission, "asyncio.Future[AcceptResult]"]


class WriterOverloaded(RuntimeError):
    """More alerts are waiting than the writer may hold; the sender should retry later."""


class IntakeWriter:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        settings: RouterSettings,
        *,
        max_alerts_per_commit: int = 2000,
        max_pending_alerts: int = 50_000,
        links: Callable[[], Linked | None] | None = None,
    ) -> None:
        self._sessions = sessions
        self._settings = settings
        self._links = links  # the topology's service links (runtime/topology_links.py), for topology grouping
        self._max = max_alerts_per_commit
        self._max_pending = max_pending_alerts
        self._pending = 0
        self._queue: asyncio.Queue[_Item | None] | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self._links is not None:
            self._links()  # start reading the topology now, so the first alerts can group by it
        self._queue = asyncio.Queue()
        self._task = asyncio.create_task(self._run(), name="rootward-intake-writer")

    async def stop(self) -> None:
        """Store what is already waiting, then stop."""
        if self._queue is None or self._task is None:
            return
        self._queue.put_nowait(None)
        await self._task
        self._task = None

    async def submit(self, submission: Submission) -> AcceptResult:
        if self._queue is None or self._task is None or self._task.done():
            raise RuntimeError("intake writer is not running")
        if self._pending + len(submission.alerts) > self._max_pending:
            raise WriterOverloaded(f"{self._pending} alerts already waiting to be stored")
        future: asyncio.Future[AcceptResult] = asyncio.get_running_loop().create_future()
        self._pending += len(submission.alerts)
        self._queue.put_nowait((submission, future))
        return await asyncio.shield(future)  # a client that hangs up does not cancel the commit

    async def _run(self) -> None:
        assert self._queue is not None
        stopping = False
        while not stopping:
            first = await self._queue.get()
            if first is None:
                return
            batch = [first]
            size = len(first[0].alerts)
            while size < self._max and not self._queue.empty():
                item = self._queue.get_nowait()
                if item is None:
                    stopping = True
                    break
                batch.append(item)
                size += len(item[0].alerts)
            results = await asyncio.to_thread(self._commit, [sub for sub, _ in batch])
            self._pending -= size
            for (_, future), result in zip(batch, results, strict=True):
                if future.done():
                    continue
                if isinstance(result, BaseException):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    def _commit(self, submissions: Sequence[Submission]) -> list[AcceptResult | Exception]:
        linked = self._links() if self._links is not None else None
        try:
            return list(accept_batches(self._sessions, submissions, settings=self._settings, linked=linked))
        except Exception as exc:
            if len(submissions) == 1:
                log.warning("storing alerts failed: %s", exc)
                return [exc]
        out: list[AcceptResult | Exception] = []
        for sub in submissions:
            try:
                out.append(accept_batches(self._sessions, [sub], settings=self._settings, linked=linked)[0])
            except Exception as exc:
                log.warning("storing alerts failed: %s", exc)
                out.append(exc)
        return out
