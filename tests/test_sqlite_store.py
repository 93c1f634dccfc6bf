"""SQLite-specific behaviour: pragmas, migrations, transactions, FTS5 safety, warm-up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from jiyi.errors import StoreError
from jiyi.store.base import IngestBatch, Scope, TurnRecord
from jiyi.store.sqlite import SQLiteStore
from jiyi.store.sqlite.migrations import MIGRATIONS
from jiyi.units import Lifespan, MemoryType, MemoryUnit

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def _turn(key: str, text: str, user: str = "u", session: str = "s") -> TurnRecord:
    return TurnRecord(key=key, turn_id=key, session_id=session, user_id=user, role="user",
                      text=text, at=T0)


def _unit(content: str, user: str = "u", session: str = "s", **kw: object) -> MemoryUnit:
    return MemoryUnit(content=content, type=kw.pop("type", MemoryType.SESSION_STATE),  # type: ignore[arg-type]
                      lifespan=Lifespan(created_at=T0, expires_in=86400),
                      session_id=session, user_id=user, **kw)  # type: ignore[arg-type]


def test_pragmas_and_migrations(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    store = SQLiteStore(path)
    assert store.applied_migrations == [name for name, _ in MIGRATIONS]
    with store.locked() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
        names = [r[0] for r in conn.execute("SELECT name FROM jiyi_migrations")]
    assert names == [name for name, _ in MIGRATIONS]
    store.close()
    again = SQLiteStore(path)
    assert again.applied_migrations == []  # recorded, not re-applied
    again.close()


def test_ingest_batch_is_all_or_nothing(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "m.db"))
    good = _unit("订单 ABC123 已发货")
    batch = IngestBatch(turn=_turn("t1", "订单 ABC123 已发货"), upserts=[good],
                        vectors={good.id: np.ones(4, dtype=np.float32)}, embedder="e")
    # A second unit that violates the CHECK constraint on relevance (bypassing pydantic).
    bad = good.model_copy(update={"id": "m_bad", "lifespan": good.lifespan.model_copy(
        update={"relevance_score": 9.0})})
    batch.upserts.append(bad)
    with pytest.raises(StoreError, match="rolled back"):
        store.commit_ingest(batch)
    s = store.stats()
    assert (s.units_total, s.turns) == (0, 0)
    with store.locked() as conn:
        assert conn.execute("SELECT COUNT(*) FROM units_fts").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM unit_vectors").fetchone()[0] == 0
    store.close()


@pytest.mark.parametrize(
    "query",
    ['"', '*', 'NEAR(a b)', 'OR', 'AND NOT', "'; DROP TABLE units; --", 'abc"def', '^col:x',
     '订单 OR 1=1', '(((', 'body:ABC123'],
)
def test_fts_syntax_in_queries_is_just_text(tmp_path: Path, query: str) -> None:
    store = SQLiteStore(str(tmp_path / "m.db"))
    u = _unit("订单 ABC123 已发货")
    store.commit_ingest(IngestBatch(turn=_turn("t1", "订单 ABC123 已发货"), upserts=[u]))
    from jiyi.text import keyword_terms

    store.keyword_search(Scope("u", "s"), T0, keyword_terms(query) or [query], 10)
    assert store.stats().units_total == 1  # nothing dropped, nothing corrupted
    with store.locked() as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store.close()


def test_keyword_search_folds_traditional_and_case(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "m.db"))
    u1 = _unit("我的电话号码是13812345678")
    u2 = _unit("Order ABC123 has shipped")
    store.commit_ingest(IngestBatch(turn=_turn("t1", "x"), upserts=[u1, u2]))
    from jiyi.text import keyword_terms

    hits = store.keyword_search(Scope("u", "s"), T0, keyword_terms("我現在的電話"), 5)
    assert [h[0] for h in hits] == [u1.id]
    hits = store.keyword_search(Scope("u", "s"), T0, keyword_terms("ORDER shipped?"), 5)
    assert [h[0] for h in hits] == [u2.id]
    store.close()


def test_as_of_filter_is_in_the_query(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "m.db"))
    old = _unit("coupon CPN1 valid", valid_until=T0 + timedelta(hours=18))
    store.commit_ingest(IngestBatch(turn=_turn("t1", "x"), upserts=[old]))
    from jiyi.text import keyword_terms

    terms = keyword_terms("coupon")
    assert store.keyword_search(Scope("u", "s"), T0 + timedelta(hours=12), terms, 5)
    assert not store.keyword_search(Scope("u", "s"), T0 + timedelta(hours=20), terms, 5)
    # Kept for audit:
    assert store.get_units([old.id])[0].content == "coupon CPN1 valid"
    store.close()


def test_warm_loads_recent_valid_units(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "m.db"))
    recent = _unit("fresh").model_copy(update={"lifespan": Lifespan(
        created_at=datetime.now(UTC) - timedelta(hours=1), expires_in=86400)})
    stale = _unit("stale")  # created in May 2026, expired long ago
    store.commit_ingest(IngestBatch(turn=_turn("t1", "x"), upserts=[recent, stale]))
    assert store.warm(24) == 1
    store.close()
