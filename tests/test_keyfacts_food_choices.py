"""Food and drink choices that change (issue #24): a dish's attribute holds one level at a time
(sweetness, spice, ice, doneness, size, milk), a switch takes back what it leaves behind, a
diet taken up takes back the dishes it excludes, and likes said of a family or a group are cut
to their item. Three scripts (Simplified, Traditional with Cantonese, English), end to end on
both backends; look-alikes: a question, a denied level, someone else's choice, a switch of
another thing. Nothing is lost: the replaced choice is found for an earlier ``as_of``."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.choices import Level, chosen_levels, switch_in
from jiyi.keyfacts.schema import list_item, spec
from keyfacts_memory import T0, ask_after


@pytest.mark.parametrize(("text", "chosen"), [
    ("最近控糖，以后奶茶都改成半糖", {Level("sweetness", "half")}),
    ("之後飲料都幫我去冰", {Level("ice", "none")}),
    ("以後走辣就得，胃唔舒服", {Level("spice", "none")}),
    ("Mild from now on please, my stomach can't take it", {Level("spice", "mild")}),
    ("Well done for the steak from now on", {Level("doneness", "well")}),
    ("Can you make it oat milk from now on?", {Level("milk", "oat")}),  # a request chooses
    ("Can I get my latte with whole milk", {Level("milk", "whole")}),  # an order said so
    # look-alikes: a question, a denied level, someone else's choice
    ("半糖会不会太淡？", set()),
    ("不要全糖", set()),
    ("I don't want it extra spicy", set()),
    ("我妹妹都喝微糖", set()),
    ("My sister prefers it mild", set()),
    ("甜度可以選哪些？", set()),
])
def test_a_level_chosen(text: str, chosen: set[Level]) -> None:
    assert chosen_levels(text) == chosen


@pytest.mark.parametrize(("text", "old", "new"), [
    ("Please replace the salmon platter with the vegetable platter", "salmon", "vegetable"),
    ("switching to grass jelly now, boba's too sweet", "boba", "jelly"),
    ("Make it a flat white instead of a cappuccino", "cappuccino", "flat"),
    ("把珍珠换成椰果", "珍珠", "椰果"),
    ("下午茶改訂水果拼盤就好", "下午茶", "水果"),
    ("呢排轉飲凍檸茶，唔要奶茶喇", "奶茶", "柠茶"),
])
def test_a_switch_names_what_it_leaves(text: str, old: str, new: str) -> None:
    switch = switch_in(text)
    assert switch is not None
    assert old in switch.old_words and old not in switch.new_words
    assert any(new in w for w in switch.new_words)


@pytest.mark.parametrize("text", [
    "Can I switch to oat milk?",  # asks
    "换成椰果会不会比较甜？",
    "My friend switched to oat milk",  # someone else's
])
def test_no_switch(text: str) -> None:
    assert switch_in(text) is None


@pytest.mark.parametrize(("text", "item"), [
    ("我們家小孩很愛吃蛋", "蛋"),
    ("大家很爱吃蛋糕", "蛋糕"),
    ("我哋屋企個個都好鍾意食叉燒", "叉燒"),
    ("Whole family loved the paneer.", "paneer"),
    ("Loved the beef brisket bowl last time", "beef brisket bowl"),
    ("everyone loves the garlic naan", "garlic naan"),
])
def test_a_group_like_is_cut_to_its_item(text: str, item: str) -> None:
    row = spec("food")
    assert row is not None
    assert list_item(row, text) == item


LEVELS = [
    (["奶茶我一直要全糖", "最近在控糖，以后都改成半糖"], "我的奶茶甜度", "全糖", "半糖"),
    (["我點的便當都要不辣喔", "最近愛上吃辣了，之後都中辣"], "辣度", "不辣", "中辣"),
    (["凍檸茶正常冰呀", "以後少冰就得"], "冰量", "正常冰", "少冰"),
    (["I always order my curry extra spicy", "Mild from now on please, my stomach can't take it"],
     "spice level?", "extra spicy", "Mild"),
    # a liked "item" that is only a level is replaced by a new level
    (["Put extra pepper for my jollof abeg, I like am very spicy",
      "Doctor talk say make I reduce pepper, mild from now on for my jollof"],
     "pepper level?", "very spicy", "mild"),
    (["Large iced latte with vanilla is my usual", "Going for a small one now, trying to cut sugar"],
     "usual size?", "Large", "small"),
]
SWITCHES = [
    (["公司每次下午茶都订蛋糕", "同事们在控糖，下午茶改订水果拼盘吧"], "下午茶现在订什么", "蛋糕",
     "水果拼盘"),
    (["早餐的奶茶我都加珍珠", "珍珠換成椰果，熱量太高了"], "奶茶加料現在要什麼", "加珍珠", "椰果"),
    (["For our Friday lunches we'd like the salmon platter as usual",
      "Please replace the salmon platter with the vegetable platter from now on"],
     "Which platter do we order now?", "as usual", "vegetable"),
    (["公司年会订餐，大家都喜欢川菜", "老板说今年改粤菜，清淡点"], "年会订餐菜系", "川菜", "粤菜"),
    # another variant of the new dish, named with the thing whose content changes
    (["Our standing order is the mutton biryani for 20 people",
      "Please change our standing order to veg biryani, many staff are fasting"],
     "standing order?", "mutton", "veg biryani"),
]


@pytest.mark.parametrize(("turns", "question", "old", "new"), LEVELS + SWITCHES)
def test_a_replaced_choice_is_not_current(any_mem: Memory, turns: list[str], question: str,
                                          old: str, new: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert not any(h.current and old in h.unit.content and new not in h.unit.content
                   for h in hits)
    assert any(h.current and new in h.unit.content for h in hits)
    # nothing is lost: before the change, the old choice is the current one
    before = any_mem.recall(question, session_id="s8", user_id="u", k=5,
                            as_of=T0 + timedelta(days=1))
    assert any(h.current and old in h.unit.content for h in before)


LOOK_ALIKES = [
    # a question about the level changes nothing
    (["奶茶我一直要全糖", "半糖会不会太淡？"], "我的奶茶甜度", "全糖"),
    # someone else's choice
    (["I always order my curry extra spicy", "My sister prefers it mild"], "spice level?",
     "extra spicy"),
    (["我點的便當都要不辣喔", "我同事最近都點大辣"], "辣度", "不辣"),
    # a switch of another thing than food
    (["The salmon platter is what our team loves for lunch",
      "Change my contact to WhatsApp please, the team prefers it"], "What do we order for lunch?",
     "salmon"),
    # the new thing said before is not taken back by the switch to it
    (["I also love grass jelly in my milk tea", "switching to grass jelly now, boba's too sweet"],
     "topping?", "love grass jelly"),
    # a switch asked about, not made
    (["早餐的奶茶我都加珍珠", "珍珠換成椰果會不會比較甜？"], "奶茶加料要什麼", "加珍珠"),
]


@pytest.mark.parametrize(("turns", "question", "old"), LOOK_ALIKES)
def test_no_choice_replaces_nothing(any_mem: Memory, turns: list[str], question: str,
                                    old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert any(h.current and old in h.unit.content for h in hits)


@pytest.mark.parametrize(("turns", "question", "old"), [
    (["Loved the beef brisket bowl last time", "So I've gone vegetarian as of this month"],
     "Any dietary preference?", "brisket"),
    (["我最爱红烧牛肉面", "从这个月开始我吃素了"], "我的饮食偏好", "牛肉面"),
    (["我超鍾意食叉燒飯", "由呢個月開始我食齋"], "我鍾意食咩？", "叉燒"),
    # a drink with dairy, taken back by giving up dairy
    (["The usual flat white with full cream milk for me", "Switching to a long black now, cutting dairy"],
     "coffee order?", "full cream"),
    # an untyped dish of a group's order, taken back by a diet
    (["Our team loves the pepperoni pizza for Friday lunch",
      "Going halal for the team lunches from now on"], "what do we order for lunch?",
     "pepperoni"),
])
def test_a_diet_from_the_start_of_the_month_takes_back(any_mem: Memory, turns: list[str],
                                                       question: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert not any(h.current and old in h.unit.content for h in hits)
