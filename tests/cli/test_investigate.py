"""`rootward investigate` takes its budgets from the `engine:` section and its prices from `llm.prices`."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rootward.cli import app
from rootward.sim.generate import generate
from tests.fixtures.fake_llm import Calls, FakeLLMServer


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        srv.routes["suggest root-cause hypotheses"] = deque(['{"hypotheses": []}'])
        srv.routes["You write the summary"] = deque(['{"sentences": []}'])
        srv.routes["You are the model specialist"] = deque([Calls((("dependents", {"entity": "nowhere"}),))] * 20)
        yield srv


def test_a_configured_cost_cap_stops_the_model_and_is_printed_as_the_gap(
    server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    [bundle] = generate(tmp_path / "bundles", count=1, seed="cost-cap", faults=["deploy_regression"])
    config = {
        "data_dir": str(tmp_path),
        "engine": {"cost_usd": 0.5},
        "llm": {
            "provider": "openai",
            "base_url": server.base_url,
            "api_key": "t",
            "model": "m",
            "prices": {"m": {"input_per_mtok": 200.0, "output_per_mtok": 200.0}},
        },
    }
    (tmp_path / "rootward.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.setenv("ROOTWARD_CONFIG", str(tmp_path / "rootward.yaml"))

    run = CliRunner().invoke(app, ["investigate", str(bundle.path), "--json"])

    assert run.exit_code == 0, run.output
    result = json.loads(run.output)
    calls = len(server.requests)
    assert calls >= 2
    assert f"budget exhausted: cost cap $0.50 reached after {calls} calls" in result["gaps"]
    assert result["status"] == "inconclusive" and result["hypotheses"]
