"""Workers: threads that claim jobs and run them, plus one heartbeat per process.

`WorkerPool` is what `rootward serve` embeds (next to the API) and what
`rootward worker` runs alone; any number of pools in any number of processes
can share one PostgreSQL. A pool has one identity (`host:pid:random`), which
owns the leases of all its slots; its heartbeat thread records the pool as
alive, renews the lease of every job its slots hold (a slot registers its job
on claim and drops it when the job ends, is released or is lost, so a slot that
crashed stops renewing and its job is resumed elsewhere) and expires overdue
queued jobs (so a TTL is enforced even by a pool with no slots).

A step may run far longer than the lease: the heartbeat keeps it alive. When a
renewal matches no row (the pool stalled past the lease and another worker
took the job over, or the lease ran out), the pool is fenced off that job: the
heartbeat raises the job's fence (`runtime/fencing.py`) and the slot stops the
step without writing anything more.

Stopping is graceful: slots finish the step they are in, checkpoint it, and
hand their job back to the queue, while the heartbeat keeps their leases alive.
A slot stuck past the grace period is abandoned; its lease then runs out and
another worker resumes the job from its last checkpoint.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import threading
from collections import Counter
from types import FrameType

from sqlalchemy.orm import Session, sessionmaker

from rootward.runtime.checkpoint import Lease
from rootward.runtime.execution import Outcome, run_job
from rootward.runtime.fencing import JobFence
from rootward.runtime.pipeline import Pipeline, default_pipeline
from rootward.runtime.queue import claim, expire_overdue, forget_worker, heartbeat
from rootward.settings import RuntimeSettings, Settings
from rootward.store.jobs import Job, utcnow

log = logging.getLogger(__name__)


def pipeline_for(settings: Settings, session_factory: sessionmaker[Session]) -> Pipeline:
    """The configured pipeline: the real investigation, or bookkeeping placeholders."""
    if settings.runtime.pipeline == "placeholder":
        return default_pipeline()
    from rootward.runtime.investigation_steps import InvestigationSteps

    return InvestigationSteps(settings, session_factory).pipeline()


def new_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class WorkerPool:
    """`concurrency` slot threads (default `runtime.workers`) and a heartbeat thread."""

    def __init__(
        self,
        settings: Settings,
        session_factory: sessionmaker[Session],
        *,
        pipeline: Pipeline | None = None,
        concurrency: int | None = None,
        worker_id: str | None = None,
    ) -> None:
        self.runtime: RuntimeSettings = settings.runtime
        self.session_factory = session_factory
        self.pipeline = pipeline or pipeline_for(settings, session_factory)
        self.concurrency = self.runtime.workers if concurrency is None else concurrency
        if self.concurrency < 0:
            raise ValueError("concurrency must not be negative")
        if self.runtime.heartbeat_s >= self.runtime.lease_s:
            log.warning(
                "runtime.heartbeat_s (%g s) is not shorter than runtime.lease_s (%g s): leases will run out "
                "between renewals and long steps will be taken over",
                self.runtime.heartbeat_s,
                self.runtime.lease_s,
            )
        self.worker_id = worker_id or new_worker_id()
        self.outcomes: Counter[str] = Counter()
        self._started_at = utcnow()
        self._stop_claiming = threading.Event()
        self._stop_beating = threading.Event()
        self._slots: list[threading.Thread] = []
        self._beat: threading.Thread | None = None
        self._lock = threading.Lock()
        # The jobs the slots hold, each with its fence; the heartbeat renews exactly these leases.
        self._held: dict[Lease, JobFence] = {}

    def start(self) -> None:
        if self._beat is not None:
            raise RuntimeError("worker pool already started")
        self._beat_once()  # visible as alive before the first claim
        self._beat = threading.Thread(target=self._beat_loop, name=f"rootward-heartbeat-{self.worker_id}", daemon=True)
        self._beat.start()
        for slot in range(self.concurrency):
            thread = threading.Thread(target=self._slot_loop, name=f"rootward-worker-{slot}", daemon=True)
            thread.start()
            self._slots.append(thread)
        log.info("worker %s started with %d slot(s)", self.worker_id, self.concurrency)

    def stop(self, grace_s: float | None = None) -> None:
        """Stop claiming, let running steps finish and hand their jobs back, then stop beating."""
        grace = self.runtime.lease_s if grace_s is None else grace_s
        self._stop_claiming.set()
        for thread in self._slots:
            thread.join(timeout=grace)
        stuck = [thread.name for thread in self._slots if thread.is_alive()]
        if stuck:
            log.warning(
                "worker %s: %s still in a step after %.0f s; leaving their leases to expire",
                self.worker_id,
                ", ".join(stuck),
                grace,
            )
        self._stop_beating.set()
        if self._beat is not None:
            self._beat.join(timeout=grace)
        try:
            with self.session_factory() as session:
                forget_worker(session, self.worker_id)
        except Exception:
            log.exception("worker %s: could not remove its heartbeat row", self.worker_id)
        log.info("worker %s stopped: %s", self.worker_id, dict(self.outcomes))

    def _slot_loop(self) -> None:
        while not self._stop_claiming.is_set():
            try:
                with self.session_factory() as session:
                    job = claim(
                        session,
                        self.worker_id,
                        self.runtime.lease_s,
                        max_concurrent=self.runtime.max_concurrent,
                        queue_ttl_s=self.runtime.queue_ttl_s,
                    )
                if job is None:
                    self._stop_claiming.wait(self.runtime.poll_s)
                    continue
                outcome = self._run_held(job)
                with self._lock:
                    self.outcomes[outcome] += 1
            except Exception:
                # The database hiccuped: the lease of any job in hand runs out and another worker resumes it.
                log.exception("worker %s: slot error; retrying after %.1f s", self.worker_id, self.runtime.poll_s)
                with self._lock:
                    self.outcomes["error"] += 1
                self._stop_claiming.wait(self.runtime.poll_s)

    def _run_held(self, job: Job) -> Outcome:
        """Run a claimed job with its lease renewed by the heartbeat until the job leaves this slot."""
        fence = JobFence(Lease.of(job))
        with self._lock:
            self._held[fence.lease] = fence
        try:
            return run_job(
                self.session_factory,
                job,
                self.pipeline,
                lease_s=self.runtime.lease_s,
                stop=self._stop_claiming,
                fence=fence,
            )
        finally:  # done, failed, released, lost or a slot error: this slot no longer holds the job
            with self._lock:
                self._held.pop(fence.lease, None)

    def held_leases(self) -> list[Lease]:
        """The leases the slots hold right now (the ones the next heartbeat renews)."""
        with self._lock:
            return list(self._held)

    def _beat_loop(self) -> None:
        while not self._stop_beating.wait(self.runtime.heartbeat_s):
            try:
                self._beat_once()
            except Exception:
                log.exception("worker %s: heartbeat failed", self.worker_id)

    def _beat_once(self) -> None:
        with self._lock:
            held = dict(self._held)
        with self.session_factory() as session:
            renewed = heartbeat(
                session,
                self.worker_id,
                host=socket.gethostname(),
                pid=os.getpid(),
                slots=self.concurrency,
                lease_s=self.runtime.lease_s,
                started_at=self._started_at,
                leases=list(held),
            )
        self._fence_off(held, renewed)
        with self.session_factory() as session:
            expire_overdue(session, self.runtime.queue_ttl_s)
            session.commit()

    def _fence_off(self, held: dict[Lease, JobFence], renewed: set[Lease]) -> None:
        """Raise the fence of each held job whose lease renewal matched no row."""
        with self._lock:
            still_held = set(self._held)
        for lease, fence in held.items():
            # A job that left its slot while the heartbeat ran (finished, released) is not a lost lease.
            if lease in renewed or lease not in still_held or fence.is_raised:
                continue
            reason = f"lease of attempt {lease.attempt} could not be renewed: it ran out or another worker took over"
            log.warning("worker %s: fenced off job %s: %s", self.worker_id, lease.job_id, reason)
            fence.raise_fence(reason)


def run_worker_process(settings: Settings, *, concurrency: int | None = None) -> int:
    """`rootward worker`: migrate, run a pool until SIGTERM/SIGINT, stop gracefully; exit code."""
    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.migrate import upgrade

    upgrade(settings.database_url)
    engine = make_engine(settings.database_url, echo=settings.database.echo)
    stop = threading.Event()

    def _on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("received %s, stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    # `runtime.workers: 0` means "serve is API-only"; a worker process always has slots.
    slots = concurrency if concurrency is not None else max(1, settings.runtime.workers)
    pool = WorkerPool(settings, make_session_factory(engine), concurrency=slots)
    pool.start()
    try:
        while not stop.wait(0.5):
            pass
    finally:
        pool.stop()
        engine.dispose()
    return 0
