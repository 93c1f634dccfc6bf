"""Many worker processes, one PostgreSQL: no lost writes, no duplicates, no cross-user leaks.

4 processes each own 50 of 200 users (as a sticky load balancer would route them), ingest three
facts per user and repeat one (the repeat must update, not duplicate) while recalling for
users that other processes are writing at that moment.
"""

from __future__ import annotations

import multiprocessing
import os
from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.store.base import Scope

pytestmark = pytest.mark.postgres

USERS = 200
WORKERS = 4
T0 = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)


def facts(n: int) -> list[str]:
    tag = f"U{n:03d}"
    return [
        f"我的订单号是 ORD{tag}X1，请尽快发货",
        f"我的電話號碼是 139{n:08d}",
        f"My favourite city is Town{tag}ville",
    ]


def owns(n: int, content: str) -> bool:
    """Whether a unit's content is one of user ``n``'s facts (the extractor may reword them)."""
    return f"U{n:03d}" in content.upper() or f"{n:08d}" in content


def worker(args: tuple[str, int]) -> tuple[int, int, int]:
    """Ingest for this worker's users, recall for everyone. Returns (ingests, recalls, leaks)."""
    url, index = args
    os.environ["JIYI_EMBEDDER"] = "fake"
    ingests = recalls = leaks = 0
    with Memory.open(url, embedder="fake") as mem:
        mine = [n for n in range(USERS) if n % WORKERS == index]
        for n in mine:
            texts = facts(n)
            for i, text in enumerate([*texts, texts[0]]):  # the last one repeats the first
                mem.ingest(text, session_id=f"s{n}", user_id=f"user{n:03d}",
                           at=T0 + timedelta(minutes=i))
                ingests += 1
            other = (n * 7 + index) % USERS  # someone, often owned by another process
            for query in ("订单号", "favourite city"):
                for hit in mem.recall(query, session_id=f"s{other}", user_id=f"user{other:03d}",
                                      as_of=T0 + timedelta(hours=1), k=5, log=False):
                    recalls += 1
                    if hit.unit.user_id != f"user{other:03d}" or not owns(other, hit.unit.content):
                        leaks += 1
    return ingests, recalls, leaks


def test_four_processes_two_hundred_users(pg_url: str) -> None:
    with Memory.open(pg_url, embedder="fake"):
        pass  # schema ready before the workers race (they would also cope: advisory lock)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WORKERS) as pool:
        results = pool.map(worker, [(pg_url, i) for i in range(WORKERS)])
    assert sum(r[0] for r in results) == USERS * 4
    assert sum(r[1] for r in results) > 0
    assert [r[2] for r in results] == [0] * WORKERS

    with Memory.open(pg_url, embedder="fake") as mem:
        store = mem.store
        st = store.stats(as_of=T0 + timedelta(hours=1))
        assert st.units_total == USERS * 3  # no lost writes, no duplicates
        assert st.turns == USERS * 4
        assert st.users == USERS
        for n in range(USERS):
            units = store.find_units(Scope(f"user{n:03d}", None), as_of=None)
            assert len(units) == 3 and all(owns(n, u.content) for u in units), n
            assert len({u.content_hash for u in units}) == 3
            turns = sorted(len(store.unit_turn_keys(u.id)) for u in units)
            assert turns == [1, 1, 2], n  # the repeated fact has both turns as provenance
        assert store.count_units_missing_vectors(mem.embedder.name) == 0
        for n in (0, 57, 199):
            hits = mem.recall(f"ORDU{n:03d}X1", session_id=f"s{n}", user_id=f"user{n:03d}",
                              as_of=T0 + timedelta(hours=1), k=3)
            assert f"ORDU{n:03d}X1" in hits[0].unit.content.upper()
