"""The MCP server's tools and resources: each checks the caller's role, calls one function, returns a record.

Tools (all read-only, `readOnlyHint`): `list_incidents`, `get_rca`,
`get_evidence`, `ask`, `investigate_bundle` (runs the engine on a bundle
under an allowed directory and stores nothing), `sources_check`. Resources:
`rootward://incidents/{id}/rca` (Markdown) and
`rootward://incidents/{id}/evidence` (JSON). The transports are in
`mcp/transports.py`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from sqlalchemy.orm import Session, sessionmaker

from rootward import __version__
from rootward.domain.investigation import InvestigationResult
from rootward.engine.followup_llm import SYSTEM_PROMPT
from rootward.llm.settings import LLMSettings
from rootward.llm.trial_runs import active_variant
from rootward.mcp.access import AccessDenied, TokenAccess, check_role
from rootward.mcp.audit import audit_tool_call
from rootward.mcp.incidents import (
    AnswerOut,
    EvidenceList,
    IncidentList,
    Rca,
    ask_about,
    evidence_of,
    find_investigation,
    incidents,
    rca_of,
)
from rootward.mcp.source_checks import SourcesReport
from rootward.runtime.llm_charging import charged_llm_client
from rootward.store.investigations import IncidentFilter, InvestigationRow

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
INSTRUCTIONS = (
    "rootward investigates alerts and keeps, for each incident, a root-cause analysis whose every claim "
    "cites evidence ids (E1, E2, ...). Start with list_incidents, read one with get_rca, open the evidence "
    "behind a claim with get_evidence, and ask follow-ups with ask: answers come only from that "
    "investigation's own evidence, each line with the ids it rests on. Quote the ids when you answer."
)


@dataclass(frozen=True)
class McpDeps:
    """What the tools work with; the CLI builds it from the loaded settings."""

    sessions: sessionmaker[Session]
    access: TokenAccess
    investigate: Callable[[Path], InvestigationResult]
    check_sources: Callable[[Sequence[str]], SourcesReport]
    bundle_roots: Sequence[Path] = field(default_factory=tuple)
    console_url: str = ""
    llm: LLMSettings = field(default_factory=LLMSettings)  # what `ask` is answered with (`provider: none`: rule mode)


def _headers(ctx: Context) -> dict[str, str] | None:
    try:
        found = ctx.headers
    except (ValueError, AttributeError):  # outside a request: no headers
        return None
    return dict(found) if found is not None else None


def _stored(deps: McpDeps, investigation_id: str, on_missing: type[Exception]) -> InvestigationRow:
    with deps.sessions() as session:
        row = find_investigation(session, investigation_id)
        if row is None:
            raise on_missing(f"no investigation {investigation_id!r} (list_incidents shows the ids)")
        session.expunge(row)
        return row


def allowed_bundle(path: str, roots: Sequence[Path]) -> Path:
    """The bundle path if it lies inside one of `roots` (resolved, so `..` and links cannot escape)."""
    if not roots:
        raise ToolError("investigate_bundle is off: start `rootward mcp` with --bundle-dir DIR to allow bundles")
    resolved = Path(path).expanduser().resolve()
    for root in roots:
        if resolved.is_relative_to(root.resolve()):
            if not resolved.exists():
                raise ToolError(f"no bundle at {path}")
            return resolved
    raise ToolError(f"{path} is outside the allowed bundle directories ({', '.join(str(r) for r in roots)})")


@contextmanager
def _audited(
    deps: McpDeps, ctx: Context, what: str, arguments: Mapping[str, Any], error: type[Exception] = ToolError
) -> Iterator[None]:
    """Check the caller's token and role, run the body, and audit the call with its outcome either way."""
    began = time.monotonic()
    user = None

    def audit(outcome: Literal["ok", "refused", "error"], detail: str = "") -> None:
        ms = (time.monotonic() - began) * 1000
        name = user.name if user is not None else None
        audit_tool_call(deps.sessions, user=name, tool=what, arguments=arguments, outcome=outcome, detail=detail, ms=ms)

    try:
        user = deps.access.caller(_headers(ctx))
        check_role(user, what)
    except AccessDenied as exc:
        audit("refused", str(exc))
        raise error(str(exc)) from None
    try:
        yield
    except Exception as exc:
        audit("error", str(exc) if isinstance(exc, ToolError | ResourceError) else f"{type(exc).__name__}: {exc}")
        raise
    audit("ok")


