"""Templates equal but for a variable word are one event, however the variable reached Drain.

Drain joins a line to a template when the share of equal tokens reaches its
threshold. A second variable in the line (a program name in front, a host at
the end) makes one differing word two, and the event is split per value; the
merge by many values at one position (`merge_varying_position`) undoes that,
and these cases are the ones it missed: a template that already holds a
wildcard at the position, and a word with only three values behind a variable
that Drain would have read as a variable had it been masked.
"""

from __future__ import annotations

import random

import pytest
from bench.log_perturbations import PERTURBATIONS, PROGRAMS, USERS, accuracy
from drain3.drain import Drain

from rootward.context.log_templates import (
    masked_varying_words,
    merge_subsumed,
    merge_varying_position,
    value_units,
)
from rootward.context.logs import ClusterConfig, assign_templates
from tests.context.test_logs import LOGHUB

SIM_TH = ClusterConfig().sim_th


def _groups(remap: dict[int, int]) -> set[frozenset[int]]:
    found: dict[int, set[int]] = {}
    for cid, root in remap.items():
        found.setdefault(root, set()).add(cid)
    return {frozenset(ids) for ids in found.values()}


def test_a_template_with_a_wildcard_at_the_varying_position_joins_the_values_there() -> None:
    # Two hosts with digits were joined first (read as variables), five plain ones are many values.
    hosts = ["proxy.example.edu", "www.example.com", "api.example.org", "mail.example.jp", "cdn.example.net"]
    templates = {0: "generating core.<N> from <*>"} | {
        i + 1: f"generating core.<N> from {h}" for i, h in enumerate(hosts)
    }
    remap, merged = merge_varying_position(templates)  # many values: no similarity needed
    assert set(remap.values()) == {0} and merged == {0: "generating core.<N> from <*>"}


def test_three_values_behind_another_variable_are_a_variable_as_drain_reads_them() -> None:
    templates = {i: f"<*> - session closed for user {u}" for i, u in enumerate(["cyrus", "news", "test"])}
    remap, merged = merge_varying_position(templates, sim_th=SIM_TH)
    assert set(remap.values()) == {0} and merged == {0: "<*> - session closed for user <*>"}
    # Without a similarity threshold (the old rule) three values stay three events.
    assert set(merge_varying_position(templates)[0].values()) == {0, 1, 2}


def test_a_value_and_a_wildcard_at_one_position_of_a_long_enough_template_are_one_event() -> None:
    templates = {0: "<*> - connection from <IP> () at <TS>", 1: "<*> - connection from <IP> <*> at <TS>"}
    remap, _ = merge_varying_position(templates, sim_th=SIM_TH)
    assert _groups(remap) == {frozenset({0, 1})}


def test_two_plain_values_and_short_templates_stay_apart() -> None:
    # Two values, each its own template, can name two events (`split_low_cardinality`).
    two = {0: "<*> - job finished with state done", 1: "<*> - job finished with state failed"}
    assert _groups(merge_varying_position(two, sim_th=SIM_TH)[0]) == {frozenset({0}), frozenset({1})}
    # Four tokens: one differing word is below Drain's threshold, as Drain itself would read it.
    short = {i: f"<*> restart {w} now" for i, w in enumerate(["cron", "sshd", "ntpd"])}
    assert len(set(merge_varying_position(short, sim_th=SIM_TH)[0].values())) == 3


def test_loghub_events_hold_when_lines_end_with_a_variable_host_name() -> None:
    """A host name is a plain word with dots: as variable as an address, but no mask catches it."""
    ga = accuracy(LOGHUB, PERTURBATIONS["host"])
    assert sum(ga.values()) / len(ga) >= 0.90 and min(ga.values()) >= 0.65, ga


def test_templates_a_merge_made_equal_but_at_one_position_are_compared_again() -> None:
    # Each group joins over its varying first word; only then are the two equal but for the user.
    templates = {i: f"[{p}] Invalid user <*> from <IP>" for i, p in enumerate("abcd")}
    templates |= {i + 4: f"[{p}] Invalid user webmaster from <IP>" for i, p in enumerate("efgh")}
    remap, merged = merge_varying_position(templates, sim_th=SIM_TH)
    assert set(remap.values()) == {0} and merged == {0: "<*> Invalid user <*> from <IP>"}


def test_a_merged_template_keeps_the_wildcards_its_members_already_had() -> None:
    # The users of [p1] join first (the largest group); then [p1]'s template, with its user a wildcard,
    # joins [p2]..[p4] over the first word: the result reads both words as variables, not "for alice".
    users = ["alice", "bob", "carol", "dave", "erin"]
    templates = {i: f"[p1] login accepted for {u}" for i, u in enumerate(users)}
    templates |= {10 + i: f"[p{i}] login accepted for alice" for i in range(2, 5)}
    remap, merged = merge_varying_position(templates)
    assert set(remap.values()) == {0} and merged == {0: "<*> login accepted for <*>"}


