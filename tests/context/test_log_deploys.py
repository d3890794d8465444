"""Deploys the logs record: a version a service starts stating is a deploy of it, kept apart from the change feed."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from rootward.context.changes import ChangeItem
from rootward.context.log_deploys import deploys_in_logs, unrecorded, versions_in
from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.telemetry import LogRecord
from rootward.engine.budget import Budget
from rootward.engine.hypotheses import score_entities
from rootward.engine.specialists.changes import ChangesSpecialist
from rootward.engine.tools import ToolLayer, context_tools
from tests.engine.small_incidents import ONSET, anomaly, incident, log

T0 = datetime(2026, 11, 2, 13, 30, tzinfo=UTC)


def test_versions_are_read_only_where_a_line_states_one() -> None:
    assert versions_in("Started payments v3.40.0 (previous v3.39.4) in 4.5 seconds") == ["3.40.0", "3.39.4"]
    assert versions_in("order placed version=2.1.0 took 31ms") == ["2.1.0"]
    assert versions_in(":: Spring Boot ::  (v2.3.12.RELEASE)") == ["2.3.12"]
    assert versions_in("ver: 1.2.3-rc.1 ready") == ["1.2.3-rc.1"]
    assert versions_in('{"msg": "up", "serviceVersion": "4.0.1"} app_version=4.0.1') == ["4.0.1", "4.0.1"]
    assert versions_in("server 1.2.3 replied; driver 2.0.0 loaded") == []
    ua = "GET / 200 Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0.6099.71 from 10.0.0.1 api/v2/orders"
    assert versions_in(ua) == []


def _lines(service: str, texts: list[str], every_s: int = 60) -> list[LogRecord]:
    return [LogRecord(T0 + timedelta(seconds=i * every_s), service, t, "INFO", line=i + 1) for i, t in enumerate(texts)]


def test_the_first_line_stating_a_new_version_is_a_deploy_cited_by_that_line() -> None:
    before = ["request handled GET /pay"] * 20
    after = ["Started payments v3.40.0 (previous v3.39.4) in 4.5 seconds"] + ["charge ok version=3.40.0"] * 5
    (deploy,) = deploys_in_logs(_lines("payments", before + after), reference=T0 + timedelta(minutes=22))
    assert (deploy.service, deploy.kind, deploy.version, deploy.from_logs) == ("payments", "deploy", "3.40.0", True)
    assert deploy.time == T0 + timedelta(minutes=20) and deploy.seconds_before_onset == 120
    assert deploy.evidence.cite == "logs.jsonl:21"


def test_a_version_stated_from_the_start_or_by_a_service_just_begun_is_no_deploy() -> None:
    always = _lines("payments", ["charge ok version=3.40.0"] * 30)
    assert deploys_in_logs(always, reference=T0) == []
    young = _lines("payments", ["request handled"] * 3 + ["Started payments v3.40.0"], every_s=30)
    assert deploys_in_logs(young, reference=T0) == []


def test_a_line_naming_the_version_it_replaced_is_a_deploy_however_little_came_before_it() -> None:
    """Logs kept in short blocks (a few minutes around each event) may hold a start banner in a
    block's first minutes: it names the previous version itself, and the later lines run the new one."""
    banner = "Started orders v3.14.0 (previous v3.13.5) in 7.7 seconds"
    block = _lines("orders", ["request handled", banner, *["slow query version=v3.14.0"] * 3], every_s=30)
    (deploy,) = deploys_in_logs(block, reference=T0 + timedelta(minutes=15))
    assert (deploy.version, deploy.evidence.cite, deploy.time) == ("3.14.0", "logs.jsonl:2", T0 + timedelta(seconds=30))
    # Two versions on every line (a client and the server it talks to) are no deploy.
    both = _lines("orders", ["client v1.2.3 talks to server v2.0.0"] * 4, every_s=30)
    assert deploys_in_logs(both, reference=T0) == []
    # Nor is a banner whose later lines never run the version it names.
    alone = _lines("orders", ["request handled", banner, "request handled"], every_s=30)
    assert deploys_in_logs(alone, reference=T0) == []


def _recorded(service: str, minutes: float) -> ChangeItem:
    return ChangeItem(
        id=f"deploy-{service}",
        kind="deploy",
        service=service,
        time=T0 + timedelta(minutes=minutes),
        seconds_before_onset=0,
        evidence=EvidenceRef("change", f"changes.json:deploy-{service}"),
    )


