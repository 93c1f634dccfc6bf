"""A restriction on a kind of food, an allergy or eating only one thing now takes back the liked
foods it excludes (world knowledge kept as data in keyfacts/diets.py): "辣的都不吃了" after a
麻辣香锅, "对虾过敏" after 虾仁炒饭, "cut down red meat" after beef rendang, "现在只吃鸡胸肉"
after 红烧肉. Sentences written for these tests, three scripts; look-alikes take nothing back."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.diets import diet_excludes
from jiyi.recall.rules import slot_intent
from keyfacts_memory import T0, ask_after


@pytest.mark.parametrize(("text", "item"), [
    ("最近胃不好，辣的都不吃了", "水煮鱼"),
    ("醫生叫我戒咗辣，咖喱嘢唔好再推俾我", "咖喱牛腩"),
    ("最近對蝦過敏，以後唔好放", "蝦餃"),
    ("验出来对花生过敏", "花生酱拌面"),
    ("I'm allergic to peanuts now, found out last week", "peanut noodles"),
    ("got a shellfish allergy, so no more seafood for me", "garlic prawns"),
    ("doctor told me to cut down on red meat", "beef brisket"),
    ("開始減脂，炸的都不要了", "炸雞排"),
    ("现在只吃鸡胸肉", "红烧肉"),
    ("I only eat salads now", "cheeseburger"),
])
def test_a_restriction_takes_back_the_foods_it_excludes(text: str, item: str) -> None:
    assert diet_excludes(text, item)


@pytest.mark.parametrize(("text", "item"), [
    ("我超爱吃辣的", "水煮鱼"),
    ("my friend is allergic to shrimp", "shrimp fried rice"),
    ("你们的菜有没有花生过敏的提示？", "花生酱拌面"),
    ("最近對蝦過敏", "三文魚刺身"),
    ("I love spicy food", "green curry"),
    ("我不是对海鲜过敏，是对芒果过敏", "鲍鱼"),
    ("现在只吃鸡胸肉", "鸡胸肉沙拉"),
])
def test_look_alikes_take_nothing_back(text: str, item: str) -> None:
    assert not diet_excludes(text, item)


@pytest.mark.parametrize(("first", "change", "ask", "old"), [
    ("我最爱你们家的麻辣香锅", "最近上火严重，辣的都不吃了，清淡点", "我喜欢吃什么", "麻辣香锅"),
    ("我愛吃蝦仁炒飯，每週都點", "最近對蝦過敏，以後不要海鮮", "我的飲食偏好", "蝦仁炒飯"),
    ("I'm a big fan of your beef rendang", "Doctor said cut down red meat, so chicken dishes from now",
     "what food do I like?", "beef rendang"),
])
def test_a_food_taken_back_by_a_restriction_is_not_current(any_mem: Memory, first: str,
                                                          change: str, ask: str,
                                                          old: str) -> None:
    hits = ask_after(any_mem, [first, change], ask)
    assert not any(old in h.unit.content and h.current for h in hits)
    # kept: asked as of before the restriction, the like is there
    before = any_mem.recall(ask, session_id="s9", user_id="u", k=5, as_of=T0 + timedelta(days=1))
    assert any(old in h.unit.content and h.current for h in before)


@pytest.mark.parametrize(("question", "slot"), [
    ("客人偏好的通知管道？", "contact_channel"),
    ("應該點聯絡呢位客人？", "contact_channel"),
    ("How do I reach this customer now?", "contact_channel"),
    ("我會員名係？", "name"),
    ("会员名", "name"),
    ("現在訂購人是誰", "name"),
    ("给客户推荐什么菜？", "food"),
    ("What should I recommend to this customer food-wise?", "food"),
    ("What's the best number for the customer?", "phone"),
    ("When should the courier come?", "delivery_time"),
])
def test_more_ways_to_ask_find_their_slot(question: str, slot: str) -> None:
    intent = slot_intent(question)
    assert intent is not None and intent.slots[0].split(":")[0] == slot


@pytest.mark.parametrize("question", [
    "What desserts did Melanie bake for the party?",
    "会员名单在哪里下载？",
])
def test_look_alike_questions_ask_no_such_slot(question: str) -> None:
    intent = slot_intent(question)
    assert intent is None or intent.slots[0].split(":")[0] not in ("food", "name")
