"""The PostgreSQL + pgvector backend (needs the ``postgres`` extra): the store (:mod:`.store`),
its engine-only reads (:mod:`.queries`: tsvector and trigrams, bucketed HNSW), capabilities
(:mod:`.caps`), schema (:mod:`.migrations`), tsquery text (:mod:`.fts`) and the admin helpers of
tests, benchmarks and ``jiyi migrate`` (:mod:`.admin`)."""

from __future__ import annotations

from .store import PostgresStore

__all__ = ["PostgresStore"]
