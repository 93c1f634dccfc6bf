"""Embedders behind an HTTP API: Ollama (``POST /api/embed``) and any OpenAI-compatible server
(``POST /v1/embeddings``). Synchronous ``httpx``; every failure becomes a clear
:class:`jiyi.errors.LLMError` (server down, timeout, wrong shape), never a raw traceback.

The dimension is learned from the first answer (or given); the vector space's name is
``ollama-MODEL`` / ``openai-MODEL``, stored beside every vector so spaces never mix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from ..errors import ConfigError, LLMError
from .base import Matrix, normalise


def _check_url(url: str) -> str:
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"embedder URL must start with http:// or https://, got {url!r}")
    return url.rstrip("/")


class _HttpEmbedder:
    kind = "http"

    def __init__(self, model: str, url: str, *, dim: int | None = None, timeout: float = 60.0,
                 batch_size: int = 32, api_key: str | None = None,
                 transport: httpx.BaseTransport | None = None) -> None:
        if not model:
            raise ConfigError(f"the {self.kind} embedder needs a model name")
        self.model = model
        self.url = _check_url(url)
        self.name = f"{self.kind}-{model}"
        self._dim = dim
        self._batch = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed_passages(["dimension probe"]).shape[1])
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:
        self._dim = int(value)

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        try:
            resp = self._client.post(self.url + path, json=body)
        except httpx.HTTPError as exc:
            raise LLMError(f"{self.kind} embedder at {self.url} failed: {exc}") from exc
        if resp.status_code != 200:
            raise LLMError(f"{self.kind} embedder at {self.url}{path} answered "
                           f"{resp.status_code}: {resp.text[:200]}")
        try:
            return resp.json()
        except ValueError as exc:
            raise LLMError(f"{self.kind} embedder answered non-JSON") from exc

    def _rows(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        items = list(texts)
        if not items:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(items), self._batch):
            chunk = items[start:start + self._batch]
            got = self._rows(chunk)
            if len(got) != len(chunk):
                raise LLMError(f"{self.kind} embedder returned {len(got)} vectors for "
                               f"{len(chunk)} texts")
            rows.extend(got)
        try:
            mat = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise LLMError(f"{self.kind} embedder returned malformed vectors") from exc
        if mat.ndim != 2 or mat.shape[1] == 0:
            raise LLMError(f"{self.kind} embedder returned vectors of shape {mat.shape}")
        if self._dim is not None and mat.shape[1] != self._dim:
            raise LLMError(f"{self.kind} embedder returned dimension {mat.shape[1]}, "
                           f"expected {self._dim}")
        self._dim = int(mat.shape[1])
        return normalise(mat)

    def embed_query(self, text: str) -> Matrix:
        row: Matrix = self.embed_passages([text])[0]
        return row

    def close(self) -> None:
        self._client.close()


class OllamaEmbedder(_HttpEmbedder):
    """Ollama's ``POST /api/embed {"model", "input": [...]}`` -> ``{"embeddings": [[...]]}``."""

    kind = "ollama"

    def _rows(self, texts: list[str]) -> list[list[float]]:
        data = self._post("/api/embed", {"model": self.model, "input": texts})
        rows = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            raise LLMError("ollama embedder answer has no 'embeddings' list")
        return rows


class OpenAIEmbedder(_HttpEmbedder):
    """OpenAI-compatible ``POST {base}/embeddings {"model", "input": [...]}`` ->
    ``{"data": [{"index", "embedding"}]}``. ``url`` is the base ending in ``/v1``."""

    kind = "openai"

    def _rows(self, texts: list[str]) -> list[list[float]]:
        path = "/embeddings" if self.url.endswith("/v1") else "/v1/embeddings"
        data = self._post(path, {"model": self.model, "input": texts})
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise LLMError("openai embedder answer has no 'data' list")
        try:
            ordered = sorted(items, key=lambda d: int(d.get("index", 0)))
            return [list(d["embedding"]) for d in ordered]
        except (KeyError, TypeError, AttributeError) as exc:
            raise LLMError("openai embedder answer items lack 'embedding'") from exc
