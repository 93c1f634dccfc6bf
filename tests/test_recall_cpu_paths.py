"""The recall's cheaper paths give what the general ones gave, bit for bit (issue #21: the
milliseconds of a recall that are not the query embedding).

* a user's resident table loaded in one array fill equals the same rows put one by one;
* the table cache's running byte total equals the sum over its tables, so it drops the same
  tables;
* a hit built without ``model_construct``, the confidence from weights read once, the
  diversified top k without copying the rest, a UTC instant kept as it is: the same values.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest

from jiyi.clock import ensure_utc
from jiyi.config import RecallWeights
from jiyi.errors import StoreError
from jiyi.recall.multihop import diversify
from jiyi.recall.rerank import FEATURES, confidence, confidence_model, model_confidence
from jiyi.store.cache.vectors import CachedTable, TableCache, UnitRow, VectorTable
from jiyi.units import Hit, Lifespan, MemoryType, MemoryUnit, built_hit

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def _unit_rows(n: int, dim: int, seed: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        vec = np.asarray([rng.uniform(-1, 1) for _ in range(dim)], dtype=np.float32)
        created = 1_700_000_000_000_000 + rng.randrange(10**12)
        rows.append((f"u{i}", rng.choice(["s1", "s2", "s3"]),
                     rng.choice([t.value for t in MemoryType] + ["unknown_type"]),
                     created, created + rng.randrange(1, 10**12),
                     None if rng.random() < 0.5 else created - rng.randrange(10**9),
                     None if rng.random() < 0.5 else created + rng.randrange(10**12),
                     None if rng.random() < 0.7 else created + rng.randrange(10**12),
                     rng.random() < 0.3, vec.tobytes()))
    return rows


def _same_table(a: VectorTable, b: VectorTable) -> None:
    assert (a.n, a.dim, a.ids, a.row, a.sessions) == (b.n, b.dim, b.ids, b.row, b.sessions)
    assert a.vecs.shape == b.vecs.shape and np.array_equal(a.vecs, b.vecs)
    assert np.array_equal(a.live, b.live)
    assert a.cols.keys() == b.cols.keys()
    for c in a.cols:
        assert np.array_equal(a.cols[c], b.cols[c]), c
    assert a.nbytes == b.nbytes


@pytest.mark.parametrize("n", [1, 15, 16, 17, 100, 300])
def test_unit_rows_in_one_fill_equal_row_by_row(n: int) -> None:
    rows = _unit_rows(n, 8, seed=n)
    one_by_one = VectorTable("unit", 8, capacity=n)
    for r in rows:
        one_by_one.put_unit(UnitRow(*r))
    bulk = VectorTable("unit", 8, capacity=n)
    bulk.put_unit_rows(rows)
    _same_table(bulk, one_by_one)
    # a table asked for with another dimension takes the vectors' size, as row by row
    wrong_dim = VectorTable("unit", 384, capacity=n // 2)
    wrong_dim.put_unit_rows(rows)
    grown = VectorTable("unit", 384, capacity=n // 2)
    for r in rows:
        grown.put_unit(UnitRow(*r))
    _same_table(wrong_dim, grown)


def test_turn_rows_in_one_fill_equal_row_by_row() -> None:
    rng = np.random.default_rng(3)
    rows = [(f"t{i}", 1_700_000_000_000_000 + i * 7, rng.standard_normal(6).astype(
        np.float32).tobytes()) for i in range(40)]
    one_by_one = VectorTable("turn", 6, capacity=10)
    for key, at, blob in rows:
        one_by_one.put_turn(key, at, blob)
    bulk = VectorTable("turn", 6, capacity=10)
    bulk.put_turn_rows(rows)
    _same_table(bulk, one_by_one)


def test_rows_a_fill_cannot_take_go_row_by_row() -> None:
    rows = _unit_rows(5, 4, seed=9)
    mixed = [*rows[:3], (*rows[3][:9], np.zeros(5, np.float32).tobytes())]
    with pytest.raises(StoreError):  # vectors of two sizes: what a row-by-row put raises
        VectorTable("unit", 4).put_unit_rows(mixed)
    repeated = [*rows, rows[0]]  # a key twice: the later row overwrites, as row by row
    bulk, one_by_one = VectorTable("unit", 4), VectorTable("unit", 4)
    bulk.put_unit_rows(repeated)
    for r in repeated:
        one_by_one.put_unit(UnitRow(*r))
    _same_table(bulk, one_by_one)
    filled = VectorTable("unit", 4)  # a table already holding rows takes them one by one
    filled.put_unit_rows(rows[:2])
    filled.put_unit_rows(rows[2:])
    _same_table(filled, one_by_one)


def _table(n: int, dim: int = 8) -> VectorTable:
    table = VectorTable("unit", dim, capacity=n)
    table.put_unit_rows(_unit_rows(n, dim, seed=n))
    return table


def test_cache_total_is_the_sum_of_its_tables_and_drops_the_same_ones() -> None:
    rng = random.Random(5)
    limit = 60_000
    cache = TableCache(limit)
    summed: list[tuple[str, VectorTable]] = []  # the old rule: sum afresh at every put

    def summed_put(key: str, table: VectorTable) -> None:
        summed[:] = [(k, t) for k, t in summed if k != key] + [(key, table)]
        total = sum(t.nbytes for _, t in summed)
        while summed and total > limit:
            total -= summed.pop(0)[1].nbytes

    for step in range(200):
        key = f"k{rng.randrange(40)}"
        roll = rng.random()
        if roll < 0.6:
            table = _table(rng.randrange(1, 60))
            cache.put(key, CachedTable(table, 0, 0))
            summed_put(key, table)
        elif roll < 0.8 and cache.get(key) is not None:
            entry = cache.get(key)
            assert entry is not None
            entry.table.put_unit_rows(_unit_rows(rng.randrange(1, 40), 8, seed=step))
            cache.resized(key)  # a refresh grew it in place
            summed[:] = [(k, t) for k, t in summed if k != key] + [(key, entry.table)]
        elif roll < 0.9:
            cache.discard(key)
            summed[:] = [(k, t) for k, t in summed if k != key]
        assert cache.cached_keys() == [k for k, _ in summed]
        assert cache._total == cache.nbytes == sum(t.nbytes for _, t in summed)
    cache.clear()
    assert cache.nbytes == cache._total == 0 and cache.cached_keys() == []


def _unit(uid: str, turns: list[str]) -> MemoryUnit:
    return MemoryUnit(id=uid, content=uid, type=MemoryType.FACT_REFERENCE, user_id="u",
                      session_id="s", source_turn_ids=turns,
                      lifespan=Lifespan(created_at=T0, expires_in=86400))


def test_a_built_hit_is_the_constructed_one() -> None:
    unit = _unit("a", ["t1"])
    for status in ("current", "expired", "superseded"):
        built = built_hit(unit, 0.7, "semantic", 0.4, ["vector", "episode"], status)
        made = Hit.model_construct(unit=unit, score=0.7, stage="semantic", confidence=0.4,
                                   stages=["vector", "episode"], status=status)
        assert built == made and built.model_fields_set == made.model_fields_set
        assert built.model_dump() == made.model_dump() and built.current == made.current
        assert built.model_copy(update={"score": 0.1}).score == 0.1


def test_the_confidence_model_read_once_gives_the_same_bits() -> None:
    rng = random.Random(2)
    weights = RecallWeights()
    model = confidence_model(weights)
    for _ in range(500):
        features = {name: rng.choice([0.0, 1.0, rng.random(), rng.uniform(-1, 3)])
                    for name in FEATURES if rng.random() < 0.8}
        assert model_confidence(features, model) == confidence(features, weights)


def test_the_diversified_top_k_is_the_head_of_the_whole_list() -> None:
    rng = random.Random(8)
    for _ in range(100):
        hits = [Hit(unit=_unit(f"u{i}", rng.sample(["t1", "t2", "t3", "t4"], rng.randrange(3))),
                    score=rng.choice([0.5, rng.random()]), stage="semantic")
                for i in range(rng.randrange(1, 30))]
        for factor in (0.5, 0.9, 1.0):
            whole = diversify(hits, factor)
            for k in (1, 5, 10, 50):
                head = diversify(hits, factor, k)
                assert [(h.unit.id, h.score) for h in head] == [
                    (h.unit.id, h.score) for h in whole[:k]]


def test_a_utc_instant_is_kept_and_others_converted() -> None:
    assert ensure_utc(T0) is T0
    plus8 = datetime(2026, 3, 1, 8, tzinfo=timezone(timedelta(hours=8)))
    assert ensure_utc(plus8) == T0 and ensure_utc(plus8).tzinfo == timezone.utc
    assert ensure_utc(datetime(2026, 3, 1)) == T0
