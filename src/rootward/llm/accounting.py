"""Token and cost accounting, and the per-investigation LLM budget.

Costs come from configured prices, so a self-hosted model costs 0 and a cloud
one is capped per investigation.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from rootward.llm.settings import ModelPrice
from rootward.llm.types import LLMUnavailable, Usage


def cost_of(input_tokens: int, output_tokens: int, price: ModelPrice | None) -> float:
    if price is None:
        return 0.0
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000


def estimate_tokens(text: str) -> int:
    """Rough count (4 characters a token) used to refuse oversized prompts before sending."""
    return max(1, len(text) // 4)


@dataclass
class LLMBudget:
    max_calls: int = 20
    max_cost_usd: float = 1.00
    calls: int = 0
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reserve(self) -> None:
        with self._lock:
            if self.calls >= self.max_calls:
                raise LLMUnavailable(f"LLM call budget spent ({self.max_calls} calls)")
            if self.cost_usd >= self.max_cost_usd:
                raise LLMUnavailable(f"LLM cost budget spent (${self.max_cost_usd:.2f})")
            self.calls += 1

    def record(self, usage: Usage) -> None:
        with self._lock:
            self.cost_usd += usage.cost_usd
            self.input_tokens += usage.input_tokens
            self.output_tokens += usage.output_tokens
