"""Split a Markdown document into retrieval chunks.

Chunks are ~512 tokens, cut on sentence boundaries, and never cut inside a
numbered step or a fenced code block: a runbook step torn in half is worse
than a slightly long chunk, because the engine cites and quotes chunks as they
are. Chunks are numbered from 0 per document, which is what a bundle cite
`knowledge/<path>#<chunk>` means, so the chunking must stay deterministic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_MAX_TOKENS = 512

_TOKEN = re.compile(r"\w+|[^\w\s]")
_FENCE = re.compile(r"^\s*(```|~~~)")
_NUMBERED = re.compile(r"^\s{0,3}\d+[.)]\s+")
_BULLET = re.compile(r"^\s{0,3}[-*+]\s+")
_HEADING = re.compile(r"^#{1,6}\s")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*])")


def count_tokens(text: str) -> int:
    """A cheap, model-free token estimate (words and punctuation marks).

    Within ~20% of a WordPiece count on English ops prose; good enough for
    chunk sizing and the investigation's token budget.
    """
    return len(_TOKEN.findall(text))


@dataclass(frozen=True)
class Chunk:
    index: int  # 0-based within its document
    text: str
    tokens: int


@dataclass(frozen=True)
class _Unit:
    """The smallest piece the packer may place; `atomic` units are never split."""

    text: str
    atomic: bool
    heading: bool = False
    paragraph: int = -1  # sentences of one split paragraph share it and are joined by a space


def _blocks(text: str) -> list[_Unit]:
    """Group lines into headings, fenced code, numbered steps, bullets and paragraphs."""
    units: list[_Unit] = []
    lines = text.splitlines()
    i = 0
    para: list[str] = []

    def flush_para() -> None:
        if para:
            units.append(_Unit("\n".join(para).strip(), atomic=False))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            flush_para()
            fence = _FENCE.match(line).group(1)  # type: ignore[union-attr]
            block = [line]
            i += 1
            while i < len(lines):
                block.append(lines[i])
                i += 1
                if lines[i - 1].strip().startswith(fence):
                    break
            units.append(_Unit("\n".join(block), atomic=True))
            continue
        if not line.strip():
            flush_para()
            i += 1
            continue
        if _HEADING.match(line):
            flush_para()
            units.append(_Unit(line.strip(), atomic=True, heading=True))
            i += 1
            continue
        if _NUMBERED.match(line) or _BULLET.match(line):
            flush_para()
            item = [line]
            i += 1
            # continuation lines: indented text, or an indented fenced block inside the step
            while i < len(lines):
                nxt = lines[i]
                if _NUMBERED.match(nxt) or _BULLET.match(nxt) or _HEADING.match(nxt):
                    break
                if not nxt.strip():
                    # a blank line ends the item unless indented content follows
                    if i + 1 < len(lines) and lines[i + 1].startswith(("  ", "\t")):
                        item.append(nxt)
                        i += 1
                        continue
                    break
                if _FENCE.match(nxt) and not nxt.startswith((" ", "\t")):
                    break
                if _FENCE.match(nxt):
                    fence = _FENCE.match(nxt).group(1)  # type: ignore[union-attr]
                    item.append(nxt)
                    i += 1
                    while i < len(lines):
                        item.append(lines[i])
                        i += 1
                        if lines[i - 1].strip().startswith(fence):
                            break
                    continue
                item.append(nxt)
                i += 1
            units.append(_Unit("\n".join(item), atomic=bool(_NUMBERED.match(line))))
            continue
        para.append(line)
        i += 1
    flush_para()
    return units


def _is_item(text: str) -> bool:
    return bool(_NUMBERED.match(text) or _BULLET.match(text))


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _units(text: str, max_tokens: int) -> list[_Unit]:
    """Blocks, with over-long paragraphs and bullets broken into sentences."""
    out: list[_Unit] = []
    for n, block in enumerate(_blocks(text)):
        if block.atomic or count_tokens(block.text) <= max_tokens:
            out.append(block)
        else:
            out.extend(_Unit(s, atomic=False, paragraph=n) for s in _sentences(block.text))
    return out


def chunk_text(text: str, max_tokens: int = DEFAULT_MAX_TOKENS) -> list[Chunk]:
    """Pack units greedily into chunks of at most `max_tokens` (an atomic unit may exceed it alone).

    A heading is carried into the chunk that holds the text under it rather
    than left dangling at the end of the previous one.
    """
    chunks: list[Chunk] = []
    current: list[str] = []
    size = 0
    last_paragraph = -1

    def emit() -> None:
        nonlocal size, last_paragraph
        body = "".join(current).strip()
        if body:
            chunks.append(Chunk(index=len(chunks), text=body, tokens=count_tokens(body)))
        current.clear()
        size = 0
        last_paragraph = -1

    def add(piece: str, paragraph: int = -1) -> None:
        nonlocal last_paragraph
        if current:
            if paragraph >= 0 and paragraph == last_paragraph:
                current.append(" ")
            elif _is_item(current[-1]) and _is_item(piece):
                current.append("\n")  # consecutive list items stay one list
            else:
                current.append("\n\n")
        current.append(piece)
        last_paragraph = paragraph

    pending_headings: list[str] = []
    for unit in _units(text, max_tokens):
        n = count_tokens(unit.text)
        if unit.heading:
            pending_headings.append(unit.text)
            continue
        head_n = sum(count_tokens(h) for h in pending_headings)
        if current and size + head_n + n > max_tokens:
            emit()
        for heading in pending_headings:
            add(heading)
        pending_headings.clear()
        add(unit.text, unit.paragraph)
        size += head_n + n
    for heading in pending_headings:
        add(heading)
    emit()
    return chunks
