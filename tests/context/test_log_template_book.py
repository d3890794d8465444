"""Each service's lines are clustered once, and every reading of them gets the same templates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rootward.context import log_template_book
from rootward.context.log_shifts import log_shifts
from rootward.context.log_signals import log_signals
from rootward.context.log_template_book import TemplateBook
from rootward.context.logs import assign_templates, cluster_logs
from rootward.domain.telemetry import LogRecord

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
ONSET = T0 + timedelta(minutes=10)
END = T0 + timedelta(minutes=20)


def _lines() -> list[LogRecord]:
    out: list[LogRecord] = []
    for i in range(1200):
        ts = T0 + timedelta(seconds=i)
        for service in ("cart", "checkout"):
            out.append(LogRecord(ts, service, f"handled request {i} for user u{i % 7} in {i % 50} ms", "INFO"))
        if ts >= ONSET and i % 3 == 0:
            out.append(LogRecord(ts, "checkout", f"payment declined for order {i}: card expired", "WARN"))
    return [LogRecord(r.ts, r.service, r.message, r.level, line=n) for n, r in enumerate(out, start=1)]


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def counted(messages, config=None):  # type: ignore[no-untyped-def]
        messages = list(messages)
        calls.append(len(messages))
        return assign_templates(messages, config)

    monkeypatch.setattr(log_template_book, "assign_templates", counted)
    return calls


def test_the_shifts_cluster_each_service_once_and_the_signals_look_up(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counted(monkeypatch)
    records = _lines()
    book = TemplateBook(records)
    shifts = log_shifts(records, onset=ONSET, baseline_start=T0, end=END, assign=book.assign)
    assert sorted(calls) == [1200, 1200 + 200]  # cart once, checkout once, every line
    assert any(s.service == "checkout" and s.kind == "new" and "card expired" in s.template for s in shifts)
    signals, _ = log_signals(records, onset=ONSET, baseline_start=T0, end=END, assign=book.assign_known)
    assert sorted(calls) == [1200, 1200 + 200]  # a sample of the same lines, looked up
    assert any(s.service == "checkout" and "card expired" in s.template for s in signals)


def test_with_nothing_learned_a_reading_clusters_only_its_own_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the shifts have nothing to compare, the signals' sample is not a reason to cluster every line."""
    calls = _counted(monkeypatch)
    records = _lines()
    book = TemplateBook(records)
    log_signals(records, onset=ONSET, baseline_start=T0, end=END, assign=book.assign_known)
    assert sum(calls) <= 1200 + 200  # the sample (at most 1,200 lines and every warning), not 2,600 lines


def test_the_book_gives_the_clusters_of_clustering_the_service_alone() -> None:
    records = [r for r in _lines() if r.service == "checkout"]
    book = TemplateBook(_lines())
    alone = cluster_logs(records, onset=ONSET, baseline_start=T0)
    shared = cluster_logs(records, onset=ONSET, baseline_start=T0, assign=book.assign)
    assert [(c.template, c.count, c.is_new) for c in shared] == [(c.template, c.count, c.is_new) for c in alone]


def test_services_never_share_a_template_id() -> None:
    book = TemplateBook(_lines())
    cart = [r for r in _lines() if r.service == "cart"][:3]
    checkout = [r for r in _lines() if r.service == "checkout"][:3]
    cart_ids, templates = book.assign(cart)
    checkout_ids, _ = book.assign(checkout)
    assert set(cart_ids).isdisjoint(checkout_ids)
    assert templates[cart_ids[0]] == templates[checkout_ids[0]]  # the same words, two services' templates


def test_lines_the_book_was_not_built_from_are_clustered_on_their_own() -> None:
    book = TemplateBook(_lines())
    other = [LogRecord(T0, "cart", "cache miss for key k1", "INFO"), LogRecord(T0, "cart", "cache miss for key k2")]
    assert book.assign(other) == assign_templates(r.message for r in other)


def test_every_line_keeps_the_template_its_service_alone_gives_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many services whose template ids do not run 0..n-1 (merged and split templates keep or take
    others; here every id is spread out to make sure): no service's templates may land on another's ids."""

    def spread(messages, config=None):  # type: ignore[no-untyped-def]
        ids, templates = assign_templates(messages, config)
        return [2 * i for i in ids], {2 * i: t for i, t in templates.items()}

    monkeypatch.setattr(log_template_book, "assign_templates", spread)
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "loghub"
    records = [
        LogRecord(T0, path.stem, line)
        for path in sorted(fixtures.glob("*.log"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    book = TemplateBook(records)
    services = sorted({r.service for r in records})
    for service in services:  # every service learned first: a later one must not overwrite an earlier one
        book.assign([r for r in records if r.service == service])
    for service in services:
        mine = [r for r in records if r.service == service]
        ids, templates = book.assign_known(mine)
        alone_ids, alone = assign_templates(r.message for r in mine)
        assert [templates[i] for i in ids] == [alone[i] for i in alone_ids], service
