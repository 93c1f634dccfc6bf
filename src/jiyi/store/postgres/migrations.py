"""PostgreSQL schema as named, recorded, transactional migrations.

The names are the SQLite backend's (:mod:`..sqlite.migrations`), so ``jiyi_migrations``
tells the same story on both. Instants are ``BIGINT`` microseconds since the epoch, exactly as in
SQLite, so ``jiyi migrate`` copies rows losslessly and the checksum compares like with like.

Differences from SQLite, by design:

* ``units_fts`` is an ordinary table: the same jieba-segmented ``body`` as SQLite's FTS5 table,
  a stored ``tsvector`` (``simple`` configuration, so no stemming or stop words: the text is
  already segmented and folded) with a GIN index, and a ``pg_trgm`` GIN index on ``body`` for
  substring matches the segmenter did not split out.
* ``unit_vectors.vec`` is a pgvector ``vector`` without a fixed dimension, with a ``dim`` column.
  One HNSW cosine index per (embedder, dimension) is created on first use by
  :func:`ensure_vector_index`: a partial expression index ``(vec::vector(dim))`` restricted to
  ``embedder = ... AND dim = ...``. New embedders need no migration.

Every migration runs in one transaction under an advisory lock, so several workers starting at
once apply each migration exactly once (the runner, :func:`..sql.migrations.run_migrations`, is
SQLite's too). Tables both backends declare alike are spelled once in :mod:`..sql.ddl`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql

from ..sql.ddl import (
    POSTGRES_TYPES,
    m001_initial,
    m002_health,
    m009_topic_states,
    turn_vectors_table,
)
from ..sql.migrations import run_migrations

#: Serialises schema changes between processes (any constant; "jiyi" in ASCII).
MIGRATION_LOCK = 0x6A697969

#: The keyword index of m001: a plain table with a stored ``tsvector`` (see above).
_M001_KEYWORD_INDEX = """CREATE TABLE units_fts (
    unit_id TEXT PRIMARY KEY,
    body    TEXT NOT NULL,
    tsv     tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED
);
CREATE INDEX units_fts_tsv ON units_fts USING gin (tsv);
CREATE INDEX units_fts_trgm ON units_fts USING gin (body gin_trgm_ops);"""

M001_INITIAL = ("\nCREATE EXTENSION IF NOT EXISTS vector;"
                "\nCREATE EXTENSION IF NOT EXISTS pg_trgm;\n"
                + m001_initial(POSTGRES_TYPES, _M001_KEYWORD_INDEX))

M002_HEALTH = m002_health(POSTGRES_TYPES)

#: Keyword search always runs for one user. With one GIN index over every user's text, a common
#: word matched every user's rows before the user filter (350 ms at 1M units). ``user_id`` is
#: copied into ``units_fts`` (a unit never changes owner) by a trigger, so every insert path
#: (ingest, ``jiyi migrate``'s COPY) fills it, and the GIN indexes lead with it (``btree_gin``).
M005_FTS_BY_USER = """
CREATE EXTENSION IF NOT EXISTS btree_gin;
ALTER TABLE units_fts ADD COLUMN user_id TEXT;
UPDATE units_fts f SET user_id = u.user_id FROM units u WHERE u.id = f.unit_id;
CREATE FUNCTION jiyi_units_fts_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.user_id IS NULL THEN
        SELECT u.user_id INTO NEW.user_id FROM units u WHERE u.id = NEW.unit_id;
    END IF;
    IF NEW.user_id IS NULL THEN
        RAISE EXCEPTION 'units_fts row for unknown unit %', NEW.unit_id;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER units_fts_owner BEFORE INSERT ON units_fts
    FOR EACH ROW EXECUTE FUNCTION jiyi_units_fts_owner();
