"""Every CLI command on an un-migrated or unreachable database: one line that says so and how to fix it, exit 2.

The commands are enumerated from the typer app, so a command added later is
covered without touching this file: it either opens the database (and is run
here) or is listed in NO_DATABASE; each required parameter needs an example
value in EXAMPLES (the test says which one is missing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml
from sqlalchemy import create_engine, inspect
from typer.testing import CliRunner

from rootward.cli import app

# Verbs that never open the database (bundle files, the simulator, log files, the config itself).
NO_DATABASE = {
    "investigate",
    "context",
    "demo",
    "eval",
    "config show",
    "config schema",
    "logs cluster",
    "logs scrub",
    "logs guard",
    "logs accuracy",
    "sim generate",
    "sim golden",
    "sim vary",
    "sim stream",
    "graph backtest",
    "sources check",
}
# Verbs that migrate the database and then run until stopped: run here only against an unreachable one.
LONG_RUNNING = {"serve", "worker"}
# Example values of required parameters, by parameter name ("{bundles}": a directory with one bundle).
EXAMPLES = {
    "investigation_id": ["no-such-investigation"],
    "job_id": ["no-such-job"],
    "question": ["why?"],
    "query": ["connection pool"],
    "draft_id": ["no-such-draft"],
    "approval_id": ["no-such-approval"],
    "token_id": ["no-such-token"],
    "token": ["no-such-token"],
    "user": ["alice"],
    "name": ["alice"],
    "who": ["alice"],
    "assignee": ["bob"],
    "entity": ["checkout"],
    "directory": ["{bundles}"],
    "bundles": ["{bundles}"],
    "file": ["{bundles}/kb-eval.json"],
    "result": ["{bundles}/result.json"],
    "trial": ["no-such-trial"],
    "template": ["write_system"],
    "variant": ["terse"],
    "arm": ["terse"],
    "reason": ["beats control"],
}
# Options a verb needs to get as far as the database (or to return instead of running forever).
EXTRA_ARGS = {
    "graph seed": ["--topology", "{bundles}/only/topology.yaml"],
    "executor": ["--once"],
    "kb search": ["--no-dense"],
    "kb eval": ["--no-dense", "--from-db"],
    "kb ingest": ["{bundles}/only/knowledge"],
    "risk report": ["--prometheus", "http://127.0.0.1:1"],
    "judge": ["--store", "no-such-investigation"],
}
UNREACHABLE_URL = "postgresql+psycopg://rootward@127.0.0.1:1/rootward"


def _leaf_commands() -> Iterator[tuple[str, Any]]:
    def walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
        children = getattr(command, "commands", None)
        if children is None:
            yield " ".join(path), command
            return
        for name, child in sorted(children.items()):
            yield from walk(child, (*path, name))

    yield from walk(typer.main.get_command(app), ())


DATABASE_COMMANDS = {path: command for path, command in _leaf_commands() if path not in NO_DATABASE}


def _arguments(path: str, bundles: Path) -> list[str]:
    """The command line of `path`: its words, an example for each required parameter, its extra options."""
    command = DATABASE_COMMANDS[path]
    args = path.split()
    for param in command.params:
        if not param.required:
            continue
        if param.name not in EXAMPLES:
            pytest.fail(f"`rootward {path}`: add an example value for its required parameter {param.name!r}")
        values = [v.format(bundles=bundles) for v in EXAMPLES[param.name]]
        if param.param_type_name == "option":
            args.append(param.opts[0])
        args.extend(values)
    args.extend(v.format(bundles=bundles) for v in EXTRA_ARGS.get(path, []))
    return args


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One simulated incident bundle (with truth) and a knowledge-base evaluation file."""
    root = tmp_path_factory.mktemp("bundles")
    generated = CliRunner().invoke(
        app, ["sim", "generate", "--out", str(root / "gen"), "--count", "1", "--topology", "homelab"]
    )
    assert generated.exit_code == 0, generated.output
    (bundle,) = (root / "gen").iterdir()
    bundle.rename(root / "only")
    (root / "gen").rmdir()
    investigated = CliRunner().invoke(app, ["investigate", str(root / "only"), "--json"])
    assert investigated.exit_code in (0, 1), investigated.output
    (root / "result.json").write_text(investigated.output[investigated.output.index("{") :])
    (root / "kb-eval.json").write_text(json.dumps({"name": "one query", "now": "2026-10-01", "queries": []}))
    return root


def _config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "rootward.yaml"
    path.write_text(yaml.safe_dump({"database": {"url": url}, "data_dir": str(tmp_path / "data")}))
    return path


def _run(path: str, config: Path, bundles: Path) -> Any:
    env: dict[str, str | None] = {key: None for key in os.environ if key.startswith("ROOTWARD_")}
    env["ROOTWARD_CONFIG"] = str(config)
    return CliRunner().invoke(app, _arguments(path, bundles), env=env)


def _is_migrated(url: str) -> bool:
    engine = create_engine(url)
    try:
        return inspect(engine).has_table("alembic_version")
    finally:
        engine.dispose()


def _assert_one_line_exit_2(result: Any, path: str, *phrases: str) -> None:
    stray = result.exception if not isinstance(result.exception, SystemExit) else None
    assert stray is None, f"`rootward {path}` raised {type(stray).__name__}: {stray}"
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, f"`rootward {path}` exited {result.exit_code}: {result.output}"
    assert len(lines) == 1, f"`rootward {path}` printed {len(lines)} lines: {result.stderr}"
    for phrase in phrases:
        assert phrase in lines[0], f"`rootward {path}`: {phrase!r} not in {lines[0]!r}"


@pytest.mark.parametrize("path", sorted(DATABASE_COMMANDS))
def test_command_on_an_unreachable_database_says_so_in_one_line_and_exits_2(
    path: str, tmp_path: Path, bundles: Path
) -> None:
    result = _run(path, _config(tmp_path, UNREACHABLE_URL), bundles)
    _assert_one_line_exit_2(
        result, path, "cannot reach the database at postgresql+psycopg://rootward@127.0.0.1:1/rootward", "database.url"
    )


@pytest.mark.parametrize("path", sorted(set(DATABASE_COMMANDS) - LONG_RUNNING))
def test_command_on_an_empty_database_says_to_migrate_it_or_migrates_it(
    path: str, db_url: str, tmp_path: Path, bundles: Path
) -> None:
    result = _run(path, _config(tmp_path, db_url), bundles)
    if _is_migrated(db_url):  # verbs that migrate first (db upgrade, kb, graph seed, users, ...)
        stray = result.exception if not isinstance(result.exception, SystemExit) else None
        assert stray is None, f"`rootward {path}` migrated, then raised {type(stray).__name__}: {stray}"
        assert "not migrated" not in result.stderr
        return
    _assert_one_line_exit_2(result, path, "is not migrated", "run `rootward db upgrade`")


def test_audit_verify_on_an_unmigrated_sqlite_file_prints_one_line_not_a_traceback(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rootward.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
    rootward = str(Path(sys.executable).parent / "rootward")
    done = subprocess.run(
        [rootward, "audit", "verify", "--config", str(_config(tmp_path, url))],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"error: the database at {url} is not migrated (no such table: audit_log): run `rootward db upgrade`"
    ]


def test_every_verb_listed_as_not_touching_the_database_still_exists() -> None:
    """A renamed verb must not stay excluded from the database tests under its old name."""
    assert {path for path, _command in _leaf_commands()} >= NO_DATABASE
    assert {"audit verify", "alerts list", "serve", "worker", "db upgrade"} <= set(DATABASE_COMMANDS)
