from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from sqlalchemy.orm import Session, sessionmaker

from rootward.observability.tools import TOOL_METRICS, tool_call
from rootward.observability.tracing import configure_tracing, span
from rootward.runtime.execution import run_job
from rootward.runtime.job_state import JobState, StepRecord
from rootward.runtime.pipeline import Pipeline, Step
from rootward.runtime.queue import claim, enqueue_investigation
from rootward.store.db import make_engine, make_session_factory
from rootward.store.migrate import upgrade

EXPORTER = InMemorySpanExporter()


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    configure_tracing(exporter=EXPORTER)
    EXPORTER.clear()
    yield EXPORTER
    EXPORTER.clear()


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    url = f"sqlite:///{tmp_path / 'trace.db'}"
    upgrade(url)
    return make_session_factory(make_engine(url))


def _step(name: str, fail: bool = False) -> Step:
    def run(state: JobState) -> JobState:
        if fail:
            raise RuntimeError("prometheus unreachable")
        with tool_call("prometheus.query", query="up") as out:
            out.status = "ok"
        return state.model_copy(update={"steps": [*state.steps, StepRecord(step=name, at="now")]})

    return Step(name, run)


def test_a_job_is_one_investigation_span_with_a_child_per_step_and_tool_call(
    spans: InMemorySpanExporter, sessions: sessionmaker[Session]
) -> None:
    with sessions() as s:
        enqueue_investigation(s, "group-1", 1, "L2")
        s.commit()
    with sessions() as s:
        job = claim(s, "w1", 30)
    assert job is not None
    assert run_job(sessions, job, Pipeline([_step("context"), _step("rca")]), lease_s=30) == "done"

    finished = {sp.name: sp for sp in spans.get_finished_spans()}
    root = finished["investigation"]
    assert root.attributes is not None and root.attributes["rootward.job_id"] == job.id
    assert root.attributes["rootward.outcome"] == "done"
    for name in ("step context", "step rca"):
        assert finished[name].parent is not None and finished[name].parent.span_id == root.context.span_id
    tool = [sp for sp in spans.get_finished_spans() if sp.name == "tool prometheus.query"]
    assert len(tool) == 2 and tool[0].attributes is not None and tool[0].attributes["rootward.query"] == "up"
    assert {sp.parent.span_id for sp in tool if sp.parent} == {
        finished["step context"].context.span_id,
        finished["step rca"].context.span_id,
    }


def test_a_failing_step_marks_its_span_as_error(spans: InMemorySpanExporter, sessions: sessionmaker[Session]) -> None:
    with sessions() as s:
        enqueue_investigation(s, "group-1", 1, "L2")
        s.commit()
    with sessions() as s:
        job = claim(s, "w1", 30)
    assert job is not None
    assert run_job(sessions, job, Pipeline([_step("context", fail=True)]), lease_s=30) == "failed"
    finished = {sp.name: sp for sp in spans.get_finished_spans()}
    assert finished["step context"].status.status_code is StatusCode.ERROR
    assert "prometheus unreachable" in (finished["step context"].status.description or "")
    assert finished["investigation"].attributes["rootward.outcome"] == "failed"  # type: ignore[index]


def test_tool_call_counts_errors_and_observes_latency(spans: InMemorySpanExporter) -> None:
    def errors() -> float:
        return TOOL_METRICS.errors.labels("loki.query")._value.get()

    before = errors()
    with tool_call("loki.query") as out:
        out.status = "unavailable"
    with pytest.raises(TimeoutError), tool_call("loki.query"):
        raise TimeoutError
    assert errors() == before + 2
    samples = {
        (s.name, s.labels.get("status")): s.value
        for family in TOOL_METRICS.collect()
        for s in family.samples
        if s.labels.get("tool") == "loki.query"
    }
    assert samples[("rootward_tool_call_seconds_count", "unavailable")] >= 1
    assert samples[("rootward_tool_call_seconds_count", "error")] >= 1


def test_span_without_a_configured_exporter_is_harmless() -> None:
    with span("anything", note=None, count=3) as current:
        current.set_attribute("x", 1)


def test_configured_exporter_is_installed_once_per_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    from rootward.observability import tracing
    from rootward.observability.settings import TracingSettings
    from rootward.settings import load_settings

    settings = load_settings(tracing={"exporter": "otlp", "otlp_endpoint": "http://127.0.0.1:9/v1/traces"})
    assert isinstance(tracing._exporter(settings.tracing), OTLPSpanExporter)
    # Installing it for real would ship this test process's spans to a closed port: count installs instead.
    made: list[InMemorySpanExporter] = []
    monkeypatch.setattr(tracing, "_exporter", lambda s: made.append(InMemorySpanExporter()) or made[-1])
    provider = configure_tracing(settings.tracing)
    assert provider is not None and configure_tracing(settings.tracing) is provider
    assert len(made) == 1
    monkeypatch.undo()
    assert configure_tracing(TracingSettings()) is None  # `none` exports nothing