ALTER TABLE units_fts ALTER COLUMN user_id SET NOT NULL;
CREATE INDEX units_fts_user_tsv ON units_fts USING gin (user_id, tsv);
CREATE INDEX units_fts_user_trgm ON units_fts USING gin (user_id, body gin_trgm_ops);
DROP INDEX units_fts_tsv;
DROP INDEX units_fts_trgm
"""

#: The episodic layer: one vector per raw turn and embedder, the owner and the
#: instant denormalised so a search reads one user's rows through one index. ``turns.seq``
#: (a BIGSERIAL since m001) already records the order of ingestion.
M006_EPISODIC = f"""
{turn_vectors_table(POSTGRES_TYPES)}
CREATE INDEX turns_by_session_seq ON turns (user_id, session_id, seq)
"""

#: Idempotent turns: re-ingesting a known ``turn_id`` of the same user and session
#: is a no-op, decided under the placement lock by looking the id up through this index. Not
#: UNIQUE: stores written before this migration may hold repeats of one id.
M007_TURN_IDS = """
CREATE INDEX turns_by_turn_id ON turns (user_id, session_id, turn_id)
"""

#: How many user-hash buckets ``unit_vectors`` is indexed by (one partial HNSW each).
USER_BUCKETS = 16

#: Big users' vector search: one HNSW graph over every user's vectors, walked with a
#: user filter that keeps 1 row in 25, had to visit ~25x the rows it returned, each through a
#: join to ``units``; p95 226 ms at 1M units. ``user_id`` is now copied onto ``unit_vectors``
#: (a unit never changes owner; a trigger fills it on every insert path, as for ``units_fts``
#: in m005) with ``bucket`` = a hash of it mod :data:`USER_BUCKETS`, and the HNSW indexes are
#: partial per (embedder, dim, bucket) (:func:`ensure_vector_index`): a big user's walk runs
#: in a graph of their bucket, where most rows are theirs, and checks the owner on the vector
#: row itself. Existing (embedder, dim) indexes are rebuilt bucketed here (one-off: minutes at
#: 1M vectors); the old whole-table ones are dropped. The statistics object tells the planner
#: that the bucket follows from the user: without it, it took ``user_id = X AND bucket = k`` for
#: 1/16 of X's rows and chose an exact scan of a 40k-unit user (445 ms) over their graph.
M008_USER_VECTORS = f"""
CREATE FUNCTION jiyi_user_bucket(user_id text) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT ((('x' || substr(md5(user_id), 1, 8))::bit(32)::int) & {USER_BUCKETS - 1})::smallint $$;
ALTER TABLE unit_vectors ADD COLUMN user_id TEXT, ADD COLUMN bucket SMALLINT;
DELETE FROM unit_vectors v WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.id = v.unit_id);
UPDATE unit_vectors v SET user_id = u.user_id, bucket = jiyi_user_bucket(u.user_id)
    FROM units u WHERE u.id = v.unit_id;
CREATE FUNCTION jiyi_unit_vectors_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.user_id IS NULL THEN
        SELECT u.user_id INTO NEW.user_id FROM units u WHERE u.id = NEW.unit_id;
    END IF;
    IF NEW.user_id IS NULL THEN
        RAISE EXCEPTION 'unit_vectors row for unknown unit %', NEW.unit_id;
    END IF;
    NEW.bucket := jiyi_user_bucket(NEW.user_id);
    RETURN NEW;
END
$$;
CREATE TRIGGER unit_vectors_owner BEFORE INSERT ON unit_vectors
    FOR EACH ROW EXECUTE FUNCTION jiyi_unit_vectors_owner();
ALTER TABLE unit_vectors ALTER COLUMN user_id SET NOT NULL, ALTER COLUMN bucket SET NOT NULL;
CREATE INDEX unit_vectors_by_user ON unit_vectors (user_id, embedder, dim);
CREATE STATISTICS unit_vectors_user_bucket (dependencies) ON user_id, bucket FROM unit_vectors;
DO $$
DECLARE
    old_names text[];
    embs text[];
    dims int[];
    i int;
    k int;
