"""`rootward kb`: ingest, list, search and evaluate the knowledge base; review runbook drafts."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from rootward.knowledge.embeddings import Embedder

kb_app = typer.Typer(help="Knowledge base: runbooks, postmortems and team notes.", no_args_is_help=True)
drafts_app = typer.Typer(help="Runbook additions drafted from resolved investigations.", no_args_is_help=True)
kb_app.add_typer(drafts_app, name="drafts")

DbOption = Annotated[str | None, typer.Option("--db", help="Database URL (default: from the rootward config).")]
NoDenseOption = Annotated[bool, typer.Option("--no-dense", help="BM25 only: do not load the embedding model.")]


def _database_url(db: str | None) -> str:
    if db:
        return db
    from rootward.settings import load_settings

    return load_settings().database_url


def _sessions(db: str | None) -> sessionmaker[Session]:
    from sqlalchemy import inspect

    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.migrate import upgrade

    url = _database_url(db)
    engine = make_engine(url)
    if not inspect(engine).has_table("kb_drafts"):  # a full Alembic run costs seconds; skip when done
        upgrade(url)
    return make_session_factory(engine)


def _embedder(no_dense: bool) -> Embedder | None:
    """The configured embedder (`knowledge.embedder`, default the local MiniLM), or None for --no-dense."""
    if no_dense:
        return None
    from rootward.knowledge.settings import make_embedder
    from rootward.settings import load_settings

    return make_embedder(load_settings().knowledge)


@kb_app.command("ingest")
def ingest(
    directory: Annotated[
        Path | None,
        typer.Argument(exists=True, file_okay=False, help="Knowledge root (default: knowledge.directories)."),
    ] = None,
    watch: Annotated[bool, typer.Option("--watch", help="Keep running and re-ingest on changes.")] = False,
    db: DbOption = None,
    no_dense: NoDenseOption = False,
) -> None:
    """Ingest Markdown runbooks, postmortems and bits/ notes; unchanged files cost nothing."""
    from rootward.knowledge.ingest import ingest_directory, watch_directory

    sessions = _sessions(db)
    embedder = _embedder(no_dense)
    if directory is None:
        from rootward.settings import load_settings

        roots = load_settings().knowledge.directories
        if not roots:
            typer.echo("error: give a DIRECTORY or set knowledge.directories", err=True)
            raise typer.Exit(2)
    else:
        roots = [directory]
    if not watch:
        for root in roots:
            typer.echo(ingest_directory(sessions, root, embedder).summary())
        return
    if len(roots) > 1:
        typer.echo("error: --watch takes one directory", err=True)
        raise typer.Exit(2)
    directory = roots[0]
    typer.echo(f"watching {directory} (Ctrl-C to stop)")
    with contextlib.suppress(KeyboardInterrupt):
        watch_directory(sessions, directory, embedder, lambda r: typer.echo(r.summary()))


@kb_app.command("list")
def list_documents(db: DbOption = None, as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List ingested documents with kind, services, last update and chunk count."""
    from rootward.store.knowledge import all_documents, chunk_counts

    sessions = _sessions(db)
    with sessions() as session:
        counts = chunk_counts(session)
        rows: list[dict[str, object]] = [
            {
                "path": d.path,
                "kind": d.kind,
                "services": list(d.services),
                "updated": d.updated.isoformat() if d.updated else None,
                "chunks": counts.get(d.id, 0),
                "source": d.source,
            }
            for d in all_documents(session)
        ]
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    for r in rows:
        services = ",".join(r["services"])  # type: ignore[arg-type]
        typer.echo(f"{r['path']:60} {r['kind']:10} {services:24} {r['updated'] or '-':10} {r['chunks']}")
    typer.echo(f"{len(rows)} documents")


