"""The Grafana dashboard in deploy/grafana asks only for metrics `/metrics` exposes, in valid PromQL."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from rootward.observability.collector import metric_families
from rootward.observability.db_stats import DbSnapshot
from rootward.observability.tools import TOOL_METRICS

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "rootward.json"
SUFFIXES = ("", "_total", "_bucket", "_count", "_sum")


def _expressions() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]


def _exposed() -> set[str]:
    families = [*metric_families(DbSnapshot()), *TOOL_METRICS.collect()]
    return {f"{family.name}{suffix}" for family in families for suffix in SUFFIXES}


def test_dashboard_uses_only_metrics_rootward_exposes() -> None:
    used = {name for expr in _expressions() for name in re.findall(r"\brootward_[a-z_]+", expr)}
    assert used, "the dashboard queries nothing"
    assert used - _exposed() == set()


def test_every_panel_query_is_valid_promql(tmp_path: Path) -> None:
    if shutil.which("promtool") is None:
        pytest.skip("promtool not installed")
    exprs = [e.replace("$__rate_interval", "5m").replace("$__range", "1h") for e in _expressions()]
    rules = {
        "groups": [{"name": "dashboard", "rules": [{"record": f"panel:q{i}", "expr": e} for i, e in enumerate(exprs)]}]
    }
    path = tmp_path / "rules.yml"
    path.write_text(yaml.safe_dump(rules))
    check = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
