"""A real Alertmanager (Debian package prometheus-alertmanager) on 127.0.0.1 for tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

from tests.integration.processes import wait_until_ready


def alertmanager_binary() -> str | None:
    return shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Alertmanager:
    def __init__(self, binary: str, workdir: Path, webhook_url: str | None = None) -> None:
        self.binary = binary
        self.dir = workdir
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.webhook_url = webhook_url
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 30) -> None:
        receiver = "  - name: rootward\n"
        if self.webhook_url:
            receiver += f"    webhook_configs:\n      - url: '{self.webhook_url}'\n        send_resolved: true\n"
        (self.dir / "am.yml").write_text(
            "route:\n  receiver: rootward\n  group_by: ['alertname', 'service']\n"
            "  group_wait: 1s\n  group_interval: 5s\n  repeat_interval: 1h\n"
            "receivers:\n" + receiver
        )
        log = open(self.dir / "am.out", "wb")  # noqa: SIM115 - kept open for the process's life
        self._proc = subprocess.Popen(
            [
                self.binary,
                f"--config.file={self.dir / 'am.yml'}",
                f"--storage.path={self.dir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--cluster.listen-address=",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_until_ready(self._proc, self.url + "/-/ready", self.dir / "am.out", "alertmanager", timeout_s)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
