"""Write-back through the outbox to local servers speaking PagerDuty's, Jira's and GitHub's REST APIs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.dispatch import build_channels
from rootward.notify.github import GitHubIssuesSettings
from rootward.notify.jira import JiraSettings
from rootward.notify.message import Notification
from rootward.notify.outbox import OutboxDispatcher, backlog
from rootward.notify.pagerduty_notes import PagerDutyNotesSettings
from rootward.notify.settings import NotifySettings
from rootward.notify.writeback import WritebackRefs
from rootward.notify.writeback_queue import enqueue_writebacks, group_refs
from rootward.store.alerts import AlertGroupRow, AlertRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.outbox import OutboxRow
from rootward.store.writeback_issues import WritebackIssueRow
from tests.notify.protocol_servers import (
    Target,
    basic_auth,
    github_route,
    jira_route,
    pagerduty_route,
)
from tests.sources.local_http import free_port, serve

T0 = datetime(2026, 3, 14, 14, 0, tzinfo=UTC)
CONSOLE = "http://rootward.example/incidents/inv-1"


class Clock:
    """Starts at the wall clock: rows are queued at the wall clock's now."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC) + timedelta(seconds=1)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    engine = make_engine(f"sqlite:///{tmp_path / 'writeback.db'}")
    for table in (OutboxRow, WritebackIssueRow, AlertGroupRow, AlertRow):
        table.__table__.create(engine)  # type: ignore[attr-defined]
    return make_session_factory(engine)


def _note(investigation: str = "inv-1") -> Notification:
    return Notification(
        investigation_id=investigation,
        title="HighErrorRate on checkout",
        tier="L2",
        severity="P1",
        summary="payment-db connection pool saturated after deploy payment v2.3.1.",
        summary_source="rule",
        evidence=("changes.json:deploy-881", "metrics.csv:payment/db_connections_in_use@12-18"),
        console_url=CONSOLE.replace("inv-1", investigation),
    )


def _settings(**targets: object) -> NotifySettings:
    return NotifySettings.model_validate({"console_url": "http://rootward.example", **targets})


def _pd(url: str) -> dict[str, object]:
    return {"api_token": "pd-token", "from_email": "oncall@example.com", "base_url": url, "timeout_s": 1}


def _queue(
    sessions: sessionmaker[Session], settings: NotifySettings, refs: WritebackRefs, investigation: str = "inv-1"
) -> list[str]:
    with sessions() as s, s.begin():
        return enqueue_writebacks(s, _note(investigation), refs, settings, key=f"investigation:{investigation}")


def _dispatcher(sessions: sessionmaker[Session], settings: NotifySettings, clock: Clock) -> OutboxDispatcher:
    return OutboxDispatcher(sessions, build_channels(settings, sessions), clock=clock)


@pytest.fixture
def pagerduty() -> Iterator[tuple[str, Target]]:
    target = Target()
    with serve(pagerduty_route(target)) as (url, _seen):
        yield url, target


def test_pagerduty_note_has_the_summary_the_console_link_and_the_documented_headers(
    sessions: sessionmaker[Session], pagerduty: tuple[str, Target]
) -> None:
    url, target = pagerduty
    settings = _settings(pagerduty=_pd(url))
    refs = WritebackRefs(incident="grp-1", pagerduty_incidents=("Q1ABC", "Q2DEF"))
    assert _queue(sessions, settings, refs) == ["pagerduty"]
    assert _dispatcher(sessions, settings, Clock()).deliver_once() == 2
    [first, second] = target.posts()
    assert (first.path, second.path) == ("/incidents/Q1ABC/notes", "/incidents/Q2DEF/notes")
    assert first.headers["authorization"] == "Token token=pd-token"
    assert first.headers["from"] == "oncall@example.com"
    assert first.headers["accept"] == "application/vnd.pagerduty+json;version=2"
    note = target.notes["Q1ABC"][0]
    assert "payment-db connection pool saturated after deploy payment v2.3.1." in note
    assert f"Console: {CONSOLE}" in note and "changes.json:deploy-881" in note
    with sessions() as s:
        receipts = sorted(r.receipt or "" for r in s.scalars(select(OutboxRow)))
    assert receipts == ["Q1ABC note PN1", "Q2DEF note PN1"]


