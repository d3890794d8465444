"""How the injection guard's rules are written: a regex gated by words, and intents per language.

An injection is an *intent*, and every language expresses the same few ones;
so rules are not a list of phrases but a small grammar per language
(`Lexicon`), from which the regexes are built:

* override: a verb of setting aside (ignore, forget, set aside, no longer
  follow) near instructions marked as the earlier ones (previous, above, your,
  all) in either order, so verb-object and object-verb languages both work;
  or near an object that carries its own mark ("everything you were told");
* role change: "you are now", "from now on you", and pretending ("act as");
* forced conclusion: a verb of reporting near "the root cause", or a verb of
  marking near "resolved" / "false positive";
* authority claim: "I am your developer", "message from your administrator";
* new instructions: "new instructions:".

Each fragment is a regex written in the language's own spelling (accents
included: the text and the rules are folded the same way). A rule runs only
when the line holds one of its head words (matched by their first four
letters, so inflections count), which keeps the guard fast on the lines that
hold none, i.e. nearly all log lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from rootward.context.injection_normalize import fold_pattern

KEY_LENGTH = 4  # words are compared by their first letters, so that inflections match


@dataclass(frozen=True)
class Rule:
    """A pattern, and its gates: word keys that must occur in a line for the pattern to be tried.

    Each gate is a set of keys one of which must occur, and every gate must be
    met (an override needs a verb *and* an object). The gates only make the
    guard fast; the regex alone decides. A rule of a script written without
    spaces has no gates and is tried on every line holding that script.
    """

    name: str
    pattern: str
    gates: tuple[frozenset[str], ...] = ()
    script: re.Pattern[str] | None = None

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled when a line first meets the gates: most rules never do, and compiling all of
        them (a few hundred alternations over seventeen languages) would cost each new process
        ~0.1 s before its first hypothesis."""
        return re.compile(self.pattern)

    def applies(self, text: str) -> bool:
        if self.script is not None and self.script.search(text) is None:
            return False
        return self.regex.search(text) is not None


def _top_level(pattern: str) -> list[str]:
    """Split a regex at its top-level `|` (outside groups and classes)."""
    parts, depth, start, index, in_class = [], 0, 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    parts.append(pattern[start:])
    return parts


_HEAD = re.compile(r"^(?:\\b|\^|\\W\*)*([^\W\d_]+)(.?)")


def _closing(pattern: str, start: int) -> int:
    """Index of the `)` closing the group opened at `start`."""
    depth, index = 0, start
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return index
        index += 1
    raise ValueError(f"unbalanced group in rule fragment: {pattern!r}")


def head_keys(fragment: str) -> set[str]:
    """The gate keys of a fragment: its possible leading literal words (a short one must be whole)."""
    for prefix in ("\\b", "^", "\\W*"):
        while fragment.startswith(prefix):
            fragment = fragment[len(prefix) :]
    if fragment.startswith("(?:"):
        end = _closing(fragment, 0)
        keys = set().union(*(head_keys(part) for part in _top_level(fragment[3:end])))
        if fragment[end + 1 : end + 2] in ("?", "*"):
            keys |= head_keys(fragment[end + 2 :].lstrip("?"))
        return keys
    match = _HEAD.match(fragment)
    if match is None:
        raise ValueError(f"rule fragment must start with a literal word: {fragment!r}")
    word, after = match.groups()
    if len(word) < KEY_LENGTH and after and after not in "\\ ']|)?":
        raise ValueError(f"rule fragment's head word is cut short: {fragment!r}")
    return {word[:KEY_LENGTH]}


@dataclass(frozen=True)
class Lexicon:
    """One language's words for the intents of an injection (regex fragments, lower case)."""

    language: str
    override: tuple[str, ...]  # verbs of setting aside: ignore, forget, set aside
    prior: tuple[str, ...]  # what marks instructions as the earlier ones: previous, above, all, your
    instructions: tuple[str, ...]  # instructions, rules, prompt, guidelines
    told: tuple[str, ...] = ()  # objects with their own mark: "everything you were told"
    role_change: tuple[str, ...] = ()  # "you are now", "from now on you"
    pretend: tuple[str, ...] = ()  # "pretend to be", "act as an unrestricted"
    report: tuple[str, ...] = ()  # verbs of reporting (imperative): say, report, conclude
    cause: tuple[str, ...] = ()  # "the root cause is"
    mark: tuple[str, ...] = ()  # verbs of marking (imperative): mark, close
    resolved: tuple[str, ...] = ()  # resolved, false positive, healthy
    authority: tuple[str, ...] = ()  # who claims: "i am", "message from", "on behalf of"
    authority_role: tuple[str, ...] = ()  # the authority: developer, administrator, creator
    new_instructions: tuple[str, ...] = ()  # "new instructions" (a colon must follow)
    invalidated: tuple[str, ...] = ()  # verbs that follow the instructions: "are void", "no longer apply"
    object_first: bool = False  # verb-final language (Hindi, Japanese, Korean, Turkish): object, then verb
    script: str | None = None  # character class of a non-Latin script; None: Latin, gated by words
    near: int = 40  # characters allowed between verb and object
    close: int = 25  # characters allowed between object and its mark


