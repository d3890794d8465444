"""The tool layer: every specialist reads data only through named tools.

Each specialist has a manifest (the tool names it may call); `ToolLayer.call`
refuses anything else, records the refusal in the audit trail and raises
`ManifestViolation`, so neither a rule nor a model can reach past its slice.
Every call is charged to the agent's tool budget and audited with its
invocation. In rule mode and for bundles the tools read the assembled
`Context`; a live deployment registers tools with the same names over the
live sources.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rootward.context.assemble import Context
from rootward.context.topology import upstream_closure
from rootward.domain.investigation import ToolResult, ToolStatus, TraceEntry
from rootward.engine.alert_subjects import alert_subjects
from rootward.engine.budget import Budget
from rootward.engine.host_network import attributed_traces
from rootward.engine.signals import entity_profiles
from rootward.engine.starved_callers import starved_callers
from rootward.observability.tools import tool_call


class ManifestViolation(PermissionError):
    """A specialist asked for a tool outside its manifest."""


ToolFn = Callable[..., ToolResult]


class ToolParams(BaseModel):
    """A tool's arguments: validates what a caller (rule or model) passes and gives the model its JSON schema.

    Unknown arguments are dropped, as a model may add some; a wrong value is an error the
    caller sees and can correct.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The schema without pydantic's titles: what a model needs, and nothing to distract it."""
        return _without_titles(cls.model_json_schema())


class NoParams(ToolParams):
    pass


class EntityParams(ToolParams):
    entity: str = Field(description="an entity of this incident")


class PathParams(EntityParams):
    direction: Literal["failure", "load"] = Field(
        default="failure",
        description="failure: from the alerting services down to the entity; load: from the entity to them",
    )


def _without_titles(schema: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in schema.items() if k != "title"}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: _without_titles(spec) for name, spec in out["properties"].items()}
    return out


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    run: ToolFn
    params: type[ToolParams] = EntityParams

    def arguments(self, raw: dict[str, Any]) -> dict[str, Any]:
        """`raw` validated against the parameter model (ValidationError names the field and why)."""
        return self.params.model_validate(raw).model_dump()


class ToolLayer:
    def __init__(
        self, agent: str, manifest: frozenset[str], tools: dict[str, Tool], budget: Budget, audit: list[TraceEntry]
    ) -> None:
        self.agent = agent
        self.manifest = manifest
        self._tools = tools
        self._budget = budget
        self._audit = audit
        self.calls: list[str] = []

    def descriptions(self) -> dict[str, str]:
        """What each tool this agent may call is for (the manifest's tools that exist here)."""
        return {tool.name: tool.description for tool in self.offered()}

    def offered(self) -> list[Tool]:
        """The tools this agent may call: the manifest's tools that exist here, by name."""
        return [self._tools[name] for name in sorted(self.manifest) if name in self._tools]

    def call(self, name: str, **args: Any) -> ToolResult:
        invocation = f"{name}({', '.join(f'{k}={v!r}' for k, v in sorted(args.items()))})"
        if name not in self.manifest or name not in self._tools:
            self._audit.append(TraceEntry(agent=self.agent, tool=name, invocation=invocation, status="refused"))
            raise ManifestViolation(
                f"{self.agent} may not call {name!r} (manifest: {', '.join(sorted(self.manifest))})"
            )
        self._budget.charge_tool(self.agent)
        started = time.monotonic()
        with tool_call(name, agent=self.agent) as outcome:
            result = self._tools[name].run(**args)
            outcome.status = result.status
        self.calls.append(result.invocation)
        self._audit.append(
            TraceEntry(
                agent=self.agent,
                tool=name,
                invocation=result.invocation,
                status=result.status,
                ms=round((time.monotonic() - started) * 1000, 2),
            )
        )
        return result


