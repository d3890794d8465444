"""Prompt trials: variants of a prompt template against the unchanged control, decided on evidence.

Each investigation goes to one arm, deterministically (BLAKE2b of the trial
id and the incident id, modulo the number of arms), so a retried or replayed
investigation lands in the same arm and nobody can pick arms by hand. Once
every arm has at least `MIN_SAMPLES` judge scores, a one-sided Welch t-test
per variant asks whether it beats the control; a variant is promoted only if
its mean beats the control's by at least `MIN_LIFT` at p < `ALPHA`, and the
trial is aborted otherwise. A small trial that merely looks better promotes
nothing.

The t distribution's tail comes from the regularized incomplete beta function
(continued fraction, as in Numerical Recipes), so no statistics package is
needed; the tests check it against scipy's `ttest_ind(equal_var=False)`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

CONTROL = "control"
MIN_SAMPLES = 15
MIN_LIFT = 0.05
ALPHA = 0.1


def route(trial_id: str, incident_id: str, arms: Sequence[str]) -> str:
    """The arm of `incident_id` in `trial_id`: stable across processes, runs and Python versions."""
    if not arms:
        raise ValueError("a trial needs at least one arm")
    digest = hashlib.blake2b(f"{trial_id}\x00{incident_id}".encode(), digest_size=8).digest()
    return arms[int.from_bytes(digest, "big") % len(arms)]


def prompt_version(variants: Mapping[str, str]) -> str:
    """The label an investigation's prompts trend under: `template@arm` for each template a trial decided or
    is deciding (sorted, joined by `+`), or `control` when every template renders its unchanged file."""
    return "+".join(f"{t}@{a}" for t, a in sorted(variants.items())) or CONTROL


@dataclass(frozen=True)
class Welch:
    t: float
    df: float
    p_greater: float  # one-sided: P(a t this large | the variant is no better than the control)


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    mean = sum(xs) / len(xs)
    return mean, sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return tail if t > 0 else 1.0 - tail


def welch(variant: Sequence[float], control: Sequence[float]) -> Welch:
    """Welch's t-test of `variant` > `control` (unequal variances; Welch-Satterthwaite df)."""
    if len(variant) < 2 or len(control) < 2:
        raise ValueError("Welch's test needs at least two samples per arm")
    m1, v1 = _mean_var(variant)
    m2, v2 = _mean_var(control)
    s1, s2 = v1 / len(variant), v2 / len(control)
    if s1 + s2 == 0:
        return Welch(math.inf if m1 > m2 else 0.0, math.inf, 0.0 if m1 > m2 else 1.0)
    t = (m1 - m2) / math.sqrt(s1 + s2)
    df = (s1 + s2) ** 2 / (s1**2 / (len(variant) - 1) + s2**2 / (len(control) - 1))
    return Welch(t, df, t_sf(t, df))


@dataclass(frozen=True)
class Decision:
    action: Literal["wait", "promote", "abort"]
    arm: str | None  # the promoted variant
    reason: str
    lifts: dict[str, float]  # variant mean minus control mean
    p_values: dict[str, float]


def decide(scores: Mapping[str, Sequence[float]]) -> Decision:
    """The trial's verdict from judge scores per arm (`control` among them).

    Waits while any arm has fewer than MIN_SAMPLES; then promotes the variant
    with the largest lift among those that beat control by MIN_LIFT at
    p < ALPHA, or aborts when none does.
    """
    if CONTROL not in scores:
        raise ValueError("a trial's scores need a control arm")
    short = sorted(arm for arm, xs in scores.items() if len(xs) < MIN_SAMPLES)
    if short:
        return Decision("wait", None, f"arms under {MIN_SAMPLES} samples: {', '.join(short)}", {}, {})
    control = scores[CONTROL]
    base = sum(control) / len(control)
    lifts, ps = {}, {}
    for arm, xs in sorted(scores.items()):
        if arm != CONTROL:
            lifts[arm] = sum(xs) / len(xs) - base
            ps[arm] = welch(xs, control).p_greater
    winners = [a for a in lifts if lifts[a] >= MIN_LIFT and ps[a] < ALPHA]
    if not winners:
        return Decision("abort", None, f"no variant beat control by {MIN_LIFT} at p < {ALPHA}", lifts, ps)
    best = max(winners, key=lambda a: (lifts[a], -ps[a]))
    reason = f"{best} beat control by {lifts[best]:.3f} (one-sided Welch p = {ps[best]:.4f})"
    return Decision("promote", best, reason, lifts, ps)
