"""A scratch copy of a clone for running a doc's commands: nothing of the repository is written to.

It holds what a reader's checkout holds that the docs use (examples/, tests/fixtures,
deploy/, the Makefile, pyproject.toml) and a `.venv` that is the running
interpreter's virtualenv, already installed, so `make install` finds nothing to do.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.docs.doc_commands import REPO, blocks, script
from tests.sources.local_http import free_port

LINKED = ("examples", "tests", "deploy", "src")  # read only by the docs
COPIED = ("bench",)  # docs write results and baselines into it
TIMEOUT_S = 600


def workspace(root: Path) -> Path:
    """Lay out the copy under `root`; returns its checkout directory."""
    checkout = root / "checkout"
    checkout.mkdir()
    (root / "tmp").mkdir()
    for name in LINKED:
        (checkout / name).symlink_to(REPO / name)
    for name in COPIED:
        shutil.copytree(REPO / name, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("Makefile", "pyproject.toml", "README.md"):
        shutil.copyfile(REPO / name, checkout / name)
    os.utime(checkout / "pyproject.toml", (0, 0))  # older than the install stamp: `make install` is a no-op
    venv = checkout / ".venv"
    (venv / "bin").mkdir(parents=True)
    for tool in Path(sys.prefix, "bin").iterdir():
        (venv / "bin" / tool.name).symlink_to(tool)
    for name in ("lib", "lib64", "include", "pyvenv.cfg"):
        if Path(sys.prefix, name).exists():
            (venv / name).symlink_to(Path(sys.prefix, name))
    (venv / ".installed").touch()
    return checkout


def environment(checkout: Path, port: int) -> dict[str, str]:
    """The reader's environment: no ROOTWARD_* of the test run, the venv first on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_") and k not in ("MAKEFLAGS", "MAKELEVEL")}
    env["PATH"] = f"{checkout / '.venv' / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    env["PORT"] = str(port)
    env["HOME"] = str(checkout.parent)
    env["TMPDIR"] = str(checkout.parent / "tmp")  # temp files (the demo's bundles among them) stay in the copy
    env.pop("VIRTUAL_ENV", None)
    return env


def run_doc(
    doc: Path, *, long: bool = False, timeout_s: float = TIMEOUT_S, golden_cache: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run every runnable block of `doc` as one script in a fresh copy; output goes to the result.

    The script runs in its own process group, so a timeout stops whatever it started too.
    `golden_cache` shares the golden set between docs (tests/docs/doc_commands.py says how).
    """
    with tempfile.TemporaryDirectory(prefix="rootward-doc-") as tmp:
        root = Path(tmp)
        checkout = workspace(root)
        ports = {"8080": free_port(), "8081": free_port()}
        text = script(blocks(doc), ports=ports, tmp=root / "tmp", long=long, golden_cache=golden_cache)
        (root / "doc.sh").write_text(text)
        proc = subprocess.Popen(
            ["bash", str(root / "doc.sh")],
            cwd=checkout,
            env=environment(checkout, ports["8080"]),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            err += f"\ntimed out after {timeout_s:.0f} s"
        finally:
            _end_group(proc.pid)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _end_group(pgid: int, wait_s: float = 10.0) -> None:
    """Kill what the script left running in its process group and wait until it is gone.

    A server a doc starts in the background and stops on exit can still be writing its
    data directory (a database journal) as the script returns; removing the copy under
    it then fails with "Directory not empty" on a loaded machine.
    """
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
