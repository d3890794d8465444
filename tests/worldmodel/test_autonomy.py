from __future__ import annotations

from typing import Any

import pytest

from rootward.worldmodel.autonomy import (
    MemoryVerdictHistory,
    decide,
    may_run_unattended,
    record_verdict,
)

KLASS = "restart:service"


def _record(history: MemoryVerdictHistory, outcome: str, log: list[tuple[str, str, dict[str, Any]]]) -> bool:
    decision = record_verdict(
        history,
        KLASS,
        f"h{len(log)}",
        {"outcome": outcome},
        opted_in=True,
        window=10,
        audit=lambda kind, subject, data: log.append((kind, subject, data)),
    )
    return decision.allowed


def test_autonomy_is_granted_only_after_n_consecutive_matches() -> None:
    history, log = MemoryVerdictHistory(), []  # type: ignore[var-annotated]
    allowed = [_record(history, "match", log) for _ in range(10)]
    assert allowed == [False] * 9 + [True]
    assert [k for k, _, _ in log].count("autonomy.granted") == 1


def test_one_deviation_revokes_at_once_and_the_streak_restarts() -> None:
    history, log = MemoryVerdictHistory(), []  # type: ignore[var-annotated]
    for _ in range(12):
        _record(history, "match", log)
    assert _record(history, "deviation", log) is False
    assert ("autonomy.revoked", KLASS) in [(k, s) for k, s, _ in log]
    assert [_record(history, "match", log) for _ in range(10)] == [False] * 9 + [True]


def test_partial_breaks_the_streak() -> None:
    verdicts = ["match"] * 9 + ["partial"] + ["match"] * 9
    assert decide(KLASS, verdicts, opted_in=True, window=10).allowed is False


def test_without_opt_in_a_perfect_record_still_needs_a_human() -> None:
    decision = decide(KLASS, ["match"] * 50, opted_in=False, window=10)
    assert not decision.allowed and decision.streak == 50


def test_every_unattended_check_is_audited() -> None:
    history, log = MemoryVerdictHistory(), []  # type: ignore[var-annotated]
    for _ in range(10):
        _record(history, "match", log)
    decision = may_run_unattended(history, KLASS, opted_in_classes=[KLASS], audit=lambda k, s, d: log.append((k, s, d)))
    assert decision.allowed and log[-1][0] == "autonomy.checked"
    assert not may_run_unattended(history, "reboot:host", opted_in_classes=[KLASS]).allowed


def test_a_verdict_must_be_one_of_the_three_outcomes() -> None:
    with pytest.raises(ValueError):
        record_verdict(MemoryVerdictHistory(), KLASS, "h", {"outcome": "looks fine"}, opted_in=True)
