from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from rootward.actions.alertmanager import AlertmanagerClient, AlertmanagerError, AlertmanagerSettings
from rootward.actions.safe import SafeAction, SafeActionRunner, SilenceHandler
from tests.integration.alertmanager_server import Alertmanager, alertmanager_binary

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def alertmanager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Alertmanager]:
    binary = alertmanager_binary()
    if binary is None:
        pytest.skip("prometheus-alertmanager not installed (CI installs it)")
    am = Alertmanager(binary, tmp_path_factory.mktemp("am"))
    am.start()
    yield am
    am.stop()


def test_silence_alert_creates_a_real_silence_that_mutes_the_alert(alertmanager: Alertmanager) -> None:
    client = AlertmanagerClient(AlertmanagerSettings(url=alertmanager.url))
    now = datetime.now(UTC)
    client.post_alerts(
        [
            {
                "labels": {"alertname": "BatchJobSlow", "service": "settlement", "severity": "warning"},
                "startsAt": now.isoformat(),
                "endsAt": (now + timedelta(minutes=30)).isoformat(),
            }
        ]
    )
    runner = SafeActionRunner({"silence_alert": SilenceHandler(client)})
    [result] = runner.run(
        [
            SafeAction(
                "silence_alert",
                {"matchers": {"alertname": "BatchJobSlow"}, "duration_minutes": 60},
                reason="known flaky monitor during nightly settlement",
            )
        ]
    )
    assert result.status == "done", result.detail
    silence_id = result.detail.split()[1]
    [silence] = [s for s in client.silences() if s["id"] == silence_id]
    assert silence["status"]["state"] == "active"
    assert silence["comment"] == "known flaky monitor during nightly settlement"
    ends = datetime.fromisoformat(silence["endsAt"].replace("Z", "+00:00"))
    assert timedelta(minutes=59) < ends - now < timedelta(minutes=61)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        alerts = client.alerts()
        if alerts and alerts[0]["status"]["state"] == "suppressed":
            break
        time.sleep(0.2)
    assert alerts[0]["status"]["silencedBy"] == [silence_id]


def test_open_ended_or_oversized_silences_are_refused(alertmanager: Alertmanager) -> None:
    client = AlertmanagerClient(AlertmanagerSettings(url=alertmanager.url, max_silence=timedelta(hours=2)))
    with pytest.raises(AlertmanagerError, match="exceeds the limit"):
        client.create_silence({"alertname": "X"}, timedelta(hours=5), comment="too long")
    runner = SafeActionRunner({"silence_alert": SilenceHandler(client)})
    [result] = runner.run([SafeAction("silence_alert", {"matchers": {}})])
    assert result.status == "failed" and "matcher" in result.detail
