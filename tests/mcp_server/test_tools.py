"""The MCP tools and resources through the SDK's own client, connected in-process: what an assistant sees."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client, MCPError
from mcp.types import CallToolResult

from rootward.domain.roles import Role
from rootward.engine.entry_point import investigate_bundle
from rootward.mcp.access import TokenAccess
from rootward.mcp.server import McpDeps, build_server
from rootward.mcp.source_checks import sources_report
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user, create_token, revoke_token
from tests.mcp_server.conftest import World

TOOLS = {"list_incidents", "get_rca", "get_evidence", "ask", "investigate_bundle", "sources_check"}


def _deps(world: World, token: str, *, roots: tuple[Path, ...] | None = None) -> McpDeps:
    sessions = make_session_factory(make_engine(world.db_url))
    return McpDeps(
        sessions=sessions,
        access=TokenAccess(sessions, token=token),
        investigate=investigate_bundle,
        check_sources=lambda services: sources_report({}, services),
        bundle_roots=(world.bundles,) if roots is None else roots,
        console_url="http://console.example",
    )


async def _call(deps: McpDeps, tool: str, args: dict[str, object]) -> CallToolResult:
    async with Client(build_server(deps)) as client:
        return await client.call_tool(tool, args)


def call(deps: McpDeps, tool: str, **args: object) -> CallToolResult:
    return anyio.run(_call, deps, tool, args)


def test_the_six_tools_are_listed_read_only_with_output_schemas(world: World) -> None:
    async def listing() -> list:  # type: ignore[type-arg]
        async with Client(build_server(_deps(world, world.viewer))) as client:
            return (await client.list_tools()).tools

    tools = anyio.run(listing)
    assert {t.name for t in tools} == TOOLS
    assert all(t.annotations and t.annotations.read_only_hint for t in tools)
    assert all(t.output_schema for t in tools)


def test_a_viewer_lists_incidents_and_reads_the_rca_with_its_cited_claims(world: World) -> None:
    deps = _deps(world, world.viewer)
    listed = call(deps, "list_incidents", limit=5).structured_content
    assert listed is not None
    assert [i["id"] for i in listed["incidents"]] == [world.incident_id]
    assert listed["incidents"][0]["top_fault"] == "deploy_regression"
    assert listed["incidents"][0]["console_url"] == f"http://console.example/incidents/{world.incident_id}"
    rca = call(deps, "get_rca", investigation_id=world.incident_id[:8]).structured_content
    assert rca is not None and rca["id"] == world.incident_id
    assert rca["claims"] and all(c["evidence"] for c in rca["claims"])
    assert "## Root-cause analysis" in rca["markdown"]


def test_ask_what_changed_cites_the_deploy_with_its_kept_diff(world: World) -> None:
    reply = call(
        _deps(world, world.viewer), "ask", investigation_id=world.incident_id, question="what changed before this?"
    )
    out = reply.structured_content
    assert out is not None and not reply.is_error
    assert world.change_id in out["answer"]
    change = next(e for e in out["evidence"] if e["kind"] == "change")
    assert change["cite"] == f"changes.json:{world.change_id}"
    assert change["data"]["version"]


def test_get_evidence_returns_the_asked_items_and_names_unknown_ids(world: World) -> None:
    out = call(
        _deps(world, world.viewer), "get_evidence", investigation_id=world.incident_id, evidence_ids=["E1", "E999"]
    )
    assert out.structured_content is not None
    assert [i["id"] for i in out.structured_content["items"]] == ["E1"]
    assert out.structured_content["unknown"] == ["E999"]


def test_an_unknown_incident_is_a_tool_error_naming_it(world: World) -> None:
    reply = call(_deps(world, world.viewer), "get_rca", investigation_id="nope-nope")
    assert reply.is_error and "no investigation 'nope-nope'" in reply.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("tool", ["investigate_bundle", "sources_check"])
def test_a_viewer_is_refused_the_responder_tools(world: World, tool: str) -> None:
    args = {"path": str(world.bundle)} if tool == "investigate_bundle" else {}
    reply = call(_deps(world, world.viewer), tool, **args)
    assert reply.is_error
    assert f"vic is viewer; {tool} needs responder" in reply.content[0].text  # type: ignore[union-attr]


def test_a_responder_investigates_a_bundle_under_the_allowed_directory_and_nothing_is_stored(world: World) -> None:
    deps = _deps(world, world.responder)
    rca = call(deps, "investigate_bundle", path=str(world.bundle)).structured_content
    assert rca is not None and rca["id"] == "" and rca["status"] == "validated"
    assert rca["hypotheses"][0]["fault_type"] == "deploy_regression"
    listed = call(deps, "list_incidents").structured_content
    assert listed is not None and len(listed["incidents"]) == 1


def test_investigate_bundle_refuses_paths_outside_the_allowed_directories(world: World) -> None:
    deps = _deps(world, world.responder)
    escape = call(deps, "investigate_bundle", path=str(world.bundles / ".." / ".."))
    assert escape.is_error and "outside the allowed bundle directories" in escape.content[0].text  # type: ignore[union-attr]
    off = call(_deps(world, world.responder, roots=()), "investigate_bundle", path=str(world.bundle))
    assert off.is_error and "--bundle-dir" in off.content[0].text  # type: ignore[union-attr]


def test_a_revoked_token_is_refused_on_the_next_call(world: World) -> None:
    deps = _deps(world, world.viewer)
    assert not call(deps, "list_incidents").is_error
    with deps.sessions() as session, session.begin():
        revoke_token(session, world.viewer)
    reply = call(deps, "list_incidents")
    assert reply.is_error and "invalid, revoked or disabled API token" in reply.content[0].text  # type: ignore[union-attr]


def test_resources_give_the_rca_as_markdown_and_the_evidence_as_json(world: World) -> None:
    async def read() -> tuple[str, str, list[str]]:
        async with Client(build_server(_deps(world, world.viewer))) as client:
            templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            rca = await client.read_resource(f"rootward://incidents/{world.incident_id}/rca")
            evidence = await client.read_resource(f"rootward://incidents/{world.incident_id}/evidence")
            return rca.contents[0].text, evidence.contents[0].text, templates  # type: ignore[union-attr]

    rca, evidence, templates = anyio.run(read)
    assert set(templates) == {
        "rootward://incidents/{investigation_id}/rca",
        "rootward://incidents/{investigation_id}/evidence",
    }
    assert rca.startswith("# ") and "## Hypotheses" in rca
    items = json.loads(evidence)["items"]
    assert any(i["kind"] == "change" and i["data"] for i in items)


def test_a_resource_read_without_a_live_token_is_refused(world: World) -> None:
    deps = _deps(world, "rw_not-a-token")

    async def read() -> str:
        async with Client(build_server(deps)) as client:
            try:
                await client.read_resource(f"rootward://incidents/{world.incident_id}/rca")
            except MCPError as exc:
                return str(exc)
        return "read"

    assert "invalid, revoked or disabled API token" in anyio.run(read)


def test_an_admin_may_use_every_tool(world: World) -> None:
    with make_session_factory(make_engine(world.db_url))() as session, session.begin():
        add_user(session, "ada", Role.ADMIN)
        token = create_token(session, "ada")
    reply = call(_deps(world, token), "sources_check")
    assert not reply.is_error and reply.structured_content is not None
    assert reply.structured_content["lines"] == [] and "prometheus" in reply.structured_content["unconfigured"]
