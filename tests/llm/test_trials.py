"""Prompt trials: stable routing, Welch's t-test against scipy's values, promotion and abort."""

from __future__ import annotations

from collections import Counter

import pytest

from rootward.llm.trials import CONTROL, MIN_SAMPLES, decide, route, welch

# Reference values computed offline with scipy 1.17.1 (scipy is not a dependency of rootward):
#   scipy.stats.ttest_ind(a, b, equal_var=False, alternative="greater") -> statistic, pvalue, df
SMALL_LIFT = (
    [0.71, 0.74, 0.69, 0.80, 0.77, 0.73, 0.75, 0.72, 0.78, 0.70, 0.76, 0.74, 0.79, 0.71, 0.73],
    [0.68, 0.70, 0.66, 0.72, 0.69, 0.71, 0.65, 0.70, 0.73, 0.67, 0.69, 0.72, 0.66, 0.70, 0.68],
)
UNEQUAL = (
    [0.9, 0.4, 0.8, 0.6, 0.7, 0.95, 0.5, 0.65, 0.85, 0.55, 0.75, 0.6, 0.8, 0.7, 0.9, 0.45, 0.6],
    [0.6, 0.62, 0.58, 0.61, 0.6, 0.59, 0.63, 0.6, 0.57, 0.61, 0.6, 0.62, 0.59, 0.6, 0.61],
)
WORSE = (
    [0.5, 0.55, 0.52, 0.48, 0.51, 0.53, 0.49, 0.5, 0.54, 0.47, 0.52, 0.5, 0.51, 0.49, 0.53],
    [0.6, 0.58, 0.62, 0.61, 0.59, 0.6, 0.63, 0.57, 0.6, 0.61, 0.62, 0.58, 0.6, 0.59, 0.61],
)
SCIPY = {
    "small_lift": (SMALL_LIFT, 4.772692274732977, 3.21718410272378e-05, 25.45705392765972),
    "unequal": (UNEQUAL, 2.1511850318405132, 0.023379101449457394, 16.329269912826845),
    "worse": (WORSE, -12.62716865926461, 0.9999999999992513, 25.810409244938747),
}


@pytest.mark.parametrize("case", sorted(SCIPY))
def test_welch_matches_scipy_ttest_ind_unequal_variances_one_sided(case: str) -> None:
    (a, b), t, p, df = SCIPY[case]
    got = welch(a, b)
    assert got.t == pytest.approx(t, rel=1e-12)
    assert got.df == pytest.approx(df, rel=1e-12)
    assert got.p_greater == pytest.approx(p, rel=1e-9, abs=1e-15)


def test_routing_is_stable_and_spreads_incidents_over_every_arm() -> None:
    arms = [CONTROL, "v1", "v2"]
    first = [route("trial-7", f"inc-{i}", arms) for i in range(600)]
    assert first == [route("trial-7", f"inc-{i}", arms) for i in range(600)]
    counts = Counter(first)
    assert set(counts) == set(arms) and min(counts.values()) > 150  # roughly a third each
    other = [route("trial-8", f"inc-{i}", arms) for i in range(600)]
    assert other != first  # the trial id is part of the key: trials do not share their splits
    # pinned: blake2b(b"trial-7\\x00inc-1", digest_size=8) as a big-endian integer, mod 3, is 1; a change
    # of hash or key would reshuffle the arms of live trials
    assert route("trial-7", "inc-1", arms) == "v1"


def test_no_decision_until_every_arm_has_enough_samples() -> None:
    scores = {CONTROL: SMALL_LIFT[1], "v1": SMALL_LIFT[0][: MIN_SAMPLES - 1]}
    decision = decide(scores)
    assert decision.action == "wait" and "v1" in decision.reason


def test_a_variant_that_beats_control_by_the_margin_at_p_under_alpha_is_promoted() -> None:
    control = SMALL_LIFT[1]
    better = [x + 0.06 for x in control[::-1]]
    decision = decide({CONTROL: control, "v1": better, "v2": WORSE[0]})
    assert decision.action == "promote" and decision.arm == "v1"
    assert decision.lifts["v1"] == pytest.approx(0.06)
    assert decision.p_values["v1"] < 0.1


def test_a_significant_but_small_lift_or_a_worse_variant_aborts() -> None:
    control = SMALL_LIFT[1]
    slight = [x + 0.03 for x in control[::-1]]  # significant, below the 0.05 margin
    assert welch(slight, control).p_greater < 0.1
    decision = decide({CONTROL: control, "v1": slight, "v2": [x - 0.1 for x in control]})
    assert decision.action == "abort" and decision.arm is None


def test_a_large_but_noisy_lift_aborts() -> None:
    control = [0.6] * 8 + [0.62] * 7
    noisy = [1.0, 0.1] * 7 + [1.0]  # mean 0.64, far too spread out to be evidence
    decision = decide({CONTROL: control, "v1": noisy})
    assert decision.lifts["v1"] < 0.05 or decision.p_values["v1"] >= 0.1
    assert decision.action == "abort"
