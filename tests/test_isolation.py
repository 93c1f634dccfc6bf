"""50 users ingesting and recalling from 8 threads at once; zero leaks."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from jiyi import Memory

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def test_fifty_users_eight_threads_no_leaks(mem: Memory) -> None:
    users = [f"user-{i:02d}" for i in range(50)]

    def work(user: str) -> list[str]:
        problems: list[str] = []
        n = int(user[-2:])
        secret_code = f"CODE{n:02d}X{n * 7919 % 1000:03d}"
        for j in range(4):
            mem.ingest(f"我的订单号是 {secret_code}{j}，订单 order {secret_code}{j}",
                       session_id=f"{user}-s{j % 2}", user_id=user, at=T0 + timedelta(seconds=j))
            hits = mem.recall("我的订单号是多少 order number", session_id=f"{user}-s{j % 2}",
                              user_id=user, k=10, as_of=T0 + timedelta(minutes=1))
            for h in hits:
                if h.unit.user_id != user:
                    problems.append(f"{user} saw {h.unit.user_id}")
                if secret_code not in h.unit.content:
                    problems.append(f"{user} saw foreign content {h.unit.content!r}")
            if not hits:
                problems.append(f"{user} recalled nothing")
        return problems

    with ThreadPoolExecutor(max_workers=8) as pool:
        problems = [p for result in pool.map(work, users) for p in result]
    assert problems == []
    assert mem.store.stats().users == 50
