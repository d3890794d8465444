from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rootward.cli import app
from rootward.llm.client import CallRecord
from rootward.store.db import make_engine, make_session_factory
from rootward.store.llm_calls import record_llm_call
from rootward.store.migrate import upgrade


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ROOTWARD_DATABASE__URL", raising=False)
    url = f"sqlite:///{tmp_path / 'rootward.db'}"
    upgrade(url)
    engine = make_engine(url)
    with make_session_factory(engine)() as s:
        record_llm_call(s, CallRecord("rca", "openai", "gpt-x", "ok", 1000, 100, 0.02, 800), "i1", "checkout")
        record_llm_call(s, CallRecord("rca", "openai", "gpt-x", "error", 500, 0, 0.0, 900, "boom"), "i1", "checkout")
        record_llm_call(s, CallRecord("rca", "local", "llama", "ok", 4000, 300, 0.0, 2000), "i2", "payment")
        s.commit()
    engine.dispose()
    return tmp_path


def test_costs_by_service_sums_tokens_cost_and_errors(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["costs", "--by", "service", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["key"]: r for r in json.loads(result.output)}
    assert rows["checkout"] == {
        "key": "checkout",
        "calls": 2,
        "input_tokens": 1500,
        "output_tokens": 100,
        "cost_usd": 0.02,
        "errors": 1,
    }
    assert rows["payment"]["cost_usd"] == 0.0


def test_costs_table_lists_the_most_expensive_provider_first(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["costs", "--by", "provider"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("PROVIDER") and lines[1].startswith("openai") and lines[2].startswith("local")


def test_costs_rejects_an_unknown_grouping(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["costs", "--by", "team"])
    assert result.exit_code == 2
