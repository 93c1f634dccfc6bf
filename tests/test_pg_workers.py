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
    """Whether a text (a unit's source turns) is one of user ``n``'s facts."""
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
                    said = " ".join(t.text for t in mem.store.source_turns([hit.unit.id])
                                    .get(hit.unit.id, []))  # a clause may lack the tag
                    if hit.unit.user_id != f"user{other:03d}" or not owns(other, said):
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

    # what one process writes for one user's turns (the write path decides how many units)
    with Memory.open(":memory:", embedder="fake") as ref:
        texts = facts(0)
        for i, text in enumerate([*texts, texts[0]]):
            ref.ingest(text, session_id="s0", user_id="user000", at=T0 + timedelta(minutes=i))
        expected = sorted(len(ref.store.unit_turn_keys(u.id))
                          for u in ref.store.find_units(Scope("user000", None), as_of=None))
    per_user = len(expected)
    with Memory.open(pg_url, embedder="fake") as mem:
        store = mem.store
        st = store.stats(as_of=T0 + timedelta(hours=1))
        assert st.units_total == USERS * per_user  # no lost writes, no duplicates
        assert st.turns == USERS * 4
        assert st.users == USERS
        for n in range(USERS):
            units = store.find_units(Scope(f"user{n:03d}", None), as_of=None)
            said = store.source_turns([u.id for u in units])
            assert len(units) == per_user, n
            assert all(owns(n, " ".join(t.text for t in said[u.id])) for u in units), n
            assert len({u.content_hash for u in units}) == per_user
            turns = sorted(len(store.unit_turn_keys(u.id)) for u in units)
            assert turns == expected, n  # the repeated facts have both turns as provenance
        assert store.count_units_missing_vectors(mem.embedder.name) == 0
        for n in (0, 57, 199):
            hits = mem.recall(f"ORDU{n:03d}X1", session_id=f"s{n}", user_id=f"user{n:03d}",
                              as_of=T0 + timedelta(hours=1), k=3)
            assert f"ORDU{n:03d}X1" in hits[0].unit.content.upper()
