"""Token and cost accounting of model calls, and what the client asks of a budget.

Costs come from configured prices, so a self-hosted model costs 0 and a cloud
one is capped per investigation. The budget itself is the investigation's
(`engine/budget.Budget`); the client only asks it before a call and charges it
after, through `CallBudget`.
"""

from __future__ import annotations

from typing import Protocol

from rootward.llm.settings import ModelPrice
from rootward.llm.types import Usage


def cost_of(input_tokens: int, output_tokens: int, price: ModelPrice | None) -> float:
    if price is None:
        return 0.0
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000


def estimate_tokens(text: str) -> int:
    """Rough count (4 characters a token) used to refuse oversized prompts before sending."""
    return max(1, len(text) // 4)


class CallBudget(Protocol):
    """A budget the client consults around each model call."""

    def reserve_llm(self, tokens: int) -> None:
        """Before the call, with its estimated prompt tokens; raises to refuse it."""
        ...

    def charge_llm(self, usage: Usage) -> None:
        """After the call, with the provider's token counts priced in USD."""
        ...
