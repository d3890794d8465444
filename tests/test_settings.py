from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from rootward.settings import ConfigError, json_schema, load_settings, masked_dump


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in ("ROOTWARD_CONFIG", "ROOTWARD_DATABASE_URL", "ROOTWARD_DATA_DIR", "ROOTWARD_DATABASE__URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)


def test_defaults_put_sqlite_under_var() -> None:
    settings = load_settings()
    assert settings.database_url == "sqlite:///var/rootward.db"
    assert settings.router.group_window == timedelta(minutes=5)
    assert settings.intake.max_body_bytes == 1024 * 1024
    assert settings.runtime.max_concurrent == 10


def test_yaml_file_then_environment_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rootward.yaml"
    path.write_text("intake:\n  token: s3cret\n  max_body_bytes: 100\nrouter:\n  group_window: PT2M\n")
    monkeypatch.setenv("ROOTWARD_INTAKE__MAX_BODY_BYTES", "200")
    settings = load_settings(path)
    assert settings.intake.max_body_bytes == 200
    assert settings.intake.token is not None and settings.intake.token.get_secret_value() == "s3cret"
    assert settings.router.group_window == timedelta(minutes=2)


def test_config_env_variable_and_database_url_shortcut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "other.yaml"
    path.write_text("server:\n  port: 9000\n")
    monkeypatch.setenv("ROOTWARD_CONFIG", str(path))
    monkeypatch.setenv("ROOTWARD_DATABASE_URL", "postgresql://rw:pw@db/rootward")
    settings = load_settings()
    assert settings.server.port == 9000
    assert settings.database_url == "postgresql://rw:pw@db/rootward"


def test_show_masks_secrets_and_database_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOTWARD_DATABASE__URL", "postgresql://rw:pw@db/rootward")
    shown = masked_dump(load_settings(intake={"token": "s3cret"}))
    assert shown["intake"]["token"] == "**********"
    assert shown["database"]["url"] == "postgresql://rw:**********@db/rootward"


def test_bad_config_names_every_key_path_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("databse: {}\nrouter:\n  tiers:\n    - tier: L9\nruntime:\n  workers: -1\n")
    with pytest.raises(ConfigError) as err:
        load_settings(path)
    message = str(err.value)
    assert "databse: Extra inputs are not permitted" in message
    assert "router.tiers.0.tier: Input should be 'L0', 'L1', 'L2' or 'L3'" in message
    assert "runtime.workers: Input should be greater than or equal to 0" in message


def test_missing_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "nope.yaml")


def test_schema_documents_each_section() -> None:
    schema = json_schema()
    assert {"database", "intake", "router", "runtime", "server"} <= set(schema["properties"])
    assert "IntakeSettings" in schema["$defs"]


def test_the_executors_old_verify_ssl_key_still_works_with_a_deprecation_warning(tmp_path: Path) -> None:
    old = {"executor": {"kubernetes": {"host": "https://k8s:6443", "verify_ssl": False}}}
    with pytest.warns(FutureWarning, match="rename it `verify_tls`"):
        settings = load_settings(data_dir=tmp_path, actions=old)
    assert settings.actions.executor.kubernetes is not None
    assert settings.actions.executor.kubernetes.verify_tls is False


def test_verify_tls_and_its_old_name_together_are_a_config_error(tmp_path: Path) -> None:
    both = {"executor": {"kubernetes": {"host": "https://k8s:6443", "verify_ssl": False, "verify_tls": True}}}
    with pytest.raises(ConfigError, match="verify_tls"):
        load_settings(data_dir=tmp_path, actions=both)
