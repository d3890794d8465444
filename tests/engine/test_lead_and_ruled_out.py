"""The lead sentence quotes the evidence's own words; ruled-out lines cite what excluded each alternative."""

from __future__ import annotations

from rootward.context.anomaly import ScoredSeries
from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding
from rootward.engine.lead import lead_sentence
from rootward.engine.rca import build_result, render_markdown
from rootward.engine.ruled_out import ruled_out
from rootward.engine.supervisor import Assessment
from tests.engine.small_incidents import ONSET_S, anomaly, incident

OOM = EvidenceRef("log", "logs.jsonl:41", "api: OOMKilled: Pod/api-7f9c: container app terminated, exit code 137 (x6)")
MEM = anomaly("api", "memory", metric="memory_bytes", baseline=4e8, after=5.1e8)
MEM_TEXT = "api memory_bytes up from 4e+08 to 5.1e+08 (peak 5.3e+08, robust z +40.0) since 14:28:00"
MEM = MEM.model_copy(update={"evidence": EvidenceRef("metric", MEM.evidence.cite, MEM_TEXT)})
KINDS = {"web": "service", "api": "service", "db": "database"}
EDGES = [("web", "api", "depends_on"), ("api", "db", "depends_on")]


def _assessment(
    hid: str, entity: str, fault: str, status: str, evidence: list[EvidenceRef], **kw: object
) -> Assessment:
    h = Hypothesis(hid, entity, fault, 0.5, evidence, list(kw.pop("rationale", [])))  # type: ignore[call-overload]
    return Assessment(h, status, 0.5, 0.8, list(kw.pop("findings", [])))  # type: ignore[arg-type]


def test_lead_names_fault_place_and_onset_and_quotes_the_event_reason_and_exit_code_verbatim() -> None:
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["web"], anomalies=[MEM])
    top = _assessment("H1", "api", "oom_kill", "validated", [OOM, MEM.evidence])
    text, refs = lead_sentence(ctx, top, "an out-of-memory kill", 0.82)
    assert text.startswith("Root cause: an out-of-memory kill at api since 14:28 (oom_kill, confidence 0.82): ")
    assert '"OOMKilled: Pod/api-7f9c: container app terminated, exit code 137" (x6)' in text
    assert "memory_bytes up from 4e+08 to 5.1e+08" in text
    assert refs == [OOM, MEM.evidence]


def test_lead_is_the_first_claim_and_cites_what_it_quotes() -> None:
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["web"], anomalies=[MEM])
    top = _assessment("H1", "api", "oom_kill", "validated", [OOM, MEM.evidence])
    result = build_result(ctx, [top], None, status="validated", gaps=[], first_hypothesis_ms=1, total_ms=2)
    lead = result.claims[0]
    assert lead.text.startswith("Root cause:") and "exit code 137" in lead.text
    assert [result.evidence[e].cite for e in lead.evidence] == [OOM.cite, MEM.evidence.cite]


def test_flat_series_that_invalidated_an_alternative_is_its_cited_ruled_out_line() -> None:
    flat = ScoredSeries(service="db", metric="cpu_usage", family="cpu", score=0.4, signed=0.4, baseline=0.3,
                        after=0.31, peak=0.33, onset=ONSET_S)  # fmt: skip
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["web"], anomalies=[MEM]).model_copy(update={"series": [flat]})
    said = Finding("H2", "invalidated", (), 0.55, "db cpu_usage did not move beyond its baseline", specialist="metrics")
    alt = _assessment("H2", "db", "cpu_saturation", "invalidated", [], findings=[said])
    [line] = ruled_out(ctx, [_assessment("H1", "api", "oom_kill", "validated", [OOM]), alt], None)
    assert (line.entity, line.fault_type) == ("db", "cpu_saturation")
    assert line.reason == "metrics: db cpu_usage did not move beyond its baseline"
    assert line.evidence[0].cite.startswith("metrics.csv:db/cpu_usage@")


def test_signal_that_began_after_the_cause_is_ruled_out_as_a_consequence() -> None:
    late = anomaly("db", "cpu", metric="cpu_usage", starts_s=480)
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["web"], anomalies=[MEM, late])
    alt = _assessment("H2", "db", "cpu_saturation", "inconclusive", [late.evidence])
    [line] = ruled_out(ctx, [_assessment("H1", "api", "oom_kill", "validated", [OOM, MEM.evidence]), alt], None)
    assert "it began 8 min after api's trouble, a consequence" in line.reason
    assert line.evidence == (late.evidence,)


def test_victim_naming_its_dependency_is_ruled_out_and_shown_in_markdown() -> None:
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["web"], anomalies=[MEM])
    said = EvidenceRef("log", "logs.jsonl:9", "web: upstream api timed out (x30)")
    victim = _assessment("H2", "web", "network_latency", "inconclusive", [said],
                         rationale=["its failures point at its dependency api"])  # fmt: skip
    top = _assessment("H1", "api", "oom_kill", "validated", [OOM, MEM.evidence])
    result = build_result(ctx, [top, victim], None, status="validated", gaps=[], first_hypothesis_ms=1, total_ms=2)
    [line] = result.ruled_out
    assert line.reason == "its failures point at its dependency api: a symptom"
    assert [result.evidence[e].cite for e in line.evidence] == ["logs.jsonl:9"]
    assert "## Ruled out" in render_markdown(result)
    assert not result.dangling_evidence_ids()


def test_an_exclusion_with_nothing_to_cite_is_left_out() -> None:
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["web"], anomalies=[MEM])
    said = Finding("H2", "invalidated", (), 0.45, "no deploy change on db before the onset", specialist="changes")
    alt = _assessment("H2", "db", "deploy_regression", "invalidated", [], findings=[said])
    assert ruled_out(ctx, [_assessment("H1", "api", "oom_kill", "validated", [OOM]), alt], None) == []
