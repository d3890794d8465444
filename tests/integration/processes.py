"""Starting a real server process for a test and waiting until it answers."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx


def wait_until_ready(proc: subprocess.Popen[bytes], url: str, log: Path, name: str, timeout_s: float) -> None:
    """Poll `url` until it answers 200; fail with the tail of the log if the process dies first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited: " + log.read_text()[-2000:])
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{name} did not start in {timeout_s:.0f} s")
