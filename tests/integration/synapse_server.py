"""A real Matrix homeserver (Synapse, SQLite) on 127.0.0.1 for integration tests.

Synapse lives in its own virtualenv (`make synapse` → `.venv-synapse`, or
`ROOTWARD_SYNAPSE_PYTHON`) because its dependency pins are not ours.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import httpx
import yaml

from tests.integration.processes import wait_until_ready

REPO = Path(__file__).resolve().parents[2]


def synapse_python() -> Path | None:
    env = os.environ.get("ROOTWARD_SYNAPSE_PYTHON")
    candidates = [Path(env)] if env else []
    candidates.append(REPO / ".venv-synapse" / "bin" / "python")
    return next((c for c in candidates if c.is_file()), None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Synapse:
    def __init__(self, python: Path, workdir: Path) -> None:
        self.python = python
        self.dir = workdir
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 60) -> None:
        config = self.dir / "hs.yaml"
        subprocess.run(
            [
                str(self.python),
                "-m",
                "synapse.app.homeserver",
                "--server-name",
                "localhost",
                "--config-path",
                str(config),
                "--generate-config",
                "--report-stats=no",
            ],
            cwd=self.dir,
            check=True,
            capture_output=True,
        )
        data = yaml.safe_load(config.read_text())
        data["listeners"] = [
            {
                "port": self.port,
                "bind_addresses": ["127.0.0.1"],
                "type": "http",
                "tls": False,
                "x_forwarded": False,
                "resources": [{"names": ["client"], "compress": False}],
            }
        ]
        data["enable_registration"] = True
        data["enable_registration_without_verification"] = True
        data["trusted_key_servers"] = []
        data["suppress_key_server_warning"] = True
        data["report_stats"] = False
        many = {"per_second": 1000, "burst_count": 1000}
        data.update(
            rc_message=many,
            rc_registration=many,
            rc_room_creation=many,
            rc_login={"address": many, "account": many, "failed_attempts": many},
            rc_joins={"local": many, "remote": many},
            rc_invites={"per_room": many, "per_user": many, "per_issuer": many},
        )
        config.write_text(yaml.safe_dump(data))
        log = open(self.dir / "synapse.out", "wb")  # noqa: SIM115 - kept open for the process's life
        self._proc = subprocess.Popen(
            [str(self.python), "-m", "synapse.app.homeserver", "--config-path", str(config)],
            cwd=self.dir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_until_ready(
            self._proc, self.url + "/_matrix/client/versions", self.dir / "synapse.out", "synapse", timeout_s
        )

    def register(self, username: str, password: str = "rootward-test-pw") -> dict[str, str]:
        body = {
            "username": username,
            "password": password,
            "auth": {"type": "m.login.dummy"},
            "initial_device_display_name": "test",
        }
        response = httpx.post(self.url + "/_matrix/client/v3/register", json=body, timeout=10)
        response.raise_for_status()
        data: dict[str, str] = response.json()
        return data

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
