"""The SQLite store reads its file through a memory map (issue #21: a cold user's scattered
vector pages), bounded by ``JIYI_SQLITE_MMAP_MB`` (writes seen across connections and
processes: tests/test_vector_cache.py, which runs with the map on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jiyi.errors import StoreError
from jiyi.store.sqlite.store import DEFAULT_MMAP_MB, SQLiteStore, mmap_bytes_from_env


def _mmap_size(store: SQLiteStore) -> int:
    with store.locked() as conn:
        return int(conn.execute("PRAGMA mmap_size").fetchone()[0])


def test_file_store_reads_through_a_memory_map(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JIYI_SQLITE_MMAP_MB", raising=False)
    store = SQLiteStore(str(tmp_path / "m.db"))
    try:
        assert _mmap_size(store) == DEFAULT_MMAP_MB * 2**20
    finally:
        store.close()


def test_env_bounds_or_turns_off_the_map(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIYI_SQLITE_MMAP_MB", "0")
    store = SQLiteStore(str(tmp_path / "off.db"))
    try:
        assert _mmap_size(store) == 0
    finally:
        store.close()
    monkeypatch.setenv("JIYI_SQLITE_MMAP_MB", "8")
    assert mmap_bytes_from_env() == 8 * 2**20
    monkeypatch.setenv("JIYI_SQLITE_MMAP_MB", "lots")
    with pytest.raises(StoreError):
        mmap_bytes_from_env()
    monkeypatch.setenv("JIYI_SQLITE_MMAP_MB", "-1")
    with pytest.raises(StoreError):
        mmap_bytes_from_env()
