"""Unicode normalisation for the injection guard: one visible, folded form of a line.

An instruction hidden from a human reader must not be hidden from the guard,
and one a human can read must not get past it by looking different. So every
line is reduced to what it says, before any pattern runs:

* NFKC (full-width, mathematical, circled and other compatibility letters);
* invisible characters removed: every format character (Unicode category Cf:
  zero-width spaces and joiners, bidi controls, the soft hyphen, the tag
  characters U+E0000-E007F), variation selectors, Hangul fillers, combining
  diacritics left over after NFKC (`zalgo` text);
* look-alike Latin letters folded to their base letter, by their Unicode
  names: small capitals (`ɪɢɴᴏʀᴇ`), accented and hooked letters (`ïgñörê`),
  modifier and subscript letters, regional-indicator and negative
  circled/squared letters; then case-folded.

Text that the invisible characters *carry* is decoded too: tag characters map
one-to-one onto ASCII (`hidden_text`), and runs of variation selectors can
smuggle bytes. Nothing legitimate in a log line is written that way, except
an emoji flag's tag sequence, which is left alone.
"""

from __future__ import annotations

import re
import sys
import unicodedata

_TAG_FIRST, _TAG_LAST = 0xE0000, 0xE007F
_BLACK_FLAG = "\U0001f3f4"  # an emoji subdivision flag is U+1F3F4, tag letters, U+E007F
_VS_RANGES = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF))
# Invisible characters that are not format characters (Cf).
_INVISIBLE_OTHER = (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0x2800)

# Where format characters, variation selectors and fillers live (a test checks
# that no invisible character lies outside these blocks).
_INVISIBLE_BLOCKS = (
    (0x00A0, 0x0900),
    (0x1160, 0x1160),
    (0x115F, 0x115F),
    (0x17B4, 0x17B5),
    (0x1800, 0x1810),
    (0x2000, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x110B0, 0x110D0),
    (0x13430, 0x1345F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE01EF),
)
# Blocks holding Latin look-alikes that NFKC leaves alone (small capitals,
# letters with strokes and hooks, modifier letters, enclosed letters).
_LOOKALIKE_BLOCKS = (
    (0x00C0, 0x02FF),
    (0x1D00, 0x1DFF),
    (0x1E00, 0x1EFF),
    (0x2C60, 0x2C7F),
    (0xA720, 0xA7FF),
    (0xAB30, 0xAB6F),
    (0x1DF00, 0x1DFFF),
    (0x1F100, 0x1F1FF),
)
_LOOKALIKE_NAME = re.compile(
    r"^(?:LATIN (?:SMALL |CAPITAL )?LETTER (?:SMALL CAPITAL )?|LATIN SUBSCRIPT SMALL LETTER "
    r"|MODIFIER LETTER (?:SMALL |CAPITAL )?(?:CAPITAL )?|REGIONAL INDICATOR SYMBOL LETTER "
    r"|(?:NEGATIVE )?(?:CIRCLED|SQUARED|PARENTHESIZED) LATIN (?:SMALL |CAPITAL )?LETTER )"
    r"([A-Z]{1,2})(?: WITH .*)?$"
)
_COMBINING = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))
_LIGATURES = {"ß": "ss", "æ": "ae", "œ": "oe", "ĳ": "ij", "ø": "o", "đ": "d", "ł": "l", "ħ": "h", "ı": "i", "ŧ": "t"}


def _is_invisible(codepoint: int) -> bool:
    char = chr(codepoint)
    if unicodedata.category(char) == "Cf" or codepoint in _INVISIBLE_OTHER:
        return True
    return any(low <= codepoint <= high for low, high in _VS_RANGES)


def _fold_table() -> dict[int, str | None]:
    """translate() table: invisible characters dropped, look-alike letters folded to ASCII."""
    table: dict[int, str | None] = {}
    for low, high in _INVISIBLE_BLOCKS:
        for codepoint in range(low, high + 1):
            if _is_invisible(codepoint):
                table[codepoint] = None
    for low, high in _COMBINING:
        table.update(dict.fromkeys(range(low, high + 1)))
    for low, high in _LOOKALIKE_BLOCKS:
        for codepoint in range(low, high + 1):
            char = chr(codepoint)
            if char in _LIGATURES or char.upper() in _LIGATURES:
                continue
            base = unicodedata.normalize("NFKD", char)[:1]
            if base.isascii() and base.isalpha():
                table[codepoint] = base.lower()
                continue
            match = _LOOKALIKE_NAME.match(unicodedata.name(char, ""))
            if match is not None and len(match.group(1)) == 1:
                table[codepoint] = match.group(1).lower()
    for source, target in _LIGATURES.items():
        table[ord(source)] = target
        upper = source.upper()
        if len(upper) == 1 and not upper.isascii():
            table[ord(upper)] = target
    return table


_FOLD = _fold_table()
_INVISIBLE = {code: None for code, target in _FOLD.items() if target is None}


def strip_invisible(text: str) -> str:
    """`text` without invisible characters (what a reader sees, and what a model may be sent)."""
    if text.isascii():
        return text
    return text.translate(_INVISIBLE)


def visible(line: str) -> str:
    """The folded form every rule reads: NFKC, invisible removed, look-alikes folded, case-folded.

    Scripts other than Latin are kept as they are (the language rules read them).
    """
    if line.isascii():
        return line.lower()
    return unicodedata.normalize("NFKC", line).casefold().translate(_FOLD)


def fold_pattern(pattern: str) -> str:
    """A rule written with accents (`précédentes`, `är`) folded the same way as the text."""
    return unicodedata.normalize("NFKC", pattern).translate(_FOLD)


def _selector_byte(codepoint: int) -> int | None:
    if 0xFE00 <= codepoint <= 0xFE0F:
        return codepoint - 0xFE00
    if 0xE0100 <= codepoint <= 0xE01EF:
        return codepoint - 0xE0100 + 16
    return None


def hidden_text(line: str) -> str:
    """Text carried by invisible characters: tag characters as ASCII, variation-selector runs as bytes.

    Tags inside an emoji flag sequence (U+1F3F4 … U+E007F) are the flag, not hidden text.
    A variation selector after a single visible character is ordinary emoji presentation;
    only runs of several carry data.
    """
    if line.isascii():
        return ""
    parts: list[str] = []
    in_flag = False
    selector_run: list[int] = []

    def flush_selectors() -> None:
        if len(selector_run) >= 4:
            parts.append(bytes(selector_run).decode("utf-8", errors="ignore"))
        selector_run.clear()

    for char in line:
        codepoint = ord(char)
        byte = _selector_byte(codepoint)
        if byte is not None:
            selector_run.append(byte)
            continue
        flush_selectors()
        if char == _BLACK_FLAG:
            in_flag = True
        elif _TAG_FIRST <= codepoint <= _TAG_LAST:
            if codepoint == _TAG_LAST:
                in_flag = False
            elif not in_flag and 0xE0020 <= codepoint <= 0xE007E:
                parts.append(chr(codepoint - _TAG_FIRST))
        else:
            in_flag = False
    flush_selectors()
    return "".join(parts).strip()


def has_hidden_text(line: str) -> bool:
    """Whether `line` carries at least a word's worth of invisible text."""
    return sum(ch.isalpha() for ch in hidden_text(line)) >= 3


assert sys.maxunicode >= _TAG_LAST  # wide build: tag characters are single code points
