"""Provider clients through the official SDKs.

`openai` covers OpenAI and every OpenAI-compatible server (vLLM, Ollama,
LM Studio, llama.cpp server, LiteLLM) through `base_url`; `anthropic` covers
Anthropic. SDK retries are off: the circuit breaker and the fallback chain
decide what happens after a failure, not a hidden retry loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from rootward.llm.settings import LLMSettings
from rootward.llm.types import Completion, Message, Usage


class ProviderError(Exception):
    """The provider failed (HTTP error, timeout, connection refused, empty answer)."""


class Provider(Protocol):
    name: str

    def complete(self, messages: Sequence[Message], *, model: str, max_tokens: int, json_mode: bool) -> Completion: ...


class OpenAIProvider:
    name = "openai"

    def __init__(self, settings: LLMSettings) -> None:
        import openai  # imported when configured: the SDKs cost seconds at startup

        self._openai = openai
        self._client = openai.OpenAI(
            api_key=settings.api_key.get_secret_value() or "unused",
            base_url=settings.base_url,
            timeout=settings.timeout_s,
            max_retries=0,
        )

    def complete(self, messages: Sequence[Message], *, model: str, max_tokens: int, json_mode: bool) -> Completion:
        openai = self._openai
        try:
            extra: dict[str, Any] = {"response_format": {"type": "json_object"}} if json_mode else {}
            response = self._client.chat.completions.create(
                model=model,
                messages=[{"role": m.role, "content": m.content} for m in messages],  # type: ignore[misc]
                max_tokens=max_tokens,
                temperature=0,
                **extra,
            )
        except openai.APITimeoutError as exc:
            raise ProviderError(f"openai: timed out ({exc})") from exc
        except openai.APIStatusError as exc:
            raise ProviderError(f"openai: HTTP {exc.status_code}") from exc
        except openai.APIError as exc:
            raise ProviderError(f"openai: {exc.__class__.__name__}: {exc}") from exc
        if not response.choices or response.choices[0].message.content is None:
            raise ProviderError("openai: empty answer")
        usage = response.usage
        return Completion(
            text=response.choices[0].message.content,
            model=response.model or model,
            provider=self.name,
            usage=Usage(
                input_tokens=usage.prompt_tokens if usage else 0,
                output_tokens=usage.completion_tokens if usage else 0,
            ),
        )


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, settings: LLMSettings) -> None:
        import anthropic

        self._anthropic = anthropic
        self._client = anthropic.Anthropic(
            api_key=settings.api_key.get_secret_value() or "unused",
            base_url=settings.base_url,
            timeout=settings.timeout_s,
            max_retries=0,
        )

    def complete(self, messages: Sequence[Message], *, model: str, max_tokens: int, json_mode: bool) -> Completion:
        anthropic = self._anthropic
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        chat = [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]
        try:
            extra: dict[str, Any] = {"system": system} if system else {}
            response = self._client.messages.create(
                model=model,
                max_tokens=max_tokens,
                messages=chat,  # type: ignore[arg-type]
                **extra,
            )
        except anthropic.APITimeoutError as exc:
            raise ProviderError(f"anthropic: timed out ({exc})") from exc
        except anthropic.APIStatusError as exc:
            raise ProviderError(f"anthropic: HTTP {exc.status_code}") from exc
        except anthropic.APIError as exc:
            raise ProviderError(f"anthropic: {exc.__class__.__name__}: {exc}") from exc
        text = "".join(getattr(block, "text", "") for block in response.content)
        if not text:
            raise ProviderError("anthropic: empty answer")
        return Completion(
            text=text,
            model=response.model or model,
            provider=self.name,
            usage=Usage(input_tokens=response.usage.input_tokens, output_tokens=response.usage.output_tokens),
        )


def make_provider(settings: LLMSettings) -> Provider | None:
    if settings.provider == "openai":
        return OpenAIProvider(settings)
    if settings.provider == "anthropic":
        return AnthropicProvider(settings)
    return None
