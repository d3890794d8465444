"""Post-processing of Drain templates: merge templates that differ only in variables.

Drain can split one event into several clusters when the first lines it sees
happen to share a variable value (two `state <NUM>` lines become a template,
a `state <*>` cluster forms elsewhere in the tree). Templates whose tokens are
identical once every variable-looking token is read as a wildcard describe the
same event, so they are merged. The rule is generic: it knows about masks and
digits, never about a particular system.
"""

from __future__ import annotations

import re

WILDCARD = "<*>"
_MASK_TOKEN = re.compile(r"^<[A-Z*]+>$")
_HAS_MASK = re.compile(r"<[A-Z*]+>")


def is_variable_token(token: str) -> bool:
    """True for Drain wildcards, masks, and tokens that embed a mask or a digit."""
    if _MASK_TOKEN.match(token) or _HAS_MASK.search(token):
        return True
    return any(ch.isdigit() for ch in token)


def canonical_template(template: str) -> tuple[str, ...]:
    """The template's tokens with every variable-looking token read as a wildcard."""
    return tuple(WILDCARD if is_variable_token(t) else t for t in template.split())


def _combine(templates: list[str]) -> str:
    token_lists = [t.split() for t in templates]
    combined = []
    for column in zip(*token_lists, strict=True):
        combined.append(column[0] if len(set(column)) == 1 else WILDCARD)
    return " ".join(combined)


def merge_equivalent_templates(
    templates: dict[int, str],
) -> tuple[dict[int, int], dict[int, str]]:
    """Merge clusters whose canonical templates are equal.

    Returns a map from every original cluster id to its surviving id (the
    smallest of its group) and the surviving templates.
    """
    groups: dict[tuple[str, ...], list[int]] = {}
    for cluster_id in sorted(templates):
        groups.setdefault(canonical_template(templates[cluster_id]), []).append(cluster_id)
    remap: dict[int, int] = {}
    merged: dict[int, str] = {}
    for ids in groups.values():
        survivor = ids[0]
        for cluster_id in ids:
            remap[cluster_id] = survivor
        if len(ids) == 1:
            merged[survivor] = templates[survivor]
        else:
            merged[survivor] = _combine([templates[i] for i in ids])
    return remap, merged
