"""`rootward graph seed|show|deps|blast-radius|learn|mine|backtest`: the world model from the shell.

Read commands use the graph stored in the database, or, with `--bundle` /
`--topology`, a graph built on the spot from a file (no database needed).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from rootward.cli.database import session_scope, settings_from

graph_app = typer.Typer(help="The causal dependency graph: seed, inspect, predict, backtest.", no_args_is_help=True)

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="rootward.yaml (default: $ROOTWARD_CONFIG, ./rootward.yaml)"),
]
BundleOption = Annotated[
    Path | None, typer.Option("--bundle", help="Use this incident bundle's topology instead of the database.")
]
TopologyOption = Annotated[
    Path | None, typer.Option("--topology", help="Use this topology.yaml instead of the database.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _topology_file(path: Path) -> Any:
    from rootward.bundle.format import BundleError
    from rootward.bundle.validate import parse_topology

    try:
        return parse_topology(path.read_text(encoding="utf-8"))
    except (OSError, BundleError) as exc:
        typer.echo(f"{path}: {exc}", err=True)
        raise typer.Exit(2) from None


def _graph_and_dynamics(config: Path | None, bundle: Path | None, topology: Path | None) -> tuple[Any, Any]:
    from rootward.worldmodel.dynamics import Dynamics
    from rootward.worldmodel.graph import WorldGraph

    if bundle is not None:
        from rootward.bundle.load import load_bundle

        loaded = load_bundle(bundle)
        if loaded.topology is None:
            typer.echo(f"{bundle}: the bundle has no topology.yaml", err=True)
            raise typer.Exit(2)
        return WorldGraph.from_topology(loaded.topology), Dynamics()
    if topology is not None:
        return WorldGraph.from_topology(_topology_file(topology)), Dynamics()
    from rootward.store.worldmodel import load_dynamics, load_graph_records

    with session_scope(settings_from(config)) as session:
        graph = WorldGraph.from_records(*load_graph_records(session))
        dynamics = Dynamics.from_records(load_dynamics(session))
    if len(graph) == 0:
        typer.echo("the graph is empty: run `rootward graph seed` (or pass --bundle/--topology)", err=True)
        raise typer.Exit(1)
    return graph, dynamics


def _span_sets(settings: Any, paths: list[Path]) -> list[tuple[str, Any]]:
    """(label, zero-argument span getter) for each `--traces` bundle and each configured trace source."""
    from datetime import timedelta

    from rootward.bundle.load import load_bundle
    from rootward.sources.live import connector_sources
    from rootward.worldmodel.backtest_cases import bundle_dirs_under

    out: list[tuple[str, Any]] = []
    for path in paths:
        for bundle in bundle_dirs_under(path) or [path]:
            out.append((str(bundle), lambda b=bundle: list(load_bundle(b).spans or ())))
    lookback = timedelta(seconds=settings.worldmodel.trace_lookback_s)
    for name, source in connector_sources(settings.connector_sections(), wanted={"traces"})["traces"]:
        end = datetime.now(UTC)
        out.append((name, lambda s=source, e=end: list(s.spans(None, e - lookback, e))))
    return out


def _require_entity(graph: Any, entity: str) -> None:
    if not graph.has_entity(entity):
        typer.echo(f"unknown entity {entity!r}; known: {', '.join(graph.entities()[:20])}", err=True)
        raise typer.Exit(1)


@graph_app.command("seed")
def seed_cmd(
    config: ConfigOption = None,
    bundle: BundleOption = None,
    topology: Annotated[
        list[Path] | None, typer.Option("--topology", help="Extra topology.yaml files (layer topology_file).")
    ] = None,
    operator: Annotated[
        list[Path] | None, typer.Option("--operator", help="topology.yaml of operator-declared edges.")
    ] = None,
    traces: Annotated[
        list[Path] | None,
        typer.Option("--traces", help="A bundle (or directory of bundles) whose traces.jsonl gives call edges."),
    ] = None,
) -> None:
    """Pull every configured layer (topology file, Kubernetes, Prometheus targets, traces, operators) into the DB."""
    from rootward.store.migrate import upgrade
    from rootward.store.worldmodel import load_graph_records, save_graph
    from rootward.worldmodel.call_edges import seed_traces
    from rootward.worldmodel.graph import WorldGraph

    settings = settings_from(config)
    wm = settings.worldmodel
    layers: list[tuple[str, str, Any]] = []  # (layer, label, zero-argument topology getter)
    if settings.topology.file is not None:
        path = settings.topology.file
        layers.append(("topology_file", str(path), lambda p=path: _topology_file(p)))
    for path in [*wm.topology_files, *(topology or [])]:
        layers.append(("topology_file", str(path), lambda p=path: _topology_file(p)))
    for path in [*wm.operator_files, *(operator or [])]:
        layers.append(("operator", str(path), lambda p=path: _topology_file(p)))
    if bundle is not None:
        from rootward.bundle.load import load_bundle

        layers.append(("topology_file", str(bundle), lambda b=bundle: load_bundle(b).topology))
    from rootward.sources.live import connector_sources

    for name, source in connector_sources(settings.connector_sections(), wanted={"topology"})["topology"]:
        if settings.topology.layers_from(name):
            layers.append((name, name, source.graph))
    span_sets = _span_sets(settings, traces or [])
    if not layers and not span_sets:
        typer.echo(
            "no layer configured: set topology.file, worldmodel.topology_files, kubernetes, a trace source, "
            "or pass --topology/--traces"
        )
        raise typer.Exit(1)

    upgrade(settings.database_url)
    now = datetime.now(UTC)
    with session_scope(settings) as session:
        graph = WorldGraph.from_records(*load_graph_records(session, now=now))
        for layer, label, get in layers:
            try:
                got = get()
            except typer.Exit:
                raise
            except Exception as exc:  # a dead layer is reported; the others still seed
                typer.echo(f"{label}: skipped ({exc})", err=True)
                continue
            if got is None:
                typer.echo(f"{label}: skipped (no topology)", err=True)
                continue
            count = graph.seed_topology(got, layer=layer, now=now, ttl_s=wm.layer_ttl_s.get(layer))
            typer.echo(f"{label}: {count} edge claims as layer {layer}")
        for label, get_spans in span_sets:
            try:
                spans = get_spans()
            except Exception as exc:  # a dead trace source is reported; the other layers still seed
                typer.echo(f"{label}: skipped ({exc})", err=True)
                continue
            count = seed_traces(graph, spans, now=now, ttl_s=wm.layer_ttl_s.get("traces"))
            typer.echo(f"{label}: {count} edge claims as layer traces (from {len(spans)} spans)")
        save_graph(session, graph.entity_records(), graph.claim_records())
        session.commit()
    typer.echo(f"graph: {len(graph)} entities, {graph.g.number_of_edges()} edges")


@graph_app.command("show")
def show_cmd(
    entity: str,
    config: ConfigOption = None,
    bundle: BundleOption = None,
    topology: TopologyOption = None,
    as_json: JsonOption = False,
) -> None:
    """An entity, the edges into and out of it, and which layers claim each edge."""
    graph, _ = _graph_and_dynamics(config, bundle, topology)
    _require_entity(graph, entity)

    def edge_json(source: str, target: str) -> dict[str, Any]:
        view = graph.edge(source, target)
        return {
            "source": source,
            "target": target,
            "relation": view.relation,
            "confidence": view.confidence,
            "layers": {c.layer: c.confidence for c in view.claims},
            "notes": {c.layer: c.note for c in view.claims if c.note},
        }

    data = {
        "name": entity,
        "kind": graph.kind(entity),
        "attributes": graph.attributes(entity),
        "needs": [edge_json(entity, t) for t in graph.dependencies(entity)],
        "needed_by": [edge_json(s, entity) for s in graph.dependents(entity)],
    }
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    typer.echo(f"{entity} ({data['kind']})")
    for key in ("needs", "needed_by"):
        typer.echo(f"  {key.replace('_', ' ')}:")
        for e in data[key]:
            other = e["target"] if key == "needs" else e["source"]
            layers = ", ".join(f"{k} {v:.2f}" for k, v in e["layers"].items())
            typer.echo(f"    {other:<28} {e['relation']:<11} conf {e['confidence']:.2f}  [{layers}]")
            for layer, note in e["notes"].items():
                typer.echo(f"      {layer}: {note}")


@graph_app.command("deps")
def deps_cmd(
    entity: str,
    config: ConfigOption = None,
    bundle: BundleOption = None,
    topology: TopologyOption = None,
    depth: Annotated[int, typer.Option("--depth", min=1, help="Hops to follow.")] = 3,
) -> None:
    """What ENTITY needs, transitively: where its symptoms may come from."""
    graph, _ = _graph_and_dynamics(config, bundle, topology)
    _require_entity(graph, entity)
    seen = {entity}

    def walk(name: str, level: int) -> None:
        for target in graph.dependencies(name):
            view = graph.edge(name, target)
            mark = " (seen)" if target in seen else ""
            typer.echo(f"{'  ' * level}{target} [{view.relation}, {view.confidence:.2f}]{mark}")
            if target not in seen and level < depth:
                seen.add(target)
                walk(target, level + 1)

    typer.echo(entity)
    walk(entity, 1)


@graph_app.command("blast-radius")
def blast_radius_cmd(
    entity: str,
    config: ConfigOption = None,
    bundle: BundleOption = None,
    topology: TopologyOption = None,
    action: Annotated[
        str | None, typer.Option("--action", help="restart, rollback, scale, config_change, drain, failover, reboot")
    ] = None,
    fault: Annotated[str | None, typer.Option("--fault", help="A fault type instead of an action.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Predicted blast radius of an action (default restart) or a fault at ENTITY."""
    from rootward.worldmodel.predict import predict

    graph, dynamics = _graph_and_dynamics(config, bundle, topology)
    _require_entity(graph, entity)
    wm = settings_from(config).worldmodel if bundle is None and topology is None else None
    kwargs: dict[str, Any] = {"fault_type": fault} if fault else {"action": action or "restart"}
    try:
        prediction = predict(
            graph,
            entity,
            dynamics=dynamics,
            min_probability=wm.min_probability if wm else 0.05,
            max_depth=wm.max_depth if wm else 6,
            **kwargs,
        )
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(prediction.to_json(), indent=2))
        return
    typer.echo(f"{prediction.cause} on {entity}: window {prediction.window_s}s")
    for e in prediction.entities:
        alerts = ", ".join(a.name for a in e.alerts)
        typer.echo(
            f"  {e.probability:5.2f}  {e.name:<24} +{e.delay_p50_s:.0f}s (p95 {e.delay_p95_s:.0f}s)  "
            f"via {' <- '.join(reversed(e.path))}  [{alerts}]"
        )


