"""What fits in a model's context window, and how a prompt is cut to fit it.

A local model has a small window (2048 tokens is common) and its server
rejects a request whose prompt plus `max_tokens` exceeds it. So every call is
sized against the model's window before it is sent: the answer gets its share
(`output_tokens`), the chat template its wrapping, and the rest is the prompt.
Prompt builders fill that room with evidence in rank order and say what they
left out, so a cut is a named gap, never a silent one.

Token counts here are estimates without the model's tokenizer; they are
deliberately pessimistic (2 characters a token: logs, hex ids and JSON
tokenize denser than prose; SmolLM2's tokenizer gave 2.45 characters a token
on a real evidence digest, where 3 undercounted and the server answered 400),
because an overestimate costs a little evidence and an
underestimate costs the whole call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rootward.context.injection import guard

CHARS_PER_TOKEN = 2
TEMPLATE_TOKENS_PER_MESSAGE = 8  # role markers and separators a chat template adds per message
MIN_OUTPUT_TOKENS = 128  # below this an answer with cites does not fit: refuse instead
OUTPUT_SHARE = 4  # at most 1/OUTPUT_SHARE of a window is kept for the answer


def count_tokens(text: str) -> int:
    """A pessimistic token count of `text` (no tokenizer needed)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class ContextBudget:
    """The window of one model and how it is split between prompt and answer."""

    model: str
    window: int  # the model's context length, tokens
    output_tokens: int  # `max_tokens` asked for the answer
    input_cap: int  # the operator's per-call cap on prompt tokens

    @property
    def prompt_tokens(self) -> int:
        """Tokens the whole prompt (every message, tool schemas included) may take."""
        return max(0, min(self.input_cap, self.window - self.output_tokens))

    def describe(self) -> str:
        return f"{self.window}-token context of {self.model}"


def budget_for(model: str, window: int, max_output_tokens: int, input_cap: int) -> ContextBudget:
    """The split of `window`: the answer gets `max_output_tokens`, but never more than its share."""
    output = min(max_output_tokens, max(MIN_OUTPUT_TOKENS, window // OUTPUT_SHARE))
    return ContextBudget(model=model, window=window, output_tokens=output, input_cap=input_cap)


def messages_tokens(contents: Sequence[str]) -> int:
    """Tokens of a conversation: each message's text plus its template wrapping."""
    return sum(count_tokens(c) + TEMPLATE_TOKENS_PER_MESSAGE for c in contents)


@dataclass(frozen=True)
class Fitted:
    """Lines kept (in rank order) and the line naming what was cut, if anything was."""

    lines: tuple[str, ...]
    kept: int
    cut: int
    note: str | None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def cut_note(cut: int, total: int, what: str, budget: ContextBudget) -> str:
    return f"{cut} of {total} {what} left out, lowest-ranked first, to fit the {budget.describe()}"


def fit_lines(lines: Sequence[str], room: int, budget: ContextBudget, *, what: str = "evidence items") -> Fitted:
    """The longest prefix of `lines` (ranked best first) that fits in `room` tokens, with a cut note.

    The note is itself one of the lines when something is cut, and its size
    is reserved before it is known to be needed, so the result always fits.
    A single line longer than the room is shortened rather than dropped when
    it is the first one: the best evidence, trimmed, beats none.
    """
    total = len(lines)
    if count_tokens("\n".join(lines)) <= room:
        return Fitted(tuple(lines), total, 0, None)
    reserve = count_tokens(cut_note(total, total, what, budget)) + 1
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = count_tokens(line) + 1
        if used + cost > room - reserve:
            if not kept and room - reserve > 16:
                kept.append(line[: (room - reserve - 2) * CHARS_PER_TOKEN - 1] + "…")
            break
        kept.append(line)
        used += cost
    note = cut_note(total - len(kept), total, what, budget)
    return Fitted((*kept, f"({note})"), len(kept), total - len(kept), note)


def fit_guarded(lines: list[str], room: int, window: ContextBudget, *, source: str, what: str) -> Fitted:
    """`lines` cut to fit `room` tokens once fenced by the injection guard (which adds its own lines)."""
    fitted = fit_lines(lines, room, window, what=what)
    for _ in range(3):  # the fence and any redaction markers are measured, then taken out of the room
        excess = count_tokens(guard(fitted.text, source=source).text) - room
        if excess <= 0:
            break
        room -= excess
        fitted = fit_lines(lines, room, window, what=what)
    return fitted
