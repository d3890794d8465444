from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.approvals import decide, request_approval
from rootward.actions.executor import Executor
from rootward.actions.kubernetes_exec import KubernetesBackend, KubernetesExecSettings
from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.users import add_user
from rootward.store.worldmodel import DbPredictionLedger
from rootward.worldmodel.prediction_gate import ProposedAction, commit_prediction
from rootward.worldmodel.settings import WorldModelSettings
from tests.actions.fake_cluster import NS, FakeCluster
from tests.sources.local_http import serve

PREDICTION = {"entities": [{"name": "payment"}], "alerts": [], "window_s": 600}


@pytest.fixture
def cluster() -> Iterator[tuple[FakeCluster, str]]:
    fake = FakeCluster()
    with serve(fake.route) as (url, _seen):
        yield fake, url


def _approved(sessions: sessionmaker[Session], action: ProposedAction, *, predict: bool = True) -> str:
    with sessions() as s, s.begin():
        ledger = DbPredictionLedger(s)
        if predict:
            commit_prediction(ledger, action, PREDICTION)
        row = request_approval(s, action, ledger, investigation_id="inv-9")
        assert isinstance(row, ApprovalRow)
        anna = add_user(s, f"anna-{row.id[-6:]}", Role.APPROVER)
        assert decide(s, row.id, anna, "approve", via="api").ok
        return row.id


def _executor(sessions: sessionmaker[Session], url: str, **kw: object) -> Executor:
    backend = KubernetesBackend(KubernetesExecSettings(host=url, namespace=NS))
    return Executor(
        sessions,
        DbPredictionLedger,
        {v: backend for v in backend.verbs},
        allowlist=set(kw.pop("allowlist", {"restart", "scale", "rollback"})),
        **kw,
    )  # type: ignore[arg-type]


def test_approved_scale_runs_dry_run_first_and_records_pre_and_post_state(
    sessions: sessionmaker[Session], cluster: tuple[FakeCluster, str]
) -> None:
    fake, url = cluster
    approval_id = _approved(sessions, ProposedAction.of("scale", "payment", namespace=NS, replicas=6))
    assert _executor(sessions, url).run_once() == [(approval_id, "executed")]
    assert [(p[0], p[1]) for p in fake.patches] == [("scale", True), ("scale", False)]
    assert fake.deployment["spec"]["replicas"] == 6
    with sessions() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and row.status == "executed"
        assert row.result["pre_state"]["replicas"] == 3 and row.result["post_state"]["replicas"] == 6  # type: ignore[index]
        assert verify_chain(s).ok


def test_rollback_goes_to_the_previous_revision_template(
    sessions: sessionmaker[Session], cluster: tuple[FakeCluster, str]
) -> None:
    fake, url = cluster
    approval_id = _approved(sessions, ProposedAction.of("rollback", "payment", namespace=NS))
    assert _executor(sessions, url).run_once() == [(approval_id, "executed")]
    assert fake.deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "shop/payment:v2.30.4"
    assert "pod-template-hash" not in fake.deployment["spec"]["template"]["metadata"]["labels"]


def test_restart_sets_the_restarted_at_annotation(
    sessions: sessionmaker[Session], cluster: tuple[FakeCluster, str]
) -> None:
    fake, url = cluster
    _approved(sessions, ProposedAction.of("restart", "payment", namespace=NS))
    _executor(sessions, url).run_once()
    annotations = fake.deployment["spec"]["template"]["metadata"]["annotations"]
    assert "kubectl.kubernetes.io/restartedAt" in annotations


def _refused(sessions: sessionmaker[Session], approval_id: str) -> dict[str, object]:
    with sessions() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and row.status == "refused"
        kinds = [
            r.kind for r in s.scalars(select(AuditRow).where(AuditRow.subject == approval_id).order_by(AuditRow.id))
        ]
        assert "executor.refused" in kinds
        return row.result or {}


def test_denied_parameter_is_refused_and_never_reaches_the_cluster(
    sessions: sessionmaker[Session], cluster: tuple[FakeCluster, str]
) -> None:
    fake, url = cluster
    approval_id = _approved(sessions, ProposedAction.of("restart", "payment", namespace="shop; rm -rf /"))
    assert _executor(sessions, url).run_once() == [(approval_id, "refused")]
    assert _refused(sessions, approval_id)["refused"] == "guard_deny"
    assert fake.patches == []


def test_kill_switch_after_approval_stops_execution(
    sessions: sessionmaker[Session], cluster: tuple[FakeCluster, str]
) -> None:
    fake, url = cluster
    approval_id = _approved(sessions, ProposedAction.of("scale", "payment", namespace=NS, replicas=1))
    executor = _executor(sessions, url, worldmodel=WorldModelSettings(disabled=True))
    assert executor.run_once() == [(approval_id, "refused")]
    assert _refused(sessions, approval_id)["reason"] == "kill_switch"
    assert fake.patches == []


def test_verb_off_the_executor_allowlist_is_refused(
    sessions: sessionmaker[Session], cluster: tuple[FakeCluster, str]
) -> None:
    fake, url = cluster
    approval_id = _approved(sessions, ProposedAction.of("rollback", "payment", namespace=NS))
    assert _executor(sessions, url, allowlist={"scale"}).run_once() == [(approval_id, "refused")]
    assert fake.patches == []


def test_pending_rejected_and_withheld_proposals_are_never_executed(
    sessions: sessionmaker[Session], cluster: tuple[FakeCluster, str]
) -> None:
    fake, url = cluster
    action = ProposedAction.of("scale", "payment", namespace=NS, replicas=9)
    with sessions() as s, s.begin():
        ledger = DbPredictionLedger(s)
        commit_prediction(ledger, action, PREDICTION)
        pending = request_approval(s, action, ledger, investigation_id="a")
        rejected = request_approval(
            s, ProposedAction.of("restart", "payment", namespace=NS), ledger, investigation_id="b"
        )
        assert isinstance(pending, ApprovalRow) and not isinstance(rejected, ApprovalRow)  # no prediction: withheld
        bob = add_user(s, "bob", Role.APPROVER)
        other = request_approval(
            s, ProposedAction.of("scale", "payment", namespace=NS, replicas=9), ledger, investigation_id="c"
        )
        assert isinstance(other, ApprovalRow)
        decide(s, other.id, bob, "reject", via="api", now=datetime.now(UTC))
    assert _executor(sessions, url).run_once() == []
    assert fake.patches == []


def test_backend_failure_is_recorded_not_raised(sessions: sessionmaker[Session]) -> None:
    approval_id = _approved(sessions, ProposedAction.of("restart", "payment", namespace=NS))
    executor = _executor(sessions, "http://127.0.0.1:9")  # nothing listens there
    assert executor.run_once() == [(approval_id, "failed")]
    with sessions() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and "kubernetes" in row.result["error"]  # type: ignore[index]
