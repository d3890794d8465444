from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine

from rootward.settings import load_settings
from rootward.store.db import make_engine
from rootward.web.app import create_app


def test_healthz_answers_while_the_process_lives(migrated_db_url: str, tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"})
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").json() == {"status": "ok"}


def test_readyz_checks_the_database_and_expected_workers(migrated_db_url: str, tmp_path: Path) -> None:
    api_only = load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"}, runtime={"workers": 0}
    )
    with TestClient(create_app(api_only)) as client:
        response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"database": "ok", "workers": 0}

    with_workers = api_only.model_copy(update={"runtime": api_only.runtime.model_copy(update={"workers": 2})})
    with TestClient(create_app(with_workers)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["status"] == "not ready"


def test_readyz_reports_an_unreachable_database(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path,
        database={"url": "postgresql://nobody@127.0.0.1:1/none"},
        intake={"auth": "none"},
        runtime={"workers": 0},
    )
    with TestClient(create_app(settings)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"].startswith("unreachable")


def _read_only(url: str) -> Engine:
    """The same database, but every write refused (a read-only file or a PostgreSQL standby, in effect)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1]
        return create_engine(f"sqlite:///file:{path}?mode=ro&uri=true", connect_args={"check_same_thread": False})
    return make_engine(url.replace("options=", "options=-cdefault_transaction_read_only%3Don%20"))


def test_readyz_says_not_ready_when_every_write_fails(migrated_db_url: str, tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"}, runtime={"workers": 0}
    )
    engine = _read_only(migrated_db_url)
    try:
        with TestClient(create_app(settings, engine=engine)) as client:
            response = client.get("/readyz")
    finally:
        engine.dispose()
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not ready" and body["checks"]["database"].startswith("not writable")
    assert "read" in body["checks"]["database"].lower()  # the database's own words: read-only
