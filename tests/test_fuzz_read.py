"""Property tests of the read path: arbitrary queries, FTS5 syntax, user isolation.

A store holds several users whose memories are deliberately alike (same words, same codes).
Invariants for any query string: ``recall`` raises nothing but ``ValidationError``; it returns at
most k hits, best first; every hit belongs to the asking user and is either in the asking session
or a user-level memory of that user; nothing expired or replaced is presented as current (a valid
unit may be shown as said then: a key-fact question's context); queries with lone surrogates are
rejected cleanly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jiyi import Memory
from jiyi.errors import ValidationError

EXAMPLES = int(os.environ.get("JIYI_FUZZ_EXAMPLES", "30"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
USERS = [f"fr-{i}" for i in range(4)]

FTS5_SYNTAX = ['"', '""', "*", "^", ":", "(", ")", "{", "}", "-", "+", "NEAR(", "NEAR/2",
               " AND ", " OR ", " NOT ", "body:", "unit_id:", "units_fts", "'", ";", "--",
               "/*", "\\", "%", "_", "MATCH", "rank", "bm25(", "\x00", "\ud83d", "订单", "電話",
               "order", "AB123", "13800138000", "我", "？", " "]
QUERY = st.one_of(
    st.text(alphabet=st.characters(codec=None), max_size=200),
    st.lists(st.sampled_from(FTS5_SYNTAX), min_size=1, max_size=25).map("".join),
    st.lists(st.one_of(st.sampled_from(FTS5_SYNTAX), st.text(max_size=8)), max_size=20)
    .map(" ".join),
)


@pytest.fixture(scope="module")
def read_mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    path = Path(tmp_path_factory.mktemp("fuzzr")) / "fuzz.db"
    with Memory.open(str(path), embedder="fake") as mem:
        for n, user in enumerate(USERS):
            for s in range(2):
                sid = f"{user}-s{s}"
                turns = [
                    ("user", f"我叫用户{n}，电话 1380013800{n}，订单号 AB123{n}"),
                    ("user", f"我的訂單 AB123{n} 寄到臺北，電話 0912-345-67{n}"),
                    ("user", f"My order AB123{n} ships to Berlin; phone 13800138000"),
                    ("tool", f'{{"order_id": "AB123{n}", "status": "shipped", "session": "{s}"}}'),
                    ("assistant", f"好的，已记录订单 AB123{n} 的状态 order status"),
                ]
                for i, (role, text) in enumerate(turns):
                    mem.ingest(text, session_id=sid, user_id=user, role=role,
                               at=T0 + timedelta(minutes=10 * s + i))
        yield mem


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


@FUZZ
@given(query=QUERY, user=st.sampled_from(USERS), session=st.integers(0, 1), k=st.integers(1, 20))
def test_fuzz_recall_any_query_never_leaks(read_mem: Memory, query: str, user: str, session: int,
                                           k: int) -> None:
    sid = f"{user}-s{session}"
    try:
        hits = read_mem.recall(query, session_id=sid, user_id=user, k=k,
                               as_of=T0 + timedelta(hours=1))
    except ValidationError:
        return
    assert not _has_surrogate(query)
    assert len(hits) <= k
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    for hit in hits:
        assert hit.unit.user_id == user  # any of the user's sessions (the episodic layer)
        valid = hit.unit.is_valid_at(T0 + timedelta(hours=1))
        assert valid or not hit.current  # nothing expired or replaced is presented as current
        if valid and not hit.current:  # a key-fact question's context, shown as said then
            assert hit.status == "superseded"
        assert len(hit.unit.content) <= 150


@FUZZ
@given(head=st.text(max_size=30), tail=st.text(max_size=30),
       lone=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))
def test_fuzz_surrogate_queries_rejected(read_mem: Memory, head: str, tail: str,
                                         lone: str) -> None:
    query = head + lone + tail
    with pytest.raises(ValidationError):
        read_mem.recall(query, session_id="fr-0-s0", user_id="fr-0")


@FUZZ
@given(user=st.sampled_from(USERS), other=st.sampled_from(USERS))
def test_fuzz_exact_codes_of_other_users_never_come_back(read_mem: Memory, user: str,
                                                         other: str) -> None:
    n = other.split("-")[1]
    hits = read_mem.recall(f"订单 AB123{n} 电话 1380013800{n}", session_id=f"{user}-s0",
                           user_id=user, k=20, as_of=T0 + timedelta(hours=1))
    assert hits, "every user holds similar memories: something must come back"
    assert {h.unit.user_id for h in hits} == {user}
