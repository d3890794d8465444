"""Knowledge-base configuration: where the Markdown lives, which embedder, the investigation budget."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

if TYPE_CHECKING:
    from rootward.knowledge.embeddings import Embedder


class KnowledgeSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    directories: list[Path] = Field(
        default_factory=list,
        description="Knowledge roots (runbooks/, postmortems/, bits/) that `rootward kb ingest` "
        "ingests when no directory is given.",
    )
    embedder: Literal["local", "openai", "none"] = Field(
        default="local",
        description="`local`: all-MiniLM-L6-v2 int8 shipped in a PyPI package (no download); "
        "`openai`: any OpenAI-compatible /v1/embeddings endpoint; `none`: BM25 only.",
    )
    base_url: str | None = Field(default=None, description="Embeddings endpoint for embedder=openai.")
    model: str = Field(default="text-embedding-3-small", description="Embedding model for embedder=openai.")
    api_key: SecretStr = Field(default=SecretStr(""), description="API key for embedder=openai.")
    max_chunks: int = Field(default=8, ge=1, description="Knowledge chunks an investigation receives at most.")
    max_tokens: int = Field(default=4096, ge=64, description="Token budget of those chunks.")


def make_embedder(settings: KnowledgeSettings) -> Embedder | None:
    """The configured embedder, or None for BM25 only (imported here: settings load without numpy)."""
    from rootward.knowledge.embeddings import LocalEmbedder, OpenAIEmbedder

    if settings.embedder == "none":
        return None
    if settings.embedder == "openai":
        if not settings.base_url:
            raise ValueError("knowledge.base_url is required with knowledge.embedder=openai")
        return OpenAIEmbedder(
            base_url=settings.base_url, model=settings.model, api_key=settings.api_key.get_secret_value() or None
        )
    return LocalEmbedder()
