"""`rootward sim ...` and `rootward demo`: simulated incidents for evaluation and demos."""

from __future__ import annotations

from pathlib import Path

import typer

sim_app = typer.Typer(help="Generate, vary and stream simulated incidents.", no_args_is_help=True)


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _minutes(value: str | None) -> list[int]:
    try:
        return [int(v) for v in _split(value) or []]
    except ValueError:
        raise ValueError(f"--previous takes whole minutes separated by commas (e.g. 8,16); got {value!r}") from None


@sim_app.command("generate")
def generate_cmd(
    out: Path = typer.Option(..., "--out", help="Directory to write bundles into."),
    count: int = typer.Option(15, "--count", min=1, help="How many bundles."),
    seed: int = typer.Option(1, "--seed", help="Same seed, same bytes."),
    topology: str | None = typer.Option(
        None, "--topology", help="Built-in topologies (shop, homelab, pipeline; comma separated) or a YAML file."
    ),
    faults: str | None = typer.Option(None, "--faults", help="Comma-separated fault types (default: all 15)."),
    max_spans: int = typer.Option(
        4000,
        "--max-spans",
        min=100,
        help="Spans a bundle holds at most (whole traces are sampled to fit); real bundles often hold 20,000.",
    ),
    step: int | None = typer.Option(
        None, "--step", min=1, help="Seconds between metric samples (default: 30 or 60, drawn per bundle)."
    ),
    lead: int | None = typer.Option(
        None, "--lead", min=5, help="Minutes of data before the onset at most (default: 45-70, drawn per bundle)."
    ),
    previous: str | None = typer.Option(
        None,
        "--previous",
        help="Comma-separated minutes: each bundle's window also holds an earlier fault of the run, starting "
        "that long before the incident and lasting 5 minutes, as back-to-back fault injection leaves (e.g. 8,16).",
    ),
) -> None:
    """Write COUNT incident bundles with known root causes (truth.json) under OUT."""
    from rootward.sim.generate import generate
    from rootward.sim.scenario import Sampling

    sampling = Sampling(step, lead * 60 if lead else None) if step or lead else None
    try:
        minutes = _minutes(previous)
        written = generate(out, count, seed, _split(topology), _split(faults), max_spans, sampling, minutes)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    for g in written:
        typer.echo(f"{g.path}  {g.topology}  {g.fault_type}")
    typer.echo(f"{len(written)} bundles in {out}")


@sim_app.command("golden")
def golden_cmd(
    out: Path = typer.Option(Path("golden"), "--out", help="Directory for the golden set."),
    examples: Path | None = typer.Option(
        None, "--examples", help="Also copy the sample bundles of this directory into OUT/examples (skipped if absent)."
    ),
) -> None:
    """Generate the fixed golden set (75 bundles, every fault type 5 times, all built-in topologies)."""
    import shutil

    from rootward.sim.generate import generate_golden

    written = generate_golden(out)
    typer.echo(f"{len(written)} golden bundles in {out}")
    if examples is None:
        return
    if not examples.is_dir():
        typer.echo(f"{examples}: no sample bundles there, skipped", err=True)
        return
    copied = 0
    for sample in sorted(p.parent for p in examples.glob("*/incident.yaml")):
        dest = out / "examples" / sample.name
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(sample, dest)
        dest.chmod(0o755)
        for f in dest.rglob("*"):
            f.chmod(0o755 if f.is_dir() else 0o644)
        copied += 1
    typer.echo(f"{copied} sample bundles in {out / 'examples'}")


@sim_app.command("vary")
def vary_cmd(
    bundle: Path = typer.Argument(..., help="A bundle directory to derive variants from."),
    out: Path = typer.Option(..., "--out", help="Directory to write the variants into."),
    count: int = typer.Option(3, "--count", min=1, help="How many variants."),
    seed: int = typer.Option(1, "--seed", help="Same seed, same variants."),
) -> None:
    """Rename every entity (everywhere, truth included), shift the clock and rescale metric units."""
    from rootward.sim.vary import vary_bundle

    if not (bundle / "incident.yaml").is_file():
        typer.echo(f"{bundle}: not a bundle directory (no incident.yaml)", err=True)
        raise typer.Exit(2)
    for path in vary_bundle(bundle, out, count, seed):
        typer.echo(str(path))


