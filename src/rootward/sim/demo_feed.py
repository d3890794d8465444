"""`rootward serve --demo`: feed the server a simulated incident every few minutes.

Runs in a background thread of the server process. The server may not be
listening yet when the thread starts, so connection errors are retried
quietly; `stop` ends the loop promptly. Bundles are written under
`$ROOTWARD_DATA_DIR/demo-bundles` (or the system temp dir) and named in each
alert's `rootward_bundle` annotation.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from pathlib import Path

from rootward.sim.stream import stream

log = logging.getLogger(__name__)


def bundle_dir() -> Path:
    root = os.environ.get("ROOTWARD_DATA_DIR") or tempfile.gettempdir()
    path = Path(root) / "demo-bundles"
    path.mkdir(parents=True, exist_ok=True)
    return path


def run(url: str, token: str | None, stop: threading.Event, interval_s: float = 180) -> None:
    """Post simulated alert storms to `{url}/api/v1/alerts/alertmanager` until `stop` is set."""

    def posted(path: Path, codes: list[int]) -> None:
        log.info("demo incident %s posted (HTTP %s)", path.name, ",".join(map(str, codes)))

    try:
        # A fresh sequence per server start, so restarted demos do not re-send known fingerprints.
        seed = f"demo{int(time.time())}"
        stream(url, token, bundle_dir(), interval_s=interval_s, seed=seed, stop=stop, on_post=posted)
    except Exception:  # the demo feed must never take the server down
        log.exception("demo feed stopped")
