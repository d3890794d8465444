"""`rootward logs`: cluster a log file into templates, scrub it, guard it; LogHub accuracy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

logs_app = typer.Typer(help="Log template clustering (Drain3 with generic masking).", no_args_is_help=True)

JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def read_messages(path: Path) -> list[str]:
    """One message per line; line numbers stay those an editor shows (only `\\n` splits)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


@logs_app.command("cluster")
def cluster(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Log file, one message per line.")],
    as_json: JsonOption = False,
    top: Annotated[int, typer.Option("--top", help="Clusters to show in text mode (0 = all).")] = 20,
) -> None:
    """Group the lines of FILE into templates, most relevant first."""
    from rootward.context.logs import cluster_messages

    clusters = cluster_messages(read_messages(file))
    if as_json:
        payload = {"clusters": [{"template": c.template, "count": c.count, "lines": list(c.lines)} for c in clusters]}
        typer.echo(json.dumps(payload))
        return
    total = sum(c.count for c in clusters)
    typer.echo(f"{total} lines, {len(clusters)} templates")
    shown = clusters if top <= 0 else clusters[:top]
    for c in shown:
        typer.echo(f"{c.count:>8}  {c.template}  (e.g. line {c.representative})")
    if len(shown) < len(clusters):
        typer.echo(f"... {len(clusters) - len(shown)} more (use --top 0 or --json)")


@logs_app.command("scrub")
def scrub_file(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Text or log file.")],
    as_json: JsonOption = False,
) -> None:
    """Print FILE with PII and secrets replaced by typed placeholders (what an LLM may see)."""
    from rootward.context.scrub import scrub

    result = scrub(file.read_text(encoding="utf-8", errors="replace"))
    if not as_json:
        typer.echo(result.text, nl=False)
        return
    redactions = [{"kind": r.kind, "rule": r.rule, "start": r.start, "end": r.end} for r in result.redactions]
    typer.echo(json.dumps({"text": result.text, "redactions": redactions}))


@logs_app.command("guard")
def guard_file(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Text or log file.")],
    as_json: JsonOption = False,
    report: Annotated[
        bool, typer.Option("--report", help="List the withheld lines and their rules instead of the guarded text.")
    ] = False,
) -> None:
    """Print FILE wrapped in <log_content>, with lines that instruct a model withheld."""
    from rootward.context.injection import guard

    text = file.read_text(encoding="utf-8", errors="replace").rstrip("\n")
    guarded = guard(text, source=file.name)
    if as_json:
        redactions = [{"line": r.line, "rule": r.rule} for r in guarded.redactions]
        typer.echo(json.dumps({"text": guarded.text, "redactions": redactions}))
    elif report:
        total = sum(1 for line in text.split("\n") if line.strip())
        for r in guarded.redactions:
            # ascii(): invisible characters (tag characters, zero-width) show as escapes
            typer.echo(f"line {r.line}: {r.rule}: {ascii(r.original)[1:-1]}")
        typer.echo(f"{len(guarded.redactions)} of {total} lines withheld")
    else:
        typer.echo(guarded.text)


@logs_app.command("accuracy")
def accuracy(
    directory: Annotated[
        Path, typer.Argument(exists=True, file_okay=False, help="LogHub folder with <S>/<S>_2k.log_structured*.csv.")
    ],
    as_json: JsonOption = False,
) -> None:
    """Grouping accuracy per system, with one clustering configuration for all of them."""
    from rootward.eval.loghub import evaluate_dir

    results = evaluate_dir(directory)
    if not results:
        typer.echo(f"no *_structured*.csv files under {directory}", err=True)
        raise typer.Exit(1)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "systems": [
                        {
                            "system": r.system,
                            "grouping_accuracy": round(r.grouping_accuracy, 4),
                            "published_drain": r.published,
                            "lines": r.lines,
                            "events": r.events,
                            "clusters": r.clusters,
                        }
                        for r in results
                    ],
                    "mean": round(sum(r.grouping_accuracy for r in results) / len(results), 4),
                }
            )
        )
        return
    typer.echo(f"{'system':<12}{'GA':>7}{'Drain':>8}{'events':>8}{'clusters':>10}")
    for r in results:
        published = f"{r.published:.3f}" if r.published is not None else "-"
        typer.echo(f"{r.system:<12}{r.grouping_accuracy:>7.3f}{published:>8}{r.events:>8}{r.clusters:>10}")
    mean = sum(r.grouping_accuracy for r in results) / len(results)
    typer.echo(f"{'mean':<12}{mean:>7.3f}")


def register(app: typer.Typer) -> None:
    """Add `rootward logs ...` to the root app."""
    app.add_typer(logs_app, name="logs")