def _register_reads(server: MCPServer, deps: McpDeps) -> None:
    @server.tool(annotations=READ_ONLY)
    def list_incidents(
        ctx: Context,
        status: Annotated[str | None, Field(description="validated | inconclusive | failed")] = None,
        service: str | None = None,
        severity: Annotated[str | None, Field(description="P1 | P2 | P3 | P4")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
    ) -> IncidentList:
        """The newest investigated incidents, optionally filtered: id, title, service, status, top hypothesis."""
        arguments = {"status": status, "service": service, "severity": severity, "limit": limit}
        with _audited(deps, ctx, "list_incidents", arguments):
            flt = IncidentFilter(status=status, service=service, severity=severity)
            with deps.sessions() as session:
                return incidents(session, flt, limit=limit, console_url=deps.console_url)

    @server.tool(annotations=READ_ONLY)
    def get_rca(ctx: Context, investigation_id: str) -> Rca:
        """One incident's root-cause analysis: cited claims, ranked hypotheses, gaps, and the Markdown RCA."""
        with _audited(deps, ctx, "get_rca", {"investigation_id": investigation_id}):
            row = _stored(deps, investigation_id, ToolError)
            return rca_of(row.investigation, investigation_id=row.id, title=row.title, console_url=deps.console_url)

    @server.tool(annotations=READ_ONLY)
    def get_evidence(
        ctx: Context,
        investigation_id: str,
        evidence_ids: Annotated[list[str] | None, Field(description="E.g. ['E1', 'E3']; all when omitted")] = None,
    ) -> EvidenceList:
        """The evidence behind an incident's claims: cite, excerpt, and the raw series, log lines or diff kept."""
        with _audited(deps, ctx, "get_evidence", {"investigation_id": investigation_id, "evidence_ids": evidence_ids}):
            return evidence_of(_stored(deps, investigation_id, ToolError), evidence_ids)

    @server.tool(annotations=READ_ONLY)
    def ask(
        ctx: Context, investigation_id: str, question: Annotated[str, Field(min_length=1, max_length=2000)]
    ) -> AnswerOut:
        """A follow-up question ("what changed before this?"), answered only from the incident's evidence, cited."""
        with _audited(deps, ctx, "ask", {"investigation_id": investigation_id, "question": question}):
            row = _stored(deps, investigation_id, ToolError)
            with deps.sessions() as session:
                variant = active_variant(session, SYSTEM_PROMPT)
            client = charged_llm_client(deps.llm, deps.sessions, lambda: (row.id, row.service))
            return ask_about(row, question, client=client, variant=variant)


def _register_work(server: MCPServer, deps: McpDeps) -> None:
    @server.tool(annotations=READ_ONLY)
    def investigate_bundle(
        ctx: Context, path: Annotated[str, Field(description="A bundle directory or .tar.gz under --bundle-dir")]
    ) -> Rca:
        """Investigate an incident bundle now and return its RCA (nothing is stored; needs responder)."""
        from rootward.bundle.format import BundleError

        with _audited(deps, ctx, "investigate_bundle", {"path": path}):
            bundle = allowed_bundle(path, deps.bundle_roots)
            try:
                result = deps.investigate(bundle)
            except BundleError as exc:
                raise ToolError(f"not a valid bundle: {exc}") from None
            return rca_of(result, investigation_id="", title=result.bundle)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=True))
    def sources_check(
        ctx: Context,
        services: Annotated[
            list[str] | None, Field(description="Services to check in each source; all the sources know by default")
        ] = None,
    ) -> SourcesReport:
        """`rootward sources check`: per source reachable, credentials, latency; per service what each holds."""
        with _audited(deps, ctx, "sources_check", {"services": services}):
            return deps.check_sources(services or [])


def _register_resources(server: MCPServer, deps: McpDeps) -> None:
    @server.resource("rootward://incidents/{investigation_id}/rca", mime_type="text/markdown")
    def rca_resource(investigation_id: str, ctx: Context) -> str:
        """An incident's RCA as Markdown."""
        arguments = {"uri": f"rootward://incidents/{investigation_id}/rca", "investigation_id": investigation_id}
        with _audited(deps, ctx, "resource", arguments, ResourceError):
            row = _stored(deps, investigation_id, ResourceNotFoundError)
            return f"# {row.title}\n\n" + rca_of(row.investigation, investigation_id=row.id, title=row.title).markdown

    @server.resource("rootward://incidents/{investigation_id}/evidence", mime_type="application/json")
    def evidence_resource(investigation_id: str, ctx: Context) -> str:
        """Every evidence item of an incident, with the raw data kept behind its cite, as JSON."""
        arguments = {"uri": f"rootward://incidents/{investigation_id}/evidence", "investigation_id": investigation_id}
        with _audited(deps, ctx, "resource", arguments, ResourceError):
            return evidence_of(_stored(deps, investigation_id, ResourceNotFoundError)).model_dump_json(indent=1)


def build_server(deps: McpDeps) -> MCPServer:
    server: MCPServer = MCPServer("rootward", version=__version__, instructions=INSTRUCTIONS)
    _register_reads(server, deps)
    _register_work(server, deps)
    _register_resources(server, deps)
    return server