def test_a_template_another_of_its_length_matches_whole_joins_it() -> None:
    general = "<*> connection from <IP> <*> at <TS> for <*>"
    templates = {
        0: general,
        1: "kubelet: connection from <IP> (dsl-static.example.net) at <TS> for <*>",
        2: "java: connection from <IP> <*> at <TS> for alice",
        3: "java: connection from <IP> <*> at <TS>",  # another length
        4: "java: connection to <IP> <*> at <TS> for alice",  # another word
    }
    remap, merged = merge_subsumed(templates)
    assert _groups(remap) == {frozenset({0, 1, 2}), frozenset({3}), frozenset({4})}
    assert merged[remap[1]] == general


def test_a_template_of_mostly_wildcards_matches_nothing() -> None:
    few = {0: "<*> <*> failed", 1: "disk sda failed"}  # one constant
    assert _groups(merge_subsumed(few)[0]) == {frozenset({0}), frozenset({1})}
    thin = {0: "<*> <*> <*> job failed", 1: "cron runs nightly job failed"}  # two constants of five
    assert _groups(merge_subsumed(thin)[0]) == {frozenset({0}), frozenset({1})}
    same = {0: "<*> job <*> failed", 1: "<*> job <*> failed"}  # identical: one event
    assert _groups(merge_subsumed(same)[0]) == {frozenset({0, 1})}


def test_loghub_events_hold_with_a_variable_in_front_and_another_at_the_end() -> None:
    """Two variables per line: a program in front, a user at the end (the perturbation check's `two`)."""
    ga = accuracy(LOGHUB, PERTURBATIONS["two"])
    assert sum(ga.values()) / len(ga) >= 0.78 and min(ga.values()) >= 0.45, ga


def test_a_word_many_otherwise_equal_lines_vary_in_is_masked_before_drain() -> None:
    names = [f"{a}_{b}" for a in ("happy", "eager", "calm", "brave") for b in ("turing", "hopper", "knuth")]
    forms = [f"container {n} started on {h}" for n in names for h in ("alpha", "beta", "gamma", "delta", "omega")]
    masked = masked_varying_words(forms)
    assert set(masked.values()) == {"container <*> started on <*>"}  # the second pass reads the host
    few = [f"job finished with state {s}" for s in ("done", "failed", "cancelled")]  # three values: not more
    assert masked_varying_words(few) == {f: f for f in few}


def test_lines_differing_in_one_plain_word_reach_drain_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drain compares a new line with every cluster of its length: one cluster per line is quadratic."""
    added: list[str] = []
    original = Drain.add_log_message

    def counted(self: Drain, content: str) -> object:
        added.append(content)
        return original(self, content)

    monkeypatch.setattr(Drain, "add_log_message", counted)
    rng = random.Random(4)
    words = [f"{a}_{b}" for a in USERS for b in PROGRAMS]
    lines = [f"session {rng.choice(words)}_{rng.choice(USERS)} opened" for _ in range(3_000)]
    assignment, templates = assign_templates(lines, ClusterConfig())
    assert len(set(assignment)) == 1 and len(added) == 1


def test_a_quoted_or_bracketed_value_of_any_length_is_one_value() -> None:
    """A file name, a reason, a title: one value with spaces inside, and lines of one event differ in length."""
    names = ["quarterly report", "notes", "my holiday photos", "budget final draft", "cv"]
    forms = [f"opened file '{n}' for reading" for n in names] + [f"upload of ({n}) done" for n in names]
    masked = masked_varying_words(forms)
    assert set(masked.values()) == {"opened file <*> for reading", "upload of <*> done"}
    assert value_units("can't reach 'my notes', won't retry (no route)") == [
        "can't",
        "reach",
        "'my notes',",
        "won't",
        "retry",
        "(no route)",
    ]
    assert value_units("an (unclosed value stays words") == ["an", "(unclosed", "value", "stays", "words"]


def test_loghub_events_hold_with_a_quoted_phrase_of_one_to_three_words_at_the_end() -> None:
    ga = accuracy(LOGHUB, PERTURBATIONS["quoted_phrase"])
    assert sum(ga.values()) / len(ga) >= 0.75, ga


def test_a_masked_value_takes_any_masked_value_and_masks_alone_match_nothing() -> None:
    general = "<*> iar <*> dear <HEX> for <*>"
    templates = {0: general, 1: "node: iar <HEX> dear <NUM> for grace", 2: "node: iar <HEX> dear uid=<NUM> for grace"}
    remap, merged = merge_subsumed(templates)
    assert _groups(remap) == {frozenset({0, 1}), frozenset({2})}  # a word holding a mask is a word
    only_masks = {0: "<*> <IP> <NUM> <*>", 1: "conn <IP> <HEX> ok"}
    assert _groups(merge_subsumed(only_masks)[0]) == {frozenset({0}), frozenset({1})}
