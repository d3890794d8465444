"""A deterministic stand-in embedder: hashed bag of words, so tests need no model and can count calls."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from rootward.knowledge.embeddings import EmbeddingUnavailable, normalise_rows
from rootward.knowledge.lexical import tokenize


class HashingEmbedder:
    def __init__(self, dim: int = 256, fail: bool = False) -> None:
        self.dim = dim
        self.fail = fail
        self.calls = 0
        self.texts: list[str] = []

    @property
    def model_id(self) -> str:
        return f"hashing-{self.dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts.extend(texts)
        if self.fail:
            raise EmbeddingUnavailable("model file missing (test)")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in tokenize(text):
                out[i, zlib.crc32(token.encode()) % self.dim] += 1.0
        out[:, 0] += 1e-3  # never an all-zero row
        return normalise_rows(out)