def _alt(fragments: tuple[str, ...], boundary: str) -> str:
    return "(?:" + "|".join(boundary + fragment for fragment in fragments) + ")" + boundary


def build(lexicon: Lexicon, *, transform: Callable[[str], str] = fold_pattern) -> tuple[Rule, ...]:
    """The rules of one language, named `<intent>_<language>`."""
    b = r"\b" if lexicon.script is None else ""
    gap, tight = rf"[^.!?;。！？]{{0,{lexicon.near}}}?", rf"[^.!?;。！？]{{0,{lexicon.close}}}?"
    verb, prior, thing = (_alt(x, b) for x in (lexicon.override, lexicon.prior, lexicon.instructions))
    marked = rf"(?:{prior}{tight}{thing}|{thing}{tight}{prior})"
    override = [rf"{verb}{gap}{marked}"]
    after = (*lexicon.override, *lexicon.invalidated) if lexicon.object_first else lexicon.invalidated
    if after:
        override.append(rf"{marked}{gap}{_alt(after, b)}")
    if lexicon.told:
        override.append(rf"{verb}{gap}{_alt(lexicon.told, b)}")
    told = (_alt(lexicon.told, b),) if lexicon.told else ()
    # intent, its pattern, and its gates: word classes that must all occur (by their head words).
    intents: list[tuple[str, str, tuple[tuple[str, ...], ...]]] = [
        (
            "ignore_instructions",
            "|".join([*override, *(rf"{verb}{gap}{t}" for t in told)]),
            (lexicon.override + lexicon.invalidated, lexicon.instructions + lexicon.told),
        ),
        ("you_are_now", _alt(lexicon.role_change, b), (lexicon.role_change,)),
        ("role_play", _alt(lexicon.pretend, b), (lexicon.pretend,)),
        (
            "authority_claim",
            rf"{_alt(lexicon.authority, b)}{tight}{_alt(lexicon.authority_role, b)}",
            (lexicon.authority, lexicon.authority_role),
        ),
        ("new_instructions", _alt(lexicon.new_instructions, b) + r"\s?[:：]", (lexicon.new_instructions,)),
        ("steer_verdict", rf"{_alt(lexicon.report, b)}{gap}{_alt(lexicon.cause, b)}", (lexicon.cause, lexicon.report)),
        (
            "steer_verdict",
            rf"{_alt(lexicon.mark, b)}{gap}{_alt(lexicon.resolved, b)}",
            (lexicon.mark, lexicon.resolved),
        ),
    ]
    script = None if lexicon.script is None else re.compile(lexicon.script)
    rules = []
    for intent, pattern, gates in intents:
        if not all(gates):
            continue
        keys: tuple[frozenset[str], ...] = ()
        if script is None:
            keys = tuple(frozenset().union(*(head_keys(transform(head)) for head in gate)) for gate in gates)
        rules.append(Rule(f"{intent}_{lexicon.language}", transform(pattern), keys, script))
    return tuple(rules)


class RuleSet:
    """Rules indexed by their gate keys: a line pays for the rules its words can trigger, not for all.

    `first_match` keeps the rules' order, so the most specific rule names a match.
    """

    def __init__(self, rules: tuple[Rule, ...], *, key: Callable[[str], str] = str) -> None:
        self.rules = rules
        self._by_key: dict[str, list[int]] = {}
        self._scripted = [index for index, rule in enumerate(rules) if rule.script is not None]
        self._gates = [tuple(frozenset(map(key, gate)) for gate in rule.gates[1:]) for rule in rules]
        for index, rule in enumerate(rules):
            for head in rule.gates[0] if rule.gates else ():
                self._by_key.setdefault(key(head), []).append(index)
        self.keys = frozenset(self._by_key)

    def first_match(self, text: str, keys: set[str]) -> str | None:
        """Name of the first rule that matches `text` (whose word keys are `keys`), or None."""
        candidates: set[int] = set()
        for key in self.keys.intersection(keys):
            candidates.update(self._by_key[key])
        if self._scripted and not text.isascii():
            candidates.update(self._scripted)
        for index in sorted(candidates):
            rule = self.rules[index]
            if any(gate.isdisjoint(keys) for gate in self._gates[index]):
                continue
            if rule.applies(text):
                return rule.name
        return None
