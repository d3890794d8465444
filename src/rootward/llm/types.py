"""Provider-neutral request and response records for one LLM call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    provider: str
    usage: Usage = field(default_factory=Usage)


class LLMUnavailable(Exception):
    """No usable answer: provider down, breaker open, budget spent or output invalid.

    Callers fall back to rule mode; the message becomes a named gap.
    """
