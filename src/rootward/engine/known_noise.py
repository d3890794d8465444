"""What the team has written down as harmless: noisy monitors and log lines known to mean nothing.

Team notes (`bits/<service>.md`), runbooks and postmortems often say so in
plain words: "KubeJobFailed on reports is flaky: the export retries and
succeeds", "the 'metrics push to gateway failed' errors are harmless". A
monitor counts as *known noisy* only when a sentence that calls something
harmless, noisy or flaky names that very monitor, or refers to "this alert"
in a document about it; a log line counts as *known harmless* when such a
sentence quotes words of it. Nothing here names a system: the words are the
ones any team uses for noise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rootward.context.assemble import AlertItem, KnowledgeItem
from rootward.context.log_signals import LogSignal
from rootward.domain.evidence import EvidenceRef

HARMLESS = re.compile(
    r"\b(harmless|benign|innocuous|noisy|noise|flaky|flakiness|flaps?|flapping|spurious|false (positive|alarm)s?|"
    r"(safe|ok|okay|fine) to ignore|can (safely )?be ignored|ignore (it|this|them|these)|not actionable|"
    r"no action (is )?(needed|required)|nothing to do|do not page|don'?t page|not page-?worthy|"
    r"known (issue|noise|and harmless)|cosmetic|clears (on its own|by itself)|self-?heals?|recovers on its own)\b",
    re.I,
)
# "Do not ignore this alert", "no longer flaky": the same words, saying the opposite.
NEGATED = re.compile(
    r"\b(not|never|no longer|don'?t)\s+(be\s+|\w+\s+)?(ignored?|noisy|flaky|harmless|benign|spurious|cosmetic)\b", re.I
)
# Words that make a sentence about the monitor itself ("this alert fires every night").
MONITOR_WORDS = re.compile(r"\b(alert|alarm|monitor|page[sd]?|fires?|firing|rule)\b", re.I)
QUOTED = re.compile(r"'([^']{6,160})'|\"([^\"]{6,160})\"|`([^`]{6,160})`|‘([^’]{6,160})’|“([^”]{6,160})”")
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class NoiseNote:
    """A sentence of the team's notes that calls a monitor or a log line harmless, with its document."""

    sentence: str
    evidence: EvidenceRef
    services: tuple[str, ...]


def _name_forms(name: str) -> list[str]:
    """The monitor's name as written, and its CamelCase words spaced, hyphenated or underscored."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    forms = [name]
    if len(words) > 1:
        forms += [sep.join(words) for sep in (" ", "-", "_")]
    return forms


def _names(text: str, name: str) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", text, re.I) for f in _name_forms(name))


def _says_harmless(sentence: str) -> bool:
    return HARMLESS.search(sentence) is not None and NEGATED.search(sentence) is None


def _sentences(text: str) -> list[str]:
    body = re.sub(r"^---\n.*?\n---\n", "", text, flags=re.S)
    return [s.strip(" -*#\t") for s in SENTENCE.split(body) if s.strip(" -*#\t")]


def monitor_notes(alert: AlertItem, knowledge: Sequence[KnowledgeItem]) -> list[NoiseNote]:
    """Sentences that call this monitor harmless, noisy or flaky."""
    out: list[NoiseNote] = []
    for doc in knowledge:
        about_it = _names(doc.title, alert.name) or _names(doc.text.split("\n", 1)[0], alert.name)
        for sentence in _sentences(doc.text):
            if not _says_harmless(sentence):
                continue
            if _names(sentence, alert.name) or (about_it and MONITOR_WORDS.search(sentence)):
                out.append(NoiseNote(sentence[:300], doc.evidence, tuple(doc.services)))
                break
    return out


def harmless_log_phrases(knowledge: Sequence[KnowledgeItem]) -> list[tuple[str, NoiseNote]]:
    """Quoted log phrases that a harmless-saying sentence vouches for: (lower-cased phrase, note)."""
    out: list[tuple[str, NoiseNote]] = []
    for doc in knowledge:
        for sentence in _sentences(doc.text):
            if not _says_harmless(sentence):
                continue
            for match in QUOTED.finditer(sentence):
                phrase = next(g for g in match.groups() if g)
                if len(phrase.split()) >= 2:
                    out.append((phrase.lower(), NoiseNote(sentence[:300], doc.evidence, tuple(doc.services))))
    return out


def known_harmless(signal: LogSignal, phrases: Sequence[tuple[str, NoiseNote]]) -> NoiseNote | None:
    """The note that vouches for this log template, if its service's notes quote it as harmless."""
    text = f"{signal.template}\n{signal.example}".lower()
    for phrase, note in phrases:
        if (not note.services or signal.service in note.services) and phrase in text:
            return note
    return None
