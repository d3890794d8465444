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
from collections import Counter
from collections.abc import Iterable
from functools import partial

WILDCARD = "<*>"
_HAS_MASK = re.compile(r"<[A-Z*]+>")
_MASKED_VALUE = re.compile(r"<[A-Z]+>")  # a whole word that masking replaced


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


def _root(parent: dict[int, int], cid: int) -> int:
    """The id `cid`'s group survives as, in a union-find forest (halving the path on the way)."""
    while parent[cid] != cid:
        parent[cid] = parent[parent[cid]]
        cid = parent[cid]
    return cid


def merge_equivalent_templates(
    templates: dict[int, str],
) -> tuple[dict[int, int], dict[int, str]]:
    """Merge clusters whose templates match under either rule (transitively).

    Returns a map from every original cluster id to its surviving id (the
    smallest of its group) and the surviving templates.
    """
    parent = {cid: cid for cid in templates}
    find = partial(_root, parent)

    for key_of in (positional_key, shape_key):
        first_with_key: dict[tuple[str, ...], int] = {}
        for cid in sorted(templates):
            key = key_of(templates[cid])
            if sum(token != WILDCARD for token in key) < 2:
                continue  # too little constant text to call two templates the same event
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


def split_low_cardinality(
    templates: dict[int, str],
    forms: dict[str, tuple[int, int]],
    *,
    max_values: int = 2,
    min_count: int = 2,
) -> tuple[dict[str, int], dict[int, str]]:
    """Split a cluster whose wildcard only ever holds a few words, each repeatedly.

    Drain turns a differing word into `<*>` whether it is a variable (a user
    name: many values) or a constant that names a different event (`client
    SPP` vs `client WindowsUpdateAgent`: a couple of values, each many times).
    A wildcard that holds 2..`max_values` plain words (no digits, no masks),
    each at least `min_count` times, is read as constants, and the cluster is
    split by it (at the position with the fewest values).

    `forms` maps each distinct masked message to (cluster id, number of lines).
    Returns the cluster of every form and the templates, new clusters included.
    """
    members: dict[int, list[tuple[list[str], int, str]]] = {}
    for masked, (cluster_id, count) in forms.items():
        members.setdefault(cluster_id, []).append((masked.split(), count, masked))
    form_cluster = {masked: cluster_id for masked, (cluster_id, _) in forms.items()}
    result = dict(templates)
    next_id = max(templates, default=0) + 1
    for cluster_id, group in members.items():
        tokens = templates[cluster_id].split()
        best: tuple[int, Counter[str]] | None = None
        for position, token in enumerate(tokens):
            if token != WILDCARD:
                continue
            values: Counter[str] = Counter()
            for form_tokens, count, _ in group:
                value = form_tokens[position] if len(form_tokens) == len(tokens) else "<>"
                if is_variable_token(value):
                    break
                values[value] += count
            else:
                few_repeated = 2 <= len(values) <= max_values and min(values.values()) >= min_count
                if few_repeated and (best is None or len(values) < len(best[1])):
                    best = (position, values)
        if best is None:
            continue
        position, values = best
        ids: dict[str, int] = {}
        for index, value in enumerate(values):
            if index == 0:
                ids[value] = cluster_id
            else:
                ids[value] = next_id
                next_id += 1
            split_tokens = list(tokens)
            split_tokens[position] = value
            result[ids[value]] = " ".join(split_tokens)
        for form_tokens, _, masked in group:
            form_cluster[masked] = ids[form_tokens[position]]
    return form_cluster, result


# Drain splits on one differing word only in short messages; longer templates are skipped here
# (each position of a template is a key of its length: quadratic in its tokens).
MAX_VARYING_TOKENS = 64


def merge_varying_position(
    templates: dict[int, str], *, max_values: int = 3, sim_th: float | None = None
) -> tuple[dict[int, int], dict[int, str]]:
    """Merge templates that are equal but for one position holding many different words.

    Drain splits an event whose variable is a plain word (a user, a program, a
    component name) into one cluster per value whenever the message is short
    enough that one differing word drops it below the similarity threshold.
    Seen across the stream, the position tells: more than `max_values`
    templates identical everywhere else means a variable, and they are one
    event (`split_low_cardinality` is the other side of the same rule: a few
    values, each repeated, name different events). A template holding a wildcard at
    the position counts as one of them. With `sim_th` (Drain's threshold), fewer values
    are joined where Drain would have joined them but for another variable in the
    line (`_drain_would_join`). Merged templates are compared again until none joins:
    a merge can make two templates equal but at one more position, or equal outright.

    Returns the map from every cluster id to its surviving id and the templates.
    """
    remap = {cid: cid for cid in templates}
    merged = dict(templates)
    while True:
        step, joined = _merged_once(merged, max_values, sim_th)
        if len(joined) == len(merged):
            return remap, joined
        remap = {cid: step[root] for cid, root in remap.items()}
        merged = joined


