"""One investigation indexes its bundle's spans for cites once: verify and the RCA stage share the resolver."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootward.bundle import cites
from rootward.domain.telemetry import Span
from rootward.engine.entry_point import investigate_bundle
from tests.context.span_factory import Phase, incident_spans, write_traced_bundle

SHOP = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"]}


def test_the_spans_are_indexed_once_per_investigation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    index_of = cites.SpanIndex.of.__func__  # type: ignore[attr-defined]

    def counted(cls: type[cites.SpanIndex], spans: list[Span]) -> cites.SpanIndex:
        built.append(len(spans))
        return index_of(cls, spans)

    monkeypatch.setattr(cites.SpanIndex, "of", classmethod(counted))
    spans = incident_spans(SHOP, "frontend", Phase(), Phase(network_ms={"cart": 80}))
    result = investigate_bundle(write_traced_bundle(tmp_path / "b", spans, SHOP))
    assert any(e.cite.startswith("traces.jsonl:") for e in result.evidence.values())  # it cited spans
    assert len(built) == 1
