"""Keeping :mod:`..cache.vectors` tables true to the SQLite file, in this and other processes.

Every write that can change what a vector search returns (a unit inserted, updated, deleted;
its vector put or removed; a turn vector put or removed) appends ``(user_id, kind, key)`` to
``vector_changes`` through triggers (migration ``m008_user_vectors``), inside the writer's own
transaction: whoever writes (this process, another worker, ``jiyi migrate``, an old build), the
log cannot miss it. A search reads, in one read snapshot, the log's head and the user's entries
since the table's last sync, re-reads just those rows, and only then scores. So a write, a
supersession, a forget or an erase is visible to the very next search, here or elsewhere.

``vector_cache_meta`` holds an ``epoch`` (a random number, redrawn by :meth:`erase_user` and by
``jiyi restore``: every table is then dropped) and ``pruned`` (the log keeps its last 50,000
entries; a table synced before that reloads in full). A search inside a write transaction (the
placement lock) reads SQL directly: its uncommitted changes must not enter a shared cache.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from ...errors import StoreError
from ..cache.keywords import KEYWORD_MIN_ROWS, KeywordTable
from ..cache.vectors import CachedTable, TableCache, UnitRow, VectorTable
from .migrations import owner_token

#: Default bound of the resident vectors per store (``JIYI_VECTOR_CACHE_MB`` overrides).
DEFAULT_CACHE_MB = 512
#: Tables of at least this many rows load in the background (a 50k-unit user's keyword index
#: takes seconds to fold); their first searches read SQL meanwhile.
BACKGROUND_MIN_ROWS = 5000
#: A refresh touching more rows than this (or than a fifth of the table) reloads in full.
MAX_DELTA = 5000

UNIT_ROW_SQL = (
    "SELECT u.id, u.session_id, u.type, u.created_at, u.expires_at, u.valid_at, u.valid_until,"
    " u.invalidated_at, u.superseded_by IS NOT NULL, v.vec"
    " FROM units u JOIN unit_vectors v ON v.unit_id = u.id AND v.embedder = ?"
    " WHERE u.user_id = ?"
)
UNIT_META_SQL = (
    "SELECT u.id, u.session_id, u.type, u.created_at, u.expires_at, u.valid_at, u.valid_until,"
    " u.invalidated_at, u.superseded_by IS NOT NULL FROM units u WHERE u.user_id = ?"
)
TURN_ROW_SQL = "SELECT turn_key, at, vec FROM turn_vectors WHERE user_id = ? AND embedder = ?"
HEAD_SQL = (
    "SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'vector_changes'),"
    " (SELECT value FROM vector_cache_meta WHERE name = 'epoch'),"
    " (SELECT value FROM vector_cache_meta WHERE name = 'pruned')"
)


def megabytes_from_env(name: str, default_mb: int) -> int:
    """The environment variable ``name``, a number of megabytes, in bytes (``default_mb`` when
    unset; 0 turns the feature off)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default_mb * 2**20
    try:
        mb = float(raw)
    except ValueError as exc:
        raise StoreError(f"{name} must be a number of megabytes, got {raw!r}") from exc
    if mb < 0:
        raise StoreError(f"{name} must not be negative")
    return int(mb * 2**20)


def cache_bytes_from_env(default_mb: int = DEFAULT_CACHE_MB) -> int:
    """``JIYI_VECTOR_CACHE_MB`` in bytes (0 turns the cache off)."""
    return megabytes_from_env("JIYI_VECTOR_CACHE_MB", default_mb)


def _unit_row(r: Any) -> UnitRow:
    return UnitRow(id=r[0], session_id=r[1], type=r[2], created_at=int(r[3]),
                   expires_at=int(r[4]), valid_at=r[5], valid_until=r[6], invalidated_at=r[7],
                   superseded=bool(r[8]), vec=r[9])


def read_table(conn: sqlite3.Connection, kind: str, user_id: str, embedder: str, dim: int,
               n: int) -> VectorTable:
    """Read one user's table of ``kind`` through ``conn`` (``n``: its expected rows)."""
    if kind == "kw":
        return read_keywords(conn, user_id, n)
    table = VectorTable(kind, dim, capacity=n)
    if kind == "unit":
        table.put_unit_rows(conn.execute(UNIT_ROW_SQL, (embedder, user_id)).fetchall())
    else:
        table.put_turn_rows(conn.execute(TURN_ROW_SQL, (user_id, embedder)).fetchall())
    return table


