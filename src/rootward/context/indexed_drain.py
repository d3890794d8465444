"""Drain3's tree with its match scan indexed: the same clusters, in time that does not grow with them.

Drain compares a new line with every cluster in its leaf of the prefix tree,
and at depth 3 the leaf is every cluster of the line's length. A stream whose
lines share little (free text, names no mask or rule catches) grows a cluster
per line, and each line then costs a comparison with all before it: 20,000
such lines took minutes.

Drain's similarity (`include_params=False`, how lines are added) is the share
of positions where the template's constant token equals the line's. A cluster
reaching the threshold (above 0) shares at least one (position, token) with
the line, and a template only ever turns positions into wildcards, so every
constant (position, token) it holds now it held when it was indexed (when
its length's first leaf grew past INDEX_FROM clusters, or at its creation
after that). So the clusters worth scoring are those indexed under one of
the line's own (position, token) pairs; the others score 0, and Drain
keeps a best match only at the threshold or above. Those candidates are
scored by Drain's own `fast_match`, in the leaf's order (creation order), so
the match, its ties included, is the one Drain's full scan finds. Adding a
cluster to its leaf no longer copies the leaf either (`add_seq_to_prefix_tree`).
"""

from __future__ import annotations

from collections.abc import Sequence

from drain3.drain import Drain, LogCluster, Node

# Leaves with fewer clusters are scanned whole: the index pays off past a few dozen.
INDEX_FROM = 32


class IndexedDrain(Drain):
    """`Drain` whose add-time match scores only the clusters that share a (position, token) with the line."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # (length, position, token) -> ids of the clusters that held that token there when indexed
        self._by_token: dict[tuple[int, int, str], list[int]] = {}
        self._indexed: set[int] = set()  # lengths indexed: only once a leaf of that length grew past INDEX_FROM

    def add_seq_to_prefix_tree(self, root_node: Node, cluster: LogCluster) -> None:
        size = len(cluster.log_template_tokens)
        if self.max_clusters is None and self.max_node_depth <= 1 and size:
            # Drain's own insertion at this depth: the leaf is the length node. It first copies the leaf
            # without the clusters its cache evicted, a scan of the whole leaf per new cluster that finds
            # nothing when there is no cache limit.
            root_node.key_to_child_node.setdefault(str(size), Node()).cluster_ids.append(cluster.cluster_id)
        else:
            super().add_seq_to_prefix_tree(root_node, cluster)
        if size in self._indexed:
            self._index(cluster)

    def _index(self, cluster: LogCluster) -> None:
        size = len(cluster.log_template_tokens)
        for position, token in enumerate(cluster.log_template_tokens):
            if token != self.param_str:
                self._by_token.setdefault((size, position, token), []).append(cluster.cluster_id)

    def fast_match(
        self, cluster_ids: Sequence[int], tokens: list[str], sim_th: float, include_params: bool
    ) -> LogCluster | None:
        if include_params or sim_th <= 0 or len(cluster_ids) < INDEX_FROM:
            return super().fast_match(cluster_ids, tokens, sim_th, include_params)
        size = len(tokens)
        if size not in self._indexed:  # the first leaf of this length to grow this far: index them all now
            self._indexed.add(size)
            for cluster in list(self.id_to_cluster.values()):
                if len(cluster.log_template_tokens) == size:
                    self._index(cluster)
        found: set[int] = set()
        for position, token in enumerate(tokens):
            found.update(self._by_token.get((size, position, token), ()))
            if len(found) >= len(cluster_ids):  # every cluster is a candidate (long lines of few words)
                return super().fast_match(cluster_ids, tokens, sim_th, include_params)
        if self.max_node_depth > 1:  # a leaf below the length node holds only some of them
            found &= set(cluster_ids)
        return super().fast_match(sorted(found), tokens, sim_th, include_params)
