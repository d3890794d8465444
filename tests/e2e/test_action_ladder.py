"""The action ladder end to end, every component a real process or a real protocol:

real Alertmanager fires → webhook to `rootward serve` → investigation →
L2 safe action silences the symptom alert in that Alertmanager → notification
to a real Matrix homeserver (Synapse) and to a local Slack-protocol server
through slack_sdk → an approver approves the L3 proposal through the signed
Slack interaction endpoint → `rootward executor` runs it against the
Kubernetes test server → `rootward audit verify` passes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
import yaml
from sqlalchemy import select

from rootward.store.approvals import ApprovalRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import InvestigationRow
from rootward.store.outbox import OutboxRow
from tests.actions.fake_cluster import FakeCluster
from tests.conftest import EXAMPLES
from tests.integration.alertmanager_server import Alertmanager, alertmanager_binary
from tests.integration.synapse_server import Synapse, synapse_python
from tests.notify.conftest import Receiver
from tests.sources.local_http import free_port, serve

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("synapse")]

ROOTWARD = str(Path(sys.executable).parent / "rootward")
BUNDLE = EXAMPLES / "shop-deploy-regression-01"
SIGNING = "e2e-signing-secret"
TOKEN = "e2e-intake-token"


def _wait(what: str, check: Callable[[], object], timeout_s: float = 90) -> object:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, object]]:
    python, binary = synapse_python(), alertmanager_binary()
    if python is None or binary is None:
        pytest.skip("needs Synapse (make synapse) and prometheus-alertmanager (CI installs both)")
    synapse = Synapse(python, tmp_path / "synapse")
    (tmp_path / "synapse").mkdir()
    synapse.start()
    port = free_port()
    alertmanager = Alertmanager(
        binary, tmp_path / "am", webhook_url=f"http://127.0.0.1:{port}/api/v1/alerts/alertmanager"
    )
    (tmp_path / "am").mkdir()
    slack = Receiver()
    cluster = FakeCluster(name="catalog", namespace="shop")
    with serve(cluster.route) as (k8s_url, _seen):
        try:
            yield {
                "tmp": tmp_path,
                "port": port,
                "synapse": synapse,
                "am": alertmanager,
                "slack": slack,
                "cluster": cluster,
                "k8s": k8s_url,
            }
        finally:
            alertmanager.stop()
            synapse.stop()
            slack.close()


def _matrix(synapse: Synapse) -> tuple[dict[str, str], dict[str, str], str]:
    bot, oncall = synapse.register("rootward"), synapse.register("oncall")
    headers = {"authorization": f"Bearer {bot['access_token']}"}
    room = httpx.post(
        f"{synapse.url}/_matrix/client/v3/createRoom", json={"preset": "public_chat"}, headers=headers, timeout=10
    ).json()["room_id"]
    httpx.post(
        f"{synapse.url}/_matrix/client/v3/join/{room}",
        json={},
        headers={"authorization": f"Bearer {oncall['access_token']}"},
        timeout=10,
    ).raise_for_status()
    return bot, oncall, room


def _signed_click(approval_id: str, user: str) -> tuple[bytes, dict[str, str]]:
    payload = {
        "type": "block_actions",
        "user": {"id": user},
        "actions": [{"action_id": "approve", "value": approval_id}],
    }
    body = urlencode({"payload": json.dumps(payload)}).encode()
    ts = str(int(time.time()))
    sig = "v0=" + hmac.new(SIGNING.encode(), f"v0:{ts}:".encode() + body, hashlib.sha256).hexdigest()
    return body, {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": ts,
        "x-slack-signature": sig,
    }


def test_alert_to_silence_notification_approval_execution_and_audit(world: dict[str, object]) -> None:
    tmp: Path = world["tmp"]  # type: ignore[assignment]
    synapse: Synapse = world["synapse"]  # type: ignore[assignment]
    am: Alertmanager = world["am"]  # type: ignore[assignment]
    slack: Receiver = world["slack"]  # type: ignore[assignment]
    cluster: FakeCluster = world["cluster"]  # type: ignore[assignment]
    port: int = world["port"]  # type: ignore[assignment]

    replay = tmp / "incidents"
    shutil.copytree(BUNDLE, replay / BUNDLE.name, ignore=shutil.ignore_patterns("truth.json"))
    bot, oncall, room = _matrix(synapse)
    db = tmp / "rootward.db"
    config = {
        "data_dir": str(tmp / "var"),
        "database": {"url": f"sqlite:///{db}"},
        "intake": {"token": TOKEN},
        "runtime": {"workers": 1, "poll_s": 0.1},
        "replay": {"dirs": [str(replay)]},
        "notify": {
            "console_url": f"http://127.0.0.1:{port}",
            "poll_s": 0.2,
            "slack": {
                "bot_token": "xoxb-e2e",
                "channel": "C-INCIDENTS",
                "api_url": slack.url + "/api/",
                "signing_secret": SIGNING,
            },
            "matrix": {
                "homeserver": synapse.url,
                "user_id": bot["user_id"],
                "access_token": bot["access_token"],
                "room_id": room,
                "device_id": bot["device_id"],
            },
        },
        "actions": {
            "alertmanager": {"url": am.url},
            "safe_allowlist": ["silence_alert", "flag_for_human_review", "annotate"],
            "executor": {"allowlist": ["rollback"], "kubernetes": {"host": str(world["k8s"]), "namespace": "shop"}},
        },
    }
    config_path = tmp / "rootward.yaml"
    config_path.write_text(yaml.safe_dump(config))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp)}
    subprocess.run(
        [ROOTWARD, "users", "add", "anna", "--role", "approver", "--slack", "UANNA", "-c", str(config_path)],
        check=True,
        env=env,
        capture_output=True,
    )
    am_config = am.dir / "am.yml"
    am.start()
    text = am_config.read_text().replace(
        "send_resolved: true",
        f"send_resolved: true\n        http_config:\n          authorization:\n            credentials: '{TOKEN}'",
    )
    am_config.write_text(text)
    httpx.post(am.url + "/-/reload", timeout=10).raise_for_status()

    log = open(tmp / "serve.log", "wb")  # noqa: SIM115 - closed with the process
    server = subprocess.Popen(
        [ROOTWARD, "serve", "--port", str(port), "-c", str(config_path)], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        _wait("rootward serve", lambda: _ok(f"http://127.0.0.1:{port}/healthz"), 60)
        now = datetime.now(UTC)
        httpx.post(
            am.url + "/api/v2/alerts",
            json=[
                {
                    "labels": {"alertname": "HighErrorRate", "service": "frontend", "severity": "critical"},
                    "annotations": {"summary": "frontend 5xx above 5%", "rootward_bundle": str(replay / BUNDLE.name)},
                    "startsAt": now.isoformat(),
                    "endsAt": (now + timedelta(hours=1)).isoformat(),
                }
            ],
            timeout=10,
        ).raise_for_status()

        sessions = make_session_factory(make_engine(f"sqlite:///{db}"))

        def recorded() -> InvestigationRow | None:
            with sessions() as s:
                return s.scalars(select(InvestigationRow)).first()

        inv = _wait("the investigation", recorded, 120)
        assert isinstance(inv, InvestigationRow)
        assert (inv.top_entity, inv.top_fault) == ("catalog", "deploy_regression"), inv.result.get("hypotheses")

        # L2 safe action: the victim's alert is silenced in the real Alertmanager.
        silences = _wait(
            "a silence",
            lambda: [s for s in httpx.get(am.url + "/api/v2/silences").json() if s["status"]["state"] == "active"],
        )
        matchers = {m["name"]: m["value"] for m in silences[0]["matchers"]}  # type: ignore[index]
        assert matchers == {"alertname": "HighErrorRate", "service": "frontend"}

        # Notifications: the Slack-protocol server and the Matrix room got the RCA and the approval buttons.
        _wait("slack delivery", lambda: slack.received)
        posted = str(slack.received[0]["body"])
        assert "catalog" in posted and "approval:" in posted
        messages = _wait(
            "matrix delivery",
            lambda: [
                e
                for e in httpx.get(
                    f"{synapse.url}/_matrix/client/v3/rooms/{room}/messages?dir=b&limit=20",
                    headers={"authorization": f"Bearer {oncall['access_token']}"},
                ).json()["chunk"]
                if e["type"] == "m.room.message"
            ],
        )
        assert "catalog" in messages[0]["content"]["body"]  # type: ignore[index]

        # L3: approve the rollback from Slack with a valid signature.
        with sessions() as s:
            approval = s.scalars(select(ApprovalRow)).first()
        assert approval is not None and approval.status == "pending"
        body, headers = _signed_click(approval.id, "UANNA")
        reply = httpx.post(f"http://127.0.0.1:{port}/api/v1/slack/interactions", content=body, headers=headers)
        assert reply.status_code == 200 and "approved" in reply.json()["text"]
        with sessions() as s, s.begin():
            assert not s.scalars(select(OutboxRow).where(OutboxRow.status == "pending")).all()
    finally:
        server.terminate()
        server.wait(20)
        log.close()

    executed = subprocess.run(
        [ROOTWARD, "executor", "--once", "-c", str(config_path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert f"{approval.id}: executed" in executed.stdout, executed.stdout + executed.stderr
    assert [(p[0], p[1]) for p in cluster.patches] == [("catalog", True), ("catalog", False)]
    assert cluster.deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "shop/catalog:v2.30.4"

    # Mechanical verification once the prediction window has passed (the executor's clock moved on).
    from rootward.actions.executor import Executor
    from rootward.store.worldmodel import DbPredictionLedger

    later = datetime.now(UTC) + timedelta(seconds=float(approval.prediction.get("window_s", 600)) + 60)
    checker = Executor(sessions, DbPredictionLedger, {}, allowlist=set(), clock=lambda: later)
    [verdict] = checker.verify_due()
    assert verdict.outcome in ("match", "partial", "deviation")
    with sessions() as s:
        row = s.get(ApprovalRow, approval.id)
        assert row is not None and row.status == "executed" and row.verdict == verdict.outcome

    audit = subprocess.run(
        [ROOTWARD, "audit", "verify", "-c", str(config_path)], env=env, capture_output=True, text=True, timeout=60
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr


def _ok(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False