def _merged_once(
    templates: dict[int, str], max_values: int, sim_th: float | None
) -> tuple[dict[int, int], dict[int, str]]:
    """One pass of `merge_varying_position`: each position's key read off the templates as given."""
    remap = {cid: cid for cid in templates}
    merged = dict(templates)
    by_key: dict[tuple[int, tuple[str, ...]], list[int]] = {}
    for cid in sorted(templates):
        tokens = tuple(templates[cid].split())
        if len(tokens) < 3:
            continue  # too little context to call the rest "the same"
        if len(tokens) > MAX_VARYING_TOKENS:
            continue  # one word in so many never drops Drain below its threshold: no split to undo
        for position in range(len(tokens)):
            # A template already holding a wildcard there (Drain's own, or an earlier merge's) varies there too.
            by_key.setdefault((position, tokens[:position] + (WILDCARD,) + tokens[position + 1 :]), []).append(cid)
    for (position, key), ids in sorted(by_key.items(), key=lambda item: -len(item[1])):
        alive = sorted({remap[cid] for cid in ids})
        if len(alive) <= max_values and not _drain_would_join(alive, merged, position, len(key), sim_th):
            continue
        root = alive[0]
        for cid in remap:
            if remap[cid] in alive:
                remap[cid] = root
        # The members as they stand now: one merged earlier in this pass holds wildcards its key does not.
        merged[root] = _combine([merged[cid] for cid in alive])
        for cid in alive[1:]:
            merged.pop(cid, None)
    return remap, merged


def _drain_would_join(
    alive: list[int], templates: dict[int, str], position: int, size: int, sim_th: float | None
) -> bool:
    """Whether Drain itself would have joined these templates, equal but at `position`, had the
    positions they share as wildcards been masked before it (as equal tokens).

    Drain's similarity is the share of equal tokens, and a line differing from a template in one of
    `size` tokens joins it at `(size - 1) / size >= sim_th`. Drain did not see it so: a variable
    elsewhere in the line (a program name in front, a user) made two differing tokens of one, and
    only a later merge (`merge_varying_position`'s many values) turned it into a wildcard. Three
    or more values at the position are joined then; two plain words are kept apart (two values,
    each repeated, can name two events: `split_low_cardinality`), unless one of the two templates
    holds a wildcard there already (one value more of a variable).
    """
    if sim_th is None or len(alive) < 2 or (size - 1) / size < sim_th:
        return False
    if len(alive) >= 3:
        return True
    return any(templates[cid].split()[position] == WILDCARD for cid in alive)


# A template matching others whole must keep at least this share of its tokens constant (and
# two of them): one of mostly wildcards (`<*> <*> failed`) would match lines of any event.
MIN_CONSTANT_SHARE = 0.5


def merge_subsumed(templates: dict[int, str]) -> tuple[dict[int, int], dict[int, str]]:
    """Join each template to a template of its length that matches it whole, the most specific one.

    A template matches another whole when every token of it is a wildcard or the
    other's token there (the other's own wildcards falling on its wildcards): the
    lines of the other are lines it would have taken, as Drain3 matches a line to
    a learned template, wildcards counting as equal. Such pairs are left when a
    template's wildcards came from lines the other never saw: a program name or a
    host in front varied among one group of lines and stood still in another,
    whose few lines kept it as a constant. A template that holds fewer constant
    tokens than `MIN_CONSTANT_SHARE` of its length, or fewer than two, matches
    nothing: it says too little to call another the same event. Identical
    templates are one.

    Returns the map from every cluster id to its surviving id and the templates.
    """
    parent = {cid: cid for cid in templates}
    find = partial(_root, parent)

    by_size: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
    for cid in sorted(templates):
        tokens = tuple(templates[cid].split())
        if 0 < len(tokens) <= MAX_VARYING_TOKENS:
            by_size.setdefault(len(tokens), []).append((cid, tokens))
    for group in by_size.values():
        for cid, general in _subsumers(group).items():
            a, b = find(cid), find(general)
            if a != b:
                parent[a] = b
    remap = {cid: find(cid) for cid in templates}
    return remap, {root: templates[root] for root in set(remap.values())}


