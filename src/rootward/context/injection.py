"""Prompt-injection guard for log and alert text shown to a model.

Anyone who can make a service log a string can write to the investigator's
prompt: a crafted user agent, a ticket title, an alert label, a payload
echoed in an error. Two defences, both deterministic:

1. Every block of log/alert text is wrapped in explicit `<log_content>`
   boundaries, and any boundary tag inside the text is neutralised so the text
   cannot close its own box. Fields that sit outside the box (the incident
   title, entity names, finding summaries) go through `guard_field`.
2. Lines that read as instructions to a model are replaced by a placeholder
   and recorded (line, rule, original), so the investigation can show that a
   line was withheld and why, and the original stays in the local store.
   Invisible characters never reach the model.

Detection reads what a line *says*, not how it is written:

* Unicode is normalised (`injection_normalize`): NFKC, invisible and format
  characters removed, small capitals and other look-alike letters folded;
  text hidden in tag characters or variation selectors is decoded and read;
* Cyrillic/Greek homoglyphs and leetspeak map to letters in a Latin skeleton,
  and a letters-only form defeats `i g n o r e`;
* base64, hex, percent/entity/escape encodings (`injection_decode`), ROT13
  and reversed text are undone before matching;
* intents, not phrases, are matched, in many languages (`injection_rules`,
  `injection_languages`, `injection_english`): a verb of overriding with the
  earlier instructions as object, a role change, a forced conclusion, an
  authority claim, a chat-role message (`{"role": "system"}`);
* `neutralise` also reads each pair and triple of neighbouring lines joined,
  so a phrase split across lines is withheld as a whole.

The benign fixture corpus (look-alikes and real LogHub lines) keeps the
rules honest: "SYSTEM" as a level, "ignoring previous value", "illegal
instruction" are not instructions to a model.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from rootward.context.injection_decode import decoded_payloads, rot13
from rootward.context.injection_english import (
    ADDRESSING_RULES,
    AUTHORITY_RULES,
    CHAT_ROLE_RULE,
    COMPACT_RULES,
    JAILBREAK_RULE,
    SKELETON_RULES,
    TAG_RULE,
    skeleton_pattern,
)
from rootward.context.injection_languages import english_rules, latin_rules, script_rules
from rootward.context.injection_normalize import has_hidden_text, hidden_text, strip_invisible, visible
from rootward.context.injection_rules import KEY_LENGTH, RuleSet

PLACEHOLDER = "<REDACTED_INSTRUCTION>"
OPEN_TAG = "<log_content>"
CLOSE_TAG = "</log_content>"
WINDOW = 3  # neighbouring lines read together (a phrase split over up to this many lines)
SEAM_WORDS = 5  # words on each side of a line break that are read together


@dataclass(frozen=True)
class InjectionRedaction:
    """A withheld line: where it was, which rule matched, what it said."""

    line: int  # 1-based line within the guarded text
    rule: str
    original: str


@dataclass(frozen=True)
class GuardedText:
    text: str  # wrapped in <log_content> boundaries, suspicious lines replaced
    redactions: tuple[InjectionRedaction, ...]


# --- skeleton ------------------------------------------------------------------------

_HOMOGLYPHS = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "ӏ": "l", "ɡ": "g", "ı": "i",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ω": "w", "η": "n", "μ": "u",
    # Armenian and IPA
    "օ": "o", "ս": "u", "ո": "n", "հ": "h", "ց": "g", "ɑ": "a", "ɩ": "i", "ʋ": "v",
}  # fmt: skip

# Leetspeak and l/1/| confusion: `l` and `i` are read as the same letter, in
# the text and in the patterns (see `skeleton_pattern`).
_LEET = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "|": "i", "!": "i", "l": "i"}
_KEPT_PUNCTUATION = "<>[]/#:"


class _SkeletonTable(dict[int, int]):
    """translate() table: letters kept, look-alikes mapped, anything else a space."""

    def __missing__(self, codepoint: int) -> int:
        self[codepoint] = 32
        return 32


_SKELETON_TABLE = _SkeletonTable()
_SKELETON_TABLE.update({code: code for code in range(ord("a"), ord("z") + 1)})
_SKELETON_TABLE.update({ord(char): ord(char) for char in _KEPT_PUNCTUATION})
_SKELETON_TABLE.update({ord(src): ord(dst) for src, dst in (_HOMOGLYPHS | _LEET).items()})


# The same tables for ASCII text as bytes: `bytes.translate` maps a byte in one
# step where `str.translate` looks each character up in a dict, and nearly
# every log line is ASCII. Both forms map ASCII to ASCII, so they agree.
_SKELETON_BYTES = bytes(_SKELETON_TABLE[code] if code < 128 else 32 for code in range(256))


def _skeleton(folded: str) -> str:
    """Latin skeleton: homoglyphs and leetspeak mapped, `l` read as `i`, spaces collapsed.

    Always ASCII: every character maps to an ASCII letter, kept punctuation or a space.
    """
    if folded.isascii():
        return b" ".join(folded.encode("ascii").translate(_SKELETON_BYTES).split()).decode("ascii")
    return " ".join(folded.translate(_SKELETON_TABLE).split())


# ASCII punctuation to spaces: `text.translate(...).split()` gives the words.
_ASCII_SPLIT = {code: 32 for code in range(128) if not chr(code).isalnum()}
_ASCII_SPLIT_BYTES = bytes(_ASCII_SPLIT.get(code, code) for code in range(256))
_COMPACT_DROP = dict.fromkeys(map(ord, " " + _KEPT_PUNCTUATION))
_COMPACT_DROP_BYTES = (" " + _KEPT_PUNCTUATION).encode("ascii")


def _words(skeleton: str) -> list[str]:
    """The words of a skeleton (letters and digits between punctuation and spaces)."""
    if skeleton.isascii():
        return skeleton.encode("ascii").translate(_ASCII_SPLIT_BYTES).decode("ascii").split()
    return skeleton.translate(_ASCII_SPLIT).split()


def _compact(skeleton: str) -> str:
    """A skeleton without spaces and kept punctuation (`i g n o r e` reads `ignore`)."""
    if skeleton.isascii():
        return skeleton.encode("ascii").translate(None, _COMPACT_DROP_BYTES).decode("ascii")
    return skeleton.translate(_COMPACT_DROP)


_TAG_HINT = re.compile(r"[<\[]|human|assistant|system")
_BOUNDARY = re.compile(r"<\s*/?\s*log_content\b[^>]*>", re.IGNORECASE)


@dataclass(frozen=True)
class _Rules:
    english: RuleSet
    latin: RuleSet  # gated by the skeleton's words, read on the folded text
    scripts: RuleSet
    # Gates for the transformed readings: a word of the line must be a rule's head
    # word once read through ROT13 (or backwards), before the transform is worth making.
    rot13_gate: frozenset[str]
    reversed_gate: frozenset[str]


@cache
def _rules() -> _Rules:
    """Built when the first line is read (see `injection_languages`), not when the guard is imported."""
    english = RuleSet((*SKELETON_RULES, *english_rules(), *AUTHORITY_RULES, JAILBREAK_RULE))
    rot13_gate = frozenset(
        skeleton_pattern(rot13(variant))
        for key in english.keys
        for variant in {
            "".join(letters) for letters in itertools.product(*(("i", "l") if c == "i" else (c,) for c in key))
        }
    )
    return _Rules(
        english=english,
        latin=RuleSet((*ADDRESSING_RULES, *latin_rules()), key=skeleton_pattern),
        scripts=RuleSet(script_rules()),
        rot13_gate=rot13_gate,
        reversed_gate=frozenset(key[::-1] for key in english.keys if len(key) >= 3),
    )


def _keys(words: list[str]) -> set[str]:
    return {word[:KEY_LENGTH] for word in words}


def _english(skeleton: str, keys: set[str]) -> str | None:
    rule = _rules().english.first_match(skeleton, keys)
    if rule is not None:
        return rule
    compact = _compact(skeleton)
    for name, regex, hints in COMPACT_RULES:
        if any(hint in compact for hint in hints) and regex.search(compact):
            return name
    return None


def _match_plain(line: str) -> str | None:
    """The rule `line` matches as written (after normalisation) or read through ROT13 or backwards."""
    rules = _rules()
    folded = visible(line)
    if "log" in folded and "content" in folded and _BOUNDARY.search(folded.replace(" ", "")):
        return "boundary_escape"
    if _TAG_HINT.search(folded) and TAG_RULE.search(folded):
        return "role_tag"
    if "role" in folded and CHAT_ROLE_RULE.search(folded):
        return "chat_role_message"
    if not folded.isascii():
        rule = rules.scripts.first_match(folded, set())
        if rule is not None:
            return rule
    skeleton = _skeleton(folded)
    words = _words(skeleton)
    keys = _keys(words)
    rule = rules.latin.first_match(folded, keys) or _english(skeleton, keys)
    if rule is not None:
        return rule
    if not rules.rot13_gate.isdisjoint(keys):
        transformed = _skeleton(rot13(folded))
        rule = rules.english.first_match(transformed, _keys(_words(transformed)))
        if rule is not None:
            return f"rot13:{rule}"
    if not rules.reversed_gate.isdisjoint({word[-KEY_LENGTH:] for word in words}):
        transformed = skeleton[::-1]
        rule = rules.english.first_match(transformed, _keys(_words(transformed)))
        if rule is not None:
            return f"reversed:{rule}"
    return None


def injection_rule(line: str) -> str | None:
    """Name of the rule that marks `line` as an instruction to a model, or None."""
    rule = _match_plain(line)
    if rule is not None:
        return rule
    hidden = hidden_text(line)
    if hidden:
        inner = _match_plain(hidden)
        if inner is not None:
            return f"hidden:{inner}"
        if has_hidden_text(line):
            return "hidden_text"
    for encoding, payload in decoded_payloads(line):
        inner = _match_plain(payload)
        if inner is not None:
            return f"{encoding}:{inner}"
    return None


def escape_boundaries(text: str) -> str:
    """Neutralise `<log_content>` tags (also full-width or spaced) inside the text."""
    if "log_content" not in visible(text).replace(" ", ""):
        return text
    lines = []
    for line in text.split("\n"):
        if "log_content" in visible(line).replace(" ", ""):
            line = _BOUNDARY.sub("[log_content tag removed]", unicodedata.normalize("NFKC", strip_invisible(line)))
        lines.append(line)
    return "\n".join(lines)


_DIGITS = str.maketrans("123456789", "000000000")
_HEADER_END = re.compile(r"[\s=:|\]]")


def _without_header(first: str, last: str) -> str:
    """`last` without the record header it shares with `first` (timestamp, level, service, key).

    Digits count as equal (timestamps and counters differ between records); the
    shared part is cut back to the last separator, so a word is never split.
    """
    a, b = first.translate(_DIGITS), last.translate(_DIGITS)
    length = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        length += 1
    if length >= len(last):
        return last
    cut = max((m.end() for m in _HEADER_END.finditer(last, 0, length)), default=0)
    return last[cut:]


def _seam(first: str, middle: list[str], last: str) -> str:
    """Neighbouring lines read as one: the end of the first, the middle ones, the start of the last.

    Only the words next to the line breaks take part, so a phrase split over the
    lines is read whole while two unrelated log lines do not pair a verb at the
    start of one with an object at the end of the other. A header the lines
    share (each record's timestamp, level and service) is not part of the phrase.
    """
    parts = [*first.split()[-SEAM_WORDS:], *(_without_header(first, line) for line in middle)]
    return " ".join([*parts, *_without_header(first, last).split()[:SEAM_WORDS]])


def _flagged_lines(lines: list[str]) -> dict[int, str]:
    """Index -> rule for lines that are instructions alone, or together with their neighbours."""
    flagged: dict[int, str] = {}
    for index, line in enumerate(lines):
        rule = injection_rule(line) if line.strip() else None
        if rule is not None:
            flagged[index] = rule
    filled = [index for index, line in enumerate(lines) if line.strip()]
    for size in range(2, WINDOW + 1):
        for start in range(len(filled) - size + 1):
            span = filled[start : start + size]
            if any(index in flagged for index in span):
                continue
            if any(len(lines[index].split()) > SEAM_WORDS for index in span[1:-1]):
                continue  # a phrase split over three lines has a fragment in the middle, not a log record
            rule = injection_rule(_seam(lines[span[0]], [lines[i] for i in span[1:-1]], lines[span[-1]]))
            if rule is not None:
                flagged.update(dict.fromkeys(span, f"split:{rule}"))
    return flagged


def neutralise(text: str) -> tuple[str, tuple[InjectionRedaction, ...]]:
    """Replace lines that look like instructions to a model with `PLACEHOLDER`; drop invisible characters."""
    lines = text.split("\n")
    flagged = _flagged_lines(lines)
    out: list[str] = []
    redactions: list[InjectionRedaction] = []
    for index, line in enumerate(lines):
        rule = flagged.get(index)
        if rule is None:
            out.append(strip_invisible(line))
        else:
            out.append(PLACEHOLDER)
            redactions.append(InjectionRedaction(index + 1, rule, line))
    return "\n".join(out), tuple(redactions)


def guard(text: str, *, source: str = "") -> GuardedText:
    """Neutralise suspicious lines, escape boundary tags, and wrap in `<log_content>`."""
    cleaned, redactions = neutralise(text)
    cleaned = escape_boundaries(cleaned)
    attribute = f' source="{_attribute(source)}"' if source else ""
    return GuardedText(f"<log_content{attribute}>\n{cleaned}\n{CLOSE_TAG}", redactions)


def guard_field(text: str) -> str:
    """A prompt field outside the `<log_content>` box (incident title, entity, summary), made safe.

    The field becomes one line (a newline in a title could start a fake prompt
    section), loses its invisible characters and boundary tags, and is replaced
    by `PLACEHOLDER` if it reads as an instruction to a model.
    """
    cleaned, _ = neutralise(text)
    return escape_boundaries(" ".join(cleaned.split()))


def _attribute(value: str) -> str:
    return re.sub(r"[^\w.:/@#-]", "_", value)
