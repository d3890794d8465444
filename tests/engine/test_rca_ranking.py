"""The RCA (`engine/rca.py`): what each claim says about the ranked hypotheses, and what it cites."""

from __future__ import annotations

from datetime import timedelta

from rootward.context.assemble import Context
from rootward.context.log_signals import LogSignal
from rootward.context.trace_evidence import TraceFinding
from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Claim, Finding, InvestigationResult
from rootward.domain.investigation import ConfidenceGates as GateDecision
from rootward.engine.rca import MAX_ALTERNATIVES, build_result, render_markdown
from rootward.engine.supervisor import Assessment
from tests.engine.small_incidents import ONSET, anomaly, incident, log

DISK_LOG = EvidenceRef("log", "logs.jsonl:40", "write failed: no space left on device")
DISK_METRIC = EvidenceRef("metric", "metrics.csv:db/disk_used@1-2", "disk_used 70% -> 100%")
DEPLOY = EvidenceRef("change", "changes.json:deploy-7", "deploy of api")


def _ctx() -> Context:
    return incident(
        kinds={"api": "service", "db": "database"},
        edges=[("api", "db", "depends_on")],
        alerting=["api"],
        anomalies=[anomaly("db", "disk", metric="disk_used", starts_s=-60), anomaly("api", "errors", starts_s=30)],
    )


def _assessment(
    hid: str,
    entity: str,
    fault: str,
    status: str,
    evidence: list[EvidenceRef],
    *,
    finding: Finding | None = None,
    confidence: float = 0.7,
) -> Assessment:
    return Assessment(
        Hypothesis(hid, entity, fault, 0.5, evidence),
        status,  # type: ignore[arg-type]
        0.5,
        confidence,
        [finding] if finding else [],
    )


def _disk_full_leads(status: str = "validated") -> list[Assessment]:
    metrics = Finding("H1", "validated", (DISK_METRIC,), 0.9, "disk_used on db reached 100%", specialist="metrics")
    return [
        _assessment("H1", "db", "disk_full", status, [DISK_LOG], finding=metrics, confidence=0.81),
        _assessment("H2", "api", "deploy_regression", "validated", [DEPLOY], confidence=0.3),
        _assessment("H3", "api", "network_latency", "invalidated", [DEPLOY], confidence=0.1),
    ]


def _result(
    assessments: list[Assessment],
    *,
    gate: GateDecision | None = None,
    gaps: list[str] | None = None,
    extra_claims: list[Claim] | None = None,
) -> InvestigationResult:
    return build_result(
        _ctx(),
        assessments,
        gate,
        status="validated",
        gaps=gaps or [],
        first_hypothesis_ms=40,
        total_ms=900,
        extra_claims=extra_claims,
    )


def test_validated_leader_is_stated_as_the_most_likely_root_cause_with_its_confidence() -> None:
    result = _result(_disk_full_leads())
    texts = [c.text for c in result.claims]
    assert "The most likely root cause is a full disk at db (disk_full, confidence 0.81)." in texts


def test_unconfirmed_leader_is_stated_as_unconfirmed() -> None:
    texts = [c.text for c in _result(_disk_full_leads("inconclusive")).claims]
    assert "The leading but unconfirmed hypothesis is a full disk at db (disk_full, confidence 0.81)." in texts


def test_leader_claim_cites_its_own_evidence_and_what_its_validating_findings_cite() -> None:
    result = _result(_disk_full_leads())
    lead = next(c for c in result.claims if c.text.startswith("The most likely"))
    cites = {result.evidence[e].cite for e in lead.evidence}
    assert cites == {DISK_LOG.cite, DISK_METRIC.cite}


def test_every_claim_and_hypothesis_cites_only_evidence_the_result_holds() -> None:
    result = _result(_disk_full_leads())
    assert result.claims and all(c.evidence for c in result.claims)
    assert result.dangling_evidence_ids() == []


def test_one_evidence_id_per_cite_even_when_several_hypotheses_cite_it() -> None:
    result = _result(_disk_full_leads())
    cites = [item.cite for item in result.evidence.values()]
    assert len(cites) == len(set(cites))
    by_id = {h.id: h.evidence for h in result.hypotheses}
    assert by_id["H2"] == by_id["H3"]  # both cite the same deploy
    assert list(result.evidence) == [f"E{n}" for n in range(1, len(result.evidence) + 1)]


def test_alternatives_read_as_weaker_or_ruled_out_beside_the_leader() -> None:
    texts = [c.text for c in _result(_disk_full_leads()).claims]
    assert (
        "Also considered: a code regression at api (consistent with the evidence but weaker, confidence 0.30)." in texts
    )
    assert "Also considered: added network latency at api (ruled out by the evidence, confidence 0.10)." in texts


def test_at_most_three_alternatives_are_named() -> None:
    many = _disk_full_leads() + [
        _assessment(f"H{n}", "api", "crash_loop", "untested", [EvidenceRef("log", f"logs.jsonl:{n}")])
        for n in range(4, 8)
    ]
    alternatives = [c for c in _result(many).claims if c.text.startswith("Also considered")]
    assert len(alternatives) == MAX_ALTERNATIVES


