from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from rootward.settings import load_settings
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