def _cases(directory: Path) -> tuple[list[Any], list[str]]:
    from rootward.bundle.load import load_bundle
    from rootward.eval.truth import read_truth
    from rootward.worldmodel.backtest_cases import bundle_dirs_under, load_cases

    dirs = bundle_dirs_under(directory)
    if not dirs:
        typer.echo(f"{directory}: no bundles found", err=True)
        raise typer.Exit(2)
    return load_cases(dirs, read_truth, load_bundle)


@graph_app.command("learn")
def learn_cmd(directory: Path, config: ConfigOption = None) -> None:
    """Learn edge dynamics from bundles with truth under DIRECTORY into the stored model."""
    from rootward.store.migrate import upgrade
    from rootward.store.worldmodel import load_dynamics, load_graph_records, save_dynamics
    from rootward.worldmodel.dynamics import Dynamics
    from rootward.worldmodel.graph import WorldGraph

    settings = settings_from(config)
    cases, skipped = _cases(directory)
    upgrade(settings.database_url)
    with session_scope(settings) as session:
        graph = WorldGraph.from_records(*load_graph_records(session))
        dynamics = Dynamics.from_records(load_dynamics(session))
        trials = 0
        for case in cases:
            local = graph if len(graph) else WorldGraph.from_topology(case.topology)
            trials += dynamics.learn(local, [case.record])
        save_dynamics(session, dynamics.to_records())
        session.commit()
    typer.echo(f"learned from {len(cases)} incidents ({trials} edge trials); skipped {len(skipped)}")


