"""Timeouts and circuit breakers around every call a live connector makes.

A dead data source must cost an investigation one named gap ("Loki timed out
after 30 s"), never the investigation itself, and a source that keeps failing
must stop being asked for a while so that a burst of alerts does not pile up
30-second timeouts. `Guard.call` does both: it refuses at once while the
breaker is open, and turns transport failures into `SourceUnavailable` with a
sentence a human can read. Programming errors (a `TypeError` in our own code)
are not transport failures and still raise.

The breaker's state is per process, which is enough: each worker learns on its
own that a source is down after a handful of calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from rootward.sources.base import SourceUnavailable

T = TypeVar("T")
BreakerState = Literal["closed", "open", "half_open"]


class ConnectorSettings(BaseModel):
    """Fields every live connector shares; unknown keys are errors so typos fail at start."""

    model_config = ConfigDict(extra="forbid")

    timeout_s: float = Field(default=30.0, gt=0, description="Seconds one call may take before it is a gap.")
    breaker_failures: int = Field(default=5, gt=0, description="Consecutive failures that open the circuit breaker.")
    breaker_cooldown_s: float = Field(
        default=30.0, gt=0, description="Seconds the breaker stays open before one trial call is let through."
    )


class SourceResponseError(ValueError):
    """The source answered, but not in the shape its API promises (bad JSON, status=error...)."""


class CallDeadlineExceeded(TimeoutError):
    """The call as a whole took longer than `timeout_s` (e.g. a server dribbling bytes)."""


class CircuitBreaker:
    """Closed → open after `failures` consecutive failures → half-open after `cooldown_s`.

    In half-open state exactly one trial call runs; its success closes the
    breaker, its failure opens it for another cool-down.
    """

    def __init__(self, failures: int = 5, cooldown_s: float = 30.0, clock: Callable[[], float] = time.monotonic):
        self.failures = failures
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._consecutive = 0
        self._opened_at: float | None = None
        self._trial_running = False
        self.last_error = ""

    @property
    def state(self) -> BreakerState:
        with self._lock:
            return self._state()

    def _state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.cooldown_s:
            return "half_open"
        return "open"

    def allow(self) -> bool:
        """Whether a call may go out now; in half-open state only the first caller gets through."""
        with self._lock:
            state = self._state()
            if state == "closed":
                return True
            if state == "half_open" and not self._trial_running:
                self._trial_running = True
                return True
            return False

    def retry_in_s(self) -> float:
        with self._lock:
            if self._opened_at is None:
                return 0.0
            return max(0.0, self.cooldown_s - (self._clock() - self._opened_at))

    def record_success(self) -> None:
        with self._lock:
            self._consecutive = 0
            self._opened_at = None
            self._trial_running = False
            self.last_error = ""

    def record_failure(self, reason: str) -> None:
        with self._lock:
            self._consecutive += 1
            self.last_error = reason
            if self._trial_running or self._consecutive >= self.failures:
                self._opened_at = self._clock()
            self._trial_running = False


def _seconds(value: float) -> str:
    return f"{value:g} s"


def describe_failure(source: str, exc: BaseException, timeout_s: float) -> str | None:
    """A readable reason for a transport failure, or None when `exc` is not one (a bug: re-raise)."""
    if isinstance(exc, SourceUnavailable):
        return exc.reason
    if isinstance(exc, CallDeadlineExceeded):
        return f"timed out after {_seconds(timeout_s)}"
    if isinstance(exc, SourceResponseError):
        return f"unexpected response: {exc}"
    import httpx  # here, not at the top: every CLI command imports the connectors' settings, few call one

    if isinstance(exc, httpx.TimeoutException):
        return f"timed out after {_seconds(timeout_s)}"
    if isinstance(exc, httpx.HTTPStatusError):
        body = exc.response.text.strip().replace("\n", " ")[:200]
        url = exc.request.url.copy_with(query=None)
        detail = f": {body}" if body else ""
        return f"HTTP {exc.response.status_code} from {url}{detail}"
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect ({_root_message(exc)})"
    if isinstance(exc, httpx.TransportError):
        return f"transport error ({_root_message(exc)})"
    return _describe_kubernetes_failure(exc, timeout_s)


def _describe_kubernetes_failure(exc: BaseException, timeout_s: float) -> str | None:
    """urllib3 and kubernetes-client errors, imported lazily: only the Kubernetes connector needs them."""
    import urllib3.exceptions as u3
    from kubernetes.client.exceptions import ApiException

    if isinstance(exc, ApiException):
        body = (exc.body or "").strip().replace("\n", " ")[:200] if isinstance(exc.body, str) else ""
        detail = f": {body}" if body else ""
        return f"HTTP {exc.status} {exc.reason or ''}".rstrip() + detail
    if isinstance(exc, u3.MaxRetryError) and exc.reason is not None:
        return _describe_kubernetes_failure(exc.reason, timeout_s) or f"cannot connect ({exc.reason})"
    if isinstance(exc, u3.NewConnectionError):  # a subclass of ConnectTimeoutError: test it first
        return f"cannot connect ({_root_message(exc)})"
    if isinstance(exc, (u3.ReadTimeoutError, u3.ConnectTimeoutError, TimeoutError)):
        return f"timed out after {_seconds(timeout_s)}"
    if isinstance(exc, (u3.HTTPError, ConnectionError)):
        return f"transport error ({_root_message(exc)})"
    return None


def _root_message(exc: BaseException) -> str:
    """The innermost cause's message: 'Connection refused' rather than three wrappers."""
    seen: BaseException = exc
    while seen.__cause__ is not None or seen.__context__ is not None:
        nxt = seen.__cause__ or seen.__context__
        assert nxt is not None
        seen = nxt
    text = str(seen) or type(seen).__name__
    if "Connection refused" in text:
        return "connection refused"
    return text[:200]


