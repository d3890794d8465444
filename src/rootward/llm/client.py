"""The one way the engine talks to a model: typed in, validated typed out.

Every call goes through the breaker and the investigation's budget (asked
before the call, charged with the provider's real usage at the configured
prices after it), is accounted in tokens and dollars, and returns a pydantic model validated
against a JSON schema, with one repair attempt. Anything else raises
`LLMUnavailable`, and the engine falls back to rule mode.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from rootward.domain.llm_calls import CallRecord
from rootward.llm.accounting import CallBudget, cost_of
from rootward.llm.breaker import CircuitBreaker
from rootward.llm.context_budget import CHARS_PER_TOKEN, ContextBudget, count_tokens, messages_tokens
from rootward.llm.prompts import render
from rootward.llm.providers import Provider, ProviderError, make_provider
from rootward.llm.settings import LLMSettings
from rootward.llm.types import Completion, LLMUnavailable, Message, ToolSpec, Usage

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def extract_json(text: str) -> str:
    """The JSON object inside a reply that may wrap it in prose or a code fence."""
    stripped = _FENCE.sub("", text.strip())
    start, end = stripped.find("{"), stripped.rfind("}")
    if start == -1 or end <= start:
        raise ValueError("no JSON object in the reply")
    return stripped[start : end + 1]


def parse_structured(text: str, schema: type[T]) -> T:
    return schema.model_validate(json.loads(extract_json(text)))


def repair_reserve(prompt_tokens: int) -> int:
    """Tokens a structured prompt leaves for its repair turn: an eighth of the room, at most 400."""
    return min(400, prompt_tokens // 8)


def request_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> int:
    """Pessimistic prompt tokens of a request: every message, every tool call it carries, the tool schemas."""
    contents = [m.content for m in messages] + [
        c.raw_arguments or json.dumps(c.arguments) for m in messages for c in m.tool_calls
    ]
    schemas = [  # as OpenAI's wire format spells them, the wordier of the two protocols
        json.dumps(
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        )
        for t in tools
    ]
    return messages_tokens(contents) + sum(count_tokens(s) for s in schemas)


class LLMClient:
    def __init__(
        self,
        settings: LLMSettings,
        provider: Provider | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        on_call: Callable[[CallRecord], None] | None = None,
        calls_today: Callable[[str], int] | None = None,
    ) -> None:
        self.settings = settings
        self.provider = provider if provider is not None else make_provider(settings)
        self.breaker = CircuitBreaker(settings.breaker_failures, settings.breaker_cooldown_s, clock)
        self._on_call = on_call
        self._calls_today_of = calls_today  # shared count (e.g. the database) across processes
        self._day: dt.date | None = None
        self._calls_today = 0
        self._lock = threading.Lock()
        self.calls: list[CallRecord] = []

    def context(self, severity: str = "P2", *, escalate: bool = False) -> ContextBudget:
        """The window of the model this severity is sent to: what prompt builders must fit in."""
        return self.settings.context_for(self.settings.model_for(severity, escalate=escalate))

    def room(self, fixed: Sequence[Message], tools: Sequence[ToolSpec] = (), *, severity: str = "P2") -> int:
        """Prompt tokens left for the variable part (evidence) once `fixed` and `tools` are counted.

        A structured call (no tools) keeps back what its one repair adds (the error and part of the
        invalid answer), so the repair fits the window too."""
        window = self.context(severity).prompt_tokens
        reserve = 0 if tools else repair_reserve(window)
        return max(0, window - reserve - request_tokens(fixed, tools))

    def structured_messages(self, system: str, user: str, schema: type[BaseModel]) -> list[Message]:
        """The messages `structured` sends, so a builder can size its evidence against them."""
        schema_json = json.dumps(schema.model_json_schema(), sort_keys=True)
        return [
            Message("system", render("structured_system", instructions=system, schema=schema_json)),
            Message("user", user),
        ]

    @property
    def enabled(self) -> bool:
        return self.provider is not None

    def _check_daily_cap(self) -> None:
        cap = self.settings.daily_call_cap
        if cap and self._calls_today_of is not None and self.provider is not None:
            if self._calls_today_of(self.provider.name) >= cap:
                raise LLMUnavailable(f"daily LLM call cap reached ({cap} calls)")
            return
        with self._lock:
            today = dt.datetime.now(dt.UTC).date()
            if today != self._day:
                self._day, self._calls_today = today, 0
            if cap and self._calls_today >= cap:
                raise LLMUnavailable(f"daily LLM call cap reached ({cap} calls)")
            self._calls_today += 1

    def _call(
        self,
        purpose: str,
        messages: list[Message],
        model: str,
        budget: CallBudget | None,
        tools: Sequence[ToolSpec] = (),
    ) -> Completion:
        assert self.provider is not None
        if not self.breaker.allow():
            raise LLMUnavailable(f"{self.provider.name}: circuit open after repeated failures")
        window = self.settings.context_for(model)
        prompt_tokens = request_tokens(messages, tools)
        if prompt_tokens > window.prompt_tokens:
            raise LLMUnavailable(
                f"prompt of ~{prompt_tokens} tokens does not fit the {window.prompt_tokens} prompt tokens "
                f"of the {window.describe()}"
            )
        if budget is not None:
            budget.reserve_llm(prompt_tokens)
        self._check_daily_cap()
        started = time.monotonic()
        try:
            completion = self.provider.complete(
                messages, model=model, max_tokens=window.output_tokens, json_mode=not tools, tools=tools
            )
        except ProviderError as exc:
            self.breaker.failure()
            self._record(purpose, model, "error", Usage(), started, str(exc))
            raise LLMUnavailable(str(exc)) from exc
        self.breaker.success()
        usage = completion.usage
        priced = Usage(
            usage.input_tokens,
            usage.output_tokens,
            cost_of(usage.input_tokens, usage.output_tokens, self.settings.prices.get(model)),
        )
        if budget is not None:
            budget.charge_llm(priced)
        self._record(purpose, completion.model, "ok", priced, started, None)
        return Completion(completion.text, completion.model, completion.provider, priced, completion.tool_calls)

    def converse(
        self,
        purpose: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        severity: str = "P2",
        budget: CallBudget | None = None,
    ) -> Completion:
        """One turn of a tool-using conversation: the reply's text and the tool calls it asks for.

        The caller runs the tools (or refuses them) and sends their results back
        as `tool` messages on the next turn; nothing here executes anything.
        """
        if not self.enabled:
            raise LLMUnavailable("no LLM configured (rule mode)")
        return self._call(purpose, list(messages), self.settings.model_for(severity), budget, tools)

    def _repair_turns(self, messages: list[Message], answer: str, error: str, model: str) -> list[Message]:
        """The invalid answer and the repair request, the answer shortened so the repair call still fits."""
        repair = Message("user", render("repair", error=error))
        room = self.settings.context_for(model).prompt_tokens - request_tokens(
            [*messages, repair, Message("assistant", "")]
        )
        chars = max(0, room) * CHARS_PER_TOKEN
        shown = answer if len(answer) <= chars else answer[: max(0, chars - 1)] + "…"
        return [Message("assistant", shown), repair]

    def _record(self, purpose: str, model: str, status: str, usage: Usage, started: float, error: str | None) -> None:
        record = CallRecord(
            purpose=purpose,
            provider=self.provider.name if self.provider else "none",
            model=model,
            status=status,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=usage.cost_usd,
            duration_ms=int((time.monotonic() - started) * 1000),
            error=error,
        )
        with self._lock:
            self.calls.append(record)
        if self._on_call is not None:
            self._on_call(record)

    def structured(
        self,
        purpose: str,
        *,
        system: str,
        user: str,
        schema: type[T],
        severity: str = "P2",
        escalate: bool = False,
        budget: CallBudget | None = None,
    ) -> T:
        """Ask for a JSON object matching `schema`; one repair attempt on invalid output."""
        if not self.enabled:
            raise LLMUnavailable("no LLM configured (rule mode)")
        model = self.settings.model_for(severity, escalate=escalate)
        messages = self.structured_messages(system, user, schema)
        completion = self._call(purpose, messages, model, budget)
        try:
            return parse_structured(completion.text, schema)
        except (ValueError, ValidationError) as first_error:
            error = str(first_error)[: min(2000, repair_reserve(self.settings.context_for(model).prompt_tokens))]
            messages += self._repair_turns(messages, completion.text, error, model)
        completion = self._call(f"{purpose}:repair", messages, model, budget)
        try:
            return parse_structured(completion.text, schema)
        except (ValueError, ValidationError) as second_error:
            self._record(f"{purpose}:repair", model, "invalid", Usage(), time.monotonic(), str(second_error)[:500])
            raise LLMUnavailable(f"invalid structured output twice: {str(second_error)[:200]}") from second_error
