"""The store's SQL, written once for every SQL backend in SQLite's neutral form: rows
(:mod:`.rows`), filters (:mod:`.filters`), reads and reports (:mod:`.reads`), writes
(:mod:`.writes`), status counts (:mod:`.stats`), health state (:mod:`.health`), the running turn
sums (:mod:`.turn_sums`), the per-user export (:mod:`.export`), the keyword index's body
(:mod:`.keywords`), the tables both backends declare alike (:mod:`.ddl`) and the one migration
runner (:mod:`.migrations`). A :class:`~.dialect.Dialect` turns the text into each driver's."""