def _subsumers(group: list[tuple[int, tuple[str, ...]]]) -> dict[int, int]:
    """Per template of one length, the most specific other template matching it whole (`merge_subsumed`).

    A masked value matches any masked value (`<HEX>` and `<NUM>` are one value
    written two ways: a hex id that happened to hold no letter). Each general
    template is indexed under its rarest constant word that is no masked value: a
    template it matches holds that word there, so only those listed under its own
    words are tried; one whose only constants are masked values matches nothing.
    """
    frequency: Counter[tuple[int, str]] = Counter(pair for _, tokens in group for pair in enumerate(tokens))
    index: dict[tuple[int, str], list[tuple[int, tuple[str, ...], int]]] = {}
    for cid, tokens in group:
        wildcards = tokens.count(WILDCARD)
        words = [(p, t) for p, t in enumerate(tokens) if t != WILDCARD and not _MASKED_VALUE.fullmatch(t)]
        if not words or len(tokens) - wildcards < max(2, MIN_CONSTANT_SHARE * len(tokens)):
            continue
        anchor = min(words, key=lambda pair: (frequency[pair], pair))
        index.setdefault(anchor, []).append((cid, tokens, wildcards))
    found: dict[int, int] = {}
    for cid, tokens in group:
        best: tuple[int, int] | None = None
        for pair in enumerate(tokens):
            for other, general, wildcards in index.get(pair, ()):
                if other == cid or (best is not None and (wildcards, other) >= best):
                    continue
                if all(_matches(g, t) for g, t in zip(general, tokens, strict=True)):
                    best = (wildcards, other)
        if best is not None:
            found[cid] = best[1]
    return found


def _matches(general: str, token: str) -> bool:
    """Whether a general template's word takes this word: a wildcard, the word itself, a masked value for one."""
    return general in (WILDCARD, token) or bool(_MASKED_VALUE.fullmatch(general) and _MASKED_VALUE.fullmatch(token))


# A token opening a quoted or bracketed value, the character that closes it, and how many words it may hold.
_CLOSES = {"'": "'", '"': '"', "(": ")", "[": "]", "{": "}"}
MAX_VALUE_WORDS = 8
_OPENS = re.compile(r"""(?:^|\s)['"(\[{]""")


def value_units(text: str) -> list[str]:
    """The form's words, a quoted or bracketed value with spaces in it kept as one (`'my notes'`, `(no route)`).

    A value opens at the start of a word and closes at the end of a later one (a
    comma or stop may follow), within MAX_VALUE_WORDS words; an apostrophe inside a
    word (`can't`) opens nothing, and a value that never closes is words as before.
    """
    words = text.split()
    if _OPENS.search(text) is None:  # most forms: no word opens a value
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        close = _CLOSES.get(word[0])
        end = i
        if close is not None and (len(word) == 1 or not word.rstrip(",;:.").endswith(close)):
            for j in range(i + 1, min(len(words), i + MAX_VALUE_WORDS)):
                if words[j].rstrip(",;:.").endswith(close):
                    end = j
                    break
        out.append(" ".join(words[i : end + 1]))
        i = end + 1
    return out


def masked_varying_words(forms: Iterable[str], *, max_values: int = 3, passes: int = 3) -> dict[str, str]:
    """Each form with the words it shares a many-valued position in replaced by a wildcard, before Drain.

    `merge_varying_position`'s rule read on the lines' forms instead of on Drain's
    templates: forms equal everywhere but one position, holding more than
    `max_values` different plain words there, are one event whose variable is that
    word. Read before Drain, the rule also bounds Drain's work: Drain compares a
    line with every cluster of its length, and a stream of lines differing in one
    word (container names, session names: plain words no mask catches) would
    otherwise grow a cluster per line and compare each new line with all of them.
    A second variable in the same lines hides the first (each group holds one
    value of the other), so the reading is repeated on the masked forms.
    """
    out = {form: form for form in forms}
    for _ in range(passes):
        tokens_of = {form: tuple(value_units(masked)) for form, masked in out.items()}
        values: dict[tuple[int, tuple[str, ...]], set[str]] = {}
        for tokens in set(tokens_of.values()):
            if not 3 <= len(tokens) <= MAX_VARYING_TOKENS:
                continue
            for position, token in enumerate(tokens):
                if token != WILDCARD and not is_variable_token(token):
                    key = (position, tokens[:position] + (WILDCARD,) + tokens[position + 1 :])
                    values.setdefault(key, set()).add(token)
        varying = {key for key, seen in values.items() if len(seen) > max_values}
        if not varying:
            break
        for form, tokens in tokens_of.items():
            if not 3 <= len(tokens) <= MAX_VARYING_TOKENS:
                continue  # never keyed above (and each key copies the form: quadratic in its length)
            for position in range(len(tokens)):
                key = (position, tokens[:position] + (WILDCARD,) + tokens[position + 1 :])
                if key in varying:
                    out[form] = " ".join(key[1])
                    break
    return out
