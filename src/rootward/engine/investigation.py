"""The investigation state machine, as checkpointable stages over a JSON state.

    assemble_context -> hypotheses -> specialists -> supervise -> verify -> rca -> risk_gate

Each stage is `(state: dict) -> dict` and reads only what earlier stages put
in the state (plus the bundle path, to reopen sources), so the runtime can
checkpoint after any stage and a fresh worker can resume at the next one.
`run_investigation` runs them all in-process, which is what the CLI and the
evaluation harness do.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.format import Bundle
from rootward.bundle.load import load_bundle
from rootward.context.assemble import Context, assemble_context
from rootward.domain.investigation import Claim, InvestigationResult
from rootward.domain.topology import Topology
from rootward.engine.budget import Budget, BudgetExceeded, BudgetLimits
from rootward.engine.gates import apply_gates
from rootward.engine.hypotheses import MIN_HYPOTHESES, Hypothesis, rank_hypotheses
from rootward.engine.knowledge_context import retrieve_knowledge
from rootward.engine.memory import InMemoryWorkingMemory, finding_from_dict, finding_to_dict
from rootward.engine.rca import build_result
from rootward.engine.reasoner import Reasoner, RuleReasoner
from rootward.engine.specialists import default_specialists
from rootward.engine.supervisor import EXPANDED_HOPS, Assessment, assess, direct_verdict, should_expand
from rootward.engine.tools import ToolLayer, context_tools
from rootward.engine.verify import check_result, repair_result, verify
from rootward.sources.bundle import bundle_sources
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph

State = dict[str, Any]
StageFn = Callable[[State], State]
STAGE_NAMES = ("assemble_context", "hypotheses", "specialists", "supervise", "verify", "rca", "risk_gate")

log = logging.getLogger("rootward.engine")
_reasoner: Reasoner = RuleReasoner()


def set_reasoner(reasoner: Reasoner) -> None:
    """Install the reasoner (the LLM layer calls this when a provider is configured)."""
    global _reasoner
    _reasoner = reasoner


def get_reasoner() -> Reasoner:
    return _reasoner


@lru_cache(maxsize=4)
def _load(path: str, investigation: float) -> Bundle:
    return load_bundle(path)


def _bundle(state: State) -> Bundle:
    """The investigation's bundle, loaded once per investigation (keyed by its start, not just the path:
    the same path can hold a different bundle in the next investigation)."""
    return _load(state["bundle_path"], float(state["started_at"]))


def _ms_since(state: State) -> int:
    return int((time.time() - float(state["started_at"])) * 1000)


def _context(state: State) -> Context:
    return Context.model_validate(state["context"])


def _budget(state: State) -> Budget:
    return Budget.from_dict(state["budget"])


def initial_state(bundle_path: str | Path, limits: BudgetLimits | None = None) -> State:
    now = time.time()
    budget = Budget(limits=limits or BudgetLimits(), started_at=now)
    return {"bundle_path": str(bundle_path), "started_at": now, "budget": budget.to_dict(), "hops": 2, "gaps": []}


def stage_assemble_context(state: State) -> State:
    bundle = _bundle(state)
    ctx = assemble_context(
        bundle_sources(bundle), bundle.meta, hops=int(state.get("hops", 2)), retrieve_knowledge=retrieve_knowledge
    )
    gaps = list(dict.fromkeys([*state.get("gaps", []), *ctx.gaps]))
    if ctx.redacted_lines:
        gaps.append(f"{ctx.redacted_lines} log line(s) that looked like instructions to a model were set aside")
    return {**state, "context": ctx.model_dump(mode="json"), "gaps": gaps}


def stage_hypotheses(state: State) -> State:
    ctx = _context(state)
    budget = _budget(state)
    ranked = rank_hypotheses(ctx)
    try:
        extra = get_reasoner().propose(ctx, ranked, budget)
    except BudgetExceeded:
        extra = []
    ranked = _merge_proposals(ranked, extra)
    out = {**state, "hypotheses": [h.to_dict() for h in ranked], "budget": budget.to_dict()}
    out.setdefault("first_hypothesis_ms", _ms_since(state))
    if len(ranked) < MIN_HYPOTHESES:
        out["gaps"] = [*state.get("gaps", []), f"only {len(ranked)} hypothesis(es): too little abnormal evidence"]
    return out


def _merge_proposals(ranked: list[Hypothesis], extra: list[Hypothesis]) -> list[Hypothesis]:
    """Reasoner proposals join after the deterministic ones; they never displace the top ones."""
    seen = {(h.entity, h.fault_type) for h in ranked}
    merged = list(ranked)
    for h in extra:
        if (h.entity, h.fault_type) not in seen and len(merged) < 7:
            merged.append(
                Hypothesis(
                    f"H{len(merged) + 1}",
                    h.entity,
                    h.fault_type,
                    min(h.prior, 0.05),
                    h.evidence,
                    h.rationale,
                    "reasoner",
                )
            )
            seen.add((h.entity, h.fault_type))
    return merged


def stage_specialists(state: State) -> State:
    ctx = _context(state)
    budget = _budget(state)
    hypotheses = [Hypothesis.from_dict(h) for h in state["hypotheses"]]
    memory = InMemoryWorkingMemory([finding_from_dict(f) for f in state.get("findings", [])])
    done = {f.hypothesis_id for f in memory.findings()}
    todo = [h for h in hypotheses if h.id not in done]
    audit: list[dict[str, Any]] = list(state.get("audit", []))
    untested: list[str] = list(state.get("untested", []))
    tools = context_tools(ctx)
    for specialist in default_specialists():
        gap = ctx.missing_source(specialist.source) if specialist.source else None
        if gap is not None:
            specialist.skip(todo, memory, gap)
            continue
        layer = ToolLayer(specialist.name, specialist.manifest, tools, budget, audit)
        try:
            budget.check_wall_clock()
        except BudgetExceeded as exc:
            untested += [f"{h.id} not evaluated by {specialist.name}: {exc.detail}" for h in todo]
            continue
        untested += specialist.run(todo, layer, memory)
    # The model is heard where direct evidence is silent or split, best-ranked first.
    undecided = [(h, fs) for h in todo if direct_verdict(fs := memory.findings(h.id)) in ("silent", "split") and fs]
    if undecided:

        def open_tools(agent: str, manifest: frozenset[str]) -> ToolLayer:
            return ToolLayer(agent, manifest, tools, budget, audit)

        try:
            for f in get_reasoner().classify(ctx, undecided, open_tools, budget):
                memory.add(f)
        except BudgetExceeded as exc:
            untested.append(f"undecided hypotheses not tested by the model: {exc.detail}")
    return {
        **state,
        "findings": [finding_to_dict(f) for f in memory.findings()],
        "audit": audit,
        "untested": untested,
        "budget": budget.to_dict(),
    }


def stage_supervise(state: State) -> State:
    """Evaluate; when nothing is validated, widen the scope once and test the new hypotheses."""
    hypotheses = [Hypothesis.from_dict(h) for h in state["hypotheses"]]
    findings = [finding_from_dict(f) for f in state.get("findings", [])]
    assessments = assess(hypotheses, findings)
    budget = _budget(state)
    if should_expand(assessments, budget, int(state.get("hops", 2))):
        wider = stage_assemble_context({**state, "hops": EXPANDED_HOPS})
        wider = stage_hypotheses({**wider, "first_hypothesis_ms": state.get("first_hypothesis_ms")})
        new = [Hypothesis.from_dict(h) for h in wider["hypotheses"]]
        known = {(h.entity, h.fault_type) for h in hypotheses}
        added = [h for h in new if (h.entity, h.fault_type) not in known]
        if added:
            for i, h in enumerate(added, start=len(hypotheses) + 1):
                h.id = f"H{i}"
            # Widened priors are on another scale; keep them below the originals' floor.
            floor = min((h.prior for h in hypotheses), default=1.0)
            for h in added:
                h.prior = min(h.prior, floor) * 0.9
            merged = {
                **wider,
                "hypotheses": [h.to_dict() for h in hypotheses + added],
                "findings": state.get("findings", []),
            }
            merged = stage_specialists(merged)
            hypotheses = hypotheses + added
            findings = [finding_from_dict(f) for f in merged["findings"]]
            assessments = assess(hypotheses, findings)
            state = {
                **merged,
                "hops": EXPANDED_HOPS,
                "gaps": [*merged.get("gaps", []), "scope widened to 4 hops: nothing validated within 2"],
            }
        else:
            state = {**state, "hops": EXPANDED_HOPS}
    return {**state, "assessments": [a.to_dict() for a in assessments]}


def stage_verify(state: State) -> State:
    assessments = [Assessment.from_dict(a) for a in state["assessments"]]
    resolver = BundleCiteResolver(_bundle(state))
    verification = verify(assessments, resolver)
    assessments.sort(key=lambda a: (-a.score, a.hypothesis.id))
    return {**state, "assessments": [a.to_dict() for a in assessments], "verification": verification.to_dict()}


def _status(assessments: list[Assessment], budget: Budget) -> str:
    if assessments and assessments[0].status == "validated" and budget.exhausted is None:
        return "validated"
    return "inconclusive"


def stage_rca(state: State) -> State:
    ctx = _context(state)
    budget = _budget(state)
    assessments = [Assessment.from_dict(a) for a in state["assessments"]]
    gate = apply_gates(assessments[0].confidence, assessments[0].findings) if assessments else None
    gaps = list(state.get("gaps", []))
    if budget.exhausted:
        gaps.append(f"budget exhausted: {budget.exhausted}")
    gaps += state.get("untested", [])
    for a in assessments:
        if a.status == "untested":
            gaps.append(
                f"{a.hypothesis.id} ({a.hypothesis.entity}/{a.hypothesis.fault_type}) not evaluated: "
                "no specialist reached it"
            )
    remaining = state.get("verification", {}).get("remaining", [])
    gaps += [f"verification: {p}" for p in remaining]
    extra: list[Claim] = []
    status = _status(assessments, budget)
    draft = build_result(
        ctx,
        assessments,
        gate,
        status=status,
        gaps=gaps,
        first_hypothesis_ms=state.get("first_hypothesis_ms"),
        total_ms=0,
    )
    try:
        extra = get_reasoner().write(ctx, draft.claims, budget)
    except BudgetExceeded:
        extra = []
    result = build_result(
        ctx,
        assessments,
        gate,
        status=status,
        gaps=list(dict.fromkeys([*gaps, *budget.notes])),
        first_hypothesis_ms=state.get("first_hypothesis_ms"),
        total_ms=_ms_since(state),
        extra_claims=extra,
    )
    resolver = BundleCiteResolver(_bundle(state))
    problems = check_result(result, resolver)
    if problems:  # one repair, then publish with what remains noted
        result = repair_result(result, resolver)
        left = check_result(result, resolver)
        result.gaps += [f"verification: {p}" for p in left]
    payload = result.model_dump(mode="json")
    if gate is not None:
        payload["gates"] = gate.to_dict()
    payload["verification"] = state.get("verification", {})
    payload["trace"] = list(state.get("audit", []))  # every specialist tool call: the console's agent trace
    return {**state, "result": payload, "budget": budget.to_dict()}


# What the deployment knows of its world: the stored multi-layer graph and learned dynamics
# (the runtime loads them from the database). Either may be None.
WorldModelSource = Callable[[], tuple[WorldGraph | None, Dynamics | None]]


def world_for(topology: Topology, world: WorldModelSource | None) -> tuple[WorldGraph, Dynamics | None]:
    """The graph a proposal is predicted on: the stored graph with this incident's topology merged in.

    Without a stored graph (bundle runs, a fresh install) it is the incident's topology alone;
    a store that cannot be read leaves prediction to that too (logged), never blocks it.
    """
    stored: WorldGraph | None = None
    dynamics: Dynamics | None = None
    if world is not None:
        try:
            stored, dynamics = world()
        except Exception:  # the snapshot's topology still predicts; the gate itself fails closed elsewhere
            log.exception("world model unavailable; predicting on the incident's topology alone")
    if stored is None or len(stored) == 0:
        return WorldGraph.from_topology(topology), dynamics
    graph = WorldGraph.from_records(stored.entity_records(), stored.claim_records())
    graph.seed_topology(topology, layer="topology_file")
    return graph, dynamics


def stage_risk_gate(state: State, world: WorldModelSource | None = None) -> State:
    result = dict(state["result"])
    try:
        from rootward.engine.proposals import propose
    except ImportError:
        return state
    gates = result.get("gates") or {}
    if gates.get("analysis_only") or not result.get("hypotheses"):
        result["proposals"] = []
        return {**state, "result": result}
    bundle = _bundle(state)
    from rootward.domain.investigation import HypothesisOut

    hyps = [HypothesisOut.model_validate(h) for h in result["hypotheses"]]
    topology = bundle.topology or Topology()
    graph, dynamics = world_for(topology, world)
    result["proposals"] = propose(hyps, topology, changes=bundle.changes or [], graph=graph, dynamics=dynamics)
    result["timing"] = {**result["timing"], "total_ms": _ms_since(state)}
    return {**state, "result": result}


STAGES: tuple[tuple[str, StageFn], ...] = (
    ("assemble_context", stage_assemble_context),
    ("hypotheses", stage_hypotheses),
    ("specialists", stage_specialists),
    ("supervise", stage_supervise),
    ("verify", stage_verify),
    ("rca", stage_rca),
    ("risk_gate", stage_risk_gate),
)


def run_stages(state: State, after: str | None = None) -> State:
    """Run the stages in order, starting after the named one (resume from a checkpoint)."""
    names = [n for n, _ in STAGES]
    start = names.index(after) + 1 if after else 0
    for _, fn in STAGES[start:]:
        state = fn(state)
    return state


def run_investigation(bundle_path: str | Path, limits: BudgetLimits | None = None) -> InvestigationResult:
    state = run_stages(initial_state(bundle_path, limits))
    return InvestigationResult.model_validate(state["result"])
