"""Levels stated only in a line's text: read off its head, never off its content."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rootward.bundle.load import load_bundle
from rootward.context import log_levels
from rootward.context.assemble import assemble_context
from rootward.context.log_levels import stated_level, with_stated_level
from rootward.domain.telemetry import LogRecord
from rootward.sources.bundle import bundle_sources
from tests.conftest import EXAMPLES


@pytest.mark.parametrize(
    ("line", "level"),
    [
        ("16:48:42.468 ERROR c.e.FoodServiceImpl#302 TraceID: 49a5 [getAllFood][failed]", "ERROR"),
        ("2026-03-14 14:31:02,118 - payments - WARNING - retrying charge", "WARN"),
        ("ERROR:root:charge failed", "ERROR"),
        ('time="2026-03-14T14:31:02Z" level=error msg="upstream reset"', "ERROR"),
        ('{"ts": 1710426662, "level": "warn", "msg": "slow query"}', "WARN"),
        ("2026/03/14 14:31:02 [error] 31#31: *1 connect() failed (111: Connection refused)", "ERROR"),
        ("[Sat Mar 14 14:31:02.118 2026] [proxy:error] [pid 12] AH00898: Error reading from remote", "ERROR"),
        ("E0314 14:31:02.118000   12 server.go:91] lost connection to etcd", "ERROR"),
        ("I0314 14:31:02.118000   12 server.go:91] watching pods", "INFO"),
        ("[FATAL] out of file descriptors", "FATAL"),
        ("severity: CRITICAL disk array degraded", "CRITICAL"),
        ("2026-03-14T14:31:02Z INFO  c.e.Orders order 42 placed", "INFO"),
    ],
)
def test_each_common_format_states_its_level(line: str, level: str) -> None:
    assert stated_level(line) == level


@pytest.mark.parametrize(
    "line",
    [
        "TraceID: fe39 SpanID: 8ab6 GetCartAsync called with userId=fbd1",
        "request returned ERROR_CODE_42 to the client",
        "Error connecting to the database",  # a word, not a level: names_failure reads it
        "order 42 placed by user 7 at terminal 9 after a retry that reported ERROR upstream",
        "the [error] handler was registered",  # lower case outside a log head's brackets is prose
    ],
)
def test_words_in_the_message_are_not_a_level(line: str) -> None:
    assert stated_level(line) == ""


def test_a_record_with_a_level_keeps_it_unless_it_is_a_shippers_default() -> None:
    ts = datetime(2026, 3, 14, tzinfo=UTC)
    line = "16:48:42.468 ERROR c.e.Api boom"
    for level in ("WARN", "DEBUG", "ERROR", "NOTICE"):  # the shipper parsed it: authoritative
        record = LogRecord(ts, "api", line, level=level)
        assert with_stated_level(record) is record
    bare = LogRecord(ts, "api", line)
    assert with_stated_level(bare).level == "ERROR"
    # Cloud Logging's INFO / DEFAULT for unparsed stdout: the line's own head knows better ...
    for default in ("INFO", "info", "DEFAULT"):
        assert with_stated_level(LogRecord(ts, "api", line, level=default)).level == "ERROR"
    # ... but only when it says something more severe.
    quiet = LogRecord(ts, "api", "16:48:42.468 DEBUG c.e.Api cache warm", level="INFO")
    assert with_stated_level(quiet) is quiet
    prose = LogRecord(ts, "api", "user asked why ERROR 42 appeared", level="INFO")
    assert with_stated_level(prose) is prose


@pytest.mark.parametrize("shipped", ["", "INFO"])
def test_a_bundle_without_level_fields_reads_the_same_failures(tmp_path: Path, shipped: str) -> None:
    """Levels moved from the field into logback-style text, the field left out or set to a shipper's
    default INFO: the same services show failing templates."""
    source = EXAMPLES / "shop-disk-full-03"
    copy = tmp_path / "b"
    shutil.copytree(source, copy)
    rows = [json.loads(line) for line in (source / "logs.jsonl").read_text().splitlines() if line.strip()]
    for row in rows:
        level = row.pop("level", "")
        row["message"] = f"14:31:02.118 {level or 'INFO':5s} main {row['message']}"
        if shipped:
            row["level"] = shipped
    (copy / "logs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def failing(path: Path) -> set[tuple[str, str]]:
        bundle = load_bundle(path)
        ctx = assemble_context(bundle_sources(bundle), bundle.meta)
        return {(s.service, s.severity) for s in ctx.logs if s.severity != "info"}

    original = failing(source)
    assert original, "the example has failing log templates"
    assert failing(copy) == original


def test_default_lines_skipped_unread_are_exactly_those_whose_head_states_nothing_severe() -> None:
    """`with_stated_level` leaves a default-level line unread when its head holds no severe word:
    on every LogHub sample line and each case above, that changes no level."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "loghub"
    lines = [line for path in sorted(fixtures.glob("*.log")) for line in path.read_text().splitlines()]
    lines += ["E0314 14:31:02.118000   12 server.go:91] lost etcd", "W0314 14:31:02.118 1 x.go:1] slow"]
    assert len(lines) > 2_000
    at = datetime(2026, 3, 14, tzinfo=UTC)
    for line in lines:
        stated = stated_level(line, before_prose=True)
        expected = stated if stated in ("WARN", "ERROR", "FATAL", "CRITICAL", "ALERT", "EMERG", "PANIC") else "INFO"
        assert with_stated_level(LogRecord(at, "svc", line, "INFO")).level == expected, line


def test_every_severe_word_makes_a_default_line_worth_reading() -> None:
    """The pre-check spells `_SEVERE_WORDS` out by hand: each of them, in any case, must pass it."""
    for word in log_levels._SEVERE_WORDS:
        for spelled in (word, word.upper(), word.capitalize()):
            assert log_levels._may_state_severe(f"2026-03-14 10:00:00 [{spelled}] something"), spelled
    assert not log_levels._may_state_severe("2026-03-14 10:00:00 all good")