@graph_app.command("mine")
def mine_cmd(
    directory: Path,
    config: ConfigOption = None,
    apply: Annotated[bool, typer.Option("--apply", help="Store the proposed edges as `learned` claims.")] = False,
) -> None:
    """Propose edges from alerts that co-occur across the bundles under DIRECTORY (no truth needed)."""
    from rootward.bundle.load import load_bundle
    from rootward.store.migrate import upgrade
    from rootward.store.worldmodel import load_graph_records, save_graph
    from rootward.worldmodel.backtest_cases import bundle_dirs_under
    from rootward.worldmodel.graph import WorldGraph
    from rootward.worldmodel.history import ObservedAlert
    from rootward.worldmodel.miner import apply as apply_edges
    from rootward.worldmodel.miner import mine

    settings = settings_from(config)
    alerts: list[ObservedAlert] = []
    incident_of: list[str] = []
    for path in bundle_dirs_under(directory):
        bundle = load_bundle(path)
        for a in bundle.alerts:
            alerts.append(ObservedAlert(a.service, a.name, a.starts_at, a.ends_at))
            incident_of.append(bundle.id)
    upgrade(settings.database_url)
    with session_scope(settings) as session:
        graph = WorldGraph.from_records(*load_graph_records(session))
        proposals = mine(graph, alerts, incident_of=incident_of)
        for p in proposals:
            typer.echo(
                f"{p.source} -> {p.target}: {p.observations} co-occurrences, lift {p.lift:.1f}, "
                f"{p.distance} hops apart, confidence {p.confidence:.2f}"
            )
        if apply and proposals:
            ttl = settings.worldmodel.layer_ttl_s.get("learned", 14 * 86400.0)
            apply_edges(graph, proposals, ttl_s=ttl)
            save_graph(session, graph.entity_records(), graph.claim_records())
            session.commit()
    typer.echo(f"{len(proposals)} edges proposed from {len(alerts)} alerts" + (" (stored)" if apply else ""))


