"""The same fact ingested for the same user by several processes at once becomes ONE unit.

The content-hash check and the write it leads to run under ``Store.placement_lock`` (SQLite: the
database write lock; PostgreSQL: a per-user advisory lock), so no worker can slip in between.
"""

from __future__ import annotations

import multiprocessing
from datetime import UTC, datetime

from jiyi import Memory
from jiyi.store.base import Scope

PROCESSES = 4
ROUNDS = 6
T0 = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)
FACTS = ["我的邮箱是 race@example.com", "My favourite colour is teal"]


def worker(args: tuple[str, int]) -> int:
    url, index = args
    with Memory.open(url, embedder="fake") as mem:
        for r in range(ROUNDS):
            for k, text in enumerate(FACTS):  # one turn id per turn: a known id is a no-op
                mem.ingest(text, session_id="s-race", user_id="racer", at=T0,
                           turn_id=f"p{index}-r{r}-f{k}")
    return ROUNDS * len(FACTS)


def test_concurrent_repeats_never_duplicate(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake") as mem:  # migrate once before the race
        mem.store.stats()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(PROCESSES) as pool:
        done = sum(pool.map(worker, [(store_url, i) for i in range(PROCESSES)]))
    assert done == PROCESSES * ROUNDS * len(FACTS)
    with Memory.open(store_url, embedder="fake") as mem:
        units = mem.store.find_units(Scope("racer", None), as_of=None)
        by_hash: dict[str, int] = {}
        for u in units:
            by_hash[u.content_hash] = by_hash.get(u.content_hash, 0) + 1
        assert by_hash and all(n == 1 for n in by_hash.values()), by_hash
        # every acknowledged repeat is recorded as provenance of the one unit
        for u in units:
            assert len(u.source_turn_ids) == PROCESSES * ROUNDS, u.source_turn_ids
        assert mem.store.stats(user_id="racer").turns == PROCESSES * ROUNDS * len(FACTS)
