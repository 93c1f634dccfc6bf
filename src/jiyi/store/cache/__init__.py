"""Resident per-user tables of the SQLite backend, pure of SQL: vector matrices with their filter
columns (:mod:`.vectors`), the keyword index of a big user (:mod:`.keywords`) and the BM25 both
it and the FTS5 path rank with (:mod:`.bm25`). Kept true to the file by
:mod:`..sqlite.caches`."""
