"""Log clustering: templates, counts, new/surge flags, ordering, speed, LogHub accuracy."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rootward.context.log_templates import merge_equivalent_templates, split_low_cardinality
from rootward.context.logs import ClusterConfig, LogCluster, cluster_logs, cluster_messages, message_shape, scrubbed
from rootward.context.masking import mask_message
from rootward.domain.telemetry import LogRecord
from rootward.eval.loghub import PUBLISHED_DRAIN_GA, evaluate_dir, grouping_accuracy

# 250 labelled lines per system (every event at least once), see tests/fixtures/loghub/README.md.
LOGHUB = Path(__file__).resolve().parents[1] / "fixtures" / "loghub" / "structured"
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _record(seconds: float, message: str, level: str = "INFO", line: int = 0, service: str = "api") -> LogRecord:
    return LogRecord(ts=T0 + timedelta(seconds=seconds), service=service, message=message, level=level, line=line)


def test_tight_loop_of_identical_exceptions_becomes_one_cluster_with_a_count() -> None:
    message = "java.lang.IllegalStateException: pool exhausted at com.shop.Db.get(Db.java:88)"
    records = [_record(i * 0.01, message, "ERROR", line=i + 1) for i in range(14_382)]
    (cluster,) = cluster_logs(records)
    assert cluster.count == 14_382
    assert cluster.lines == tuple(range(1, 14_383))
    assert cluster.levels == {"ERROR": 14_382}
    assert cluster.first_ts == T0
    assert cluster.last_ts == T0 + timedelta(seconds=14_381 * 0.01)


def test_messages_differing_only_in_values_share_a_typed_template() -> None:
    clusters = cluster_messages(
        [
            "connect to 10.0.0.12:5432 failed after 250ms request_id=3fa85f64-5717-4562-b3fc-2c963f66afa6",
            "connect to 10.0.3.7:5432 failed after 1200ms request_id=9b2e1c44-0a1b-4c2d-8e3f-112233445566",
            "user alice@example.com logged in",
        ]
    )
    by_count = {c.count: c for c in clusters}
    assert by_count[2].template == "connect to <IP> failed after <NUM> request_id=<UUID>"
    assert by_count[2].lines == (1, 2)
    assert by_count[1].template == "user <EMAIL> logged in"


def test_new_and_surging_templates_are_flagged_and_sorted_first() -> None:
    onset = T0 + timedelta(minutes=10)
    records = []
    # Baseline (10 min): steady health checks, a rare cache miss every 2 min.
    for i in range(600):
        records.append(_record(i, f"GET /health 200 in {i % 7}ms"))
    for i in range(5):
        records.append(_record(i * 120, f"cache miss for key user:{i}", "WARN"))
    # After onset (5 min): health checks as before, cache misses surge, a new error appears.
    for i in range(300):
        records.append(_record(600 + i, f"GET /health 200 in {i % 7}ms"))
    for i in range(60):
        records.append(_record(600 + i * 5, f"cache miss for key user:{100 + i}", "WARN"))
    for i in range(20):
        records.append(_record(620 + i, f"payment declined: upstream 10.2.0.{i} timed out", "ERROR"))
    records = [LogRecord(r.ts, r.service, r.message, r.level, line=n) for n, r in enumerate(records, start=1)]

    clusters = cluster_logs(records, onset=onset)
    templates = [c.template for c in clusters]
    assert len(clusters) == 3
    new, surge, steady = clusters
    assert new.is_new and not new.is_surge and new.baseline_count == 0 and new.onset_count == 20
    assert "payment declined" in new.template
    assert new.levels == {"ERROR": 20}
    assert surge.is_surge and not surge.is_new
    assert (surge.baseline_count, surge.onset_count) == (5, 60)
    assert not steady.is_new and not steady.is_surge, templates
    # The representative line of the new cluster is one of its own lines, in the onset window.
    assert new.representative in new.lines
    assert records[new.representative - 1].ts >= onset


def test_representative_prefers_an_error_line_in_the_onset_window() -> None:
    onset = T0 + timedelta(seconds=100)
    records = [
        _record(10, "request failed code=500", "INFO", line=1),
        _record(20, "request failed code=503", "ERROR", line=2),
        _record(150, "request failed code=502", "ERROR", line=3),
    ]
    (cluster,) = cluster_logs(records, onset=onset)
    assert cluster.representative == 3
    assert cluster.example == "request failed code=502"


def test_baseline_start_excludes_older_records_from_the_baseline() -> None:
    onset = T0 + timedelta(seconds=100)
    records = [
        _record(5, "disk full on /dev/sda1", "ERROR", line=1),
        _record(150, "disk full on /dev/sda1", "ERROR", line=2),
    ]
    (cluster,) = cluster_logs(records, onset=onset, baseline_start=T0 + timedelta(seconds=50))
    assert cluster.baseline_count == 0
    assert cluster.is_new


def test_explicit_window_end_sets_the_onset_rate() -> None:
    onset = T0 + timedelta(seconds=600)
    records = [_record(i * 60, "retrying connection to db", "WARN", line=i + 1) for i in range(10)]
    # Ten more in the first 20 s after onset: a surge over 20 s, not over a 10-minute window.
    records += [_record(600 + i * 2, "retrying connection to db", "WARN", line=11 + i) for i in range(10)]
    (short,) = cluster_logs(records, onset=onset)
    assert short.is_surge
    (long,) = cluster_logs(records, onset=onset, end=onset + timedelta(minutes=10))
    assert not long.is_surge


def test_cluster_messages_numbers_lines_from_one_and_skips_blank_lines() -> None:
    clusters = cluster_messages(["worker 1 started", "", "worker 2 started", "   ", "shutdown requested"])
    lines = sorted(c.lines for c in clusters)
    assert lines == [(1, 3), (5,)]


def test_errors_sort_before_info_when_nothing_changed() -> None:
    records = [_record(i, f"tick {i}", "INFO", line=i + 1) for i in range(50)]
    records.append(_record(60, "fatal: cannot open socket", "ERROR", line=51))
    clusters = cluster_logs(records)
    assert clusters[0].levels == {"ERROR": 1}
    assert clusters[1].count == 50


def test_masking_keeps_words_and_stack_positions_readable() -> None:
    assert mask_message("at com.shop.Db.get(Db.java:88)") == "at com.shop.Db.get(Db.java:<NUM>)"
    assert mask_message("sent 1190 bytes (1.16 KB) to proxy.example.com:5070") == ("sent <NUM> bytes (<NUM>) to <HOST>")
    assert mask_message("at Fri Jun 17 07:07:00 2005 from 24.54.76.216") == "at <TS> from <IP>"


def test_templates_differing_only_in_variables_are_merged() -> None:
    remap, merged = merge_equivalent_templates(
        {
            1: "state <NUM> reached",
            2: "state <*> reached",
            3: "sent <NUM> bytes sent",
            4: "sent <NUM> bytes (<NUM>) sent",
        }
    )
    assert remap == {1: 1, 2: 1, 3: 3, 4: 3}
    assert merged[1] == "state <*> reached"


def test_template_merge_keeps_an_extra_key_value_field_apart() -> None:
    remap, _ = merge_equivalent_templates({1: "auth failure rhost=<IP>", 2: "auth failure rhost=<IP> user=<*>"})
    assert remap[1] != remap[2]


def test_scrubbed_cluster_hides_secrets_in_template_and_example() -> None:
    (cluster,) = cluster_messages(["login failed password=hunter2 for bob@example.com"])
    clean = scrubbed(cluster)
    assert "hunter2" not in clean.template + clean.example
    assert "bob@example.com" not in clean.example
    assert clean.lines == cluster.lines


def test_messages_sharing_a_shape_always_mask_identically() -> None:
    rng = random.Random(7)
    bases = [
        "span {h} of trace {h} took {n}ms at 2024-05-0{d}T1{d}:0{d}:00Z",
        "blk_-{n}{n} replicated to /10.{d}.{n}.{d}:{n} req {h8}-{h4}-{h4}-{h4}-{h12}",
        "commit {h} deployed; cafe{d}{d}{d}{d} deadbeef{n} v{d}.{d} {n}.{d} KB",
        "user{d}@ex{d}.com GET http://a{d}.io/{h}?x={n} from fe80::{d}:{h4}",
        "core.{n} R{d}{d}-M{d} 0x{h4}{d} Jun {d} 0{d}:1{d}:2{d} {n}{d}{d}{d}",
        "{w} request from {w}{d} id {h}",  # words made of a-f letters are not ids
    ]
    seen: dict[bytes, str] = {}
    for _ in range(3_000):
        message = rng.choice(bases).format(
            h=f"{rng.getrandbits(64):016x}",
            h4=f"{rng.getrandbits(16):04x}",
            h8=f"{rng.getrandbits(32):08x}",
            h12=f"{rng.getrandbits(48):012x}",
            n=rng.randrange(1, 10 ** rng.randrange(1, 7)),
            d=rng.randrange(10),
            w=rng.choice(["bad", "fed", "cab", "ace", "dead", "beef", "face", "decade", "deadbeefcafe"]),
        )
        masked = mask_message(message)
        assert seen.setdefault(message_shape(message), masked) == masked, message


def test_a_wildcard_holding_two_repeated_words_is_split_into_two_events() -> None:
    clusters = cluster_messages(
        ["Session: 3054_3347 initialized by client WindowsUpdateAgent."] * 3
        + ["Session: 3055_3348 initialized by client SPP."] * 2
        + [f"Invalid user {user} from 10.0.0.{i}" for i, user in enumerate(["admin", "oracle", "pi", "ubnt"] * 2)]
    )
    templates = {c.template: c.count for c in clusters}
    assert templates == {
        "Session: <NUM>_<NUM> initialized by client WindowsUpdateAgent.": 3,
        "Session: <NUM>_<NUM> initialized by client SPP.": 2,
        "Invalid user <*> from <IP>": 8,  # many values: a variable
    }


def test_split_ignores_values_seen_only_once() -> None:
    forms = {"client SPP": (1, 5), "client Agent": (1, 1)}
    form_cluster, templates = split_low_cardinality({1: "client <*>"}, forms)
    assert set(form_cluster.values()) == {1}
    assert templates == {1: "client <*>"}


def test_templates_without_constant_text_are_never_merged() -> None:
    remap, _ = merge_equivalent_templates(
        {1: "jetty-<N>.<N>.<N>", 2: "mapResourceRequest:<memory:<NUM>, vCores:<NUM>>"}
    )
    assert remap == {1: 1, 2: 2}


def test_grouping_accuracy_counts_only_exactly_matching_groups() -> None:
    truth = ["A", "A", "B", "B", "C"]
    assert grouping_accuracy(truth, [1, 1, 2, 2, 3]) == 1.0
    assert grouping_accuracy(truth, [1, 1, 2, 2, 2]) == pytest.approx(2 / 5)  # B and C merged: both wrong
    assert grouping_accuracy(truth, [1, 2, 3, 3, 4]) == pytest.approx(3 / 5)  # A split


def test_clustering_five_thousand_lines_is_fast() -> None:
    messages = [
        f"GET /api/v1/orders/{i} 200 in {i % 97}ms from 10.0.{i % 250}.{i % 200}"
        if i % 3
        else f"order {i} failed: timeout after {i % 30}s calling payment-{i % 5}"
        for i in range(5_000)
    ]
    cluster_messages(messages[:100])  # warm-up (imports, regex compilation)
    started = time.process_time()  # CPU time: other test workers share the machine
    clusters = cluster_messages(messages)
    elapsed = time.process_time() - started
    assert sum(c.count for c in clusters) == 5_000
    assert elapsed < 0.2


# The fixtures hold every event's first line, so rare events weigh far more than in the 2k
# samples: one mis-grouped singleton costs 0.4 % here. 0.90 per system (0.95 mean) is below
# what the one configuration reaches on each (lowest 0.93) and far above a clusterer that
# loses a whole family of events (the depth-5, fixed-value configuration gets 0.17 once lines
# start with a program name).
FLOOR = 0.90
NAMES = ("chrome.exe", "Dropbox.exe", "svchost.exe", "java", "python3", "QQ.exe", "nginx", "node", "firefox", "kubelet")
USERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")


def test_one_configuration_groups_every_loghub_fixture_system_above_the_floor() -> None:
    results = {r.system: r for r in evaluate_dir(LOGHUB, ClusterConfig())}
    assert set(results) == set(PUBLISHED_DRAIN_GA)
    for system, result in results.items():
        assert result.grouping_accuracy >= FLOOR, system
    assert sum(r.grouping_accuracy for r in results.values()) / len(results) >= 0.95


def _perturbed_accuracy(perturb: Callable[[str, random.Random], str]) -> dict[str, float]:
    from rootward.context.logs import assign_templates
    from rootward.eval.loghub import find_systems, load_structured

    out = {}
    for system, path in find_systems(LOGHUB).items():
        contents, events = load_structured(path)
        rng = random.Random(1)
        assignment, _ = assign_templates([perturb(c, rng) for c in contents], ClusterConfig())
        out[system] = grouping_accuracy(events, assignment)
    return out


def test_grouping_holds_when_every_line_starts_with_a_variable_program_name() -> None:
    """A variable first word (program, component, user) must not split events: no prefix-tree keying on it."""
    ga = _perturbed_accuracy(lambda line, rng: f"{rng.choice(NAMES)} - {line}")
    assert sum(ga.values()) / len(ga) >= 0.85 and min(ga.values()) >= 0.6, ga


def test_grouping_holds_when_lines_carry_a_key_value_field_with_word_values() -> None:
    ga = _perturbed_accuracy(lambda line, rng: f"{line} user={rng.choice(USERS)}")
    assert sum(ga.values()) / len(ga) >= 0.85 and min(ga.values()) >= 0.6, ga


def test_key_value_words_are_masked_only_where_the_stream_shows_them_varying() -> None:
    lines = [f"login ok user={u}" for u in USERS] + ["job finished state=done"] * 5 + ["job finished state=failed"] * 5
    clusters = {c.template: c.count for c in cluster_messages(lines)}
    assert clusters["login ok user=<VAL>"] == len(USERS)
    assert clusters["job finished state=done"] == 5 and clusters["job finished state=failed"] == 5


def test_a_template_first_written_just_before_an_onset_read_off_metrics_began_with_it() -> None:
    """A process crashing at start logs it a scrape or two before its series show it.

    Its first crashes, 70 s before the onset the metrics gave, counted as baseline, so
    the crash was no new template (3 lines before, 4 after) and no crash loop was read.
    A template first written within `lead` before the onset counts whole from there;
    one written long before keeps its baseline.
    """
    onset = T0 + timedelta(minutes=10)
    records = [_record(i * 5, f"GET /health 200 in {i % 7}ms") for i in range(180)]
    crash = "Exception in thread main: LockException: could not acquire change log lock"
    records += [_record(530 + i * 20, crash, "ERROR") for i in range(7)]  # from 70 s before the onset
    records += [_record(i * 100, "retrying idempotent call", "WARN") for i in range(9)]  # all along
    records += [_record(560, "password reset requested", "WARN")]  # once, 40 s before: says nothing
    records.sort(key=lambda r: r.ts)

    def by_template(lead: timedelta) -> dict[str, LogCluster]:
        clusters = cluster_logs(records, onset=onset, baseline_start=T0, lead=lead)
        return {c.template: c for c in clusters}

    before = by_template(timedelta(0))
    assert not before[crash].is_new
    led = by_template(timedelta(seconds=120))
    assert led[crash].is_new and led[crash].onset_count == 7
    assert led["password reset requested"].baseline_count == 1
    retry = led["retrying idempotent call"]
    assert retry.baseline_count == before["retrying idempotent call"].baseline_count > 0
