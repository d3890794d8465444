"""The MCP server's tools and resources: each checks the caller's role, calls one function, returns a record.

Tools (all read-only, `readOnlyHint`): `list_incidents`, `get_rca`,
`get_evidence`, `ask`, `investigate_bundle` (runs the engine on a bundle
under an allowed directory and stores nothing), `sources_check`. Resources:
`rootward://incidents/{id}/rca` (Markdown) and
`rootward://incidents/{id}/evidence` (JSON). The transports are in
`mcp/transports.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

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
from rootward.mcp.access import AccessDenied, TokenAccess
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
    check_sources: Callable[[], SourcesReport]
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


def _check(deps: McpDeps, ctx: Context, what: str, error: type[Exception] = ToolError) -> None:
    try:
        deps.access.require(_headers(ctx), what)
    except AccessDenied as exc:
        raise error(str(exc)) from None


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
        _check(deps, ctx, "list_incidents")
        flt = IncidentFilter(status=status, service=service, severity=severity)
        with deps.sessions() as session:
            return incidents(session, flt, limit=limit, console_url=deps.console_url)

    @server.tool(annotations=READ_ONLY)
    def get_rca(ctx: Context, investigation_id: str) -> Rca:
        """One incident's root-cause analysis: cited claims, ranked hypotheses, gaps, and the Markdown RCA."""
        _check(deps, ctx, "get_rca")
        row = _stored(deps, investigation_id, ToolError)
        return rca_of(row.investigation, investigation_id=row.id, title=row.title, console_url=deps.console_url)

    @server.tool(annotations=READ_ONLY)
    def get_evidence(
        ctx: Context,
        investigation_id: str,
        evidence_ids: Annotated[list[str] | None, Field(description="E.g. ['E1', 'E3']; all when omitted")] = None,
    ) -> EvidenceList:
        """The evidence behind an incident's claims: cite, excerpt, and the raw series, log lines or diff kept."""
        _check(deps, ctx, "get_evidence")
        return evidence_of(_stored(deps, investigation_id, ToolError), evidence_ids)

    @server.tool(annotations=READ_ONLY)
    def ask(
        ctx: Context, investigation_id: str, question: Annotated[str, Field(min_length=1, max_length=2000)]
    ) -> AnswerOut:
        """A follow-up question ("what changed before this?"), answered only from the incident's evidence, cited."""
        _check(deps, ctx, "ask")
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
        _check(deps, ctx, "investigate_bundle")
        from rootward.bundle.format import BundleError

        bundle = allowed_bundle(path, deps.bundle_roots)
        try:
            result = deps.investigate(bundle)
        except BundleError as exc:
            raise ToolError(f"not a valid bundle: {exc}") from None
        return rca_of(result, investigation_id="", title=result.bundle)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=True))
    def sources_check(ctx: Context) -> SourcesReport:
        """Ask every configured data source one cheap question: ok, unavailable (and why), or error."""
        _check(deps, ctx, "sources_check")
        return deps.check_sources()


def _register_resources(server: MCPServer, deps: McpDeps) -> None:
    @server.resource("rootward://incidents/{investigation_id}/rca", mime_type="text/markdown")
    def rca_resource(investigation_id: str, ctx: Context) -> str:
        """An incident's RCA as Markdown."""
        _check(deps, ctx, "resource", ResourceError)
        row = _stored(deps, investigation_id, ResourceNotFoundError)
        return f"# {row.title}\n\n" + rca_of(row.investigation, investigation_id=row.id, title=row.title).markdown

    @server.resource("rootward://incidents/{investigation_id}/evidence", mime_type="application/json")
    def evidence_resource(investigation_id: str, ctx: Context) -> str:
        """Every evidence item of an incident, with the raw data kept behind its cite, as JSON."""
        _check(deps, ctx, "resource", ResourceError)
        return evidence_of(_stored(deps, investigation_id, ResourceNotFoundError)).model_dump_json(indent=1)


def build_server(deps: McpDeps) -> MCPServer:
    server: MCPServer = MCPServer("rootward", version=__version__, instructions=INSTRUCTIONS)
    _register_reads(server, deps)
    _register_work(server, deps)
    _register_resources(server, deps)
    return server
