from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rootward.knowledge.embeddings import (
    LOCAL_DIMENSION,
    EmbeddingUnavailable,
    LocalEmbedder,
    OpenAIEmbedder,
)
from tests.sources.local_http import Reply, Request, serve


def _embeddings_route(request: Request) -> Reply:
    if request.path != "/v1/embeddings":
        return Reply(404, {"error": {"message": "not found"}})
    body = json.loads(request.body)
    data = [
        {"object": "embedding", "index": i, "embedding": [float(len(text)), 1.0, 0.0]}
        for i, text in enumerate(body["input"])
    ]
    data.reverse()  # servers may answer out of order; `index` decides
    return Reply(
        200, {"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1}}
    )


def test_openai_compatible_endpoint_batches_orders_and_normalises() -> None:
    with serve(_embeddings_route) as (base, seen):
        embedder = OpenAIEmbedder(base_url=f"{base}/v1", model="nomic-embed", batch_size=2)
        vectors = embedder.embed(["a", "bbb", "cc"])
    assert [r.path for r in seen] == ["/v1/embeddings", "/v1/embeddings"]  # 3 texts, batches of 2
    assert json.loads(seen[0].body)["model"] == "nomic-embed"
    assert vectors.shape == (3, 3)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert vectors[1, 0] > vectors[2, 0] > vectors[0, 0]  # order follows the input, not the reply
    assert embedder.model_id == "openai:nomic-embed"


def test_endpoint_error_raises_embedding_unavailable() -> None:
    with serve(lambda r: Reply(500, {"error": {"message": "boom"}})) as (base, _):
        embedder = OpenAIEmbedder(base_url=f"{base}/v1", model="m")
        with pytest.raises(EmbeddingUnavailable):
            embedder.embed(["x"])


def test_local_model_ships_in_the_package_and_captures_meaning() -> None:
    vectors = LocalEmbedder().embed(
        [
            "the database connection pool is exhausted",
            "no free DB connections left in the client pool",
            "the TLS certificate expired",
        ]
    )
    assert vectors.shape == (3, LOCAL_DIMENSION)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_missing_model_file_raises_embedding_unavailable(tmp_path: Path) -> None:
    embedder = LocalEmbedder(model_path=tmp_path / "none.onnx", tokenizer_path=tmp_path / "none.json")
    with pytest.raises(EmbeddingUnavailable):
        embedder.embed(["x"])
