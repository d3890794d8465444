"""Replay simulated incidents as live Alertmanager webhooks (for demos).

Each incident's alert storm is re-timed so its last alert fires "now", keeping
the spacing between alerts, and posted payload by payload to
`{url}/api/v1/alerts/alertmanager`. Every alert carries the annotation
`rootward_bundle` with the path of the bundle written for it, so a demo
server can investigate the incident against its simulated data.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from rootward.domain.faults import FAULT_TYPES
from rootward.sim.generate import bundle_files, plan_bundles
from rootward.sim.render import write_bundle
from rootward.sim.topologies import BUILT_IN

ALERTMANAGER_PATH = "/api/v1/alerts/alertmanager"


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _iso(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


def live_payloads(alerts_json: bytes, now: datetime, bundle_path: str | None = None) -> list[dict[str, Any]]:
    """The bundle's payloads re-timed so the last thing that happened (a start or a resolve) is `now`."""
    data = json.loads(alerts_json)
    payloads: list[dict[str, Any]] = data if isinstance(data, list) else [data]
    moments = [_parse(a["startsAt"]) for p in payloads for a in p["alerts"]]
    moments += [
        _parse(a["endsAt"])
        for p in payloads
        for a in p["alerts"]
        if a.get("endsAt") and not str(a["endsAt"]).startswith("0001-")
    ]
    shift = now - max(moments)
    for p in payloads:
        for a in p["alerts"]:
            a["startsAt"] = _iso(_parse(a["startsAt"]) + shift)
            if a.get("endsAt") and not str(a["endsAt"]).startswith("0001-"):
                a["endsAt"] = _iso(_parse(a["endsAt"]) + shift)
            if bundle_path:
                a.setdefault("annotations", {})["rootward_bundle"] = bundle_path
    return payloads


def post_payloads(
    client: httpx.Client, url: str, token: str | None, payloads: list[dict[str, Any]], pause_s: float = 0.5
) -> list[int]:
    """POST each payload; returns the status codes. Connection errors propagate to the caller."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    codes = []
    for i, payload in enumerate(payloads):
        if i and pause_s:
            time.sleep(pause_s)
        resp = client.post(url.rstrip("/") + ALERTMANAGER_PATH, json=payload, headers=headers)
        codes.append(resp.status_code)
    return codes


def incident(index: int, seed: int | str, out: Path) -> tuple[Path, bytes]:
    """Bundle `index` of the stream (faults and topologies rotate), written under `out`."""
    topos = list(BUILT_IN.values())
    topo, fault = plan_bundles(index + 1, topos, list(FAULT_TYPES))[index]
    bundle_id, files, _ = bundle_files(topo, fault, seed, index)
    return write_bundle(files, out / bundle_id), files["alerts.json"]


def stream(
    url: str,
    token: str | None,
    out: Path,
    interval_s: float = 180.0,
    count: int = 0,
    seed: int | str = "stream",
    stop: threading.Event | None = None,
    on_post: Callable[[Path, list[int]], None] | None = None,
    retry_s: float = 2.0,
    client: httpx.Client | None = None,
) -> int:
    """Post one incident every `interval_s` until `count` are sent (0 = forever) or `stop` is set.

    A server that is not up yet is retried every `retry_s`; returns how many incidents were posted.
    """
    stop = stop or threading.Event()
    own = client is None
    http = client or httpx.Client(timeout=10.0)
    sent = 0
    try:
        index = 0
        while not stop.is_set() and (count == 0 or sent < count):
            path, alerts_json = incident(index, seed, out)
            while not stop.is_set():
                try:
                    payloads = live_payloads(alerts_json, datetime.now(UTC) - timedelta(seconds=1), str(path))
                    codes = post_payloads(http, url, token, payloads)
                    break
                except httpx.TransportError:
                    stop.wait(retry_s)
            else:
                break
            sent += 1
            index += 1
            if on_post:
                on_post(path, codes)
            if count and sent >= count:
                break
            stop.wait(interval_s)
    finally:
        if own:
            http.close()
    return sent
