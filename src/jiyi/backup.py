"""Online backup and restore of a SQLite store, taken while writers keep committing; a whole
memory copied between backends (:func:`copy_between`, ``jiyi migrate``).

A backup uses SQLite's online backup API on a connection of its own, copying every page in one
step inside one read transaction: in WAL mode writers keep committing meanwhile and the copy is
the exact state of the store at the instant the read began (every transaction committed before
it, none after). The copy goes to ``DEST.partial``, is checked (``PRAGMA integrity_check``) and
only then renamed onto ``DEST``, so a crash never leaves a half-written backup under that name.

A restore copies a checked backup into the target through the same API (never a file copy, which
would ignore the target's WAL), so connections that have the target open see the restored data.
PostgreSQL stores are backed up with ``pg_dump``; these functions refuse them with a clear error.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError, StoreError, ValidationError
from .store.registry import open_store
from .store.sqlite.migrations import NEW_CACHE_EPOCH_SQL
from .store.transfer import TableReport, copy_store

BUSY_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class BackupReport:
    source: str
    dest: str
    pages: int
    bytes: int
    units: int
    seconds: float


def _sqlite_path(location: str | os.PathLike[str], what: str) -> str:
    text = str(location)
    if text.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"{what} of a PostgreSQL store: use pg_dump / pg_restore")
    if text.startswith("sqlite:///"):
        text = text[len("sqlite:///"):]
    if text == ":memory:":
        raise ValidationError(f"{what} needs a file store, not :memory:")
    return text


def _connect(path: str, *, readonly: bool = False) -> sqlite3.Connection:
    uri = Path(path).resolve().as_uri() + ("?mode=ro" if readonly else "")
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    return conn


def check_store_file(path: str) -> int:
    """Integrity-check a jiyi SQLite file; return its number of units. Raises StoreError."""
    if not Path(path).is_file():
        raise ValidationError(f"no such file: {path}")
    try:
        conn = _connect(path, readonly=True)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open {path}: {exc}") from exc
    try:
        result = conn.execute("PRAGMA integrity_check").fetchall()
        if [r[0] for r in result] != ["ok"]:
            raise StoreError(f"{path} fails integrity_check: {result[:3]}")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"jiyi_migrations", "units", "turns"} <= tables:
            raise StoreError(f"{path} is not a jiyi store")
        return int(conn.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a readable SQLite database: {exc}") from exc
    finally:
        conn.close()


def backup(source: str | os.PathLike[str], dest: str | os.PathLike[str]) -> BackupReport:
    """Copy the store at ``source`` to ``dest`` consistently while writers run."""
    src = _sqlite_path(source, "backup")
    if not Path(src).is_file():
        raise ValidationError(f"no such store: {src}")
    target = Path(dest)
    if target.resolve() == Path(src).resolve():
        raise ValidationError("the backup must go to another file than the store")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    started = time.perf_counter()
    try:
        src_conn = _connect(src)
        try:
            dst_conn = sqlite3.connect(str(partial), isolation_level=None)
            try:
                src_conn.backup(dst_conn, pages=-1)  # one step = one consistent snapshot
                # The copy keeps the WAL flag of the source; fold it into one self-contained file.
                dst_conn.execute("PRAGMA journal_mode = DELETE")
                pages = int(dst_conn.execute("PRAGMA page_count").fetchone()[0])
            finally:
                dst_conn.close()
        finally:
            src_conn.close()
        units = check_store_file(str(partial))
        with open(partial, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(partial, target)
    except sqlite3.DatabaseError as exc:
        partial.unlink(missing_ok=True)
        raise StoreError(f"backup failed: {exc}") from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return BackupReport(src, str(target), pages, target.stat().st_size, units,
                        time.perf_counter() - started)


def _new_cache_epoch(conn: sqlite3.Connection) -> None:
    """Tell every process with cached vector tables of this file to drop them (see
    :mod:`jiyi.store.sqlite.caches`): the restored rows replace what they cached."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vector_cache_meta'").fetchone():
        conn.execute(NEW_CACHE_EPOCH_SQL)


def restore(source: str | os.PathLike[str], dest: str | os.PathLike[str], *,
            force: bool = False) -> BackupReport:
    """Replace the store at ``dest`` by the backup at ``source`` (checked first).

    Refuses to overwrite a store that holds units unless ``force``."""
    src = str(source)
    target = _sqlite_path(dest, "restore")
    started = time.perf_counter()
    units = check_store_file(src)
    if Path(target).is_file() and not force:
        existing = check_store_file(target) if Path(target).stat().st_size else 0
        if existing:
            raise ValidationError(
                f"{target} already holds {existing} units; pass --force to replace them")
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    try:
        src_conn = _connect(src, readonly=True)
        try:
            dst_conn = _connect(target)
            try:
                dst_conn.execute("PRAGMA journal_mode = WAL")
                src_conn.backup(dst_conn, pages=-1)
                dst_conn.execute("PRAGMA journal_mode = WAL")
                _new_cache_epoch(dst_conn)
                dst_conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                pages = int(dst_conn.execute("PRAGMA page_count").fetchone()[0])
            finally:
                dst_conn.close()
        finally:
            src_conn.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"restore failed: {exc}") from exc
    check_store_file(target)
    return BackupReport(src, target, pages, Path(target).stat().st_size, units,
                        time.perf_counter() - started)


def copy_between(source: str, target: str) -> list[TableReport]:
    """Copy a whole memory from the store at ``source`` into the EMPTY store at ``target``
    (SQLite <-> PostgreSQL; created and migrated if needed) in one transaction, then compare
    each table's row count and checksum (the reports; ``.ok`` per table). A missing
    ``source`` is an error, never a new empty store."""
    if source == target:
        raise StoreError("the source and the target name the same store")
    src = open_store(source, create=False)
    try:
        dst = open_store(target)
        try:
            return copy_store(src, dst)
        finally:
            dst.close()
    finally:
        src.close()
