"""A series that left its normal for good brings its entity into the scope, however far below the alert it is."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.context.assemble import assemble_context
from rootward.context.metric_change import MIN_CHANGE
from rootward.sources.bundle import bundle_sources

START = datetime(2026, 3, 25, 0, 0, tzinfo=UTC)
STEP = timedelta(minutes=5)
FIRED = START + timedelta(hours=3, minutes=30)
END = FIRED + timedelta(minutes=10)
CHAIN = ["front", "orders", "billing", "ledger", "vault"]  # each calls the next; the alert is on the first


def _bundle(tmp_path: Path, jump_from: datetime) -> Path:
    """5-minute latencies on a call chain; the last service's latency is five times higher from `jump_from`."""
    root = tmp_path / "b"
    root.mkdir()
    (root / "incident.yaml").write_text(
        "format: rootward-bundle/v1\nid: deep\ntitle: HighLatency on front\n"
        f"fired_at: '{FIRED:%Y-%m-%dT%H:%M:%SZ}'\n"
        f"window:\n  start: '{START:%Y-%m-%dT%H:%M:%SZ}'\n  end: '{END:%Y-%m-%dT%H:%M:%SZ}'\n"
    )
    alert = {
        "status": "firing",
        "labels": {"alertname": "HighLatency", "service": "front"},
        "startsAt": f"{FIRED:%Y-%m-%dT%H:%M:%SZ}",
    }
    (root / "alerts.json").write_text(json.dumps({"version": "4", "status": "firing", "alerts": [alert]}))
    lines = ["entities:"]
    for caller, callee in zip(CHAIN, CHAIN[1:] + [None], strict=True):
        lines += [f"  {caller}:", "    kind: service"] + ([f"    depends_on:\n    - {callee}"] if callee else [])
    (root / "topology.yaml").write_text("\n".join(lines) + "\n")
    rng = random.Random(4)
    rows = ["timestamp,service,metric,value"]
    t = START
    while t <= END:
        for depth, service in enumerate(CHAIN):
            level = 20.0 * (len(CHAIN) - depth)
            value = level * rng.uniform(0.9, 1.1) * (5.0 if service == CHAIN[-1] and t >= jump_from else 1.0)
            rows.append(f"{int(t.timestamp())},{service},latency,{value:.2f}")
        t += STEP
    (root / "metrics.csv").write_text("\n".join(rows) + "\n")
    return root


def test_a_deep_entity_whose_series_moved_past_the_bar_is_in_scope(tmp_path: Path) -> None:
    # Only its last sample is out (the window ends 10 minutes after the alert): too few for a change
    # point of its own, but a move no noise makes. Four hops below the alert, it is out of the
    # neighbourhood an investigation starts from.
    bundle = load_bundle(_bundle(tmp_path, END))
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert not [a for a in ctx.anomalies if a.service == "vault"]
    assert "vault" in ctx.topology.entities
    moved = {m.entity: m for m in ctx.metric_changes}
    assert moved["vault"].score >= MIN_CHANGE


def test_what_did_not_move_stays_out(tmp_path: Path) -> None:
    bundle = load_bundle(_bundle(tmp_path, END + STEP))  # the jump comes after the data ends
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert "vault" not in ctx.topology.entities
