"""The investigation state machine, as checkpointable stages over a typed state.

    assemble_context -> hypotheses -> specialists -> supervise -> verify -> rca -> risk_gate

Each stage is `(state: EngineState, deps: EngineDeps) -> EngineState` and
reads only what earlier stages put in the state (plus the bundle path, to
reopen sources), so the runtime can checkpoint after any stage and a fresh
worker can resume at the next one. What a stage needs from outside (the
reasoner, the world model and its settings, the budgets) comes in `deps`.
`run_investigation` runs them all in-process, which is what the CLI and the
evaluation harness do.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.format import Bundle
from rootward.bundle.load import acyclic_allocations, load_bundle
from rootward.context.assemble import assemble_context
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Claim, InvestigationResult
from rootward.domain.topology import Topology
from rootward.engine.budget import Budget, BudgetExceeded
from rootward.engine.confidence_gates import apply_gates
from rootward.engine.dependencies import EngineDeps, WorldModelSource
from rootward.engine.evidence_scope import keep_linked
from rootward.engine.headroom import drop_far_from_limit
from rootward.engine.hypotheses import MIN_HYPOTHESES, rank_hypotheses
from rootward.engine.knowledge_context import retrieve_knowledge
from rootward.engine.memory import InMemoryWorkingMemory
from rootward.engine.proposals import propose
from rootward.engine.rca import build_result, summary_source_of
from rootward.engine.specialists import default_specialists
from rootward.engine.state import EngineState
from rootward.engine.supervisor import EXPANDED_HOPS, Assessment, assess, direct_verdict, should_expand
from rootward.engine.tools import ToolLayer, context_tools
from rootward.engine.verdict import decide_no_fault
from rootward.engine.verify import check_result, repair_result, verify
from rootward.sources.bundle import bundle_sources
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph

StageFn = Callable[[EngineState, EngineDeps], EngineState]
STAGE_NAMES = ("assemble_context", "hypotheses", "specialists", "supervise", "verify", "rca", "risk_gate")
MAX_MERGED_HYPOTHESES = 7

log = logging.getLogger("rootward.engine")


@lru_cache(maxsize=4)
def _load(path: str, investigation: float) -> Bundle:
    return load_bundle(path)


def _bundle(state: EngineState) -> Bundle:
    """The investigation's bundle, loaded once per investigation (keyed by its start, not just the path:
    the same path can hold a different bundle in the next investigation)."""
    return _load(state.bundle_path, state.started_at)


@lru_cache(maxsize=4)
def _resolver_for(path: str, investigation: float) -> BundleCiteResolver:
    return BundleCiteResolver(_load(path, investigation))


def _resolver(state: EngineState) -> BundleCiteResolver:
    """The investigation's cite resolver, built once: verify and the RCA stage both check cites, and
    indexing 20,000 spans for the first trace cite took ~0.1 s each time."""
    return _resolver_for(state.bundle_path, state.started_at)


def initial_state(bundle_path: str | Path, deps: EngineDeps | None = None) -> EngineState:
    return EngineState.start(str(bundle_path), (deps or EngineDeps()).limits)


def stage_assemble_context(state: EngineState, deps: EngineDeps) -> EngineState:
    """The incident's context, with the cyclic collector paused while it is built.

    Scoring a bundle at 1 Hz allocates hundreds of thousands of small acyclic
    objects (windows, scores, clusters) beside the loaded bundle; with the
    collector on they set off young collections all along and a full one that
    walks the whole bundle (~100-250 ms at 20,000 spans and logs, with metrics
    at 1 Hz) to free nothing. Paused, it examines them once when it resumes
    (`acyclic_allocations`, as for loading).
    """
    with acyclic_allocations():
        bundle = _bundle(state)
        ctx = assemble_context(
            bundle_sources(bundle),
            bundle.meta,
            hops=state.hops,
            extra_gaps=bundle.partial_gaps(),  # a live snapshot's notes, verbatim
            retrieve_knowledge=retrieve_knowledge,
        )
    gaps = list(dict.fromkeys([*state.gaps, *ctx.gaps]))
    if ctx.redacted_lines:
        gaps.append(f"{ctx.redacted_lines} log line(s) that looked like instructions to a model were set aside")
    return state.model_copy(update={"context": ctx, "gaps": gaps})


def stage_hypotheses(state: EngineState, deps: EngineDeps) -> EngineState:
    ctx = state.require_context()
    budget = state.fresh_budget()
    ranked = rank_hypotheses(ctx)
    try:
        extra = deps.reasoner.propose(ctx, ranked, budget)
    except BudgetExceeded:
        extra = []
    ranked, far = drop_far_from_limit(ctx, _merge_proposals(ranked, extra))  # a ratio far from its limit
    ranked, unlinked = keep_linked(ctx, ranked)  # never borrow another entity's evidence
    update: dict[str, object] = {"hypotheses": ranked, "budget": budget}
    if far or unlinked:
        update["gaps"] = list(dict.fromkeys([*state.gaps, *far, *unlinked]))
    if state.first_hypothesis_ms is None:
        update["first_hypothesis_ms"] = state.ms_since_start()
    if len(ranked) < MIN_HYPOTHESES:
        gaps = update.get("gaps", state.gaps)
        assert isinstance(gaps, list)
        update["gaps"] = [*gaps, f"only {len(ranked)} hypothesis(es): too little abnormal evidence"]
    return state.model_copy(update=update)


def _merge_proposals(ranked: list[Hypothesis], extra: list[Hypothesis]) -> list[Hypothesis]:
    """Reasoner proposals join after the deterministic ones; they never displace the top ones."""
    seen = {(h.entity, h.fault_type) for h in ranked}
    merged = list(ranked)
    for h in extra:
        if (h.entity, h.fault_type) not in seen and len(merged) < MAX_MERGED_HYPOTHESES:
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


def stage_specialists(state: EngineState, deps: EngineDeps) -> EngineState:
    ctx = state.require_context()
    budget = state.fresh_budget()
    memory = InMemoryWorkingMemory(list(state.findings))
    done = {f.hypothesis_id for f in memory.findings()}
    todo = [h for h in state.hypotheses if h.id not in done]
    trace = list(state.trace)
    untested = list(state.untested)
    tools = context_tools(ctx)
    for specialist in default_specialists():
        gap = ctx.missing_source(specialist.source) if specialist.source else None
        if gap is not None:
            specialist.skip(todo, memory, gap)
            continue
        layer = ToolLayer(specialist.name, specialist.manifest, tools, budget, trace)
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
            return ToolLayer(agent, manifest, tools, budget, trace)

        try:
            for f in deps.reasoner.classify(ctx, undecided, open_tools, budget):
                memory.add(f)
        except BudgetExceeded as exc:
            untested.append(f"undecided hypotheses not tested by the model: {exc.detail}")
    return state.model_copy(
        update={"findings": memory.findings(), "trace": trace, "untested": untested, "budget": budget}
    )


def stage_supervise(state: EngineState, deps: EngineDeps) -> EngineState:
    """Evaluate; when nothing is validated, widen the scope once and test the new hypotheses."""
    hypotheses = list(state.hypotheses)
    assessments = assess(hypotheses, list(state.findings))
    if should_expand(assessments, state.budget, state.hops):
        wider = stage_assemble_context(state.model_copy(update={"hops": EXPANDED_HOPS}), deps)
        wider = stage_hypotheses(wider, deps)
        known = {(h.entity, h.fault_type) for h in hypotheses}
        added = [copy.copy(h) for h in wider.hypotheses if (h.entity, h.fault_type) not in known]
        if not added:
            return state.model_copy(update={"hops": EXPANDED_HOPS, "assessments": assessments})
        for i, h in enumerate(added, start=len(hypotheses) + 1):
            h.id = f"H{i}"
        # Widened priors are on another scale; keep them below the originals' floor.
        floor = min((h.prior for h in hypotheses), default=1.0)
        for h in added:
            h.prior = min(h.prior, floor) * 0.9
        merged = stage_specialists(
            wider.model_copy(update={"hypotheses": hypotheses + added, "findings": state.findings}), deps
        )
        assessments = assess(hypotheses + added, list(merged.findings))
        gaps = [*merged.gaps, "scope widened to 4 hops: nothing validated within 2"]
        state = merged.model_copy(update={"hops": EXPANDED_HOPS, "gaps": gaps})
    return state.model_copy(update={"assessments": assessments})


def stage_verify(state: EngineState, deps: EngineDeps) -> EngineState:
    assessments = copy.deepcopy(state.assessments)  # the verifier repairs in place: not the input's
    resolver = _resolver(state)
    verification = verify(assessments, resolver)
    assessments.sort(key=lambda a: (-a.score, a.hypothesis.id))
    return state.model_copy(update={"assessments": assessments, "verification": verification})


def _status(assessments: list[Assessment], budget: Budget) -> str:
    if assessments and assessments[0].status == "validated" and budget.exhausted is None:
        return "validated"
    return "inconclusive"


def _rca_gaps(state: EngineState, budget: Budget) -> list[str]:
    """What the RCA must say it could not do: budgets, untested hypotheses, unverified problems."""
    gaps = list(state.gaps)
    if budget.exhausted:
        gaps.append(f"budget exhausted: {budget.exhausted}")
    gaps += state.untested
    for a in state.assessments:
        if a.status == "untested":
            gaps.append(
                f"{a.hypothesis.id} ({a.hypothesis.entity}/{a.hypothesis.fault_type}) not evaluated: "
                "no specialist reached it"
            )
    gaps += [f"verification: {p}" for p in state.verification.remaining]
    return gaps


def stage_rca(state: EngineState, deps: EngineDeps) -> EngineState:
    ctx = state.require_context()
    budget = state.fresh_budget()
    assessments = state.assessments
    gate = apply_gates(assessments[0].confidence, assessments[0].findings) if assessments else None
    gaps = _rca_gaps(state, budget)
    verdict = decide_no_fault(ctx, assessments)  # nothing broken now: said so, with cites (engine/verdict.py)
    status = "no_fault" if verdict is not None else _status(assessments, budget)
    first = state.first_hypothesis_ms
    draft = build_result(
        ctx, assessments, gate, status=status, gaps=gaps, first_hypothesis_ms=first, total_ms=0, verdict=verdict
    )
    try:
        extra: list[Claim] = [] if verdict is not None else deps.reasoner.write(ctx, draft.claims, budget)
    except BudgetExceeded:
        extra = []
    gaps = list(dict.fromkeys([*gaps, *budget.notes]))
    result = build_result(
        ctx,
        assessments,
        gate,
        status=status,
        gaps=gaps,
        first_hypothesis_ms=first,
        total_ms=state.ms_since_start(),
        extra_claims=extra,
        verdict=verdict,
    )
    resolver = _resolver(state)
    if check_result(result, resolver):  # one repair, then publish with what remains noted
        result = repair_result(result, resolver)
        left = check_result(result, resolver)
        result.gaps += [f"verification: {p}" for p in left]
        result.summary_source = summary_source_of(result.claims)
    result.verification = state.verification
    result.trace = list(state.trace)  # every specialist tool call: the console's agent trace
    return state.model_copy(update={"result": result, "budget": budget})


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


def stage_risk_gate(state: EngineState, deps: EngineDeps) -> EngineState:
    result = state.result
    if result is None:
        raise ValueError("the risk gate needs the RCA's result (stage rca runs first)")
    if (result.gates is not None and result.gates.analysis_only) or not result.hypotheses:
        return state.model_copy(update={"result": result.model_copy(update={"proposals": []})})
    bundle = _bundle(state)
    topology = bundle.topology or Topology()
    graph, dynamics = world_for(topology, deps.world)
    proposals = propose(
        result.hypotheses,
        topology,
        settings=deps.worldmodel,
        changes=bundle.changes or [],
        graph=graph,
        dynamics=dynamics,
    )
    timing = result.timing.model_copy(update={"total_ms": state.ms_since_start()})
    return state.model_copy(update={"result": result.model_copy(update={"proposals": proposals, "timing": timing})})


STAGES: tuple[tuple[str, StageFn], ...] = (
    ("assemble_context", stage_assemble_context),
    ("hypotheses", stage_hypotheses),
    ("specialists", stage_specialists),
    ("supervise", stage_supervise),
    ("verify", stage_verify),
    ("rca", stage_rca),
    ("risk_gate", stage_risk_gate),
)


def run_stages(state: EngineState, deps: EngineDeps, after: str | None = None) -> EngineState:
    """Run the stages in order, starting after the named one (resume from a checkpoint)."""
    names = [n for n, _ in STAGES]
    start = names.index(after) + 1 if after else 0
    for _, fn in STAGES[start:]:
        state = fn(state, deps)
    return state


def run_investigation(bundle_path: str | Path, deps: EngineDeps | None = None) -> InvestigationResult:
    deps = deps or EngineDeps()
    state = run_stages(initial_state(bundle_path, deps), deps)
    if state.result is None:
        raise ValueError("the stages finished without a result")
    return state.result
