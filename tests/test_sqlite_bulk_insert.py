"""``SQLiteStore.bulk_insert``: the public bulk copy ``jiyi migrate`` uses (one transaction, all
or nothing, vectors from arrays, FTS owner and rowid map derived on the way in)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from jiyi import Memory
from jiyi.errors import StoreError
from jiyi.store import open_store
from jiyi.store.sqlite import SQLiteStore
from jiyi.store.transfer import copy_store, read_rows, shared_tables


def _count(store: SQLiteStore, table: str) -> int:
    with store.locked() as conn:
        return int(conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0])


def test_copy_between_sqlite_files_goes_through_the_public_bulk_insert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    with Memory.open(src, embedder="fake") as mem:
        mem.ingest("我的订单号是 MG20261202", session_id="s1", user_id="amy")
        mem.ingest("我的電話號碼是 13700001111", session_id="s1", user_id="amy")
        mem.ingest("Ben prefers window seats", session_id="b1", user_id="ben")
    source, target = open_store(src), open_store(dst)
    assert isinstance(target, SQLiteStore)
    calls: list[int] = []
    real = SQLiteStore.bulk_insert

    def spy(self: SQLiteStore, tables: object) -> int:
        n = real(self, tables)  # type: ignore[arg-type]
        calls.append(n)
        return n

    monkeypatch.setattr(SQLiteStore, "bulk_insert", spy)
    try:
        assert all(r.ok for r in copy_store(source, target))
    finally:
        monkeypatch.undo()
        source.close()
        target.close()
    assert len(calls) == 1 and calls[0] > 0
    with Memory.open(dst, embedder="fake") as copy:
        for query, user, session in (("订单号 MG20261202", "amy", "s1"),
                                     ("電話號碼", "amy", "s1"), ("window seats", "ben", "b1")):
            hits = copy.recall(query, session_id=session, user_id=user, log=False)
            assert hits and hits[0].unit.user_id == user
        # the keyword index kept its owners: amy's words never reach ben
        assert all(h.unit.user_id == "ben" for h in copy.recall(
            "订单号 MG20261202", session_id="b1", user_id="ben", log=False))


def test_bulk_insert_is_all_or_nothing(tmp_path: Path) -> None:
    src = str(tmp_path / "a.db")
    with Memory.open(src, embedder="fake") as mem:
        mem.ingest("我喜欢喝乌龙茶", session_id="s", user_id="u")
    source = open_store(src)
    target = SQLiteStore(str(tmp_path / "b.db"))
    try:
        cols = shared_tables(source, target)["units"]
        units = list(read_rows(source, "units", cols))
        with pytest.raises(StoreError, match="no column"):
            target.bulk_insert({"units": (cols, units),
                                "turns": (["key", "no_such_column"], [("k", "x")])})
        with pytest.raises(StoreError, match="no table"):
            target.bulk_insert({"units": (cols, units), "nope": (["a"], [(1,)])})
        assert _count(target, "units") == 0  # the units of the failed calls were rolled back
        vcols = shared_tables(source, target)["unit_vectors"]
        vectors = list(read_rows(source, "unit_vectors", vcols))
        assert isinstance(vectors[0][vcols.index("vec")], np.ndarray)
        assert target.bulk_insert({"units": (cols, units),
                                   "unit_vectors": (vcols, vectors)}) == len(units) + len(vectors)
        assert list(read_rows(target, "units", cols)) == units
        back = list(read_rows(target, "unit_vectors", vcols))
        i = vcols.index("vec")
        assert np.array_equal(back[0][i], vectors[0][i]) and back[0][i].dtype == np.float32
    finally:
        source.close()
        target.close()
