"""Post-processing of Drain templates: merge templates that differ only in variables.

Drain can split one event into several clusters: when the first lines it sees
share a variable value (`state <NUM>` next to a `state <*>` formed elsewhere in
the tree), or when a variable spans a different number of tokens
(`0 bytes sent` vs `1190 bytes (1.16 KB) sent`), since Drain groups by token
count. Two generic rules re-join them; neither knows about any particular
system:

* same length, equal once every variable-looking token is read as a wildcard;
* equal once masked values (`(<NUM>)`, `<IP>:<NUM>`) are dropped, keeping
  Drain's own `<*>` wildcards and the key of `key=value` fields, because an
  extra field or an extra free-text word makes a different event.
"""

from __future__ import annotations

import re

WILDCARD = "<*>"
_HAS_MASK = re.compile(r"<[A-Z*]+>")


def is_variable_token(token: str) -> bool:
    """True for Drain wildcards, masks, and tokens that embed a mask or a digit."""
    if _HAS_MASK.search(token):
        return True
    return any(ch.isdigit() for ch in token)


def positional_key(template: str) -> tuple[str, ...]:
    """The template's tokens with every variable-looking token read as a wildcard."""
    return tuple(WILDCARD if is_variable_token(t) else t for t in template.split())


def shape_key(template: str) -> tuple[str, ...]:
    """The template's constant tokens, `<*>` slots and field keys; masked values dropped."""
    shape = []
    for token in template.split():
        if token == WILDCARD or not is_variable_token(token):
            shape.append(token)
            continue
        key, equals, _ = token.partition("=")
        if equals and key and not is_variable_token(key):
            shape.append(key + "=")
    return tuple(shape)


def _combine(templates: list[str]) -> str:
    token_lists = [t.split() for t in templates]
    if len({len(tokens) for tokens in token_lists}) > 1:
        # Different lengths: keep the most general of them as the label.
        return max(templates, key=lambda t: (t.count("<"), -len(t)))
    combined = []
    for column in zip(*token_lists, strict=True):
        combined.append(column[0] if len(set(column)) == 1 else WILDCARD)
    return " ".join(combined)


def merge_equivalent_templates(
    templates: dict[int, str],
) -> tuple[dict[int, int], dict[int, str]]:
    """Merge clusters whose templates match under either rule (transitively).

    Returns a map from every original cluster id to its surviving id (the
    smallest of its group) and the surviving templates.
    """
    parent = {cid: cid for cid in templates}

    def find(cid: int) -> int:
        while parent[cid] != cid:
            parent[cid] = parent[parent[cid]]
            cid = parent[cid]
        return cid

    for key_of in (positional_key, shape_key):
        first_with_key: dict[tuple[str, ...], int] = {}
        for cid in sorted(templates):
            key = key_of(templates[cid])
            other = first_with_key.setdefault(key, cid)
            a, b = find(cid), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for cid in sorted(templates):
        groups.setdefault(find(cid), []).append(cid)
    remap = {cid: root for root, ids in groups.items() for cid in ids}
    merged = {
        root: templates[root] if len(ids) == 1 else _combine([templates[i] for i in ids])
        for root, ids in groups.items()
    }
    return remap, merged
