"""Never borrow evidence: another entity is a cause only through a dependency path with its own evidence."""

from __future__ import annotations

import json
from pathlib import Path

from rootward.engine.entry_point import investigate_bundle

FIRED = 1773498720  # 2026-03-14T14:32:00Z
ONSET = FIRED - 240


def _bundle(
    root: Path,
    *,
    topology: str | None,
    sick: str,
    metrics: tuple[str, ...] = ("request_rate", "cpu_usage"),
    levels: tuple[float, float] = (100, 300),
) -> Path:
    """ServiceDown on orders, with no data for orders; `sick` steps up in each of `metrics` just before."""
    root.mkdir(parents=True)
    (root / "incident.yaml").write_text(
        "format: rootward-bundle/v1\nid: borrow-01\ntitle: ServiceDown on orders\nfired_at: '2026-03-14T14:32:00Z'\n"
        "window:\n  start: '2026-03-14T13:30:00Z'\n  end: '2026-03-14T14:45:00Z'\n"
    )
    alert = {
        "status": "firing",
        "labels": {"alertname": "ServiceDown", "service": "orders", "severity": "critical"},
        "annotations": {},
        "startsAt": "2026-03-14T14:32:00Z",
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": "",
        "fingerprint": "f1",
    }
    (root / "alerts.json").write_text(json.dumps([{"version": "4", "status": "firing", "alerts": [alert]}]))
    rows = ["timestamp,service,metric,value"]
    for t in range(FIRED - 3600, FIRED + 600, 30):
        for metric in metrics:
            level = levels[1] if t >= ONSET else levels[0]
            rows.append(f"{t},{sick},{metric},{level * (1 + (t % 7) / 500):.5f}")
    (root / "metrics.csv").write_text("\n".join(rows) + "\n")
    if topology is not None:
        (root / "topology.yaml").write_text(topology)
    (root / "gaps.json").write_text(
        json.dumps({"metrics.csv:orders": "no metrics for orders: Prometheus answered but no series names it"})
    )
    return root


SHARED_HOST = (
    "entities:\n  orders: {kind: service, runs_on: [host1]}\n  payments: {kind: service, runs_on: [host1]}\n"
    "  host1: {kind: host}\n"
)


def test_alerting_entity_without_data_stays_the_hypothesis_with_its_gap_without_a_topology(tmp_path: Path) -> None:
    result = investigate_bundle(_bundle(tmp_path / "b", topology=None, sick="payments"))
    assert {h.entity for h in result.hypotheses} == {"orders"}
    assert result.status == "inconclusive"
    assert "no metrics for orders: Prometheus answered but no series names it" in result.gaps
    assert any(g.startswith("payments looked abnormal") and "no dependency path links it to orders" in g
               for g in result.gaps)  # fmt: skip
    assert not any("payments" in c.text for c in result.claims)


def test_a_neighbour_on_the_same_host_is_not_a_cause(tmp_path: Path) -> None:
    result = investigate_bundle(_bundle(tmp_path / "b", topology=SHARED_HOST, sick="payments"))
    assert [h.entity for h in result.hypotheses] == ["orders"]


def test_a_dependency_with_its_own_evidence_is_still_the_cause(tmp_path: Path) -> None:
    topology = "entities:\n  orders: {kind: service, depends_on: [db]}\n  db: {kind: database}\n"
    result = investigate_bundle(_bundle(tmp_path / "b", topology=topology, sick="db", metrics=("cpu_usage",)))
    assert result.top is not None and result.top.entity == "db"
    assert not any("no dependency path" in g for g in result.gaps)


def test_a_callers_surge_reaches_what_it_calls(tmp_path: Path) -> None:
    topology = "entities:\n  web: {kind: service, depends_on: [orders]}\n  orders: {kind: service}\n"
    result = investigate_bundle(_bundle(tmp_path / "b", topology=topology, sick="web"))
    found = {(h.entity, h.fault_type) for h in result.hypotheses}
    assert ("web", "traffic_surge") in found
    assert ("web", "cpu_saturation") not in found  # web's own CPU cannot reach what it calls
    assert any("web looked abnormal (cpu_saturation" in g for g in result.gaps)


ON_HOST = "entities:\n  orders: {kind: service, runs_on: [host1]}\n  host1: {kind: host}\n"


