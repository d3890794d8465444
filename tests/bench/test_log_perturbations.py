"""The perturbation check: every variant keeps the ground truth, and unperturbed is the plain accuracy."""

from __future__ import annotations

import random

from bench.log_perturbations import PERTURBATIONS, accuracy

from rootward.context.logs import ClusterConfig
from rootward.eval.loghub import evaluate_dir
from tests.context.test_logs import LOGHUB


def test_unperturbed_is_the_plain_grouping_accuracy() -> None:
    plain = {r.system: r.grouping_accuracy for r in evaluate_dir(LOGHUB, ClusterConfig())}
    assert accuracy(LOGHUB, PERTURBATIONS["none"]) == plain


def test_each_perturbation_adds_a_variable_and_keeps_the_line() -> None:
    line = "session closed for user cyrus"
    for name, perturb in PERTURBATIONS.items():
        changed = perturb(line, random.Random(3))
        assert all(word in changed.split() for word in line.split()), name
        assert (changed == line) == (name == "none"), name