class Guard:
    """One source's breaker plus its timeout; `call` is the only way connectors reach the network.

    The timeout is enforced twice: the clients get it as their transport
    timeout (so sockets are closed), and `call` waits at most `timeout_s` of
    wall clock for the whole operation, since a server that sends one byte a
    second never trips a per-read timeout. A call abandoned that way finishes
    in its worker thread, bounded by the transport timeout.
    """

    def __init__(self, source: str, settings: ConnectorSettings, clock: Callable[[], float] = time.monotonic):
        self.source = source
        self.timeout_s = settings.timeout_s
        self.breaker = CircuitBreaker(settings.breaker_failures, settings.breaker_cooldown_s, clock)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix=f"source-{self.source}")
            return self._pool

    def _within_deadline(self, fn: Callable[[], T]) -> T:
        future = self._executor().submit(fn)
        try:
            return future.result(timeout=self.timeout_s)
        except TimeoutError:
            if future.done():  # fn itself raised a TimeoutError just now
                raise
            future.cancel()
            raise CallDeadlineExceeded() from None

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """Run `fn` within `timeout_s`; transport failures become `SourceUnavailable`.

        `what` names the operation for the message, e.g. "query_range".
        """
        if not self.breaker.allow():
            raise SourceUnavailable(
                self.source,
                f"circuit open after {self.breaker.failures} consecutive failures, "
                f"next try in {self.breaker.retry_in_s():.0f} s (last error: {self.breaker.last_error})",
            )
        try:
            result = self._within_deadline(fn)
        except Exception as exc:  # noqa: BLE001 - classified below; unknown kinds re-raise
            reason = describe_failure(self.source, exc, self.timeout_s)
            if reason is None:
                self.breaker.record_failure(f"{type(exc).__name__}: {exc}")
                raise
            self.breaker.record_failure(reason)
            message = f"{what} {reason}" if what else reason
            raise SourceUnavailable(self.source, message) from exc
        self.breaker.record_success()
        return result
