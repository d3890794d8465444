"""Generic masking of variable values in log messages before template mining.

Drain groups messages by their constant tokens, so values that vary from one
line to the next (addresses, ids, numbers, paths) are replaced by typed masks
first. The patterns are deliberately generic: one set serves every system
(the LogHub accuracy test measures it on eight, and it is judged on systems it
has never seen), so nothing here knows about a particular product's ids.

Masks are written as `<NAME>`; Drain compares them literally, so two lines that
differ only in masked values get the same token sequence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# A value is only masked when it stands apart from surrounding word characters,
# so `v2` or `http2` inside identifiers keep their meaning.
_L = r"(?<![A-Za-z0-9_.])"
_R = r"(?![A-Za-z0-9_])"


@dataclass(frozen=True)
class MaskRule:
    """One pattern and the mask name it is replaced with."""

    name: str
    pattern: str


# Order matters: composite values (emails, URLs, UUIDs, addresses) go before
# the numbers they contain.
MASK_RULES: tuple[MaskRule, ...] = (
    # Timestamps inside messages (ISO 8601, ctime/syslog style), then bare times.
    MaskRule(
        "TS",
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?(?![\w:])",
    ),
    MaskRule(
        "TS",
        r"\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s+)?"
        r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\s+\d{1,2},?\s+"
        r"(?:\d{4}\s+)?\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s+\d{4}\b)?",
    ),
    MaskRule("TIME", r"(?<![\w:.])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\w:])"),
    MaskRule("EMAIL", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    MaskRule("URL", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>]+"),
    MaskRule(
        "UUID",
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
    ),
    MaskRule("MAC", r"\b(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}\b"),
    MaskRule(
        "IP",
        r"(?<![\w.:])/?(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?![\w.])",
    ),
    MaskRule(
        "IP",
        r"(?<![\w:])(?:(?:[0-9a-fA-F]{1,4}:){5,7}[0-9a-fA-F]{1,4}"
        r"|(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)?::[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)"
        r"(?![\w:])",
    ),
    # host:port (a dotted name followed by a port number).
    MaskRule("HOST", r"(?<![\w.-])[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+:\d{1,5}(?![\w.])"),
    MaskRule("HEX", _L + r"0[xX][0-9a-fA-F]+" + _R),
    # Hashes, SHAs and hex ids: long runs of hex digits with digits and letters
    # (an all-digit run is a number and gets the NUM mask below).
    MaskRule("HEX", _L + r"(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}" + _R),
    MaskRule("PATH", r"(?<![\w:/.])(?:[A-Za-z]:)?(?:/[\w.@%+~-]+){2,}/?"),
    MaskRule("PATH", r"(?<![\w])[A-Za-z]:\\[^\s\"'<>|]*"),
    # Numbers, with an optional sign, fraction and unit (250ms, 3.5GB, 18.4 KB, 1 sec).
    MaskRule(
        "NUM",
        r"(?<![A-Za-z0-9.])[-+]?\d+(?:[.,]\d+)*"
        r"(?:\s?(?:(?:[KMGTP]i?)?B|sec|secs)\b|[a-zA-Z%]{1,3})?(?![A-Za-z0-9])",
    ),
)


def _compile(rules: tuple[MaskRule, ...]) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(rule.pattern), f"<{rule.name}>") for rule in rules)


_COMPILED = _compile(MASK_RULES)

# Any token still containing a digit after the rules above (e.g. `blk_-69513`,
# `attempt_1445_0020_m_000003`, `core.2275`) is a variable: its digit runs are
# collapsed so that the non-numeric skeleton of the token is what Drain sees.
_DIGIT_RUN = re.compile(r"-?\d+")
_TOKEN_WITH_DIGIT = re.compile(r"[^\s<>]*\d[^\s<>]*")


def _collapse_digits(match: re.Match[str]) -> str:
    return _DIGIT_RUN.sub("<N>", match.group(0))


def mask_message(message: str) -> str:
    """Return `message` with every variable-looking value replaced by its mask."""
    for regex, mask in _COMPILED:
        message = regex.sub(mask, message)
    return _TOKEN_WITH_DIGIT.sub(_collapse_digits, message)


def masker() -> Callable[[str], str]:
    """The masking function the clusterer uses (one place to swap it in tests)."""
    return mask_message