class ContextTools:
    """The tools' implementations over one assembled context (bundle runs and rule mode)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.profiles = entity_profiles(ctx)
        self.graph = ctx.topology.graph()
        self.alerting = set(alert_subjects(ctx))  # an alert on a name the map does not know: its entry points
        self.traces = attributed_traces(ctx)
        onset = int(ctx.window.onset.timestamp()) if ctx.window.onset else None
        starved_callers(self.traces, self.profiles, onset, ctx.trace_findings)

    def metric_anomalies(self, entity: str) -> ToolResult:
        found = [a for a in self.ctx.anomalies if a.service == entity]
        has_data = "metrics" in self.ctx.telemetry.get(entity, [])
        status: ToolStatus = "ok" if found or has_data else "no_data"
        return ToolResult(
            status, found, f"metric_anomalies(entity={entity!r})", evidence=tuple(a.evidence for a in found)
        )

    def metric_scores(self, entity: str) -> ToolResult:
        found = [s for s in self.ctx.series if s.service == entity]
        return ToolResult("ok" if found else "no_data", found, f"metric_scores(entity={entity!r})")

    def log_templates(self, entity: str) -> ToolResult:
        found = [s for s in self.ctx.logs if s.service == entity]
        has_data = "logs" in self.ctx.telemetry.get(entity, [])
        return ToolResult(
            "ok" if has_data else "no_data",
            found,
            f"log_templates(entity={entity!r})",
            evidence=tuple(s.evidence for s in found),
        )

    def log_shifts(self, entity: str) -> ToolResult:
        """Templates of `entity` that appeared, vanished or changed rate at the onset, at any level."""
        found = [s for s in self.ctx.log_shifts if s.service == entity]
        has_data = "logs" in self.ctx.telemetry.get(entity, [])
        return ToolResult(
            "ok" if has_data else "no_data",
            found,
            f"log_shifts(entity={entity!r})",
            evidence=tuple(s.evidence for s in found),
        )

    def log_mentions(self, entity: str) -> ToolResult:
        p = self.profiles.get(entity)
        found = list(p.mentions) if p else []
        return ToolResult("ok", found, f"log_mentions(entity={entity!r})", evidence=tuple(s.evidence for s in found))

    def dependent_logs(self, entity: str) -> ToolResult:
        """Changed failure templates of the entities that call or run on `entity` (shared-cause evidence)."""
        near = set(self.graph.predecessors(entity)) if entity in self.graph else set()
        found = [s for s in self.ctx.logs if s.service in near and s.changed and s.is_failure]
        return ToolResult("ok", found, f"dependent_logs(entity={entity!r})", evidence=tuple(s.evidence for s in found))

    def dependents(self, entity: str) -> ToolResult:
        reach = sorted(upstream_closure(self.graph, entity))
        known = self.ctx.has_topology and entity in self.graph
        return ToolResult("ok" if known else "no_data", reach, f"dependents(entity={entity!r})")

    def path_to_alerts(self, entity: str, direction: str = "failure") -> ToolResult:
        """Topology edges linking the alerting services and `entity`.

        Failures flow from a dependency to its dependents (path: alerting -> ... -> entity);
        load flows from a caller to what it calls (direction="load": entity -> ... -> alerting).
        """
        import networkx as nx

        edges = []
        for target in sorted(self.alerting):
            if target == entity or target not in self.graph or entity not in self.graph:
                continue
            try:
                path = nx.shortest_path(self.graph, *((entity, target) if direction == "load" else (target, entity)))
            except nx.NetworkXNoPath:
                continue
            for a, b in zip(path, path[1:], strict=False):
                e = self.ctx.topology.edge(a, b)
                if e is not None and e not in edges:
                    edges.append(e)
        return ToolResult(
            "ok",
            edges,
            f"path_to_alerts(entity={entity!r}, direction={direction!r})",
            evidence=tuple(e.evidence for e in edges),
        )

    def span_changes(self, entity: str) -> ToolResult:
        """The entity's span aggregates and those of the call edges into and out of it, changed or not."""
        found = [f for f in self.ctx.trace_findings if entity in (f.entity, f.caller)]
        status: ToolStatus = "ok" if found else "no_data"
        changed = tuple(f.evidence for f in found if f.changed)
        return ToolResult(status, found, f"span_changes(entity={entity!r})", evidence=changed)

    def trace_attribution(self, entity: str) -> ToolResult:
        """What span change is the entity's own, and whose victim its spans say it is."""
        found = self.traces.get(entity)
        invocation = f"trace_attribution(entity={entity!r})"
        if found is None:
            return ToolResult("no_data", None, invocation)
        return ToolResult("ok", found, invocation, evidence=tuple(found.evidence))

    def changes_for(self, entity: str) -> ToolResult:
        found = [c for c in self.ctx.changes if c.service == entity]
        status: ToolStatus = "unavailable" if any(g.startswith("no changes") for g in self.ctx.gaps) else "ok"
        if found:
            status = "ok"  # a deploy its own logs show is one, whatever the change source could say
        elif status == "ok" and all(c.from_logs for c in self.ctx.changes):
            # The history records nothing at all (deploys read from logs cover only the services that
            # print a version): silence about one entity says little.
            status = "no_data"
        return ToolResult(status, found, f"changes_for(entity={entity!r})", evidence=tuple(c.evidence for c in found))

    def knowledge_for(self, entity: str) -> ToolResult:
        found = [k for k in self.ctx.knowledge if entity in k.services or entity.lower() in k.text.lower()]
        return ToolResult("ok", found, f"knowledge_for(entity={entity!r})", evidence=tuple(k.evidence for k in found))

    def alerts(self) -> ToolResult:
        return ToolResult("ok", self.ctx.alerts, "alerts()", evidence=tuple(a.evidence for a in self.ctx.alerts))


def context_tools(ctx: Context) -> dict[str, Tool]:
    """Tools over an assembled context (bundle runs and rule mode)."""
    read = ContextTools(ctx)
    table = [
        Tool("metric_anomalies", "anomalous series of an entity, with robust scores and onsets", read.metric_anomalies),
        Tool("metric_scores", "every scored series of an entity, anomalous or not", read.metric_scores),
        Tool("log_templates", "an entity's failing, new or surging log templates", read.log_templates),
        Tool("log_shifts", "an entity's templates that appeared, vanished or changed rate, any level", read.log_shifts),
        Tool("log_mentions", "other entities' failure templates that name this entity", read.log_mentions),
        Tool("dependent_logs", "failure templates of the entities that call or run on this one", read.dependent_logs),
        Tool("dependents", "entities a fault here can reach", read.dependents),
        Tool(
            "path_to_alerts",
            "dependency edges from the alerting services down to an entity",
            read.path_to_alerts,
            PathParams,
        ),
        Tool(
            "span_changes",
            "span aggregates of an entity and its call edges, before vs after the onset",
            read.span_changes,
        ),
        Tool(
            "trace_attribution",
            "the span change attributed to an entity itself, and the dependency it is a victim of",
            read.trace_attribution,
        ),
        Tool("changes_for", "an entity's changes near the onset", read.changes_for),
        Tool("knowledge_for", "runbooks, postmortems and team notes about an entity", read.knowledge_for),
        Tool("alerts", "the firing alerts", read.alerts, NoParams),
    ]
    return {t.name: t for t in table}
