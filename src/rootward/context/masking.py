"""Generic masking of variable values in log messages before template mining.

Drain groups messages by their constant tokens, so values that vary from one
line to the next (addresses, ids, numbers, paths) are replaced by typed masks
first. The patterns are deliberately generic: one set serves every system
(the LogHub accuracy test measures it on eight, and it is judged on systems it
has never seen), so nothing here knows about a particular product's ids.

Masks are written as `<NAME>`; Drain compares them literally, so two lines that
differ only in masked values get the same token sequence.

Masking runs on every distinct message of every investigation, so each rule
names a cheap precondition (a substring, or "has a digit") and is skipped
when the message cannot match it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A value is only masked when it stands apart from surrounding word characters,
# so `v2` or `http2` inside identifiers keep their meaning.
_L = r"(?<![A-Za-z0-9_.])"
_R = r"(?![A-Za-z0-9_])"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_WEEKDAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_SOURCE_FILE = r"(?:java|kt|scala|groovy|py|go|rb|js|ts|c|cc|cpp|h|hpp|rs|cs|php|swift|ex|exs|erl)"


@dataclass(frozen=True)
class MaskRule:
    """One pattern, the mask it is replaced with, and when it is worth trying."""

    name: str
    pattern: str
    needs: str = ""  # a substring the message must contain ("" = none)
    needs_digit: bool = True  # every value below but paths and emails contains a digit


# Order matters: composite values (timestamps, emails, URLs, UUIDs, addresses)
# go before the numbers they contain.
MASK_RULES: tuple[MaskRule, ...] = (
    # Timestamps inside messages (ISO 8601, ctime/syslog style), then bare times.
    MaskRule("TS", r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?(?![\w:])", ":"),
    MaskRule(
        "TS",
        _MONTH + r"[a-z]*\s+\d{1,2},?\s+(?:\d{4}\s+)?\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s+\d{4}\b)?",
        ":",
    ),
    MaskRule("TS", r"\b" + _WEEKDAY + r"[a-z]*,?\s+<TS>", "<TS>", needs_digit=False),
    MaskRule("TIME", r"(?<![\w:.])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\w:])", ":"),
    MaskRule("EMAIL", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", "@", needs_digit=False),
    MaskRule("URL", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>]+", "://", needs_digit=False),
    MaskRule("UUID", r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "-"),
    MaskRule("MAC", r"\b(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}\b"),
    MaskRule("IP", r"(?<![\w.:])/?(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?![\w.])", "."),
    MaskRule(
        "IP",
        r"(?<![\w:])(?:(?:[0-9a-fA-F]{1,4}:){5,7}[0-9a-fA-F]{1,4}"
        r"|(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)?::[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)"
        r"(?![\w:])",
        ":",
    ),
    # host:port (a dotted name followed by a port number); source positions
    # like `Foo.java:42` in stack frames are not hosts.
    MaskRule(
        "HOST",
        r"(?<![\w.-])(?![\w.-]*\." + _SOURCE_FILE + r":\d)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+:\d{1,5}(?![\w.])",
        ":",
    ),
    MaskRule("HEX", _L + r"0[xX][0-9a-fA-F]+" + _R),
    # Hashes, SHAs and hex ids: long runs of hex digits with digits and letters
    # (an all-digit run is a number and gets the NUM mask below).
    MaskRule("HEX", _L + r"(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}" + _R),
    MaskRule("PATH", r"(?<![\w:/.])(?:[A-Za-z]:)?(?:/[\w.@%+~-]+){2,}/?", "/", needs_digit=False),
    MaskRule("PATH", r"(?<![\w])[A-Za-z]:\\[^\s\"'<>|]*", ":\\", needs_digit=False),
    # Numbers, with an optional sign, fraction and unit (250ms, 3.5GB, 18.4 KB, 1 sec).
    MaskRule(
        "NUM",
        r"(?<![A-Za-z0-9.])[-+]?\d+(?:[.,]\d+)*"
        r"(?:\s?(?:(?:[KMGTP]i?)?B|sec|secs)\b|[a-zA-Z%]{1,3})?(?![A-Za-z0-9])",
    ),
)


@dataclass(frozen=True)
class _Compiled:
    regex: re.Pattern[str]
    mask: str
    needs: str
    needs_digit: bool


_COMPILED = tuple(_Compiled(re.compile(r.pattern), f"<{r.name}>", r.needs, r.needs_digit) for r in MASK_RULES)
_HAS_DIGIT = re.compile(r"\d")

# Any digits left after the rules above sit inside a token (`blk_-69513`,
# `attempt_1445_0020_m_000003`, `core.2275`): each run is collapsed so that the
# non-numeric skeleton of the token is what Drain compares.
_DIGIT_RUN = re.compile(r"-?\d+")


def mask_message(message: str) -> str:
    """Return `message` with every variable-looking value replaced by its mask."""
    has_digit = _HAS_DIGIT.search(message) is not None
    for rule in _COMPILED:
        if rule.needs_digit and not has_digit:
            continue
        if rule.needs and rule.needs not in message:
            continue
        message = rule.regex.sub(rule.mask, message)
    if has_digit:
        message = _DIGIT_RUN.sub("<N>", message)
    return message
