"""LLM configuration: provider, models per severity tier, prices, limits.

`provider: none` is rule mode: rootward investigates without any model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.llm.context_budget import ContextBudget, budget_for


class ModelPrice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_per_mtok: float = Field(default=0.0, ge=0, description="USD per million input tokens")
    output_per_mtok: float = Field(default=0.0, ge=0, description="USD per million output tokens")


class LLMSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    provider: Literal["none", "openai", "anthropic"] = Field(
        default="none", description="`openai` covers any OpenAI-compatible server via base_url; `none` = rule mode"
    )
    base_url: str | None = Field(default=None, description="API base URL, e.g. http://127.0.0.1:11434/v1 for Ollama")
    api_key: SecretStr = Field(default=SecretStr(""), description="API key (local servers accept any value)")
    model: str = Field(default="gpt-4o-mini", description="Default model when no tier-specific one is set")
    models: dict[str, str] = Field(
        default_factory=dict,
        description="Model per severity tier, e.g. {P1: big-model, P3: small-model}; "
        "`escalate` names the model used when an investigation stays inconclusive",
    )
    prices: dict[str, ModelPrice] = Field(default_factory=dict, description="Price per model for cost accounting")
    timeout_s: float = Field(default=60.0, gt=0, description="Per-call timeout")
    max_output_tokens: int = Field(default=2048, gt=0)
    max_input_tokens: int = Field(default=32_000, gt=0, description="Tokens per call; larger prompts are refused")
    context_window: int = Field(
        default=32_768, ge=512, description="Context length (tokens) of a model with no entry in context_windows"
    )
    context_windows: dict[str, int] = Field(
        default_factory=dict,
        description="Context length (tokens) per model, e.g. {smollm2: 2048}: prompts are cut to fit it, "
        "evidence lowest-ranked first, and the cut is named",
    )
    breaker_failures: int = Field(default=3, ge=1, description="Consecutive failures that open the circuit")
    breaker_cooldown_s: float = Field(default=60.0, ge=0, description="Seconds before a half-open retry")
    daily_call_cap: int = Field(default=0, ge=0, description="Calls per provider per day; 0 = unlimited")
    agent_hypotheses: int = Field(
        default=2, ge=0, le=7, description="Undecided hypotheses the model specialist tests per investigation; 0 = off"
    )
    agent_steps: int = Field(
        default=4, ge=1, le=10, description="Model turns per hypothesis (tool calls plus the concluding one)"
    )

    def model_for(self, severity: str, *, escalate: bool = False) -> str:
        if escalate and "escalate" in self.models:
            return self.models["escalate"]
        return self.models.get(severity, self.model)

    def context_for(self, model: str) -> ContextBudget:
        """How a call to `model` splits its window between prompt and answer."""
        window = self.context_windows.get(model, self.context_window)
        return budget_for(model, window, self.max_output_tokens, self.max_input_tokens)


class JudgeSettings(BaseModel):
    """The learning loop: every finished investigation judged, prompt trials evaluated on a schedule."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(
        default=True, description="Judge every finished investigation (after it is recorded and notified)"
    )
    model: LLMSettings = Field(
        default_factory=LLMSettings,
        description="The judge model (any OpenAI-compatible endpoint); provider `none` = the deterministic rubric",
    )
    evaluate_every_s: float = Field(
        default=3600.0,
        ge=0,
        description="How often `rootward serve` evaluates running prompt trials; 0 = only `rootward prompts evaluate`",
    )
