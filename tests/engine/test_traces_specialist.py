"""The traces specialist: trace evidence reaches the verified result, cited, and only where it is the entity's own."""

from __future__ import annotations

from pathlib import Path

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.verify import check_result
from tests.context.span_factory import Phase, incident_spans, write_traced_bundle

SHOP = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"]}


def _investigate(tmp_path: Path, after: Phase):  # type: ignore[no-untyped-def]
    root = write_traced_bundle(tmp_path / "b", incident_spans(SHOP, "frontend", Phase(), after), SHOP)
    return root, investigate_bundle(root)


def test_network_delay_at_a_callee_is_validated_from_traces_with_cites_that_resolve(tmp_path: Path) -> None:
    root, result = _investigate(tmp_path, Phase(network_ms={"cart": 80}))
    top = result.hypotheses[0]
    assert (top.entity, top.fault_type, top.status) == ("cart", "network_latency", "validated")
    cites = [result.evidence[e].cite for e in top.evidence]
    assert any(c.startswith("traces.jsonl:checkout->cart@") for c in cites)
    assert check_result(result, BundleCiteResolver(load_bundle(root))) == []
    assert any("traces:" in c.text or "cart" in c.text for c in result.claims)
    assert "checkout" not in {h.entity for h in result.hypotheses if h.status == "validated"}


def test_the_callers_that_surface_a_leafs_errors_are_not_validated_by_traces(tmp_path: Path) -> None:
    _, result = _investigate(tmp_path, Phase(failing=frozenset({"payment"})))
    top = result.hypotheses[0]
    assert (top.entity, top.fault_type, top.status) == ("payment", "deploy_regression", "validated")
    for h in result.hypotheses:
        if h.entity in ("checkout", "frontend"):
            assert h.status != "validated", h


def test_without_traces_the_specialist_names_the_gap_and_tests_nothing(tmp_path: Path) -> None:
    root = write_traced_bundle(tmp_path / "b", incident_spans(SHOP, "frontend", Phase(), Phase()), SHOP)
    (root / "traces.jsonl").unlink()
    result = investigate_bundle(root)
    assert any(g.startswith("no traces:") for g in result.gaps)
    assert result.status != "failed"


# A deep call chain: the cause is five calls below the alerting front, beyond even the widened scope.
DEEP = {
    "frontend": ["gateway", "catalog"],
    "gateway": ["orders"],
    "orders": ["pricing"],
    "pricing": ["rates"],
    "rates": ["ratesdb"],
}


def test_a_cause_seen_only_in_spans_five_calls_below_the_alert_joins_the_scope_and_leads(tmp_path: Path) -> None:
    spans = incident_spans(DEEP, "frontend", Phase(), Phase(failing=frozenset({"ratesdb"})))
    root = write_traced_bundle(tmp_path / "b", spans, DEEP)
    result = investigate_bundle(root)
    top = result.hypotheses[0]
    assert (top.entity, top.fault_type, top.status) == ("ratesdb", "deploy_regression", "validated")
    assert check_result(result, BundleCiteResolver(load_bundle(root))) == []