def test_pagerduty_down_then_up_gets_the_note_exactly_once(
    sessions: sessionmaker[Session], pagerduty: tuple[str, Target]
) -> None:
    url, target = pagerduty
    settings, clock = _settings(pagerduty=_pd(url)), Clock()
    _queue(sessions, settings, WritebackRefs(incident="grp-1", pagerduty_incidents=("Q1ABC",)))
    dispatcher = _dispatcher(sessions, settings, clock)
    target.mode = "down"
    for _ in range(5):
        assert dispatcher.deliver_once() == 0
        clock.now += timedelta(minutes=1)
    with sessions() as s:
        row = s.scalars(select(OutboxRow)).one()
        assert row.status == "pending" and "HTTP 500" in (row.last_error or "")
    target.mode = "up"
    assert dispatcher.deliver_once() == 1
    clock.now += timedelta(minutes=5)
    assert dispatcher.deliver_once() == 0
    assert len(target.notes["Q1ABC"]) == 1 and len(target.posts()) == 6  # five refused tries, one taken


def test_connection_refused_then_up_replays_the_note_once(sessions: sessionmaker[Session]) -> None:
    port, target, clock = free_port(), Target(), Clock()
    settings = _settings(pagerduty=_pd(f"http://127.0.0.1:{port}"))
    _queue(sessions, settings, WritebackRefs(incident="grp-1", pagerduty_incidents=("Q1ABC",)))
    dispatcher = _dispatcher(sessions, settings, clock)
    assert dispatcher.deliver_once() == 0
    with sessions() as s:
        assert "ConnectError" in (s.scalars(select(OutboxRow)).one().last_error or "")
    with serve(pagerduty_route(target), port=port):
        clock.now += timedelta(seconds=5)
        assert dispatcher.deliver_once() == 1
        assert dispatcher.deliver_once() == 0
    assert len(target.notes["Q1ABC"]) == 1


def test_a_401_is_a_permanent_error_named_clearly_and_later_rows_still_go(
    sessions: sessionmaker[Session], pagerduty: tuple[str, Target]
) -> None:
    url, target = pagerduty
    settings, clock = _settings(pagerduty=_pd(url)), Clock()
    _queue(sessions, settings, WritebackRefs(incident="grp-1", pagerduty_incidents=("Q1ABC",)), "inv-1")
    target.mode = "unauthorized"
    dispatcher = _dispatcher(sessions, settings, clock)
    assert dispatcher.deliver_once() == 0
    with sessions() as s:
        row = s.scalars(select(OutboxRow)).one()
        assert row.status == "failed"
        assert (row.last_error or "").startswith("permanent: pagerduty: HTTP 401 Unauthorized: the credentials")
        assert "Unauthorized" in (row.last_error or "") and backlog(s) == {}
    clock.now += timedelta(hours=1)
    assert dispatcher.deliver_once() == 0 and len(target.posts()) == 1  # never retried
    target.mode = "up"
    _queue(sessions, settings, WritebackRefs(incident="grp-2", pagerduty_incidents=("Q9XYZ",)), "inv-2")
    assert dispatcher.deliver_once() == 1 and list(target.notes) == ["Q9XYZ"]


@pytest.fixture
def jira() -> Iterator[tuple[str, Target]]:
    target = Target()
    with serve(jira_route(target)) as (url, _seen):
        yield url, target


def _jira(url: str, **extra: object) -> dict[str, object]:
    return {"base_url": url, "email": "bot@example.com", "api_token": "jira-token", "timeout_s": 1, **extra}


