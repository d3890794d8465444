"""`rootward sim ...` and `rootward demo`: simulated incidents for evaluation and demos."""

from __future__ import annotations

from pathlib import Path

import typer

sim_app = typer.Typer(help="Generate, vary and stream simulated incidents.", no_args_is_help=True)


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


@sim_app.command("generate")
def generate_cmd(
    out: Path = typer.Option(..., "--out", help="Directory to write bundles into."),
    count: int = typer.Option(15, "--count", min=1, help="How many bundles."),
    seed: int = typer.Option(1, "--seed", help="Same seed, same bytes."),
    topology: str | None = typer.Option(
        None, "--topology", help="Built-in topologies (shop, homelab, pipeline; comma separated) or a YAML file."
    ),
    faults: str | None = typer.Option(None, "--faults", help="Comma-separated fault types (default: all 15)."),
) -> None:
    """Write COUNT incident bundles with known root causes (truth.json) under OUT."""
    from rootward.sim.generate import generate

    try:
        written = generate(out, count, seed, _split(topology), _split(faults))
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    for g in written:
        typer.echo(f"{g.path}  {g.topology}  {g.fault_type}")
    typer.echo(f"{len(written)} bundles in {out}")


@sim_app.command("golden")
def golden_cmd(out: Path = typer.Option(Path("golden"), "--out", help="Directory for the golden set.")) -> None:
    """Generate the fixed golden set (75 bundles, every fault type 5 times, all built-in topologies)."""
    from rootward.sim.generate import generate_golden

    written = generate_golden(out)
    typer.echo(f"{len(written)} golden bundles in {out}")


def register(app: typer.Typer) -> None:
    """Add `rootward sim` and `rootward demo` to the root app."""
    app.add_typer(sim_app, name="sim")