def test_a_utilisation_ratio_far_from_its_limit_is_not_exhaustion(tmp_path: Path) -> None:
    quiet = _bundle(tmp_path / "a", topology=ON_HOST, sick="host1", metrics=("memory_used_ratio",), levels=(0.07, 0.09))
    result = investigate_bundle(quiet)
    assert ("host1", "memory_leak") not in {(h.entity, h.fault_type) for h in result.hypotheses}
    assert any(g.startswith("host1 memory_used_ratio moved but peaked at 0.09") for g in result.gaps), result.gaps
    full = _bundle(tmp_path / "b", topology=ON_HOST, sick="host1", metrics=("disk_used_ratio",), levels=(0.6, 0.97))
    assert ("host1", "disk_full") in {(h.entity, h.fault_type) for h in investigate_bundle(full).hypotheses}


def test_with_no_map_at_all_an_alerting_entity_with_data_does_not_hide_the_others(tmp_path: Path) -> None:
    # orders has data (its latency rose with payments' CPU); nothing says how they are linked, nor that they are not.
    root = _bundle(tmp_path / "b", topology=None, sick="payments", metrics=("cpu_usage",), levels=(0.2, 0.95))
    rows = [f"{t},orders,latency_p99_ms,{(400 if t >= ONSET + 30 else 40) * (1 + (t % 5) / 400):.4f}"
            for t in range(FIRED - 3600, FIRED + 600, 30)]  # fmt: skip
    with (root / "metrics.csv").open("a") as f:
        f.write("\n".join(rows) + "\n")
    (root / "gaps.json").unlink()
    result = investigate_bundle(root)
    assert "payments" in {h.entity for h in result.hypotheses}
    assert any(g.startswith("no topology: how payments reaches orders is not known") for g in result.gaps), result.gaps
    assert not any("no dependency path links" in g for g in result.gaps)


def test_a_map_of_the_calls_seen_in_traces_proves_no_absence_of_a_link() -> None:
    from rootward.domain.evidence import EvidenceRef
    from rootward.domain.hypothesis import Hypothesis
    from rootward.engine.evidence_scope import keep_linked
    from tests.engine.small_incidents import incident

    kinds = {"web": "service", "api": "service", "resolver": "dns", "root-dns": "dns"}
    edges = [("web", "api", "depends_on"), ("resolver", "root-dns", "depends_on")]
    declared = incident(kinds=kinds, edges=edges, alerting=["web"])
    ranked = [
        Hypothesis("H1", "resolver", "dns_failure", 0.6, [], []),
        Hypothesis("H2", "web", "deploy_regression", 0.4, [], []),
    ]
    # Declared: the resolver is on no path from web, so it is left out with a gap.
    kept, gaps = keep_linked(declared, ranked)
    assert [h.entity for h in kept] == ["web"] and any("no dependency path links it" in g for g in gaps)
    # Seen in traces only: resolvers emit no spans, so the same missing edge says nothing.
    seen = [
        e.model_copy(update={"evidence": EvidenceRef("topology", f"traces.jsonl:{e.source}->{e.target}@1-2")})
        for e in declared.topology.edges
    ]
    observed = declared.model_copy(update={"topology": declared.topology.model_copy(update={"edges": seen})})
    kept, gaps = keep_linked(observed, ranked)
    assert [h.entity for h in kept] == ["resolver", "web"]
    assert any("how resolver reaches web is not known" in g for g in gaps), gaps


CHAIN = (
    "entities:\n  web: {kind: service, depends_on: [api]}\n  api: {kind: service, depends_on: [db]}\n"
    "  db: {kind: database}\n  batch: {kind: service}\n"
)


def _alert_on(root: Path, name: str) -> Path:
    """The bundle with its alert's service label set to `name` (and no gap about orders)."""
    payloads = json.loads((root / "alerts.json").read_text())
    payloads[0]["alerts"][0]["labels"]["service"] = name
    (root / "alerts.json").write_text(json.dumps(payloads))
    (root / "gaps.json").unlink()
    return root


def test_an_alert_on_a_name_the_map_does_not_know_is_about_its_entry_points(tmp_path: Path) -> None:
    # A namespace-wide SLO alert: no entity `online-shop`, nothing reports under that name.
    root = _alert_on(_bundle(tmp_path / "b", topology=CHAIN, sick="db", metrics=("cpu_usage",)), "online-shop")
    result = investigate_bundle(root)
    assert result.top is not None and result.top.entity == "db"
    assert not any("no dependency path" in g for g in result.gaps)


def test_an_alert_on_a_known_entity_without_data_still_borrows_nothing(tmp_path: Path) -> None:
    # `batch` is on the map but calls nothing: db's trouble does not reach it.
    root = _alert_on(_bundle(tmp_path / "b", topology=CHAIN, sick="db", metrics=("cpu_usage",)), "batch")
    result = investigate_bundle(root)
    assert [h.entity for h in result.hypotheses] == ["batch"]
