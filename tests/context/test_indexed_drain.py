"""The indexed match scan finds exactly the clusters Drain's full scan finds."""

from __future__ import annotations

import random

import pytest
from drain3.drain import Drain, Node

from rootward.context.indexed_drain import INDEX_FROM, IndexedDrain


def _clusters(drain: Drain, lines: list[str]) -> list[tuple[int, str, int]]:
    ids = [drain.add_log_message(line)[0].cluster_id for line in lines]
    return [(i, c.get_template(), c.size) for i, c in zip(ids, [drain.id_to_cluster[i] for i in ids], strict=True)]


@pytest.mark.parametrize("depth", [3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_same_clusters_as_drain_line_by_line(depth: int, seed: int) -> None:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(40)]  # few words: many near ties between clusters
    lines = [" ".join(rng.choice(words) for _ in range(rng.choice([3, 5, 6]))) for _ in range(2_000)]
    lines += [f"user {rng.choice(words)} logged in from {rng.choice(words)}" for _ in range(500)]
    plain = Drain(depth=depth, sim_th=0.5, max_children=100)
    indexed = IndexedDrain(depth=depth, sim_th=0.5, max_children=100)
    assert _clusters(indexed, lines) == _clusters(plain, lines)
    assert _largest_leaf(indexed.root_node) >= INDEX_FROM  # the index was used


def _largest_leaf(node: Node) -> int:
    return max([len(node.cluster_ids), *(_largest_leaf(child) for child in node.key_to_child_node.values())])


def test_a_leaf_is_extended_in_place_in_creation_order() -> None:
    drain = IndexedDrain(depth=3, sim_th=0.8, max_children=100)
    for i in range(50):
        drain.add_log_message(f"alpha{i} beta{i} gamma{i}")
    assert drain.root_node.key_to_child_node["3"].cluster_ids == list(range(1, 51))