def test_the_alerts_and_the_onset_are_stated_with_their_cites() -> None:
    result = _result(_disk_full_leads())
    claims = {c.text: c for c in result.claims}
    fired = claims["1 alert(s) (HighErrorRate) fired on api from 14:30."]
    assert [result.evidence[e].cite for e in fired.evidence] == ["alerts.json:api-higherrorrate"]
    # the time stated is the cited anomaly's own onset (14:27), not a window-wide one
    onset = claims["The incident's signals began around 14:27, 3 min before the alert time."]
    assert [result.evidence[e].cite for e in onset.evidence] == ["metrics.csv:db/disk_used@1793629620-1793630220"]


def test_validating_finding_becomes_a_cited_sentence_of_its_own() -> None:
    result = _result(_disk_full_leads())
    claim = next(c for c in result.claims if c.text == "Disk_used on db reached 100%.")
    assert [result.evidence[e].cite for e in claim.evidence] == [DISK_METRIC.cite]


def test_reasoner_prose_is_kept_only_when_every_evidence_id_it_names_exists() -> None:
    grounded = Claim(text="The volume filled with WAL segments.", evidence=["E1"])
    invented = Claim(text="An attacker filled the disk.", evidence=["E99"])
    uncited = Claim(text="Probably the disk.", evidence=[])
    result = _result(_disk_full_leads(), extra_claims=[grounded, invented, uncited])
    texts = [c.text for c in result.claims]
    assert texts[0] == grounded.text
    assert invented.text not in texts and uncited.text not in texts
    assert any(t.startswith("The most likely root cause") for t in texts)  # templated facts stay beside it


def test_gate_confidence_replaces_the_leaders_own_in_the_claim_and_the_hypothesis() -> None:
    gate = GateDecision(confidence=0.42, analysis_only=True, needs_human=True, evidence_missing=False)
    result = _result(_disk_full_leads(), gate=gate)
    assert result.hypotheses[0].confidence == 0.42
    assert result.hypotheses[1].confidence == 0.3
    assert any("(disk_full, confidence 0.42)" in c.text for c in result.claims)


def test_markdown_lists_each_claim_with_its_evidence_ids_the_hypotheses_and_the_gaps() -> None:
    result = _result(_disk_full_leads(), gaps=["no logs: Loki unavailable"])
    markdown = render_markdown(result)
    lead = next(c for c in result.claims if c.text.startswith("The most likely"))
    assert f"- {lead.text} [{', '.join(lead.evidence)}]" in markdown
    assert "| H1 | db | disk_full | validated | 0.81 |" in markdown
    assert markdown.rstrip().splitlines()[-3:-1] == ["- no logs: Loki unavailable", ""]


def _late_disk(logs: list[LogSignal] | None = None) -> Context:
    """db's disk metric moves 2 min after the onset, api's errors 30 s later."""
    return incident(
        kinds={"api": "service", "db": "database"},
        edges=[("api", "db", "depends_on")],
        alerting=["api"],
        anomalies=[anomaly("db", "disk", metric="disk_used", starts_s=120), anomaly("api", "errors", starts_s=150)],
        logs=logs or [],
    )


def _disk_full_result(ctx: Context) -> InvestigationResult:
    return build_result(
        ctx, _disk_full_leads(), None, status="validated", gaps=[], first_hypothesis_ms=40, total_ms=900
    )


def test_the_stated_onset_is_the_leaders_first_sign_whether_a_log_or_a_metric() -> None:
    disk_log = log("db", "write failed: no space left on device")  # from 5 s after the onset
    result = _disk_full_result(_late_disk([disk_log]))
    assert result.onset == ONSET + timedelta(seconds=5)
    assert result.onset_cite == disk_log.evidence.cite
    began = next(c for c in result.claims if c.text.startswith("The incident's signals began"))
    assert [result.evidence[e].cite for e in began.evidence] == [disk_log.evidence.cite]


def test_a_span_change_before_the_leaders_metric_anomaly_dates_the_stated_onset() -> None:
    # The calls into db slowed a minute before its metric moved (the metric may be the next event's).
    at = int(ONSET.timestamp()) + 60
    ref = EvidenceRef("trace", f"traces.jsonl:api->db@{at}-{at + 90}", "api->db network 1 ms -> 80 ms")
    slower = TraceFinding(
        kind="network",
        entity="db",
        caller="api",
        before=1.0,
        after=80.0,
        n_before=40,
        n_after=40,
        score=50.0,
        changed=True,
        evidence=ref,
        since=at,
    )
    faster = slower.model_copy(update={"kind": "latency", "caller": None, "score": -50.0, "since": at - 60})
    grown = slower.model_copy(update={"kind": "volume", "caller": None, "since": at - 60})  # not a fault's sign
    result = _disk_full_result(_late_disk().model_copy(update={"trace_findings": [slower, faster, grown]}))
    assert result.onset == ONSET + timedelta(seconds=60)
    assert result.onset_cite == ref.cite
