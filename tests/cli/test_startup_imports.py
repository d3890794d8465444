"""The CLI starts with what the chosen verb needs, not with every dependency of every verb.

The test suite and the docs run the CLI hundreds of times, and an on-call
engineer runs it by hand: `rootward --help` or `rootward sim generate` must not
wait for SQLAlchemy, numpy, networkx or the whole settings schema to load. Each
case runs in a fresh interpreter (this test process has imported everything
already) and reads which modules the run left in `sys.modules`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rootward

SRC = Path(rootward.__file__).resolve().parents[1]  # the rootward this test imports, not an installed one
# Modules that cost tens to hundreds of milliseconds to import, and the verbs that need them import them.
HEAVY = (
    "sqlalchemy",
    "alembic",
    "numpy",
    "networkx",
    "httpx",
    "fastapi",
    "pydantic",
    "rootward.settings",
    "rootward.store",
    "rootward.engine",
)
DATABASE = ("sqlalchemy", "alembic", "rootward.store", "rootward.settings")

# Runs the CLI with the given arguments (or only imports it and builds its command tree, as `--help`
# does, when there are none) and prints the top-level names of the modules loaded to the last line.
_PROBE = """
import json, sys
import typer.main
from rootward.cli import app
if sys.argv[1:]:
    try:
        app(sys.argv[1:])
    except SystemExit as exc:
        if exc.code not in (0, 1, None):
            raise
else:
    typer.main.get_command(app)
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(*args: str, cwd: Path) -> set[str]:
    """The modules a fresh `rootward ARGS` process has imported when it finishes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def _present(loaded: set[str], modules: tuple[str, ...]) -> list[str]:
    return [name for name in modules if name in loaded or any(m.startswith(f"{name}.") for m in loaded)]


def test_importing_the_cli_and_building_its_help_loads_no_heavy_module(tmp_path: Path) -> None:
    loaded = _loaded(cwd=tmp_path)
    assert "rootward.cli.kb" in loaded  # the verbs were registered...
    assert _present(loaded, HEAVY) == []  # ... without what they run


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One simulated bundle, written by `rootward sim generate`, which itself must not open a database."""
    root = tmp_path_factory.mktemp("startup")
    loaded = _loaded("sim", "generate", "--out", str(root / "out"), "--count", "1", cwd=root)
    assert _present(loaded, (*DATABASE, "numpy", "networkx")) == []
    (path,) = (root / "out").iterdir()
    return path


def test_investigating_a_bundle_without_a_config_opens_no_database_and_loads_no_settings(
    bundle: Path, tmp_path: Path
) -> None:
    loaded = _loaded("investigate", str(bundle), "--json", cwd=tmp_path)
    assert "rootward.engine" in loaded  # it did investigate...
    assert _present(loaded, DATABASE) == []  # ... on the bundle alone
