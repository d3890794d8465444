"""Source-down behaviour: refused connections, 500s and hangs become readable gaps; the breaker opens."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from rootward.sources.base import SourceUnavailable
from rootward.sources.github import GitHubDeploymentSource, GitHubRepo, GitHubSettings
from rootward.sources.kubernetes import KubernetesSettings, KubernetesSource
from rootward.sources.loki import LokiSettings, LokiSource
from rootward.sources.prometheus import PrometheusSettings, PrometheusSource
from rootward.sources.resilience import CircuitBreaker, ConnectorSettings, Guard
from tests.sources.local_http import Reply, free_port, serve

T = datetime(2026, 3, 14, 13, 44, tzinfo=UTC)
FAST = {"timeout_s": 0.3, "breaker_failures": 2, "breaker_cooldown_s": 60}
# For a server that answers at once: a loaded CI machine can take longer than 0.3 s to serve even that.
PATIENT = {**FAST, "timeout_s": 5.0}


def _call_loki(url: str, settings: dict[str, float] = FAST) -> Callable[[], object]:
    source = LokiSource(LokiSettings(base_url=url, **settings))  # type: ignore[arg-type]
    return lambda: source.query("payment", T, T + timedelta(minutes=5))


def _call_prometheus(url: str, settings: dict[str, float] = FAST) -> Callable[[], object]:
    source = PrometheusSource(PrometheusSettings(base_url=url, **settings))  # type: ignore[arg-type]
    return lambda: source.series("payment", T, T + timedelta(minutes=5), "request_rate")


def _call_github(url: str, settings: dict[str, float] = FAST) -> Callable[[], object]:
    repos = [GitHubRepo(repo="acme/payments")]
    source = GitHubDeploymentSource(GitHubSettings(base_url=url, repos=repos, **settings))  # type: ignore[arg-type]
    return lambda: source.recent(None, T, T + timedelta(minutes=5))


def _call_kubernetes(url: str, settings: dict[str, float] = FAST) -> Callable[[], object]:
    source = KubernetesSource(KubernetesSettings(host=url, namespaces=["shop"], **settings))  # type: ignore[arg-type]
    return lambda: source.recent(None, T, T + timedelta(minutes=5))


CONNECTORS = {
    "Loki": _call_loki,
    "Prometheus": _call_prometheus,
    "GitHub": _call_github,
    "Kubernetes": _call_kubernetes,
}


@pytest.mark.integration
@pytest.mark.parametrize("name", CONNECTORS)
def test_refused_connection_is_a_gap_naming_the_source(name: str) -> None:
    call = CONNECTORS[name](f"http://127.0.0.1:{free_port()}")
    with pytest.raises(SourceUnavailable) as info:
        call()
    assert info.value.source == name
    assert "cannot connect (connection refused)" in str(info.value)


@pytest.mark.integration
@pytest.mark.parametrize("name", CONNECTORS)
def test_server_error_is_a_gap_with_status_and_body(name: str) -> None:
    failing = serve(lambda _r: Reply(500, "storage is on fire", {"Content-Type": "text/plain"}))
    with failing as (url, _seen), pytest.raises(SourceUnavailable) as info:
        CONNECTORS[name](url, PATIENT)()
    assert "500" in str(info.value)
    if name != "Kubernetes":  # the kubernetes client keeps the body in the exception too, but as bytes or str
        assert "storage is on fire" in str(info.value)


@pytest.mark.integration
@pytest.mark.parametrize("name", CONNECTORS)
def test_hanging_server_times_out_and_then_the_breaker_opens(name: str) -> None:
    with serve(lambda _r: Reply(200, {}, delay_s=1.0)) as (url, seen):
        call = CONNECTORS[name](url)
        for _ in range(2):
            with pytest.raises(SourceUnavailable, match="timed out after 0.3 s"):
                call()
        asked = len(seen)
        with pytest.raises(SourceUnavailable, match="circuit open after 2 consecutive failures") as info:
            call()
    assert len(seen) == asked  # the open breaker answered without asking the server
    assert "last error:" in str(info.value) and "timed out" in str(info.value)


@pytest.mark.integration
@pytest.mark.parametrize("name", ["Loki", "Kubernetes"])
def test_server_dribbling_bytes_hits_the_wall_clock_timeout(name: str) -> None:
    body = {"status": "success", "data": {"resultType": "streams", "result": []}, "items": [], "pad": "x" * 50}
    started = time.monotonic()
    with serve(lambda _r: Reply(200, body, drip_s=0.1)) as (url, _seen):
        with pytest.raises(SourceUnavailable, match="timed out after 0.3 s"):
            CONNECTORS[name](url)()
        elapsed = time.monotonic() - started
    assert elapsed < 1.5  # the body alone would take over 10 s


@pytest.mark.integration
def test_html_error_page_is_an_unexpected_response_gap() -> None:
    login_page = serve(lambda _r: Reply(200, "<html>proxy login</html>", {"Content-Type": "text/html"}))
    with login_page as (url, _seen), pytest.raises(SourceUnavailable, match="unexpected response: .*not return JSON"):
        _call_loki(url)()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_breaker_half_opens_after_cooldown_and_one_success_closes_it() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failures=3, cooldown_s=30, clock=clock)
    for _ in range(3):
        assert breaker.allow()
        breaker.record_failure("boom")
    assert breaker.state == "open" and not breaker.allow()
    clock.now = 31
    assert breaker.state == "half_open"
    assert breaker.allow()  # the one trial call
    assert not breaker.allow()  # nobody else while it runs
    breaker.record_success()
    assert breaker.state == "closed" and breaker.allow()


def test_failed_trial_call_reopens_the_breaker_for_another_cooldown() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failures=1, cooldown_s=10, clock=clock)
    breaker.record_failure("boom")
    clock.now = 11
    assert breaker.allow()
    breaker.record_failure("still down")
    assert breaker.state == "open" and breaker.retry_in_s() == 10
    assert breaker.last_error == "still down"


def test_successes_reset_the_consecutive_failure_count() -> None:
    breaker = CircuitBreaker(failures=2, cooldown_s=10)
    breaker.record_failure("a")
    breaker.record_success()
    breaker.record_failure("b")
    assert breaker.state == "closed"


def test_programming_errors_are_not_turned_into_gaps() -> None:
    guard = Guard("Loki", ConnectorSettings())

    def broken() -> None:
        raise TypeError("bug in our code")

    with pytest.raises(TypeError):
        guard.call("query_range", broken)


def test_gap_message_reads_like_a_sentence() -> None:
    import httpx

    guard = Guard("Loki", ConnectorSettings(timeout_s=30))

    def hang() -> None:
        raise httpx.ReadTimeout("read timed out")

    with pytest.raises(SourceUnavailable) as info:
        guard.call("query_range", hang)
    assert str(info.value) == "Loki: query_range timed out after 30 s"
