"""Every MCP call in the audit trail, through the SDK's own client: the token's user, the tool, masked arguments,
and the outcome, refused calls included; the hash chain still verifies."""

from __future__ import annotations

import contextlib
import json

import anyio
from mcp import Client, MCPError
from sqlalchemy import select

from rootward.mcp.audit import KIND
from rootward.mcp.server import build_server
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import revoke_token
from tests.mcp_server.conftest import World
from tests.mcp_server.test_tools import _deps, call


def _calls(world: World) -> list[tuple[str, dict[str, object]]]:
    with make_session_factory(make_engine(world.db_url))() as session:
        rows = session.scalars(select(AuditRow).where(AuditRow.kind == KIND).order_by(AuditRow.id)).all()
        return [(row.subject, json.loads(row.data)) for row in rows]


def test_a_tool_call_is_audited_with_its_user_tool_arguments_and_outcome(world: World) -> None:
    call(_deps(world, world.viewer), "get_evidence", investigation_id=world.incident_id, evidence_ids=["E1"])
    [(subject, data)] = _calls(world)
    assert subject == world.incident_id
    assert data["user"] == "vic" and data["tool"] == "get_evidence" and data["outcome"] == "ok"
    assert data["arguments"] == {"investigation_id": world.incident_id, "evidence_ids": ["E1"]}
    assert isinstance(data["ms"], float | int)


def test_a_call_refused_for_its_role_is_audited_as_refused(world: World) -> None:
    reply = call(_deps(world, world.viewer), "investigate_bundle", path=str(world.bundle))
    assert reply.is_error
    [(subject, data)] = _calls(world)
    assert subject == "mcp" and data["outcome"] == "refused" and data["user"] == "vic"
    assert data["tool"] == "investigate_bundle" and data["arguments"] == {"path": str(world.bundle)}
    assert data["detail"] == "vic is viewer; investigate_bundle needs responder"


def test_a_call_with_a_revoked_token_is_audited_without_a_user(world: World) -> None:
    deps = _deps(world, world.viewer)
    with deps.sessions() as session, session.begin():
        revoke_token(session, world.viewer)
    assert call(deps, "list_incidents").is_error
    [(_subject, data)] = _calls(world)
    assert data["user"] is None and data["outcome"] == "refused"
    assert "invalid, revoked or disabled API token" in str(data["detail"])


def test_a_secret_pasted_into_a_question_is_masked_in_the_trail(world: World) -> None:
    question = (
        "does this key leak? AKIAIOSFODNN7EXAMPLE and Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.s1g"
    )
    reply = call(_deps(world, world.viewer), "ask", investigation_id=world.incident_id, question=question)
    assert not reply.is_error
    [(_subject, data)] = _calls(world)
    stored = json.dumps(data)
    assert "AKIAIOSFODNN7EXAMPLE" not in stored and "eyJhbGciOiJIUzI1NiJ9" not in stored
    assert data["arguments"]["question"].startswith("does this key leak?")  # type: ignore[index]


def test_a_failing_call_is_audited_as_an_error_with_its_reason(world: World) -> None:
    assert call(_deps(world, world.viewer), "get_rca", investigation_id="nope-nope").is_error
    [(subject, data)] = _calls(world)
    assert subject == "nope-nope" and data["outcome"] == "error"
    assert "no investigation 'nope-nope'" in str(data["detail"])


def test_resource_reads_are_audited_too_and_the_chain_still_verifies(world: World) -> None:
    async def read() -> None:
        async with Client(build_server(_deps(world, world.viewer))) as client:
            await client.read_resource(f"rootward://incidents/{world.incident_id}/rca")
        async with Client(build_server(_deps(world, "rw_forged"))) as client:
            with contextlib.suppress(MCPError):
                await client.read_resource(f"rootward://incidents/{world.incident_id}/evidence")

    anyio.run(read)
    calls = _calls(world)
    assert [(d["tool"], d["outcome"], d["user"]) for _s, d in calls] == [
        ("resource", "ok", "vic"),
        ("resource", "refused", None),
    ]
    assert calls[0][1]["arguments"]["uri"] == f"rootward://incidents/{world.incident_id}/rca"  # type: ignore[index]
    with make_session_factory(make_engine(world.db_url))() as session:
        assert verify_chain(session).ok
