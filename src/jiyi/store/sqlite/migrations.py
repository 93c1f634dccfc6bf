"""SQLite schema as named, recorded, transactional migrations.

The PostgreSQL backend uses the same migration names, so ``jiyi_migrations`` tells the same story
on both. Add a migration by appending to :data:`MIGRATIONS`; never edit an applied one. Tables both
backends declare alike are spelled once in :mod:`..sql.ddl`; the runner is
:func:`..sql.migrations.run_migrations`, shared with PostgreSQL.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..sql.ddl import (
    SQLITE_TYPES,
    m001_initial,
    m002_health,
    m009_topic_states,
    turn_vectors_table,
)
from ..sql.migrations import run_migrations

#: Name of the SQL function (registered on every store connection) that computes :func:`owner_token`.
OWNER_FUNCTION = "jiyi_owner"

#: The keyword index of m001: an FTS5 table over the segmented text.
_M001_KEYWORD_INDEX = """CREATE VIRTUAL TABLE units_fts USING fts5 (
    unit_id UNINDEXED,
    body,
    tokenize = 'unicode61 remove_diacritics 2'
);"""

M001_INITIAL = m001_initial(SQLITE_TYPES, _M001_KEYWORD_INDEX)

#: Health state shared by worker processes (memory health): amnesia streaks per session, persisted counters.
M002_HEALTH = m002_health(SQLITE_TYPES)

#: FTS5 cannot index ``unit_id``, so deleting a unit's keyword row by it scans the whole index.
#: This map finds the row by its FTS rowid instead (stable across VACUUM, unlike ``units.rowid``).
M003_FTS_ROWMAP = """
CREATE TABLE unit_fts_rows (
    unit_id   TEXT PRIMARY KEY,
    fts_rowid INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR REPLACE INTO unit_fts_rows (unit_id, fts_rowid) SELECT unit_id, rowid FROM units_fts;
"""

#: Keyword search used to match the WHOLE index and only then join ``units`` to drop other users'
#: rows; at 1M units that dominated recall. Each FTS row now carries an ``owner`` token (a hash of
#: the user id, see :func:`owner_token`) so a search matches ``owner:<token> AND body:(...)`` and
#: only walks that user's postings. Rowids are kept, so ``unit_fts_rows`` stays valid.
M004_FTS_OWNER = f"""
CREATE VIRTUAL TABLE units_fts_m004 USING fts5 (
    unit_id UNINDEXED,
    owner,
    body,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO units_fts_m004 (rowid, unit_id, owner, body)
    SELECT f.rowid, f.unit_id, {OWNER_FUNCTION}(u.user_id), f.body
    FROM units_fts f LEFT JOIN units u ON u.id = f.unit_id ORDER BY f.rowid;
DROP TABLE units_fts;
ALTER TABLE units_fts_m004 RENAME TO units_fts;
"""

#: The episodic layer: every raw (redacted) turn stays searchable across the user's
#: sessions. ``turns.seq`` is the order of ingestion (global and increasing, like PostgreSQL's
#: ``turns.seq``; ``rowid`` is not stable across VACUUM): many imports give a whole session one
#: timestamp, so "the next turn" must never be read from ``at``. ``turn_vectors`` holds one
#: vector per turn and embedder, with the owner and the instant denormalised so a search reads
#: one user's rows through one index.
M006_EPISODIC = f"""
ALTER TABLE turns ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE turns SET seq = r.n FROM (
    SELECT key, ROW_NUMBER() OVER (ORDER BY at, rowid) AS n FROM turns) AS r
WHERE turns.key = r.key;
CREATE INDEX turns_by_seq ON turns (seq);
CREATE INDEX turns_by_session_seq ON turns (user_id, session_id, seq);
{turn_vectors_table(SQLITE_TYPES)}
"""

#: Idempotent turns: re-ingesting a known ``turn_id`` of the same user and session
#: is a no-op, decided under the placement lock by looking the id up through this index. Not
#: UNIQUE: stores written before this migration may hold repeats of one id.
M007_TURN_IDS = """
CREATE INDEX turns_by_turn_id ON turns (user_id, session_id, turn_id);
"""

#: Resident per-user vector tables (:mod:`.caches`): every change that
#: can alter a vector search is logged by triggers in the writer's transaction, whoever writes,
#: so a cached table in any process learns of it at its next search. The log prunes itself to
#: its last 50,000 entries (``pruned`` tells a table synced earlier to reload); ``epoch`` is
#: redrawn by an erase or a restore (every cached table is dropped). ``user_id`` is the column
#: name on purpose: erasing a user deletes their log rows with every other row of theirs.
M008_USER_VECTORS = """
CREATE TABLE vector_changes (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    key     TEXT NOT NULL
);
CREATE INDEX vector_changes_by_user ON vector_changes (user_id, seq);
CREATE TABLE vector_cache_meta (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO vector_cache_meta (name, value) VALUES ('epoch', abs(random() % 9007199254740991)),
    ('pruned', 0);
CREATE TRIGGER units_vc_insert AFTER INSERT ON units BEGIN
    INSERT INTO vector_changes (user_id, kind, key) VALUES (NEW.user_id, 'u', NEW.id);
END;
CREATE TRIGGER units_vc_update AFTER UPDATE OF id, user_id, session_id, type, created_at,
    expires_at, valid_at, valid_until, invalidated_at, superseded_by ON units BEGIN
    INSERT INTO vector_changes (user_id, kind, key) VALUES (NEW.user_id, 'u', NEW.id);
    INSERT INTO vector_changes (user_id, kind, key)
        SELECT OLD.user_id, 'u', OLD.id WHERE OLD.user_id <> NEW.user_id OR OLD.id <> NEW.id;
END;
CREATE TRIGGER units_vc_delete AFTER DELETE ON units BEGIN
    INSERT INTO vector_changes (user_id, kind, key) VALUES (OLD.user_id, 'u', OLD.id);
END;
CREATE TRIGGER unit_vectors_vc_insert AFTER INSERT ON unit_vectors BEGIN
    INSERT INTO vector_changes (user_id, kind, key)
        SELECT u.user_id, 'u', NEW.unit_id FROM units u WHERE u.id = NEW.unit_id;
END;
CREATE TRIGGER unit_vectors_vc_update AFTER UPDATE ON unit_vectors BEGIN
    INSERT INTO vector_changes (user_id, kind, key)
        SELECT u.user_id, 'u', u.id FROM units u WHERE u.id IN (NEW.unit_id, OLD.unit_id);
END;
CREATE TRIGGER unit_vectors_vc_delete AFTER DELETE ON unit_vectors BEGIN
    INSERT INTO vector_changes (user_id, kind, key)
        SELECT u.user_id, 'u', OLD.unit_id FROM units u WHERE u.id = OLD.unit_id;
END;
CREATE TRIGGER turn_vectors_vc_insert AFTER INSERT ON turn_vectors BEGIN
    INSERT INTO vector_changes (user_id, kind, key) VALUES (NEW.user_id, 't', NEW.turn_key);
END;
CREATE TRIGGER turn_vectors_vc_update AFTER UPDATE ON turn_vectors BEGIN
    INSERT INTO vector_changes (user_id, kind, key) VALUES (NEW.user_id, 't', NEW.turn_key);
    INSERT INTO vector_changes (user_id, kind, key)
        SELECT OLD.user_id, 't', OLD.turn_key
        WHERE OLD.user_id <> NEW.user_id OR OLD.turn_key <> NEW.turn_key;
END;
CREATE TRIGGER turn_vectors_vc_delete AFTER DELETE ON turn_vectors BEGIN
    INSERT INTO vector_changes (user_id, kind, key) VALUES (OLD.user_id, 't', OLD.turn_key);
END;
CREATE TRIGGER vector_changes_prune AFTER INSERT ON vector_changes
    WHEN NEW.seq % 10000 = 0 BEGIN
    DELETE FROM vector_changes WHERE seq <= NEW.seq - 50000;
    UPDATE vector_cache_meta SET value = NEW.seq - 50000
        WHERE name = 'pruned' AND value < NEW.seq - 50000;
END;
"""

#: SQL that makes every cached vector table of every process reload (an erase, a restore).
NEW_CACHE_EPOCH_SQL = ("UPDATE vector_cache_meta SET value = abs(random() % 9007199254740991)"
                       " WHERE name = 'epoch'")

#: Topic switches follow the user's turns and are kept per session, shared by every worker:
#: the write path upserts a session's row in the turn's own transaction; recall only reads it.
M009_TOPIC_STATES = m009_topic_states(SQLITE_TYPES)

#: Running sums of big users' turn vectors (:mod:`..sql.turn_sums`): the dense z-scale without a
#: scan. A rowid table (each row holds ~590 kB of BLOBs at 384 dimensions); the store builds
#: the rows of existing users right after this migration (``rebuild_turn_sums``).
#: ``turn_sum_pending``: the vectors added (sign 1) or removed (-1) since the row was last
#: folded.
M010_TURN_SUMS = """
CREATE TABLE turn_vector_sums (
    user_id  TEXT NOT NULL,
    embedder TEXT NOT NULL,
    dim      INTEGER NOT NULL,
    n        INTEGER NOT NULL,
    max_at   INTEGER NOT NULL,
    version  INTEGER NOT NULL,
    sx       BLOB NOT NULL,
    sxx      BLOB NOT NULL,
    PRIMARY KEY (user_id, embedder)
);
CREATE TABLE turn_sum_pending (
    user_id  TEXT NOT NULL,
    embedder TEXT NOT NULL,
    sign     INTEGER NOT NULL,
    at       INTEGER NOT NULL,
    dim      INTEGER NOT NULL,
    vec      BLOB NOT NULL
);
CREATE INDEX turn_sum_pending_by_user ON turn_sum_pending (user_id, embedder);
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("m001_initial", M001_INITIAL),
    ("m002_health", M002_HEALTH),
    ("m003_fts_rowmap", M003_FTS_ROWMAP),
    ("m004_fts_owner", M004_FTS_OWNER),
    # PostgreSQL-only (its keyword indexes lead with user_id); SQLite's FTS5 table already
    # carries the owner token since m004. Recorded under the same name on both stores.
    ("m005_fts_by_user", ""),
    ("m006_episodic", M006_EPISODIC),
    ("m007_turn_ids", M007_TURN_IDS),
    ("m008_user_vectors", M008_USER_VECTORS),
    ("m009_topic_states", M009_TOPIC_STATES),
    ("m010_turn_sums", M010_TURN_SUMS),
]


def owner_token(user_id: str) -> str:
    """The keyword-index token of a user: one unicode61 token (``o`` + 20 hex digits of SHA-256)
    that reveals nothing readable about the id. Scope is still checked on ``units.user_id``;
    the token only narrows the index walk, so a (2**-80) collision could not leak rows."""
    return "o" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:20]


def _sql_owner_token(user_id: object) -> str | None:
    return owner_token(user_id) if isinstance(user_id, str) else None


def register_functions(conn: sqlite3.Connection) -> None:
    """Register the SQL functions the schema and the store use (:data:`OWNER_FUNCTION`)."""
    conn.create_function(OWNER_FUNCTION, 1, _sql_owner_token, deterministic=True)


def apply_migrations(conn: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded, each in its own transaction. Returns the names.

    ``conn`` must have :func:`register_functions` applied (m004 computes owner tokens)."""
    return run_migrations(_SqliteMigrationDb(conn), MIGRATIONS)


class _SqliteMigrationDb:
    """SQLite for :func:`~..sql.migrations.run_migrations`: ``BEGIN IMMEDIATE`` is the schema lock."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def prepare(self) -> set[str]:
        self._conn.execute("CREATE TABLE IF NOT EXISTS jiyi_migrations"
                           " (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
        return {row[0] for row in self._conn.execute("SELECT name FROM jiyi_migrations")}

    @contextmanager
    def schema_transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[Any]:
        if params is None:  # a migration's own text: run as written
            return self._conn.execute(statement).fetchall()
        return self._conn.execute(statement, params).fetchall()

    def split(self, body: str) -> list[str]:
        return _split(body)


def _split(sql: str) -> list[str]:
    """Statements of a migration: ``;``-separated, a trigger's ``BEGIN ... END`` kept whole."""
    out: list[str] = []
    current = ""
    for piece in sql.split(";"):
        current += piece + ";"
        if sqlite3.complete_statement(current):
            if current.strip(" \n;"):
                out.append(current.strip())
            current = ""
    if current.strip(" \n;"):
        out.append(current.strip())
    return out