def test_a_deploy_the_change_feed_recorded_is_not_read_twice() -> None:
    lines = _lines("payments", ["request handled"] * 20 + ["Started payments v3.40.0"])
    inferred = deploys_in_logs(lines, reference=T0)
    assert unrecorded(inferred, [_recorded("payments", 19)], timedelta(minutes=10)) == []
    assert unrecorded(inferred, [_recorded("payments", 40)], timedelta(minutes=10)) == inferred
    assert unrecorded(inferred, [_recorded("orders", 20)], timedelta(minutes=10)) == inferred


def _inferred(service: str, minutes_before: int) -> ChangeItem:
    when = ONSET - timedelta(minutes=minutes_before)
    return ChangeItem(
        id=f"log-{service}-2.0.0",
        kind="deploy",
        service=service,
        time=when,
        version="2.0.0",
        seconds_before_onset=minutes_before * 60,
        evidence=EvidenceRef("log", "logs.jsonl:7", f"{service}: Started {service} v2.0.0"),
        from_logs=True,
    )


def test_a_deploy_read_from_logs_confirms_its_service_and_says_nothing_of_the_others() -> None:
    """Only checkout prints its version: its deploy confirms a code fault there, and cart, which prints
    none, is not cleared for lacking one (a change feed's silence would clear it)."""
    ctx = incident(
        kinds={"gateway": "service", "checkout": "service", "cart": "service"},
        edges=[("gateway", "checkout", "depends_on"), ("gateway", "cart", "depends_on")],
        alerting=["gateway"],
        anomalies=[anomaly("cart", "errors", metric="error_rate", score=60, starts_s=10)],
        logs=[log("cart", "Traceback (most recent call last): TypeError in cart/views.py")],
        changes=[_inferred("checkout", 30)],
    )
    layer = ToolLayer("changes", frozenset({"changes_for"}), context_tools(ctx), Budget(), [])
    assert layer.call("changes_for", entity="cart").status == "no_data"
    assert layer.call("changes_for", entity="checkout").status == "ok"
    cart = next(s for s in score_entities(ctx) if s.entity == "cart")
    assert "deploy_regression" in [x.fault_type for x in cart.signatures]
    checked = ChangesSpecialist().check(Hypothesis("H1", "cart", "deploy_regression", prior=0.5), layer)
    assert checked is not None and checked.status == "inconclusive"


def test_lines_from_the_pods_of_a_new_replica_set_are_a_rollout() -> None:
    old = [replace(r, pod="payments-7d9f8b6c4-x2k9p") for r in _lines("payments", ["charge ok"] * 12)]
    scaled = [replace(r, pod="payments-7d9f8b6c4-q8zzw") for r in _lines("payments", ["charge ok"] * 3)]
    new = [replace(r, pod="payments-5b8c9d7f6-h2m4t") for r in _lines("payments", ["charge ok"] * 3)]
    shift = timedelta(minutes=12)
    later = [replace(r, ts=r.ts + shift, line=r.line + 100) for r in scaled]
    later += [replace(r, ts=r.ts + shift + timedelta(seconds=1), line=r.line + 200) for r in new]
    (rollout,) = deploys_in_logs(old + later, reference=T0 + timedelta(minutes=20))
    assert (rollout.service, rollout.kind, rollout.from_logs) == ("payments", "deploy", True)
    assert "payments-5b8c9d7f6" in rollout.summary and rollout.evidence.cite == "logs.jsonl:201"
    assert deploys_in_logs(old + [replace(r, ts=r.ts + shift) for r in scaled], reference=T0) == []


def test_the_changes_specialist_says_a_version_first_logged_after_the_onset_was_seen_then() -> None:
    """A version first stated a minute after the onset validates the code fault, and the finding says when it
    was first logged, not that it landed before the onset."""
    ctx = incident(
        kinds={"gateway": "service", "checkout": "service"},
        edges=[("gateway", "checkout", "depends_on")],
        alerting=["gateway"],
        anomalies=[anomaly("checkout", "errors", metric="error_rate", score=60, starts_s=10)],
        logs=[log("checkout", "Traceback (most recent call last): TypeError in checkout/views.py")],
        changes=[_inferred("checkout", -1)],
    )
    layer = ToolLayer("changes", frozenset({"changes_for"}), context_tools(ctx), Budget(), [])
    checked = ChangesSpecialist().check(Hypothesis("H1", "checkout", "deploy_regression", prior=0.5), layer)
    assert checked is not None and checked.status == "validated"
    assert "was first logged 60 s after the onset" in checked.summary
