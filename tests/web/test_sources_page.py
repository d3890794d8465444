"""The console's sources page runs the check and shows one verdict a line."""

from __future__ import annotations

import html
from pathlib import Path

from fastapi.testclient import TestClient

from rootward.domain.roles import Role
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from tests.sources.local_http import Reply, Request, free_port, serve
from tests.web.signin import sign_in


def _loki(request: Request) -> Reply:
    if request.path == "/loki/api/v1/label/service/values":
        return Reply(body={"status": "success", "data": ["orders", "payment"]})
    return Reply(404, "not found")


def test_sources_page_shows_a_dead_prometheus_and_the_log_streams_of_a_service(
    sqlite_migrated_url: str, tmp_path: Path
) -> None:
    engine = make_engine(sqlite_migrated_url)
    with make_session_factory(engine)() as s, s.begin():
        add_user(s, "vic", Role.VIEWER)
        token = create_token(s, "vic")
    with serve(_loki) as (loki_url, _):
        settings = load_settings(
            data_dir=tmp_path,
            database={"url": sqlite_migrated_url},
            runtime={"workers": 0},
            loki={"base_url": loki_url},
            prometheus={"base_url": f"http://127.0.0.1:{free_port()}", "timeout_s": 2},
        )
        with TestClient(create_app(settings, engine=engine)) as client:
            assert client.get("/sources", follow_redirects=False).headers["location"] == "/login"
            sign_in(client, token)
            page = html.unescape(client.get("/sources?service=orders").text)
            unknown = html.unescape(client.get("/sources?service=cart").text)
    engine.dispose()
    assert "Prometheus: buildinfo cannot connect (connection refused)" in page
    assert "verdict-fail" in page
    assert 'log streams with service="orders" in the last hour' in page
    assert "not checked: prometheus is unreachable" in page
    assert 'no log stream with service="cart" in the last hour (2 service values seen)' in unknown
