"""Several trace backends read as one: spans both report count once; one down is a gap, all down unavailable."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from rootward.domain.telemetry import Span
from rootward.sources.base import SourceUnavailable
from rootward.sources.combined import CombinedTraceSource

T0 = datetime(2026, 3, 14, 13, 40, tzinfo=UTC)


class _Backend:
    def __init__(self, spans: Sequence[Span] = (), down: str = "") -> None:
        self._spans, self._down = list(spans), down

    def spans(self, service: str | None, start: datetime, end: datetime) -> Sequence[Span]:
        if self._down:
            raise SourceUnavailable(self._down, "timed out after 30 s")
        return self._spans


def _span(span_id: str, offset_ms: int) -> Span:
    return Span("t1", span_id, "checkout", T0 + timedelta(milliseconds=offset_ms), 5.0)


def test_a_span_reported_by_two_backends_counts_once_in_time_order() -> None:
    combined = CombinedTraceSource([_Backend([_span("b", 2), _span("a", 1)]), _Backend([_span("a", 1)])])
    assert [s.span_id for s in combined.spans(None, T0, T0)] == ["a", "b"]


def test_one_backend_down_is_a_gap_and_all_down_is_unavailable() -> None:
    combined = CombinedTraceSource([_Backend(down="Jaeger"), _Backend([_span("a", 1)])])
    assert len(combined.spans("checkout", T0, T0)) == 1
    assert combined.gaps == ["Jaeger: timed out after 30 s"]
    dead = CombinedTraceSource([_Backend(down="Jaeger"), _Backend(down="Tempo")])
    with pytest.raises(SourceUnavailable, match="^Jaeger: timed out after 30 s; Tempo: timed out"):
        dead.spans("checkout", T0, T0)
