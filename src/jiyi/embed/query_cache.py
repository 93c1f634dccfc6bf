"""A small cache of query vectors: the recall that just embedded a query and the prompt builder
asking what that query does to the session's topics share one vector (and one model call).

A cache that never changes a result: a vector is stored under its embedder's name and the exact
query text, so a hit returns what embedding the text again would return.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from .base import Matrix

#: Query vectors kept (the latest queries; a prompt is built right after its recall).
QUERY_VECTORS_KEPT = 64


class QueryVectorCache:
    """``(embedder name, query text) -> vector``, the latest :data:`QUERY_VECTORS_KEPT`."""

    def __init__(self, size: int = QUERY_VECTORS_KEPT) -> None:
        self._size = size
        self._vectors: OrderedDict[tuple[str, str], Matrix] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, embedder: str, text: str) -> Matrix | None:
        with self._lock:
            vec = self._vectors.get((embedder, text))
            if vec is not None:
                self._vectors.move_to_end((embedder, text))
            return vec

    def put(self, embedder: str, text: str, vec: Matrix) -> None:
        with self._lock:
            self._vectors[(embedder, text)] = vec
            self._vectors.move_to_end((embedder, text))
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
