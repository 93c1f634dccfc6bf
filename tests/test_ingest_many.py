"""``Memory.ingest_many`` gives the same store as ``Memory.ingest`` one by one, and a known
``turn_id`` is a no-op on every call.

The turns mix zh-Hans, zh-Hant and en, two users and three sessions; they hold supersessions
(an e-mail, a phone number, a city changed), content repeats, a confirmation, a turn without an
id, and a ``turn_id`` repeated inside one batch and across batches. Both ways are compared unit
for unit on SQLite and PostgreSQL, with batches small enough to cut the chains and one batch
holding everything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from jiyi import Memory
from jiyi.config import JiyiConfig
from jiyi.embed.fake import FakeEmbedder
from jiyi.errors import BatchValidationError, ValidationError
from jiyi.units import MemoryType
from store_snapshot import snapshot, unit_summary

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)
USERS = ["u-zh", "u-en"]


def _turn(i: int, user: str, session: str, text: str, turn_id: str | None,
          role: str = "user") -> dict[str, Any]:
    item: dict[str, Any] = {"text": text, "session_id": session, "user_id": user, "role": role,
                            "at": (T0 + timedelta(minutes=i)).isoformat()}
    if turn_id is not None:
        item["turn_id"] = turn_id
    return item


TURNS: list[dict[str, Any]] = [
    _turn(0, "u-zh", "s-hans", "我的邮箱是 old@example.com", "h0"),
    _turn(1, "u-en", "s-en", "My email is alice@old.com", "e0"),
    _turn(2, "u-zh", "s-hant", "我的手機號碼是 0912345678", "t0"),
    _turn(3, "u-zh", "s-hans", "我的订单号是 ABC123", "h1"),
    _turn(4, "u-zh", "s-hans", "我的邮箱改成 new@example.com了", "h2"),  # supersedes h0
    _turn(5, "u-en", "s-en", "I live in Berlin", "e1"),
    _turn(6, "u-zh", "s-hans", "我的订单号是 XYZ999", "h1"),  # a known id: a no-op
    _turn(7, "u-en", "s-en", "Actually my email is now alice@new.com", "e2"),  # supersedes e0
    _turn(8, "u-zh", "s-hant", "我的手機號碼換成 0987654321", "t1"),  # supersedes t0
    _turn(9, "u-zh", "s-hans", "对，就是这个", "h3"),  # confirms the previous turns' facts
    _turn(10, "u-en", "s-en", "I moved to Paris", None),  # no id: a new turn every time
    _turn(11, "u-zh", "s-hans", "我的订单号是 ABC123", "h4"),  # the same fact again
    _turn(12, "u-zh", "s-hant", "我搬到高雄了", "t2"),
    _turn(13, "u-en", "s-en", "I moved to Paris", "e3"),
    _turn(14, "u-en", "s-en", "I live in Berlin", "e1"),  # a known id again
    _turn(15, "u-en", "s-en", "Noted: your email is alice@new.com.", "e4", role="assistant"),
    _turn(16, "u-zh", "s-hant", "我住在台北，手機號碼是 0911222333", "t3"),
]


def _fixed_clock() -> datetime:
    return NOW


@pytest.fixture
def two_urls(store_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[
        tuple[str, str]]:
    """Two empty stores of the same backend."""
    if not store_url.startswith("postgresql"):
        yield str(tmp_path / "one.db"), str(tmp_path / "many.db")
        return
    server = request.getfixturevalue("pg_server")
    name, url = server.fresh_database()
    try:
        yield store_url, url
    finally:
        server.drop(name)


def _open(url: str, embedder: Any = "fake", **kw: Any) -> Memory:
    return Memory.open(url, embedder=embedder, clock=_fixed_clock, **kw)


def _one_by_one(mem: Memory, turns: Sequence[dict[str, Any]]) -> list[list[Any]]:
    return [mem.ingest(t["text"], session_id=t["session_id"], user_id=t.get("user_id"),
                       role=t.get("role", "user"), at=t.get("at"), turn_id=t.get("turn_id"))
            for t in turns]


@pytest.mark.parametrize("batch_size", [3, 64])
def test_batch_equals_one_by_one(two_urls: tuple[str, str], batch_size: int) -> None:
    one_url, many_url = two_urls
    with _open(one_url) as one, _open(many_url) as many:
        singles = _one_by_one(one, TURNS)
        batched = many.ingest_many(TURNS, batch_size=batch_size)
        assert [unit_summary(u) for u in batched] == [unit_summary(u) for u in singles]
        expected = snapshot(one, USERS)
        assert snapshot(many, USERS) == expected
        # the chains are really there (the comparison is not of two empty stores)
        zh = expected["u-zh"]["units"]
        assert any(u["content"] == "用户的邮箱是new@example.com" and u["supersedes"]
                   for u in zh)
        assert any(u["content"] == "用戶的手機號是0987654321" and u["supersedes"] for u in zh)
        order = [u for u in zh if "ABC123" in u["content"] and u["type"] == "fact_reference"]
        assert len(order) == 1 and len(order[0]["source_turn_ids"]) == 2
        assert not any("XYZ999" in u["content"] for u in zh)  # the repeated id stored nothing
        assert any(u["content"] == "The user's email is alice@new.com" and u["supersedes"]
                   for u in expected["u-en"]["units"])
        # the repeat inside the batch returned the units of the turn it repeats
        assert unit_summary(batched[6]) == unit_summary(batched[3]) != []
        assert len(expected["u-zh"]["turns"]) == 9  # 10 zh items, one a repeated id
        assert len(expected["u-en"]["turns"]) == 6  # 7 en items, one a repeated id
        assert many.missing_vectors() == one.missing_vectors() == {"fake-64": 0}
        # the whole list again: every turn with an id is a no-op, the one without is new
        before = snapshot(many, USERS)
        again = many.ingest_many(TURNS, batch_size=batch_size)
        after = snapshot(many, USERS)
        assert after["u-zh"] == before["u-zh"]
        assert len(after["u-en"]["turns"]) == len(before["u-en"]["turns"]) + 1
        # a repeat returns the units cut from its turn; a confirmation cuts none (it only
        # reinforced the earlier turns' units, which its first ingest returned)
        assert [sorted(unit_summary(u)) for i, u in enumerate(again) if i not in (9, 10)] == \
            [sorted(unit_summary(u)) for i, u in enumerate(batched) if i not in (9, 10)]
        assert again[9] == [] and batched[9]


def test_repeat_turn_id_is_a_noop_for_ingest(any_mem: Memory) -> None:
    first = any_mem.ingest("我的邮箱是 a@example.com", session_id="s", user_id="u",
                           turn_id="d1", at=T0)
    stats = any_mem.store.stats(user_id="u")
    again = any_mem.ingest("我的郵箱是 b@example.com", session_id="s", user_id="u",
                           turn_id="d1", at=T0 + timedelta(hours=1))
    assert [u.id for u in again] == [u.id for u in first]
    assert any_mem.store.stats(user_id="u") == stats
    # the same id in another session, or for another user, is another turn
    other = any_mem.ingest("I live in Oslo", session_id="s2", user_id="u", turn_id="d1", at=T0)
    assert ("The user lives in Oslo", "user_profile", "city") in unit_summary(other)
    assert any_mem.store.stats(user_id="u").turns == 2
    assert any_mem.ingest("I live in Rome", session_id="s", user_id="v", turn_id="d1", at=T0)
    # without an id every call is a new turn
    any_mem.ingest("好的", session_id="s", user_id="w")
    any_mem.ingest("好的", session_id="s", user_id="w")
    assert any_mem.store.stats(user_id="w").turns == 2


def test_concurrent_repeats_write_once(store_url: str) -> None:
    """Eight threads ingest the same turn id at once: one turn, one unit, same answer."""
    results: list[list[str]] = []
    errors: list[BaseException] = []
    with _open(store_url) as mem:
        barrier = threading.Barrier(8)

        def run(k: int) -> None:
            try:
                barrier.wait()
                units = mem.ingest(f"我的手機號碼是 09{k:08d}", session_id="s", user_id="u",
                                   turn_id="same", at=T0)
                results.append(sorted(u.id for u in units))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert len({tuple(r) for r in results}) == 1 and results[0]
        stats = mem.store.stats(user_id="u")
        assert stats.turns == 1 and stats.units_total == 1


def test_bad_items_store_nothing(any_mem: Memory) -> None:
    turns: list[Any] = [
        {"text": "我的邮箱是 ok@example.com", "session_id": "s"},
        {"text": "   ", "session_id": "s"},
        {"text": "fine", "session_id": "s", "at": "not a time"},
        "just a string",
        {"text": "好", "session_id": "s", "colour": "teal"},
        {"text": "ok", "session_id": "s", "role": "robot"},
        {"session_id": "s"},
        {"text": "ok"},
    ]
    with pytest.raises(BatchValidationError) as info:
        any_mem.ingest_many(turns)
    assert [i for i, _ in info.value.problems] == [1, 2, 3, 4, 5, 6, 7]
    assert "turn 1: text is empty" in str(info.value)
    assert "nothing was stored" in str(info.value)
    assert any_mem.store.stats().turns == 0
    with pytest.raises(ValidationError, match="list"):
        any_mem.ingest_many({"text": "x", "session_id": "s"})
    with pytest.raises(ValidationError, match="batch_size"):
        any_mem.ingest_many([], batch_size=0)
    assert any_mem.ingest_many([]) == []


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting its calls."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.calls = 0

    def embed_passages(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        return super().embed_passages(texts)


def test_one_embedder_call_per_batch_and_space(db_path: str) -> None:
    default, tools = CountingEmbedder(64), CountingEmbedder(32)
    turns = [_turn(i, "u", "s", text, f"c{i}", role)
             for i, (text, role) in enumerate([
                 ("我的邮箱是 x@example.com", "user"),
                 ('{"tool": "get_order", "result": {"order_id": "A1", "status": "shipped"}}',
                  "tool"),
                 ("I live in Lisbon", "user"),
                 ("我的手機號碼是 0912000111", "user"),
                 ('{"tool": "get_order", "result": {"order_id": "B2", "status": "paid"}}',
                  "tool"),
             ])]
    with Memory.open(db_path, embedder=default,
                     type_embedders={MemoryType.TOOL_RESULT: tools}) as mem:
        out = mem.ingest_many(turns, batch_size=len(turns))
        assert any(u.type == MemoryType.TOOL_RESULT for units in out for u in units)
        assert (default.calls, tools.calls) == (1, 1)
        assert mem.missing_vectors() == {"fake-64": 0, "fake-32": 0}
        mem.ingest_many([{**t, "turn_id": f"d{i}"} for i, t in enumerate(turns)], batch_size=2)
        assert default.calls == 1 + 3  # three batches, each one call per space


def test_progress_and_auto_gc_run_per_batch(db_path: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    import jiyi.memory as memory_module

    real: Callable[[Memory], Any] = memory_module.auto_gc_after_ingest
    monkeypatch.setattr(memory_module, "auto_gc_after_ingest",
                        lambda m: calls.append(1) or real(m))
    seen: list[tuple[int, int]] = []
    with Memory.open(db_path, embedder="fake", config=JiyiConfig(auto_gc=True)) as mem:
        turns = [_turn(i, "u", "s", f"第{i}条 note {i}", f"p{i}") for i in range(7)]
        mem.ingest_many(turns[:5], batch_size=3)
        mem.ingest_many(turns, batch_size=3, progress=lambda n, new: seen.append((n, new)))
    assert len(calls) == 2 + 3
    assert seen == [(3, 0), (3, 1), (1, 1)]


def test_interrupted_batch_rolls_back_only_itself(store_url: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupt while a batch commits leaves the earlier batches; the rerun resumes."""
    turns = [_turn(i, "u", "s", f"我的订单号是 K{i:04d}", f"k{i}") for i in range(10)]
    with _open(store_url) as mem:
        real = mem.store.commit_ingest
        count = {"n": 0}

        def flaky(batch: Any) -> None:
            count["n"] += 1
            if count["n"] == 6:  # the second turn of the second batch
                raise KeyboardInterrupt
            real(batch)

        monkeypatch.setattr(mem.store, "commit_ingest", flaky)
        with pytest.raises(KeyboardInterrupt):
            mem.ingest_many(turns, batch_size=4)
        assert mem.store.stats(user_id="u").turns == 4
        assert mem.store.stats(user_id="u").units_total == 4
        monkeypatch.setattr(mem.store, "commit_ingest", real)
        new: list[int] = []
        mem.ingest_many(turns, batch_size=4, progress=lambda n, k: new.append(k))
        assert new == [0, 4, 2]
        assert mem.store.stats(user_id="u").turns == 10