@graph_app.command("backtest")
def backtest_cmd(
    directory: Path,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the shuffled controls.")] = 0,
    shuffles: Annotated[int, typer.Option("--shuffles", min=1, help="Shuffled graphs per topology.")] = 20,
    dynamics: Annotated[
        str,
        typer.Option(
            "--dynamics",
            help="both: the structural prior and k-fold learned dynamics; prior or learned: one of them.",
        ),
    ] = "both",
    folds: Annotated[int, typer.Option("--folds", min=2, help="Folds of the learned run (per topology).")] = 5,
    as_json: JsonOption = False,
) -> None:
    """Coverage of the observed alerts by the cascade predicted from the true root, vs shuffled graphs."""
    from rootward.cli.graph_backtest import render_backtest
    from rootward.worldmodel.backtest import run_backtest

    modes = {"both": (False, True), "prior": (False,), "learned": (True,)}.get(dynamics)
    if modes is None:
        typer.echo("--dynamics: expected both, prior or learned", err=True)
        raise typer.Exit(2)
    cases, skipped = _cases(directory)
    reports = {}
    for learn in modes:
        report = run_backtest(cases, seed=seed, shuffles=shuffles, learn=learn, folds=folds).to_json()
        report["skipped"] = [*skipped, *report["skipped"]]
        reports["learned" if learn else "prior"] = report
    if as_json:
        typer.echo(json.dumps(reports if len(reports) > 1 else next(iter(reports.values())), indent=2))
        return
    for line in render_backtest(reports):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add `rootward graph ...` to the root app."""
    app.add_typer(graph_app, name="graph")
