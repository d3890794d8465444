"""Drain3's prefix tree with a similarity that reads wildcards as what they are.

Drain3 scores a message against a template by the share of positions whose
tokens are equal, and counts a position the template already holds as `<*>`
as a mismatch (`include_params=False` when adding). A template that has
learnt two variable positions out of eight can then never again reach a
similarity of 0.8, and every later message of the same event opens a new
cluster: one configuration works on the systems it was tuned on and falls
apart on a system whose events carry one more variable word (a user name, a
program name, a `key=value` field).

Here a wildcard position accepts any token (it is known to vary within the
event), and the share is taken over the template's constant positions,
which are what make it this event: similarity = equal constants / constants.
The tree, the clusters and template generalisation are Drain3's own.
"""

from __future__ import annotations

from collections.abc import Sequence

from drain3.drain import Drain


class ConstantsDrain(Drain):
    """`Drain` whose match similarity is the share of the template's constant tokens that the message repeats."""

    def get_seq_distance(self, seq1: Sequence[str], seq2: Sequence[str], include_params: bool) -> tuple[float, int]:
        if len(seq1) == 0:
            return 1.0, 0
        param = self.param_str
        params = 0
        equal = 0
        for template_token, token in zip(seq1, seq2, strict=True):
            if template_token == param:
                params += 1
            elif template_token == token:
                equal += 1
        constants = len(seq1) - params
        return (equal / constants if constants else 1.0), params
