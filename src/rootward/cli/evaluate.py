"""`rootward eval`: score the investigation on a directory of bundles."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add `rootward eval` to the root app."""

    @app.command("eval")
    def eval_cmd(
        directory: Path | None = typer.Argument(
            None,
            envvar="ROOTWARD_EVAL_DATA",
            show_envvar=True,
            help="A bundle, or a directory of bundles (dirs or .tar.gz); default: $ROOTWARD_EVAL_DATA.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the JSON report instead of Markdown."),
        baseline: Path | None = typer.Option(None, "--baseline", help="Earlier JSON report to compare with."),
        margin: float = typer.Option(0.05, "--margin", help="Allowed AC@1 drop against the baseline."),
        cite_margin: float = typer.Option(0.0, "--cite-margin", help="Allowed citation accuracy drop."),
        min_no_fault: float = typer.Option(
            0.9, "--min-no-fault", help="With --baseline: least share of healthy bundles that must get no_fault."
        ),
        max_false_no_fault: float = typer.Option(
            0.02, "--max-false-no-fault", help="With --baseline: most share of fault bundles that may get no_fault."
        ),
        jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Bundles investigated in parallel (processes)."),
        out: Path | None = typer.Option(None, "--out", help="Also write the Markdown report here."),
        json_out: Path | None = typer.Option(None, "--json-out", help="Also write the JSON report here."),
        results_dir: Path | None = typer.Option(
            None, "--results-dir", help="Also write each investigation's result JSON here (<bundle>.json)."
        ),
    ) -> None:
        """Investigate every bundle (never showing it truth.json) and score AC@k, citations and timing."""
        from rootward.eval.report import build_report, compare, to_markdown
        from rootward.eval.runner import discover_bundles, evaluate
        from rootward.eval.truth import has_truth

        if directory is None:
            typer.echo("name a directory of bundles (e.g. examples, golden) or set ROOTWARD_EVAL_DATA", err=True)
            raise typer.Exit(2)
        if not directory.exists():
            typer.echo(f"{directory}: no such directory", err=True)
            raise typer.Exit(2)
        found = discover_bundles(directory)
        bundles = [b for b in found if has_truth(b)]
        for skipped in sorted(set(found) - set(bundles)):
            typer.echo(f"skipped {skipped}: no truth.json, cannot be scored", err=True)
        if not bundles:
            typer.echo(f"{directory}: no bundles with truth.json found", err=True)
            raise typer.Exit(2)
        started = time.monotonic()
        scored = evaluate(bundles, jobs=jobs, progress=lambda s: print(".", end="", file=sys.stderr, flush=True))
        print("", file=sys.stderr)
        if results_dir is not None:
            results_dir.mkdir(parents=True, exist_ok=True)
            for s in scored:
                if s.result is not None:
                    name = s.path.name.removesuffix(".tar.gz").removesuffix(".tgz")
                    (results_dir / f"{name}.json").write_text(json.dumps(s.result, indent=1) + "\n", encoding="utf-8")
        report = build_report([s.score for s in scored], wall_s=time.monotonic() - started, jobs=jobs)
        markdown = to_markdown(report)
        if out:
            out.write_text(markdown, encoding="utf-8")
        if json_out:
            json_out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        typer.echo(json.dumps(report, indent=1, sort_keys=True) if as_json else markdown)
        if baseline is not None:
            previous = json.loads(baseline.read_text(encoding="utf-8"))
            regressions = compare(
                report,
                previous,
                ac1_margin=margin,
                cite_margin=cite_margin,
                min_no_fault=min_no_fault,
                max_false_no_fault=max_false_no_fault,
            )
            for r in regressions:
                typer.echo(f"REGRESSION: {r}", err=True)
            if regressions:
                raise typer.Exit(1)
            typer.echo("baseline: no regression", err=True)