@sim_app.command("stream")
def stream_cmd(
    to: str = typer.Option(..., "--to", help="Base URL of a rootward server, e.g. http://127.0.0.1:8080"),
    token: str | None = typer.Option(None, "--token", envvar="ROOTWARD_INTAKE__TOKEN", help="Intake bearer token."),
    interval: float = typer.Option(180.0, "--interval", min=0.0, help="Seconds between incidents."),
    count: int = typer.Option(0, "--count", min=0, help="Incidents to send (0 = until interrupted)."),
    seed: int = typer.Option(1, "--seed", help="Seed of the incident sequence."),
    out: Path | None = typer.Option(None, "--out", help="Where to keep the bundles (default: a temp dir)."),
) -> None:
    """Replay simulated incidents as live Alertmanager webhooks to a running server."""
    import tempfile

    from rootward.sim.stream import stream

    target = out or Path(tempfile.mkdtemp(prefix="rootward-stream-"))

    def posted(path: Path, codes: list[int]) -> None:
        typer.echo(f"posted {path.name}: HTTP {', '.join(map(str, codes))}")

    try:
        stream(to, token, target, interval_s=interval, count=count, seed=seed, on_post=posted)
    except KeyboardInterrupt:
        typer.echo("stopped")


def demo_cmd(
    seed: int = typer.Option(7, "--seed", help="Which simulated incident."),
    fault: str | None = typer.Option(None, "--fault", help="Fault type to simulate (default: by seed)."),
    topology: str = typer.Option("shop", "--topology", help="Built-in topology or a YAML file."),
    keep: Path | None = typer.Option(None, "--keep", help="Keep the generated bundle in this directory."),
    purge: bool = typer.Option(
        False, "--purge", help="Instead: delete every simulated incident (serve --demo's) and its demo bundles."
    ),
) -> None:
    """Simulate one incident, investigate it end to end and print the RCA, then the simulated truth."""
    import tempfile

    if purge:
        _purge()
        return

    from rootward.domain.faults import FAULT_TYPES
    from rootward.eval.runner import investigation_view
    from rootward.eval.truth import read_truth
    from rootward.sim.generate import generate

    chosen = fault or FAULT_TYPES[seed % len(FAULT_TYPES)]
    with tempfile.TemporaryDirectory(prefix="rootward-demo-") as tmp:
        try:
            [made] = generate(keep or Path(tmp), 1, seed, [topology], [chosen])
        except ValueError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from None
        typer.echo(f"Simulated incident {made.path.name} ({made.topology} topology); investigating...\n")
        from rootward.engine.entry_point import investigate_bundle
        from rootward.engine.rca import render_markdown

        with investigation_view(made.path) as view:
            result = investigate_bundle(view)
        typer.echo(render_markdown(result))
        truth = read_truth(made.path)
        verdict = (
            "found"
            if (result.hypotheses and (result.hypotheses[0].entity, result.hypotheses[0].fault_type) in truth.answers)
            else "missed"
        )
        typer.echo(
            f"\nSimulated truth: {truth.entity} / {truth.fault_type} ({truth.notes}) -> top hypothesis {verdict}"
        )


def _purge() -> None:
    """Remove the simulated incidents from the database and the demo's bundles from the data directory."""
    import shutil

    from rootward.cli.database import session_scope, settings_from
    from rootward.sim.demo_feed import bundle_dir
    from rootward.store.demo_purge import purge_simulated
    from rootward.store.migrate import upgrade

    settings = settings_from(None)
    upgrade(settings.database_url)
    bundles = bundle_dir()  # where `serve --demo` writes them
    with session_scope(settings) as session, session.begin():
        counts = purge_simulated(session, [bundles, *settings.replay.simulated_dirs])
    removed = sum(1 for p in bundles.iterdir() if p.is_dir())
    shutil.rmtree(bundles, ignore_errors=True)
    typer.echo(f"{counts.summary()}; {removed} demo bundles removed from {bundles}")


def register(app: typer.Typer) -> None:
    """Add `rootward sim` and `rootward demo` to the root app."""
    app.add_typer(sim_app, name="sim")
    app.command("demo")(demo_cmd)
