"""Console page latency with 10,000 incidents in the database.

Seeds a fresh SQLite database with `INCIDENTS` investigations (the result and
evidence JSON of a real investigation of a sample bundle (examples/), varied over
30 services, statuses, severities, tiers and 30 days; a fifth of them rated),
starts a real `rootward serve`, and times each console page over loopback:
the client-side wall time is an upper bound of the server-side time the
issue's 200 ms target is about. Bounded: `REQUESTS` timed requests per page.
"""

from __future__ import annotations

import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from rootward.bundle.load import load_bundle
from rootward.domain.roles import Role
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.evidence_view import evidence_data
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import add_feedback, save_investigation
from rootward.store.migrate import upgrade
from rootward.store.users import add_user, create_token

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "shop-connection-pool-exhaustion-00"
INCIDENTS = 10_000
SERVICES = [f"svc-{i:02d}" for i in range(30)]
REQUESTS = 100
WARMUP = 5
TARGET_MS = 200.0


def seed(url: str) -> tuple[str, str]:
    """10,000 investigations and a viewer token; returns (token, one investigation id)."""
    upgrade(url)
    result = investigate_bundle(EXAMPLE)
    template = result.model_dump(mode="json")
    data = evidence_data(result, load_bundle(EXAMPLE))
    rng = random.Random(7)
    now = datetime.now(UTC)
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    some_id = ""
    with sessions() as session:
        for n in range(INCIDENTS):
            doc = dict(template)
            doc["status"] = rng.choices(["validated", "inconclusive", "failed"], [70, 25, 5])[0]
            doc["bundle"] = f"bench-{n:05d}"
            row = save_investigation(
                session,
                doc,
                title=f"HighErrorRate on {SERVICES[n % 30]}",
                service=SERVICES[n % 30],
                severity=rng.choice(["P0", "P1", "P1", "P2", "P3"]),
                tier=rng.choice(["L1", "L2", "L2", "L3"]),
                evidence_data=data,
                created_at=now - timedelta(seconds=rng.uniform(0, 30 * 86400)),
            )
            some_id = some_id or row.id
            if rng.random() < 0.2:
                wrong = rng.random() < 0.3
                add_feedback(
                    session,
                    row.id,
                    target="rca",
                    verdict="wrong" if wrong else rng.choice(["accepted", "edited"]),
                    by="bench",
                    corrected_entity="checkout" if wrong else None,
                )
            if n % 500 == 499:
                session.commit()
        add_user(session, "bench", Role.VIEWER)
        token = create_token(session, "bench", "bench")
        session.commit()
    engine.dispose()
    return token, some_id


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(base: str, token: str, path: str) -> dict[str, Any]:
    times = []
    with httpx.Client(base_url=base, headers={"authorization": f"Bearer {token}"}, timeout=30) as client:
        for i in range(WARMUP + REQUESTS):
            started = time.perf_counter()
            response = client.get(path)
            elapsed = (time.perf_counter() - started) * 1000
            response.raise_for_status()
            if i >= WARMUP:
                times.append(elapsed)
    p50, p95, p99 = statistics.median(times), _percentile(times, 0.95), _percentile(times, 0.99)
    return {
        "p50_ms": round(p50, 1),
        "p95_ms": round(p95, 1),
        "p99_ms": round(p99, 1),
        "max_ms": round(max(times), 1),
        "ok": p99 <= TARGET_MS,
    }


def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rootward-bench-console-") as tmp:
        data_dir = Path(tmp)
        url = f"sqlite:///{data_dir / 'rootward.db'}"
        started = time.perf_counter()
        token, some_id = seed(url)
        seed_s = time.perf_counter() - started
        with socket.socket() as probe:  # a free port, released just before serve binds it
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
        env.update(
            ROOTWARD_DATA_DIR=str(data_dir),
            ROOTWARD_RUNTIME__WORKERS="0",
            ROOTWARD_INTAKE__AUTH="none",
            ROOTWARD_SERVER__LOG_LEVEL="warning",
        )
        rootward = str(Path(sys.executable).parent / "rootward")
        log = (data_dir / "serve.log").open("wb")
        proc = subprocess.Popen(
            [rootward, "serve", "--host", "127.0.0.1", "--port", str(port)], env=env, stdout=log, stderr=log
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("rootward serve did not start: " + (data_dir / "serve.log").read_text()[-2000:])
                time.sleep(0.3)
            pages = {
                "/incidents": "/incidents",
                "/incidents?service=X": f"/incidents?service={SERVICES[7]}",
                "/incidents?status=inconclusive&severity=P1": "/incidents?status=inconclusive&severity=P1",
                "/incidents/rows (live refresh)": "/incidents/rows",
                "/incidents/{id}": f"/incidents/{some_id}",
                "/quality": "/quality",
                "/metrics": "/metrics",
            }
            results = {name: measure(base, token, path) for name, path in pages.items()}
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            log.close()
    out = {
        "incidents": INCIDENTS,
        "database": "sqlite",
        "requests_per_page": REQUESTS,
        "target_p99_ms": TARGET_MS,
        "seed_s": round(seed_s, 1),
        "note": "client wall time over loopback (upper bound of server time), one client, 2-core shared machine",
        "load_average_1m": round(os.getloadavg()[0], 2),
        "pages": results,
        "all_within_target": all(r["ok"] for r in results.values()),
    }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "console.json").write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
