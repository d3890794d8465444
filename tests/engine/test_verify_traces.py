"""The engine's verifier keeps trace evidence whose cite resolves in the bundle and drops the rest."""

from __future__ import annotations

from pathlib import Path

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Claim, EvidenceItem, Finding, InvestigationResult
from rootward.engine.supervisor import Assessment
from rootward.engine.verify import check_result, repair_result, verify
from tests.bundle.tiny import write_bundle

# The tiny bundle's trace: api calls db at 1773498660 (14:31:00Z); db's span is line 2.
SPAN = "traces.jsonl:2"
SERVICE = "traces.jsonl:db@1773498600-1773498700"
EDGE = "traces.jsonl:api->db@1773498600-1773498700"
NO_SUCH_LINE = "traces.jsonl:9"
WRONG_WINDOW = "traces.jsonl:db@1773499000-1773499100"
REVERSED_EDGE = "traces.jsonl:db->api@1773498600-1773498700"


def _resolver(tmp_path: Path) -> BundleCiteResolver:
    return BundleCiteResolver(load_bundle(write_bundle(tmp_path / "b")))


def test_unresolvable_trace_cites_are_caught_and_repaired_away(tmp_path: Path) -> None:
    cites = [SPAN, SERVICE, EDGE, NO_SUCH_LINE, WRONG_WINDOW, REVERSED_EDGE]
    result = InvestigationResult(
        bundle="tiny-01",
        status="validated",
        claims=[Claim(text=f"claim {i}", evidence=[f"E{i}"]) for i in range(len(cites))],
        evidence={f"E{i}": EvidenceItem(kind="trace", cite=cite) for i, cite in enumerate(cites)},
    )
    resolver = _resolver(tmp_path)
    assert check_result(result, resolver) == [
        f"E3: cite does not resolve: {NO_SUCH_LINE}",
        f"E4: cite does not resolve: {WRONG_WINDOW}",
        f"E5: cite does not resolve: {REVERSED_EDGE}",
    ]
    repaired = repair_result(result, resolver)
    assert check_result(repaired, resolver) == []
    assert [e.cite for e in repaired.evidence.values()] == [SPAN, SERVICE, EDGE]
    assert [c.text for c in repaired.claims] == ["claim 0", "claim 1", "claim 2"]


def test_a_finding_resting_on_a_call_edge_stays_validated_only_if_the_edge_is_in_the_traces(tmp_path: Path) -> None:
    def assessment(cite: str) -> Assessment:
        ref = EvidenceRef("trace", cite, "api->db p50 rose from 20 ms to 150 ms")
        finding = Finding("H1", "validated", (ref,), 0.8, "calls into db slowed", "traces", ("edge_latency()",))
        return Assessment(Hypothesis("H1", "db", "network_latency", 0.5, [ref]), "validated", 0.5, 0.6, [finding])

    kept, dropped = assessment(EDGE), assessment(REVERSED_EDGE)
    resolver = _resolver(tmp_path)
    assert not any("does not resolve" in p for p in verify([kept], resolver).problems)
    assert kept.findings[0].status == "validated"
    assert any("does not resolve" in p for p in verify([dropped], resolver).problems)
    assert dropped.findings[0].status == "inconclusive"
