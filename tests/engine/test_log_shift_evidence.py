"""Log template shifts in the ranking and the logs specialist: a code fault that only logs at INFO."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.bundle.write import write_alerts, write_incident, write_logs, write_topology
from rootward.context.assemble import assemble_context
from rootward.context.log_shifts import LogShift
from rootward.domain.alert import Alert, Severity
from rootward.domain.incident import IncidentMeta
from rootward.domain.telemetry import LogRecord
from rootward.domain.topology import Entity, Topology
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.hypotheses import rank_hypotheses, score_entities
from rootward.engine.log_shift_evidence import shift_strength, with_shift_signatures
from rootward.sources.bundle import bundle_sources

FIRED = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
FAULT = FIRED - timedelta(minutes=4)


def _every(service: str, seconds: float, text: str, start: datetime, stop: datetime) -> list[LogRecord]:
    out, t, i = [], start, 0
    while t < stop:
        out.append(LogRecord(ts=t, service=service, message=text.format(n=1000 + 37 * i), level="INFO"))
        t += timedelta(seconds=seconds)
        i += 1
    return out


def _bundle(tmp_path: Path) -> Path:
    """frontend -> checkout -> pricing; at FAULT pricing starts taking a new code path, logged at INFO only."""
    out = tmp_path / "info-only-code-fault"
    out.mkdir()
    begin, end = FIRED - timedelta(minutes=40), FIRED + timedelta(minutes=10)
    records = []
    for service in ("frontend", "checkout", "pricing"):
        records += _every(service, 5, service + " handled request {n} in 12ms", begin, end)
        records += _every(service, 30, service + " heartbeat seq={n}", begin, end)
    records += _every("pricing", 4, "order {n} priced from legacy table after rule miss", FAULT, end)
    write_logs(out, records)
    write_incident(out, IncidentMeta("info-only-code-fault", "checkout errors", FIRED, begin, end))
    labels = {"alertname": "HighErrorRate", "service": "frontend", "severity": "critical"}
    alert = Alert("fp-1", "HighErrorRate", "frontend", Severity.P1, "firing", FIRED, labels=labels)
    write_alerts(out, [alert])
    write_topology(
        out,
        Topology(
            {
                "frontend": Entity("frontend", depends_on=("checkout",)),
                "checkout": Entity("checkout", depends_on=("pricing",)),
                "pricing": Entity("pricing"),
            }
        ),
    )
    return out


def test_a_new_info_template_at_a_leaf_is_a_shift_whose_cite_resolves(tmp_path: Path) -> None:
    bundle = load_bundle(_bundle(tmp_path))
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    (shift,) = ctx.log_shifts
    assert (shift.service, shift.kind, shift.levels) == ("pricing", "new", {"INFO": shift.onset_count})
    assert not any(s.is_failure for s in ctx.logs)  # no error level, no failure words: no failure signal
    resolver = BundleCiteResolver(bundle)
    assert [r.cite for r in ctx.evidence_refs() if not resolver.resolves(r.cite)] == []
    top = rank_hypotheses(ctx)[0]
    assert (top.entity, top.fault_type) == ("pricing", "deploy_regression")
    assert shift.evidence in top.evidence


def test_logs_specialist_validates_the_code_fault_from_the_new_template_citing_it(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    result = investigate_bundle(path)
    top = result.hypotheses[0]
    assert (top.entity, top.fault_type, top.status) == ("pricing", "deploy_regression", "validated")
    assert any(t.agent == "logs" and t.tool == "log_shifts" and t.status == "ok" for t in result.trace)
    bundle = load_bundle(path)
    new_line = next(r.line for r in bundle.logs or [] if "legacy table" in r.message)
    assert f"logs.jsonl:{new_line}" in result.cites_of(top.evidence)
    resolver = BundleCiteResolver(bundle)
    assert all(resolver.resolves(e.cite) for e in result.evidence.values())
    assert result.dangling_evidence_ids() == []


def test_shift_already_carried_as_an_error_template_is_not_counted_twice() -> None:
    from rootward.context.log_shifts import LogShift
    from rootward.domain.evidence import EvidenceRef
    from tests.engine.small_incidents import log

    def shift(level: str) -> LogShift:
        return LogShift(
            service="api",
            template="payment declined code <NUM>",
            kind="new",
            baseline_count=0,
            onset_count=40,
            baseline_per_min=0.0,
            onset_per_min=4.0,
            log_ratio=3.0,
            p_value=1e-12,
            levels={level: 40},
            at=FAULT,
            evidence=EvidenceRef("log", "logs.jsonl:7", "api: new template"),
        )

    assert shift_strength([shift("INFO")]) > 0.9
    assert shift_strength([shift("ERROR")]) == 0.0
    carried = log("api", "payment declined code <NUM>", severity="info")
    assert shift_strength([shift("INFO")], [carried]) == 0.0
    assert with_shift_signatures([], [shift("INFO")], [], deploy_recorded=None)[0].fault_type == "deploy_regression"


def _stopped(template: str, level: str, kind: str = "vanished") -> LogShift:
    from rootward.domain.evidence import EvidenceRef

    return LogShift(
        service="checkout",
        template=template,
        kind=kind,  # type: ignore[arg-type]
        baseline_count=120,
        onset_count=0 if kind == "vanished" else 6,
        baseline_per_min=4.0,
        onset_per_min=0.0 if kind == "vanished" else 0.4,
        log_ratio=-3.0,
        p_value=1e-15,
        levels={level: 120},
        at=FAULT,
        evidence=EvidenceRef("log", "logs.jsonl:3", "checkout: template stopped at the onset"),
    )


def test_a_failure_that_stopped_at_the_onset_is_not_evidence_of_a_fault_there() -> None:
    """The baseline held an earlier incident: its error lines ending is recovery, not this fault."""
    assert shift_strength([_stopped("charge <NUM> rejected by gateway", "ERROR")]) == 0.0
    assert shift_strength([_stopped("order <NUM> queued for retry", "WARN", kind="down")]) == 0.0
    assert shift_strength([_stopped("call to ledger timed out after <NUM> ms", "INFO")]) == 0.0  # worded as one
    # A routine line that stopped still says the service stopped doing something.
    assert shift_strength([_stopped("nightly export batch <NUM> written", "INFO")]) > 0.5


def test_an_earlier_incidents_errors_ending_do_not_rank_their_service_above_the_quiet_cause(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    bundle = load_bundle(path)
    begin, ended = FIRED - timedelta(minutes=40), FIRED - timedelta(minutes=6)
    # The half hour before held another incident at checkout; it ended just before the window.
    earlier = _every("checkout", 2, "charge {n} rejected by gateway: upstream error", begin, ended)
    write_logs(path, [*(bundle.logs or []), *[replace(r, level="ERROR") for r in earlier]])
    bundle = load_bundle(path)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert any(s.service == "checkout" and not s.appeared for s in ctx.log_shifts)
    scores = {s.entity: s for s in score_entities(ctx)}
    assert "checkout" not in scores or scores["checkout"].own < scores["pricing"].own / 3
    assert rank_hypotheses(ctx)[0].entity == "pricing"
