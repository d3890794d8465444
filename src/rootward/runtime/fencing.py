"""The fence of one held job: raised when its worker no longer holds the lease.

A worker's heartbeat renews the lease of every job its slots hold. When a
renewal matches no row, the lease is gone (it ran out while the worker stalled,
or another worker took the job over): the worker is fenced off and must stop
that job without writing anything more. The heartbeat thread cannot stop the
slot thread, so it raises the job's fence and the slot notices it:

- `run_job` checks it between steps and after each step, and then stops with
  outcome `lease_lost` instead of checkpointing;
- a long step checks it itself, through `current_fence()` /
  `check_fence()`, or sleeps with `JobFence.wait` so it wakes up at once.

The fence of the running step lives in a context variable set by `run_job`, so
a step needs no extra parameter; a step that hands work to other threads
passes `current_fence()` to them explicitly (threads do not inherit it).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from rootward.runtime.checkpoint import Lease, LeaseLost


class JobFence:
    """Raised (once, for good) by the heartbeat when the lease of `lease` could not be renewed."""

    def __init__(self, lease: Lease) -> None:
        self.lease = lease
        self._raised = threading.Event()
        self._reason = ""

    @property
    def is_raised(self) -> bool:
        return self._raised.is_set()

    @property
    def reason(self) -> str:
        return self._reason

    def raise_fence(self, reason: str) -> None:
        """Mark the lease as gone; every later check of this fence stops the job."""
        if not self._raised.is_set():
            self._reason = reason
            self._raised.set()

    def wait(self, timeout_s: float) -> bool:
        """Sleep up to `timeout_s`, waking at once if the fence is raised; True if it was."""
        return self._raised.wait(timeout_s)

    def check(self) -> None:
        """Raise LeaseLost if the fence is up: the step must stop without writing."""
        if self._raised.is_set():
            raise LeaseLost(f"job {self.lease.job_id}: fenced off ({self._reason})")


_current: ContextVar[JobFence | None] = ContextVar("rootward_job_fence", default=None)


def current_fence() -> JobFence | None:
    """The fence of the job whose step runs in this context, or None outside a worker's step."""
    return _current.get()


def check_fence() -> None:
    """For long steps: raise LeaseLost if this worker lost the running job's lease (no-op outside a step)."""
    fence = _current.get()
    if fence is not None:
        fence.check()


@contextmanager
def fenced_by(fence: JobFence) -> Iterator[JobFence]:
    """Make `fence` the current one for the duration of a step."""
    token = _current.set(fence)
    try:
        yield fence
    finally:
        _current.reset(token)