def read_keywords(conn: sqlite3.Connection, user_id: str, n: int) -> KeywordTable:
    """The user's keyword bodies (through the owner's FTS postings, which every insert path
    fills) and their units' filter columns."""
    bodies = dict(conn.execute("SELECT unit_id, body FROM units_fts WHERE units_fts MATCH ?",
                               (f'owner:"{owner_token(user_id)}"',)).fetchall())
    table = KeywordTable(capacity=n)
    for r in conn.execute(UNIT_META_SQL, (user_id,)):
        body = bodies.get(r[0])
        if body is not None:
            table.put(_unit_row((*r, b"")), body)
    return table


class SqliteVectorCache:
    """Mixin of :class:`~.store.SQLiteStore`: the resident tables and their freshness."""

    _lock: threading.RLock
    _conn: sqlite3.Connection
    _closed: bool
    location: str
    vector_cache: TableCache | None
    #: Tables of at least this many rows are loaded on a thread of their own (file stores).
    background_min_rows: int = BACKGROUND_MIN_ROWS
    _building: dict[tuple[str, str, str], threading.Thread]

    def _cached_table(self, kind: str, user_id: str, embedder: str,
                      dim: int) -> VectorTable | None:
        """The user's fresh table of ``kind`` (``"unit"``/``"turn"`` vectors, ``"kw"`` the
        keyword index of a big user), or None: no cache, a write transaction is open, a user
        too small for a keyword table, or a table that would not fit. Caller holds ``_lock``."""
        cache = self.vector_cache
        if self._closed:
            raise StoreError("the store is closed")
        if cache is None or self._conn.in_transaction:
            return None
        conn = self._conn
        conn.execute("BEGIN")  # one read snapshot: the head, the log and the rows agree
        try:
            head_row = conn.execute(HEAD_SQL).fetchone()
            head, epoch, pruned = (int(head_row[0] or 0), int(head_row[1] or 0),
                                   int(head_row[2] or 0))
            key = (kind, user_id, embedder)
            entry = cache.get(key)
            if entry is not None and (entry.epoch != epoch or head < entry.synced):
                cache.clear()  # an erase or a restore: nothing cached can be trusted
                entry = None
            if entry is not None and entry.synced < pruned:
                cache.discard(key)
                entry = None
            if entry is not None:
                if head > entry.synced and not self._refresh(entry, kind, user_id, embedder,
                                                             head):
                    cache.discard(key)
                    entry = None
                else:
                    if head > entry.synced:
                        cache.resized(key)  # the refresh may have grown it
                    entry.synced = head
                    return entry.table
            table = self._load(kind, user_id, embedder, dim, cache)
            if table is None:
                return None
            cache.loads += 1
            cache.put(key, CachedTable(table, head, epoch))
            return table
        finally:
            conn.execute("COMMIT")

    def _load(self, kind: str, user_id: str, embedder: str, dim: int,
              cache: TableCache) -> VectorTable | None:
        """Load a table now, or (a big one in a file store) start loading it on a thread of
        its own and answer None meanwhile: the search then reads SQL, and the user's first
        recall after a start does not wait seconds for their tables."""
        count_sql = ("SELECT COUNT(*) FROM turn_vectors WHERE user_id = ? AND embedder = ?"
                     if kind == "turn" else "SELECT COUNT(*) FROM units WHERE user_id = ?")
        args = (user_id, embedder) if kind == "turn" else (user_id,)
        n = int(self._conn.execute(count_sql, args).fetchone()[0])
        if kind == "kw" and n < KEYWORD_MIN_ROWS:
            return None
        if not cache.fits(n * (900 if kind == "kw" else dim * 4 + 8 * 8 + 101)):
            return None
        if n >= self.background_min_rows and self.location != ":memory:":
            self._build_later(kind, user_id, embedder, dim, n)
            return None
        return read_table(self._conn, kind, user_id, embedder, dim, n)

    def _build_later(self, kind: str, user_id: str, embedder: str, dim: int, n: int) -> None:
        key = (kind, user_id, embedder)
        if key in self._building:
            return
        thread = threading.Thread(target=self._build, args=(key, dim, n), daemon=True,
                                  name="jiyi-vector-table")
        self._building[key] = thread
        thread.start()

    def _build(self, key: tuple[str, str, str], dim: int, n: int) -> None:
        """On a connection of its own, in one snapshot: the log head, then the table; the
        next search applies what changed after that head."""
        kind, user_id, embedder = key
        try:
            conn = sqlite3.connect(Path(self.location).resolve().as_uri() + "?mode=ro",
                                   uri=True, check_same_thread=False, isolation_level=None)
            try:
                conn.execute("BEGIN")
                row = conn.execute(HEAD_SQL).fetchone()
                head, epoch = int(row[0] or 0), int(row[1] or 0)
                table = read_table(conn, kind, user_id, embedder, dim, n)
                conn.execute("COMMIT")
            finally:
                conn.close()
            with self._lock:
                cache = self.vector_cache
                if cache is not None and not self._closed and cache.get(key) is None:
                    cache.loads += 1
                    cache.put(key, CachedTable(table, head, epoch))
        except (sqlite3.Error, StoreError):
            pass  # the searches keep reading SQL; the next miss tries again
        finally:
            with self._lock:
                self._building.pop(key, None)

    def wait_for_tables(self, timeout: float = 60.0) -> None:
        """Wait until the tables being loaded in the background are in (tests, benchmarks)."""
        with self._lock:
            threads = list(self._building.values())
        for thread in threads:
            thread.join(timeout)

    def _refresh_keywords(self, table: KeywordTable, user_id: str, keys: list[str]) -> bool:
        """Re-read the changed units' rows and bodies (through the FTS rowid map); False when
        a body cannot be found that way (reload in full instead)."""
        seen: set[str] = set()
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            rows = self._conn.execute(f"{UNIT_META_SQL} AND u.id IN ({marks})",
                                      (user_id, *chunk)).fetchall()
            found = {r[0]: r for r in rows}
            bodies = dict(self._conn.execute(
                "SELECT m.unit_id, f.body FROM unit_fts_rows m JOIN units_fts f"
                f" ON f.rowid = m.fts_rowid WHERE m.unit_id IN ({marks})", chunk).fetchall())
            if set(found) - set(bodies):
                return False
            for uid, r in found.items():
                table.put(_unit_row((*r, b"")), bodies[uid])
                seen.add(uid)
        for gone in set(keys) - seen:
            table.drop(gone)
        return True

    def _refresh(self, entry: CachedTable, kind: str, user_id: str, embedder: str,
                 head: int) -> bool:
        """Apply the log entries after the table's sync; False: too many, reload instead."""
        keys = sorted({r[0] for r in self._conn.execute(
            "SELECT key FROM vector_changes WHERE user_id = ? AND kind = ? AND seq > ?"
            " AND seq <= ?", (user_id, "t" if kind == "turn" else "u", entry.synced, head))})
        table = entry.table
        if len(keys) > MAX_DELTA or len(keys) > max(64, table.size // 5):
            return False
        if not keys:
            return True
        if isinstance(table, KeywordTable):
            done = self._refresh_keywords(table, user_id, keys)
            if done and self.vector_cache is not None:
                self.vector_cache.deltas += 1
            return done
        seen: set[str] = set()
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            if kind == "unit":
                for r in self._conn.execute(f"{UNIT_ROW_SQL} AND u.id IN ({marks})",
                                            (embedder, user_id, *chunk)):
                    table.put_unit(_unit_row(r))
                    seen.add(r[0])
            else:
                for r in self._conn.execute(f"{TURN_ROW_SQL} AND turn_key IN ({marks})",
                                            (user_id, embedder, *chunk)):
                    table.put_turn(r[0], int(r[1]), r[2])
                    seen.add(r[0])
        for gone in set(keys) - seen:
            table.drop(gone)
        if self.vector_cache is not None:
            self.vector_cache.deltas += 1
        return True

    def _drop_cached_user(self, user_id: str) -> None:
        """Forget every table of ``user_id`` (after an erase in this process)."""
        if self.vector_cache is not None:
            for key in self.vector_cache.cached_keys():
                if isinstance(key, tuple) and len(key) == 3 and key[1] == user_id:
                    self.vector_cache.discard(key)
