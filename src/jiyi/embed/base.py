"""The embedder interface. Vectors are float32, L2-normalised, of a fixed dimension."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns text into vectors. ``name`` is stored beside every vector so spaces never mix."""

    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """One row per text, normalised."""
        ...

    def embed_query(self, text: str) -> Matrix:
        """A single normalised vector for a search query (shape ``(dim,)``)."""
        ...


def normalise(mat: Matrix) -> Matrix:
    arr = np.asarray(mat, dtype=np.float32)
    norms = np.linalg.norm(arr, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Matrix = (arr / norms).astype(np.float32)
    return out