def test_jira_comment_goes_on_the_issue_an_alert_names_with_basic_auth(
    sessions: sessionmaker[Session], jira: tuple[str, Target]
) -> None:
    url, target = jira
    settings = _settings(jira=_jira(url))
    assert _queue(sessions, settings, WritebackRefs(incident="grp-1", jira_issue="OPS-7")) == ["jira"]
    assert _dispatcher(sessions, settings, Clock()).deliver_once() == 1
    [post] = target.posts()
    assert post.path == "/rest/api/2/issue/OPS-7/comment"
    assert basic_auth(post) == ("bot@example.com", "jira-token")
    assert CONSOLE in target.comments["OPS-7"][0] and not target.issues


def test_jira_without_an_issue_or_create_queues_nothing(sessions: sessionmaker[Session]) -> None:
    settings = _settings(jira=_jira("http://127.0.0.1:9"))
    assert _queue(sessions, settings, WritebackRefs(incident="grp-1")) == []


def test_jira_creates_one_issue_per_incident_and_later_investigations_comment_on_it(
    sessions: sessionmaker[Session], jira: tuple[str, Target]
) -> None:
    url, target = jira
    settings = _settings(jira=_jira(url, create_issues=True, project_key="OPS", issue_type="Incident"))
    dispatcher = _dispatcher(sessions, settings, Clock())
    _queue(sessions, settings, WritebackRefs(incident="grp-1"), "inv-1")
    _queue(sessions, settings, WritebackRefs(incident="grp-1"), "inv-2")  # a rerun of the same incident
    assert dispatcher.deliver_once() == 2
    [(key, fields)] = target.issues.items()
    assert fields["project"] == {"key": "OPS"} and fields["issuetype"] == {"name": "Incident"}
    assert "rootward-incident-grp-1" in fields["labels"] and CONSOLE in fields["description"]
    assert [CONSOLE.replace("inv-1", "inv-2") in c for c in target.comments[key]] == [True]


def test_jira_create_taken_but_unanswered_is_found_not_created_again(
    sessions: sessionmaker[Session], jira: tuple[str, Target]
) -> None:
    url, target = jira
    settings, clock = _settings(jira=_jira(url, create_issues=True, project_key="OPS")), Clock()
    dispatcher = _dispatcher(sessions, settings, clock)
    _queue(sessions, settings, WritebackRefs(incident="grp-1"))
    target.mode = "slow_create"  # Jira commits the issue; the answer never reaches rootward in time
    assert dispatcher.deliver_once() == 0
    assert len(target.issues) == 1
    target.mode = "up"
    clock.now += timedelta(seconds=5)
    assert dispatcher.deliver_once() == 1
    assert len(target.issues) == 1  # looked up by its label, not created twice
    assert [r.path for r in target.requests if r.method == "GET"] == ["/rest/api/3/search/jql"]
    with sessions() as s:
        assert s.get(WritebackIssueRow, ("jira", "grp-1")).issue_key == "OPS-1"  # type: ignore[union-attr]
        assert s.scalars(select(OutboxRow)).one().receipt == "created OPS-1"


@pytest.fixture
def github() -> Iterator[tuple[str, Target]]:
    target = Target()
    with serve(github_route(target)) as (url, _seen):
        yield url, target


def _github(url: str, **extra: object) -> dict[str, object]:
    return {"api_url": url, "token": "ghp-token", "repo": "acme/shop", "timeout_s": 1, **extra}


def test_github_comment_has_the_documented_headers(sessions: sessionmaker[Session], github: tuple[str, Target]) -> None:
    url, target = github
    settings = _settings(github=_github(url, issue=42))
    assert _queue(sessions, settings, WritebackRefs(incident="grp-1")) == ["github"]
    assert _dispatcher(sessions, settings, Clock()).deliver_once() == 1
    [post] = target.posts()
    assert post.path == "/repos/acme/shop/issues/42/comments"
    assert post.headers["authorization"] == "Bearer ghp-token"
    assert post.headers["accept"] == "application/vnd.github+json"
    assert post.headers["x-github-api-version"] == "2022-11-28"
    assert "payment-db connection pool saturated" in target.comments["acme/shop#42"][0]


