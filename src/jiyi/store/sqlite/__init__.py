"""The embedded default backend: one SQLite file (:mod:`.store`), its engine-only reads
(:mod:`.queries`: FTS5, the resident caches, the warm-up), capabilities (:mod:`.caps`), schema
(:mod:`.migrations`), FTS5 query text (:mod:`.fts`) and the sync of the resident caches with
the file's change log (:mod:`.caches`)."""

from __future__ import annotations

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
