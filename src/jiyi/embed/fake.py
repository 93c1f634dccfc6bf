"""A deterministic, dependency-free embedder for tests: hashed bag of folded tokens.

Texts that share words get similar vectors, so tests of the semantic stage mean something,
and it needs no model (the way httpx ships ``MockTransport``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ..text import tokens
from .base import Matrix, normalise


class FakeEmbedder:
    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.name = f"fake-{dim}"

    def _one(self, text: str) -> Matrix:
        vec = np.zeros(self.dim, dtype=np.float32)
        toks = tokens(text) or [text]
        for tok in toks:
            digest = hashlib.blake2b(tok.encode(), digest_size=8).digest()
            idx = int.from_bytes(digest[:4], "little") % self.dim
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[idx] += sign
        vec[0] += 0.01  # never the zero vector
        return vec

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise(np.stack([self._one(t) for t in texts]))

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Several queries at once (the same vectors as one by one)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise(np.stack([self._one(t) for t in texts]))

    def embed_query(self, text: str) -> Matrix:
        vec: Matrix = normalise(self._one(text)[None, :])[0]
        return vec