@kb_app.command("search")
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    service: Annotated[list[str] | None, typer.Option("--service", "-s", help="Prefer these services.")] = None,
    k: Annotated[int, typer.Option("-k", help="How many chunks.")] = 8,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    db: DbOption = None,
    no_dense: NoDenseOption = False,
) -> None:
    """Hybrid search (BM25 + embeddings) over the ingested knowledge."""
    from rootward.knowledge.ingest import load_index

    started = time.perf_counter()
    index = load_index(_sessions(db), _embedder(no_dense))
    hits = index.search(query, services=service or [], k=k)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "query": query,
                    "degraded": index.degraded,
                    "hits": [
                        {
                            "cite": h.evidence.cite,
                            "score": h.score,
                            "kind": h.kind,
                            "title": h.title,
                            "services": list(h.services),
                            "stale": h.stale,
                            "warning": h.warning,
                            "text": h.text,
                        }
                        for h in hits
                    ],
                },
                indent=1,
            )
        )
        return
    if index.degraded:
        typer.echo(f"note: {index.degraded}")
    for h in hits:
        typer.echo(f"{h.score:8.4f}  {h.evidence.cite}  [{h.kind}] {h.title}")
        if h.warning:
            typer.echo(f"          WARNING: {h.warning}")
    typer.echo(f"{len(hits)} hits in {(time.perf_counter() - started) * 1000:.0f} ms (including index load)")


@kb_app.command("eval")
def evaluate(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Evaluation set (JSON).")],
    as_json: Annotated[bool, typer.Option("--json")] = False,
    no_dense: NoDenseOption = False,
    from_db: Annotated[
        bool,
        typer.Option("--from-db", help="Search the ingested knowledge (no re-embedding) instead of the file's corpus."),
    ] = False,
    db: DbOption = None,
) -> None:
    """Print hit@5 and near-miss avoidance in the top 3 for an evaluation set."""
    from rootward.eval.kb_eval import run_eval
    from rootward.knowledge.ingest import load_index

    embedder = _embedder(no_dense)
    index = load_index(_sessions(db), embedder) if from_db else None
    report = run_eval(file, embedder, dense=embedder is not None, index=index)
    data = report.as_dict()
    if as_json:
        typer.echo(json.dumps(data, indent=1))
        return
    typer.echo(f"{data['name']}: {data['documents']} documents, {data['chunks']} chunks, {data['queries']} queries")
    if data["degraded"]:
        typer.echo(f"note: {data['degraded']}")
    typer.echo(f"hit@5                      {data['hit_at_5']:.3f}  (target 0.95)")
    typer.echo(f"near-miss avoidance top 3  {data['near_miss_avoidance_top3']:.3f}  (target 0.90)")
    for cat, m in data["by_category"].items():
        typer.echo(
            f"  {cat:18} n={m['queries']:3}  hit@5 {m['hit_at_5']:.3f}  avoid {m['near_miss_avoidance_top3']:.3f}"
        )
    for f in data["failures"]:
        typer.echo(f"  miss {f['id']}: {f['query']!r} -> {f['top5'][:3]}")


@drafts_app.command("list")
def drafts_list(
    status: Annotated[str | None, typer.Option(help="proposed | accepted | rejected")] = "proposed",
    db: DbOption = None,
) -> None:
    """Drafts waiting for a decision (or with --status, any)."""
    from rootward.knowledge.drafts import list_drafts

    rows = list_drafts(_sessions(db), status or None)
    for d in rows:
        writer = "model + template" if (d.finding or {}).get("prose") == "llm" else "template"
        typer.echo(f"{d.id}  {d.status:9} {d.target_path}  (investigation {d.investigation_id}; {writer})")
        typer.echo("    " + d.body.strip().replace("\n", "\n    "))
    typer.echo(f"{len(rows)} drafts")


@drafts_app.command("accept")
def drafts_accept(
    draft_id: Annotated[str, typer.Argument()],
    approver: Annotated[str, typer.Option("--by", help="Who approves.")] = "cli",
    db: DbOption = None,
    no_dense: NoDenseOption = False,
) -> None:
    """Accept a draft: write it into its runbook and re-index it now."""
    from rootward.knowledge.drafts import DraftError, accept_draft

    try:
        report = accept_draft(_sessions(db), draft_id, approver, _embedder(no_dense))
    except DraftError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"accepted {draft_id}: {report.summary()}")


@drafts_app.command("reject")
def drafts_reject(
    draft_id: Annotated[str, typer.Argument()],
    approver: Annotated[str, typer.Option("--by", help="Who rejects.")] = "cli",
    note: Annotated[str, typer.Option(help="Why.")] = "",
    db: DbOption = None,
) -> None:
    """Reject a draft; it stays on record."""
    from rootward.knowledge.drafts import DraftError, reject_draft

    try:
        reject_draft(_sessions(db), draft_id, approver, note)
    except DraftError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"rejected {draft_id}")


def register(app: typer.Typer) -> None:
    """Add `rootward kb ...` to the root app."""
    app.add_typer(kb_app, name="kb")
