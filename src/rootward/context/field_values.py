"""Values of `key=value` fields: masked when the stream shows them varying, kept when they name a case.

The value of a `key=value` field is usually a variable (`user=alice`,
`wtoken=Token`, `state=RUNNING` on one line and `state=FAILED` on the next),
but not always: some logs keep a handful of cases apart by one field. The
stream itself says which: over all its lines, a key whose values are a few
words, each repeated, names cases; a key with more values, or with values
seen once, holds a variable. Numbers, ids and addresses are masked before
this (see `masking.py`); only word values are judged here.

`max_values` is the same "few" as `log_templates.split_low_cardinality` uses
for a Drain wildcard.
"""

from __future__ import annotations

import re
from collections import Counter

# key=value with a word value (masked values start with "<" and are left alone).
_FIELD = re.compile(r"(?<![\w.=-])([A-Za-z_][\w.-]*)=(?!<[A-Z*]+>)([^\s,;&\"'()\[\]{}<>=]+)")
MAX_CASE_VALUES = 3
MIN_CASE_COUNT = 2


def variable_keys(
    forms: dict[str, int], max_values: int = MAX_CASE_VALUES, min_count: int = MIN_CASE_COUNT
) -> set[str]:
    """Keys whose word values vary in this stream; `forms` maps each masked message to its line count."""
    values: dict[str, Counter[str]] = {}
    for form, count in forms.items():
        if "=" not in form:
            continue
        for key, value in _FIELD.findall(form):
            values.setdefault(key, Counter())[value] += count
    return {
        key
        for key, seen in values.items()
        if len(seen) > max_values or (len(seen) > 1 and min(seen.values()) < min_count)
    }


def mask_fields(form: str, keys: set[str]) -> str:
    """`form` with the values of `keys` replaced by `<VAL>`."""
    if not keys or "=" not in form:
        return form
    return _FIELD.sub(lambda m: f"{m.group(1)}=<VAL>" if m.group(1) in keys else m.group(0), form)