BEGIN
    -- read into arrays first: an open loop over a table forbids indexing it
    old_names := ARRAY(SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()
                       AND indexname LIKE 'unit_vectors_hnsw_%');
    FOR i IN 1..coalesce(array_length(old_names, 1), 0) LOOP
        EXECUTE format('DROP INDEX %I', old_names[i]);
    END LOOP;
    SELECT array_agg(embedder ORDER BY embedder, dim), array_agg(dim ORDER BY embedder, dim)
        INTO embs, dims
        FROM (SELECT DISTINCT embedder, dim FROM unit_vectors WHERE dim BETWEEN 1 AND 2000) p;
    FOR i IN 1..coalesce(array_length(embs, 1), 0) LOOP
        FOR k IN 0..{USER_BUCKETS - 1} LOOP
            EXECUTE format('CREATE INDEX %I ON unit_vectors USING hnsw ((vec::vector(%s))'
                           ' vector_cosine_ops) WHERE embedder = %L AND dim = %s AND bucket = %s',
                           'unit_vectors_uh_' || dims[i] || '_'
                           || substr(md5(embs[i] || chr(31) || dims[i]::text), 1, 12) || '_' || k,
                           dims[i], embs[i], dims[i], k);
        END LOOP;
    END LOOP;
END
$$
"""

#: Topic switches follow the user's turns and are kept per session, shared by every worker:
#: the write path upserts a session's row in the turn's own transaction; recall only reads it.
M009_TOPIC_STATES = m009_topic_states(POSTGRES_TYPES)

#: Running sums of big users' turn vectors (:mod:`..sql.turn_sums`): the dense z-scale without a
#: scan. The float64 blobs are stored uncompressed (they do not compress); the store builds the
#: rows of existing users right after this migration (``rebuild_turn_sums``).
#: ``turn_sum_pending``: the vectors added (sign 1) or removed (-1) since the row was last
#: folded.
M010_TURN_SUMS = """
CREATE TABLE turn_vector_sums (
    user_id  TEXT NOT NULL,
    embedder TEXT NOT NULL,
    dim      INTEGER NOT NULL,
    n        BIGINT NOT NULL,
    max_at   BIGINT NOT NULL,
    version  BIGINT NOT NULL,
    sx       BYTEA NOT NULL,
    sxx      BYTEA NOT NULL,
    PRIMARY KEY (user_id, embedder)
);
CREATE TABLE turn_sum_pending (
    user_id  TEXT NOT NULL,
    embedder TEXT NOT NULL,
    sign     SMALLINT NOT NULL,
    at       BIGINT NOT NULL,
    dim      INTEGER NOT NULL,
    vec      BYTEA NOT NULL
);
CREATE INDEX turn_sum_pending_by_user ON turn_sum_pending (user_id, embedder);
ALTER TABLE turn_vector_sums ALTER COLUMN sx SET STORAGE EXTERNAL,
    ALTER COLUMN sxx SET STORAGE EXTERNAL
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("m001_initial", M001_INITIAL),
    ("m002_health", M002_HEALTH),
    # SQLite-only (a rowid map for its FTS5 table); PostgreSQL's units_fts is an ordinary table
    # keyed by unit_id. Recorded under the same name so both stores tell the same story.
    ("m003_fts_rowmap", ""),
    # SQLite-only (an FTS5 owner column so keyword search walks one user's postings); here
    # units_fts is a plain table searched through its indexes. Same name, same story.
    ("m004_fts_owner", ""),
    ("m005_fts_by_user", M005_FTS_BY_USER),
    ("m006_episodic", M006_EPISODIC),
    ("m007_turn_ids", M007_TURN_IDS),
    ("m008_user_vectors", M008_USER_VECTORS),
    ("m009_topic_states", M009_TOPIC_STATES),
    ("m010_turn_sums", M010_TURN_SUMS),
]


def apply_migrations(conn: psycopg.Connection[tuple[object, ...]]) -> list[str]:
    """Apply every migration not yet recorded, each in its own transaction. Returns the names.

    ``conn`` must be in autocommit mode; each migration opens its own transaction.
    """
    return run_migrations(_PgMigrationDb(conn), MIGRATIONS)


