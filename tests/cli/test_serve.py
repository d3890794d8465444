from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from rootward.cli import app
from rootward.ingest.payloads import parse_generic
from rootward.runtime.intake import accept_alerts
from rootward.settings import RouterSettings
from rootward.store.db import make_engine, make_session_factory

runner = CliRunner()


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in ("ROOTWARD_CONFIG", "ROOTWARD_DATABASE_URL", "ROOTWARD_DATABASE__URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)


def test_config_show_masks_secrets(tmp_path: Path) -> None:
    (tmp_path / "rootward.yaml").write_text("intake:\n  token: hunter2\n")
    result = runner.invoke(app, ["config", "show"])
    assert result.exit_code == 0, result.output
    assert "hunter2" not in result.output
    assert "token: '**********'" in result.output


def test_config_schema_is_json_schema() -> None:
    result = runner.invoke(app, ["config", "schema"])
    assert result.exit_code == 0
    assert "intake" in orjson.loads(result.output)["properties"]


def test_bad_config_fails_with_key_path_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("intake:\n  max_body_bytes: lots\n")
    result = runner.invoke(app, ["config", "show", "--config", str(path)])
    assert result.exit_code == 2
    assert "intake.max_body_bytes: Input should be a valid integer" in result.output


def test_db_upgrade_then_alerts_list_and_audit_verify(migrated_db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOTWARD_DATABASE_URL", migrated_db_url)
    assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0
    engine = make_engine(migrated_db_url)
    sessions = make_session_factory(engine)
    from datetime import UTC, datetime

    alerts = parse_generic(
        b'[{"name": "DiskFull", "service": "db"}, {"name": "Slow", "service": "api"}]', datetime.now(UTC)
    )
    accept_alerts(sessions, alerts, source="generic", settings=RouterSettings())

    listed = runner.invoke(app, ["alerts", "list", "--json"])
    assert listed.exit_code == 0
    assert sorted(orjson.loads(line)["service"] for line in listed.output.splitlines()) == ["api", "db"]
    assert "DiskFull" in runner.invoke(app, ["alerts", "list"]).output

    ok = runner.invoke(app, ["audit", "verify"])
    assert ok.exit_code == 0 and "audit chain ok" in ok.output
    with sessions.begin() as s:
        row_id = s.execute(text("SELECT min(id) FROM audit_log WHERE kind = 'alert.intake'")).scalar()
        s.execute(text("UPDATE audit_log SET subject = 'forged' WHERE id = :id"), {"id": row_id})
    engine.dispose()
    broken = runner.invoke(app, ["audit", "verify"])
    assert broken.exit_code == 1
    assert f"BROKEN at row {row_id}" in broken.output
