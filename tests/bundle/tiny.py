"""A tiny bundle written file by file, for tests that must not depend on generated examples."""

from __future__ import annotations

import json
from pathlib import Path

INCIDENT = (
    "format: rootward-bundle/v1\nid: tiny-01\ntitle: Tiny\nfired_at: '2026-03-14T14:32:00Z'\n"
    "window:\n  start: '2026-03-14T14:00:00Z'\n  end: '2026-03-14T15:00:00Z'\n"
)
ALERT = {
    "status": "firing",
    "labels": {"alertname": "HighErrorRate", "service": "api", "severity": "critical"},
    "annotations": {},
    "startsAt": "2026-03-14T14:32:00Z",
    "endsAt": "0001-01-01T00:00:00Z",
    "generatorURL": "",
    "fingerprint": "abc",
}
ALERTS = json.dumps([{"version": "4", "status": "firing", "alerts": [ALERT]}])
LOG = '{"ts": "2026-03-14T14:31:02Z", "service": "api", "level": "ERROR", "message": "boom"}'
# One trace: api (root, server) calls db; db's span failed. 14:31:00Z is epoch 1773498660.
ROOT_SPAN = {
    "trace_id": "t1", "span_id": "a1", "parent_id": None, "service": "api", "operation": "GET /pay",
    "start": "2026-03-14T14:31:00Z", "duration_ms": 212.5, "status": "ok", "kind": "server",
}  # fmt: skip
CHILD_SPAN = {
    "trace_id": "t1", "span_id": "b1", "parent_id": "a1", "service": "db", "operation": "SELECT",
    "start": "2026-03-14T14:31:00.050Z", "duration_ms": 150, "status": "error", "kind": "client",
    "pod": "db-0", "attributes": {"db.system": "postgresql"},
}  # fmt: skip
TRACES = json.dumps(ROOT_SPAN) + "\n" + json.dumps(CHILD_SPAN) + "\n"
CHANGE = {"id": "d-1", "kind": "deploy", "service": "api", "time": "2026-03-14T14:20:00Z"}


def write_bundle(root: Path) -> Path:
    files = {
        "incident.yaml": INCIDENT,
        "alerts.json": ALERTS,
        "topology.yaml": "entities:\n  api: {kind: service, depends_on: [db]}\n",
        "logs.jsonl": LOG + "\n",
        "metrics.csv": "timestamp,service,metric,value\n1773498600,api,error_rate,0.01\n",
        "traces.jsonl": TRACES,
        "changes.json": json.dumps([CHANGE]),
        "knowledge/runbooks/api.md": "---\nservice: api\nupdated: 2026-02-01\n---\n# API\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
