"""Stack traces split into one record a line: joined to their header, and nothing else joined."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.context.assemble import assemble_context
from rootward.context.log_continuations import COUNT_KEY, joined_continuations
from rootward.domain.telemetry import LogRecord
from rootward.sources.bundle import bundle_sources
from tests.context.sim_bundle import metrics_bundle

T0 = datetime(2026, 3, 14, 14, 31, tzinfo=UTC)


def _records(lines: list[tuple[float, str, str]], service: str = "orders", pod: str = "") -> list[LogRecord]:
    return [
        LogRecord(ts=T0 + timedelta(seconds=s), service=service, message=m, level=lv, line=i + 1, pod=pod)
        for i, (s, m, lv) in enumerate(lines)
    ]


JAVA = [
    (0.000, "ERROR c.e.OrderService - request failed: java.lang.IllegalStateException: order not placed", "ERROR"),
    (0.001, "\tat com.example.orders.OrderService.place(OrderService.java:88)", ""),
    (0.001, "\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:897)", ""),
    (0.001, "Caused by: java.net.ConnectException: Connection refused (inventory:8080)", ""),
    (0.002, "\tat java.base/sun.nio.ch.Net.connect(Net.java:579)", ""),
    (0.002, "\t... 42 more", ""),
    (0.400, "GET /api/v1/orders 200 12ms", "INFO"),
]


def test_a_java_exception_is_one_record_that_keeps_its_cause_and_its_header_line() -> None:
    out = joined_continuations(_records(JAVA))
    assert len(out) == 2
    head = out[0]
    assert head.line == 1 and head.level == "ERROR" and head.ts == T0
    assert head.message.splitlines() == [
        "ERROR c.e.OrderService - request failed: java.lang.IllegalStateException: order not placed",
        "Caused by: java.net.ConnectException: Connection refused (inventory:8080)",
    ]
    assert head.extra[COUNT_KEY] == "5"
    assert out[1].message == "GET /api/v1/orders 200 12ms"


def test_a_python_traceback_keeps_the_exception_that_ended_it() -> None:
    lines = [
        (0.0, "Traceback (most recent call last):", "ERROR"),
        (0.0, '  File "/app/worker.py", line 42, in handle', ""),
        (0.0, "    resp = session.get(url, timeout=3)", ""),
        (0.0, "requests.exceptions.ReadTimeout: HTTPConnectionPool(host='geo', port=80): Read timed out.", ""),
        (0.1, "processed job 7 in 120ms", ""),
    ]
    out = joined_continuations(_records(lines))
    assert [r.line for r in out] == [1, 5]
    assert out[0].message.splitlines()[-1].startswith("requests.exceptions.ReadTimeout: HTTPConnectionPool(host='geo'")
    assert out[1].message == "processed job 7 in 120ms"  # after the traceback ended, a record again


def test_lines_are_joined_only_within_their_stream_and_in_time() -> None:
    head = _records([(0.0, "java.lang.NullPointerException: cart is null", "ERROR")], service="cart", pod="cart-1")
    other_pod = _records([(0.0, "\tat com.example.Cart.add(Cart.java:7)", "")], service="cart", pod="cart-2")
    late = _records([(5.0, "\tat com.example.Cart.add(Cart.java:7)", "")], service="cart", pod="cart-1")
    out = joined_continuations(head + other_pod + late)
    assert len(out) == 3 and COUNT_KEY not in out[0].extra


def test_a_line_with_a_level_of_its_own_is_a_record() -> None:
    lines = [(0.0, "java.lang.NullPointerException: cart is null", "ERROR"), (0.0, "  retrying in 1s", "WARN")]
    assert len(joined_continuations(_records(lines))) == 2


def test_a_service_that_indents_every_line_keeps_every_record() -> None:
    lines = [(0.01 * i, f"  GET /api/v1/items/{i} 200 3ms", "") for i in range(50)]
    assert len(joined_continuations(_records(lines))) == 50


def test_records_without_continuations_pass_unchanged() -> None:
    records = _records([(float(i), f"completed job {i} in 30ms", "INFO") for i in range(5)])
    assert joined_continuations(records) == records


def test_split_stack_traces_in_a_bundle_add_no_templates_of_their_own(tmp_path: Path) -> None:
    """The frames of every error line, written as records of their own, change no signal of the incident."""
    plain, _ = metrics_bundle(tmp_path / "plain", "certificate_expiry", "continuations")
    split = tmp_path / "split"
    shutil.copytree(plain, split)
    lines = []
    for raw in (plain / "logs.jsonl").read_text().splitlines():
        lines.append(raw)
        record = json.loads(raw)
        if record.get("level") == "ERROR":
            stream = {k: record[k] for k in ("ts", "service", "host", "pod") if k in record}  # as a shipper tags it
            lines += [json.dumps({**stream, "message": frame}) for frame in FRAMES]
    (split / "logs.jsonl").write_text("\n".join(lines) + "\n")

    def signals(path: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        bundle = load_bundle(path)
        ctx = assemble_context(bundle_sources(bundle), bundle.meta, extra_gaps=bundle.partial_gaps())
        return [(s.service, s.template) for s in ctx.logs], [(s.service, s.template) for s in ctx.log_shifts]

    assert signals(split) == signals(plain)


FRAMES = [
    "\tat com.example.client.HttpClient.call(HttpClient.java:212)",
    "\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:897)",
    "\tat java.base/java.lang.Thread.run(Thread.java:833)",
    "\t... 37 more",
]