def test_github_issue_named_by_an_alert_label_wins_over_the_fixed_one(
    sessions: sessionmaker[Session], github: tuple[str, Target]
) -> None:
    url, target = github
    settings = _settings(github=_github(url, issue=42))
    _queue(sessions, settings, WritebackRefs(incident="grp-1", github_issue="acme/infra#7"))
    assert _dispatcher(sessions, settings, Clock()).deliver_once() == 1
    assert [p.path for p in target.posts()] == ["/repos/acme/infra/issues/7/comments"]


def test_github_create_is_never_duplicated_even_when_the_answer_is_lost(
    sessions: sessionmaker[Session], github: tuple[str, Target]
) -> None:
    url, target = github
    settings, clock = _settings(github=_github(url, create_issues=True)), Clock()
    dispatcher = _dispatcher(sessions, settings, clock)
    _queue(sessions, settings, WritebackRefs(incident="grp-1"), "inv-1")
    target.mode = "slow_create"
    assert dispatcher.deliver_once() == 0
    target.mode = "up"
    clock.now += timedelta(seconds=5)
    assert dispatcher.deliver_once() == 1
    _queue(sessions, settings, WritebackRefs(incident="grp-1"), "inv-2")
    assert dispatcher.deliver_once() == 1
    [(key, issue)] = target.issues.items()
    assert key == "acme/shop#1" and issue["labels"] == ["rootward"]
    assert "<!-- rootward-incident: grp-1 -->" in issue["body"]
    assert len(target.comments[key]) == 1  # the second investigation comments on the same issue


def test_github_401_is_reported_as_bad_credentials(sessions: sessionmaker[Session], github: tuple[str, Target]) -> None:
    url, target = github
    settings = _settings(github=_github(url, issue=42))
    target.mode = "unauthorized"
    _queue(sessions, settings, WritebackRefs(incident="grp-1"))
    assert _dispatcher(sessions, settings, Clock()).deliver_once() == 0
    with sessions() as s:
        row = s.scalars(select(OutboxRow)).one()
    assert row.status == "failed" and "github: HTTP 401" in (row.last_error or "")
    assert "Bad credentials" in (row.last_error or "")


def test_group_refs_read_pagerduty_incidents_and_issue_labels_from_the_alerts(
    sessions: sessionmaker[Session],
) -> None:
    settings = _settings(pagerduty=_pd("http://x"), jira=_jira("http://x"))
    with sessions() as s, s.begin():
        s.add(AlertGroupRow(id="grp-1", service="checkout", tier="L2", severity="P1", opened_at=T0, last_alert_at=T0))
        for i, (labels, notes) in enumerate(
            [
                ({"source": "pagerduty"}, {"pagerduty_incident": "Q1ABC"}),
                ({"jira_issue": "OPS-3"}, {"pagerduty_incident": "Q1ABC"}),
                ({}, {"pagerduty_incident": "Q2DEF"}),
            ]
        ):
            s.add(
                AlertRow(
                    id=f"a{i}", fingerprint=f"f{i}", group_id="grp-1", source="pagerduty", name="n",
                    service="checkout", severity="P1", status="firing", tier="L2", labels=labels,
                    annotations=notes, starts_at=T0 + timedelta(seconds=i), first_seen=T0, last_seen=T0,
                )
            )  # fmt: skip
    with sessions() as s:
        refs = group_refs(s, "grp-1", settings)
    assert refs == WritebackRefs(incident="grp-1", pagerduty_incidents=("Q1ABC", "Q2DEF"), jira_issue="OPS-3")


def test_webhook_named_like_a_target_and_settings_without_project_are_refused() -> None:
    with pytest.raises(ValueError, match="jira belong to built-in channels"):
        _settings(webhooks=[{"name": "jira", "url": "http://x", "secret": "s"}])
    with pytest.raises(ValueError, match="project_key"):
        JiraSettings(base_url="http://x", api_token=SecretStr("t"), create_issues=True)
    assert GitHubIssuesSettings(token=SecretStr("t"), repo="acme/shop").writes_back(WritebackRefs("g")) is False
    assert PagerDutyNotesSettings(api_token=SecretStr("t"), from_email="a@b").writes_back(WritebackRefs("g")) is False
