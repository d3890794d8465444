"""Provider clients through the official SDKs.

`openai` covers OpenAI and every OpenAI-compatible server (vLLM, Ollama,
LM Studio, llama.cpp server, LiteLLM) through `base_url`; `anthropic` covers
Anthropic. SDK retries are off: the circuit breaker and the fallback chain
decide what happens after a failure, not a hidden retry loop.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from rootward.llm.settings import LLMSettings
from rootward.llm.types import Completion, Message, ToolCall, ToolSpec, Usage


class ProviderError(Exception):
    """The provider failed (HTTP error, timeout, connection refused, empty answer)."""


class Provider(Protocol):
    name: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        model: str,
        max_tokens: int,
        json_mode: bool,
        tools: Sequence[ToolSpec] = (),
    ) -> Completion: ...


def _arguments(raw: str) -> dict[str, Any]:
    try:
        parsed = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _client_options(settings: LLMSettings) -> dict[str, Any]:
    """What both SDK clients are built with; retries off (the breaker and fallback chain decide)."""
    return {
        "api_key": settings.api_key.get_secret_value() or "unused",
        "base_url": settings.base_url,
        "timeout": settings.timeout_s,
        "max_retries": 0,
    }


@contextmanager
def _translated(sdk: Any, name: str) -> Iterator[None]:
    """Both SDKs' errors (same class names) as one ProviderError, named after the provider."""
    try:
        yield
    except sdk.APITimeoutError as exc:
        raise ProviderError(f"{name}: timed out ({exc})") from exc
    except sdk.APIStatusError as exc:
        raise ProviderError(f"{name}: HTTP {exc.status_code}") from exc
    except sdk.APIError as exc:
        raise ProviderError(f"{name}: {exc.__class__.__name__}: {exc}") from exc


def _openai_message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content}
    if m.tool_calls:
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in m.tool_calls
        ]
        return {"role": "assistant", "content": m.content or None, "tool_calls": calls}
    return {"role": m.role, "content": m.content}


def _anthropic_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Chat turns as Anthropic wants them: tool calls as tool_use blocks, results as one user turn."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content}
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            continue
        if m.tool_calls:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in m.tool_calls]
            out.append({"role": "assistant", "content": blocks})
            continue
        out.append({"role": m.role, "content": m.content})
    return out


class OpenAIProvider:
    name = "openai"

    def __init__(self, settings: LLMSettings) -> None:
        import openai  # imported when configured: the SDKs cost seconds at startup

        self._openai = openai
        self._client = openai.OpenAI(**_client_options(settings))

    def complete(
        self,
        messages: Sequence[Message],
        *,
        model: str,
        max_tokens: int,
        json_mode: bool,
        tools: Sequence[ToolSpec] = (),
    ) -> Completion:
        openai = self._openai
        with _translated(openai, self.name):
            extra: dict[str, Any] = {}
            if tools:
                extra["tools"] = [
                    {
                        "type": "function",
                        "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                    }
                    for t in tools
                ]
            elif json_mode:
                extra["response_format"] = {"type": "json_object"}
            response = self._client.chat.completions.create(
                model=model,
                messages=[_openai_message(m) for m in messages],  # type: ignore[misc]
                max_tokens=max_tokens,
                temperature=0,
                **extra,
            )
        message = response.choices[0].message if response.choices else None
        function_calls = [
            c
            for c in (message.tool_calls or [] if message else [])
            if isinstance(c, openai.types.chat.ChatCompletionMessageFunctionToolCall)
        ]
        calls = tuple(
            ToolCall(c.id, c.function.name, _arguments(c.function.arguments), c.function.arguments)
            for c in function_calls
        )
        if message is None or (message.content is None and not calls):
            raise ProviderError("openai: empty answer")
        usage = response.usage
        return Completion(
            text=message.content or "",
            model=response.model or model,
            provider=self.name,
            usage=Usage(
                input_tokens=usage.prompt_tokens if usage else 0,
                output_tokens=usage.completion_tokens if usage else 0,
            ),
            tool_calls=calls,
        )


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, settings: LLMSettings) -> None:
        import anthropic

        self._anthropic = anthropic
        self._client = anthropic.Anthropic(**_client_options(settings))

    def complete(
        self,
        messages: Sequence[Message],
        *,
        model: str,
        max_tokens: int,
        json_mode: bool,
        tools: Sequence[ToolSpec] = (),
    ) -> Completion:
        anthropic = self._anthropic
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        chat = _anthropic_messages(messages)
        with _translated(anthropic, self.name):
            extra: dict[str, Any] = {"system": system} if system else {}
            if tools:
                extra["tools"] = [
                    {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
                ]
            response = self._client.messages.create(
                model=model,
                max_tokens=max_tokens,
                messages=chat,  # type: ignore[arg-type]
                **extra,
            )
        text = "".join(getattr(block, "text", "") for block in response.content)
        calls = tuple(
            ToolCall(block.id, block.name, dict(block.input or {}), json.dumps(block.input))
            for block in response.content
            if isinstance(block, anthropic.types.ToolUseBlock)
        )
        if not text and not calls:
            raise ProviderError("anthropic: empty answer")
        return Completion(
            text=text,
            model=response.model or model,
            provider=self.name,
            usage=Usage(input_tokens=response.usage.input_tokens, output_tokens=response.usage.output_tokens),
            tool_calls=calls,
        )


def make_provider(settings: LLMSettings) -> Provider | None:
    if settings.provider == "openai":
        return OpenAIProvider(settings)
    if settings.provider == "anthropic":
        return AnthropicProvider(settings)
    return None
