"""Live replay: alerts are re-timed to now and posted as Alertmanager webhooks."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from rootward.domain.alertmanager import AmPayload
from rootward.sim import demo_feed
from rootward.sim.stream import ALERTMANAGER_PATH, incident, live_payloads, stream


def test_live_payloads_end_now_and_keep_spacing(tmp_path: Path) -> None:
    path, alerts_json = incident(0, "t", tmp_path)
    now = datetime(2030, 1, 1, tzinfo=UTC)
    payloads = live_payloads(alerts_json, now, str(path))
    starts = [datetime.fromisoformat(a["startsAt"].replace("Z", "+00:00")) for p in payloads for a in p["alerts"]]
    assert max(starts) <= now and (now - max(starts)).total_seconds() < 900
    original = json.loads(alerts_json)
    before = [datetime.fromisoformat(a["startsAt"].replace("Z", "+00:00")) for p in original for a in p["alerts"]]
    assert [s - starts[0] for s in starts] == [b - before[0] for b in before]
    for p in payloads:
        AmPayload.model_validate(p)
        assert all(a["annotations"]["rootward_bundle"] == str(path) for a in p["alerts"])


def test_stream_posts_with_bearer_token(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(202, json={"accepted": 1})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    sent = stream("http://rootward.test", "s3cret", tmp_path, interval_s=0, count=2, seed="t", client=client)
    assert sent == 2 and seen
    assert all(r.url.path == ALERTMANAGER_PATH for r in seen)
    assert all(r.headers["authorization"] == "Bearer s3cret" for r in seen)
    assert len(list(tmp_path.iterdir())) == 2


def test_demo_feed_tolerates_a_server_that_is_not_up_and_stops(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
    stop = threading.Event()
    thread = threading.Thread(target=demo_feed.run, args=("http://127.0.0.1:9", None, stop, 1.0), daemon=True)
    thread.start()
    time.sleep(1.5)
    assert thread.is_alive()  # still retrying, not crashed
    stop.set()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert (tmp_path / "demo-bundles").is_dir()
