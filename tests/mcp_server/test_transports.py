"""`rootward mcp` as a real process, driven by the SDK's own client over stdio and over streamable HTTP."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from rootward.mcp.audit import KIND
from rootward.store.audit import AuditRow
from rootward.store.db import make_engine, make_session_factory
from tests.mcp_server.conftest import CLI, World
from tests.sources.local_http import free_port

pytestmark = pytest.mark.e2e
QUESTION = "what changed before this?"


def test_stdio_serves_the_tools_to_the_token_of_its_environment(world: World) -> None:
    params = StdioServerParameters(
        command=CLI[0],
        args=[*CLI[1:], "mcp", "--bundle-dir", str(world.bundles)],
        env=world.env(ROOTWARD_TOKEN=world.viewer),
    )

    async def session() -> tuple[set[str], str, bool]:
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            asked = await client.call_tool("ask", {"investigation_id": world.incident_id, "question": QUESTION})
            refused = await client.call_tool("investigate_bundle", {"path": str(world.bundle)})
            return names, asked.structured_content["answer"], refused.is_error  # type: ignore[index]

    names, answer, refused = anyio.run(session)
    assert {"list_incidents", "get_rca", "get_evidence", "ask", "investigate_bundle", "sources_check"} <= names
    assert world.change_id in answer
    assert refused  # a viewer's token: investigate_bundle needs responder


@pytest.mark.parametrize("token", [None, "rw_forged"])
def test_stdio_without_a_live_token_exits_2_before_serving(world: World, token: str | None) -> None:
    env = world.env(**({"ROOTWARD_TOKEN": token} if token else {}))
    done = subprocess.run([*CLI, "mcp"], env=env, input=b"", capture_output=True, timeout=60)
    assert done.returncode == 2
    assert b"ROOTWARD_TOKEN" in done.stderr and done.stdout == b""


@pytest.fixture
def http_server(world: World) -> Iterator[str]:
    port = free_port()
    log = (world.tmp / "mcp.log").open("wb")
    proc = subprocess.Popen(
        [*CLI, "mcp", "--transport", "http", "--port", str(port), "--bundle-dir", str(world.bundles)],
        env=world.env(ROOTWARD_SERVER__LOG_LEVEL="warning"),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError("rootward mcp exited: " + (world.tmp / "mcp.log").read_text()[-2000:])
            try:
                httpx.post(url, timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def _client(url: str, token: str) -> Client:
    return Client(
        streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}))
    )


def test_http_without_a_live_token_is_a_401_with_a_bearer_challenge(http_server: str) -> None:
    for headers in ({}, {"Authorization": "Bearer rw_forged"}):
        response = httpx.post(http_server, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        assert "rootward tokens create" in response.json()["error"]


def test_http_checks_each_request_by_its_own_token(http_server: str, world: World) -> None:
    async def as_viewer() -> tuple[list[str], str, bool]:
        async with _client(http_server, world.viewer) as client:
            listed = await client.call_tool("list_incidents", {})
            asked = await client.call_tool("ask", {"investigation_id": world.incident_id, "question": QUESTION})
            refused = await client.call_tool("sources_check", {})
            ids = [i["id"] for i in listed.structured_content["incidents"]]  # type: ignore[index]
            return ids, asked.structured_content["answer"], refused.is_error  # type: ignore[index]

    async def as_responder() -> dict[str, object]:
        async with _client(http_server, world.responder) as client:
            done = await client.call_tool("investigate_bundle", {"path": str(world.bundle)})
            assert not done.is_error, done.content
            return done.structured_content  # type: ignore[return-value]

    ids, answer, refused = anyio.run(as_viewer)
    assert ids == [world.incident_id] and world.change_id in answer and refused
    rca = anyio.run(as_responder)
    assert rca["status"] == "validated"
    with make_session_factory(make_engine(world.db_url))() as session:
        rows = session.scalars(select(AuditRow).where(AuditRow.kind == KIND).order_by(AuditRow.id)).all()
        audited = [(d["user"], d["tool"], d["outcome"]) for d in (json.loads(r.data) for r in rows)]
    assert audited == [  # each request audited under its own token's user
        ("vic", "list_incidents", "ok"),
        ("vic", "ask", "ok"),
        ("vic", "sources_check", "refused"),
        ("rita", "investigate_bundle", "ok"),
    ]


def test_http_legacy_handshake_clients_are_served_too(http_server: str, world: World) -> None:
    async def legacy() -> str:
        transport = streamable_http_client(
            http_server, http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {world.viewer}"})
        )
        async with Client(transport, mode="legacy") as client:
            read = await client.read_resource(f"rootward://incidents/{world.incident_id}/rca")
            return read.contents[0].text  # type: ignore[union-attr]

    assert "## Root-cause analysis" in anyio.run(legacy)
