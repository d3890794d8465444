"""The Slack thread end to end, every part a real process or a real protocol:

an alert → `rootward serve` investigates it (rule mode) → the RCA is posted
through slack_sdk to a local server speaking Slack's Web API → an on-call
engineer asks "what changed before this?" in the RCA's thread (a signed
Events API delivery) → the answer, citing the deploy, is posted in that
thread within 5 seconds. The same over Socket Mode: `rootward serve` opens
the websocket itself (`apps.connections.open`), and the question arrives as
an `events_api` envelope on it, with no signing secret and no public URL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from rootward.domain.roles import Role
from rootward.sources.replay import ANNOTATION
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import InvestigationRow
from rootward.store.migrate import upgrade
from rootward.store.outbox import OutboxRow
from rootward.store.users import add_user
from tests.chat.fake_slack import APP_TOKEN, CHANNEL, FakeSlack, deliver, fake_slack, thread_event
from tests.chat.fake_slack_socket import socket_mode_server
from tests.integration.processes import wait_until_ready
from tests.runtime.simulated import simulated_bundle, write_config
from tests.sources.local_http import free_port

pytestmark = pytest.mark.e2e
SECRET = "e2e-thread-secret"
CLI = [sys.executable, "-c", "from rootward.cli import main; main()"]


@contextmanager
def _serving(tmp_path: Path, slack: FakeSlack, slack_config: dict[str, Any], **sections: Any) -> Iterator[str]:
    """`rootward serve` on a free port with this Slack config, its base URL once /healthz answers."""
    port = free_port()
    config = write_config(
        tmp_path / "rootward.yaml",
        tmp_path,
        runtime={"workers": 1, "poll_s": 0.1},
        notify={
            "poll_s": 0.2,
            "slack": {"bot_token": "xoxb-test", "channel": CHANNEL, "api_url": slack.url, **slack_config},
        },
        **sections,
    )
    upgrade(f"sqlite:///{tmp_path / 'rw.db'}")
    with make_session_factory(make_engine(f"sqlite:///{tmp_path / 'rw.db'}"))() as session, session.begin():
        add_user(session, "vic", Role.VIEWER, slack_user_id="UVIC")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [*CLI, "serve", "--host", "127.0.0.1", "--port", str(port), "-c", str(config)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(proc, url + "/healthz", tmp_path / "serve.log", "serve", 60)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, FakeSlack, Path]]:
    bundle = simulated_bundle(tmp_path)
    with fake_slack() as slack, _serving(tmp_path, slack, {"signing_secret": SECRET}) as url:
        yield url, slack, bundle


def _fire(url: str, bundle: Path) -> None:
    """The bundle's alerts, as Alertmanager would post them, each naming the bundle to replay."""
    for group in json.loads((bundle / "alerts.json").read_text()):
        for alert in group["alerts"]:
            alert["annotations"][ANNOTATION] = str(bundle)
        httpx.post(url + "/api/v1/alerts/alertmanager", json=group, timeout=10).raise_for_status()


def test_alert_rca_in_slack_then_a_thread_question_is_answered_citing_the_deploy_within_5_s(
    served: tuple[str, FakeSlack, Path], tmp_path: Path
) -> None:
    url, slack, bundle = served
    _fire(url, bundle)
    rca, deploy = _rca_and_deploy(slack, tmp_path)

    asked = time.monotonic()
    response = deliver(
        url + "/api/v1/slack/events",
        SECRET,
        thread_event("Ev0E2E", "what changed before this?", rca["ts"], user="UVIC", kind="message"),
    )
    assert response.status_code == 200 and response.json()["outcome"] == "answered"
    reply = slack.wait_for(lambda: slack.thread_replies(rca["ts"]), timeout_s=10)[0]
    took = time.monotonic() - asked
    print(f"thread answer posted {took:.2f} s after the question")
    assert took < 5.0, f"answered after {took:.1f} s"
    assert reply["channel"] == CHANNEL
    assert deploy.split(":", 1)[1] in reply["text"] and f"`{deploy}`" in reply["text"]


def _rca_and_deploy(slack: FakeSlack, tmp_path: Path) -> tuple[dict[str, Any], str]:
    """The RCA post, once rootward has recorded it as sent (as it has long before any person replies to it),
    and the deploy its investigation cites."""
    rca = slack.wait_for(lambda: next((p for p in slack.posts if not p.get("thread_ts")), None), timeout_s=120)
    sessions = make_session_factory(make_engine(f"sqlite:///{tmp_path / 'rw.db'}"))

    def recorded() -> bool:
        with sessions() as session:
            return session.scalars(select(OutboxRow.id).where(OutboxRow.receipt == rca["ts"])).first() is not None

    slack.wait_for(recorded, timeout_s=30)
    with sessions() as session:
        row = session.scalars(select(InvestigationRow)).one()
        deploy = next(e.cite for e in row.investigation.evidence.values() if e.kind == "change")
    return rca, deploy


def test_over_socket_mode_serve_opens_the_websocket_and_answers_a_thread_question_within_5_s(
    tmp_path: Path,
) -> None:
    bundle = simulated_bundle(tmp_path)
    chat = {"slack": {"socket_mode": True, "app_token": APP_TOKEN}}
    with fake_slack() as slack, socket_mode_server() as socket:
        slack.socket_url = socket.url
        with _serving(tmp_path, slack, {}, chat=chat) as url:
            socket.wait_connections(1, timeout_s=60)
            _fire(url, bundle)
            rca, deploy = _rca_and_deploy(slack, tmp_path)
            asked = time.monotonic()
            envelope = socket.send_event(thread_event("Ev0Sock", "what changed before this?", rca["ts"], user="UVIC"))
            assert socket.ack_of(envelope) < 3.0
            reply = slack.wait_for(lambda: slack.thread_replies(rca["ts"]), timeout_s=10)[0]
            took = time.monotonic() - asked
    print(f"socket mode: thread answer posted {took:.2f} s after the question")
    assert took < 5.0, f"answered after {took:.1f} s"
    assert deploy.split(":", 1)[1] in reply["text"] and f"`{deploy}`" in reply["text"]
    logged = (tmp_path / "serve.log").read_text()
    assert "Slack Socket Mode: connected (app A1)" in logged