def pyformat(query: str) -> str:
    """``query`` with ``:name`` placeholders rewritten for psycopg (``%(name)s``, a literal
    ``%`` doubled); ``::`` casts are left alone."""
    return _NAMED.sub(r"%(\1)s", query.replace("%", "%%"))


_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


class _PgMigrationDb:
    """PostgreSQL for :func:`~..sql.migrations.run_migrations`: every schema transaction holds the
    advisory lock :data:`MIGRATION_LOCK`, so workers starting at once apply each migration once."""

    def __init__(self, conn: psycopg.Connection[tuple[object, ...]]) -> None:
        self._conn = conn

    def prepare(self) -> set[str]:
        with self.schema_transaction():
            self._conn.execute("CREATE TABLE IF NOT EXISTS jiyi_migrations"
                               " (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
            return {str(r[0]) for r in self._conn.execute("SELECT name FROM jiyi_migrations")}

    @contextmanager
    def schema_transaction(self) -> Iterator[None]:
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            yield

    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[Any]:
        if params is None:  # a migration's own text: sent as written (its % are its own)
            cur = self._conn.execute(statement.encode())
        else:
            cur = self._conn.execute(pyformat(statement).encode(), params)
        return cur.fetchall() if cur.description is not None else []

    def split(self, body: str) -> list[str]:
        return _split(body)


def user_bucket(user_id: str) -> int:
    """The ``unit_vectors.bucket`` of a user: what the SQL function ``jiyi_user_bucket``
    computes (the first 32 bits of the MD5 of the UTF-8 id, mod :data:`USER_BUCKETS`)."""
    return int(hashlib.md5(user_id.encode("utf-8")).hexdigest()[:8], 16) & (USER_BUCKETS - 1)


def vector_index_name(embedder: str, dim: int, bucket: int) -> str:
    """A stable, short, safe name for the HNSW index of one (embedder, dimension, bucket)
    (the same name m008 computes in SQL)."""
    digest = hashlib.md5(f"{embedder}\x1f{dim}".encode()).hexdigest()[:12]
    return f"unit_vectors_uh_{dim}_{digest}_{bucket}"


def ensure_vector_index(conn: psycopg.Connection[tuple[object, ...]], embedder: str,
                        dim: int, *, bulk: bool = False) -> None:
    """Create the HNSW cosine indexes of (embedder, dim), one per user bucket, if missing.
    ``conn`` is autocommit.

    pgvector's HNSW holds at most 2,000 dimensions for ``vector``; larger vectors stay
    searchable by the exact scan only."""
    if not 0 < dim <= 16000:
        raise ValueError(f"vector dimension {dim} is outside pgvector's range")
    if dim > 2000:
        return
    for bucket in range(USER_BUCKETS):
        name = vector_index_name(embedder, dim, bucket)
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            if bulk:
                conn.execute("SET LOCAL maintenance_work_mem = '2GB'")
                conn.execute("SET LOCAL max_parallel_maintenance_workers = 2")
            conn.execute(sql.SQL(
                "CREATE INDEX IF NOT EXISTS {name} ON unit_vectors USING hnsw"
                " ((vec::vector({dim})) vector_cosine_ops)"
                " WHERE embedder = {emb} AND dim = {dim} AND bucket = {bucket}"
            ).format(name=sql.Identifier(name), dim=sql.Literal(dim), emb=sql.Literal(embedder),
                     bucket=sql.Literal(bucket)))


def _split(body: str) -> list[str]:
    """Statements of a migration: split on ``;`` outside ``$$``-quoted function bodies."""
    statements: list[str] = []
    current: list[str] = []
    for i, chunk in enumerate(body.split("$$")):
        if i % 2:  # inside $$ ... $$
            current.append("$$" + chunk + "$$")
            continue
        pieces = chunk.split(";")
        current.append(pieces[0])
        for piece in pieces[1:]:
            statements.append("".join(current))
            current = [piece]
    statements.append("".join(current))
    return [s.strip() for s in statements if s.strip()]
