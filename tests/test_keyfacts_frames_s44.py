"""Frames of stop 44, read from the dev sets ``sets44``..``sets46`` (sets46 held out once, in
stop 43, its numbers printed then), each written for every script it applies to:

* **a diet or restriction lifted** is history from the turn that lifts it, whatever question
  reaches it later: eating again what it keeps out ("鸡肉牛肉都可以", "dairy's fine now"), the diet
  denied or over ("我现在不吃素了", "not coeliac after all", "戒糖一个月结束了"), an allergy outgrown
  or narrowed ("牛奶蛋白过敏好了", "原來只對蝦蟹過敏"), pescatarian after vegetarian though "still no
  meat" is said; sugar, caffeine and gluten are kinds a diet may keep out;
* **a move of plan with no plan typed**: the user's own earlier words naming a plan ("先办个洗护
  月卡", "30-minute weekly lessons to start") are the plan on file, superseded by a move to
  another that shares its noun or a word, or grades it ("drop down to", "降成");
* **a change asked as a question** ("can you bring it on Saturday mornings instead?", "could
  we bump him up to 45 min lessons?") is no open question to leave out, and a value said to work
  ("1 to 5pm works") or moved with an arrow ("周六→周日") is a change;
* **a name pointed back at** ("以后取货就报这个名字") gives no other name: the current one stays
  current.

Sentences written for these tests; look-alikes beside each frame change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.diets import diet_lifted, holds_a_diet
from jiyi.store.base import Scope
from keyfacts_memory import LATER, T0, ask_after, say, slot_units


@pytest.mark.parametrize(("text", "diet"), [
    ("I was vegetarian for years but I eat fish again now, pescatarian I guess. still no meat",
     "I'm vegetarian"),
    ("跟你们说一下我现在不吃素了，牛肉鸡肉都可以", "我吃素"),
    ("覆診後醫生說牛奶蛋白過敏好了，可以喝一般奶粉了", "我對牛奶蛋白過敏"),
    ("The sugar-free month is over, send the brownies again", "I'm doing sugar-free this month"),
    ("戒糖一个月结束了，甜点照常寄吧", "我在戒糖，别寄甜的"),
    ("Turns out I'm not coeliac after all, regular bread is fine", "I need gluten-free meals, "
     "I'm coeliac"),
    ("Baby's here! Back on full caffeine from the next bag please", "decaf only while I'm pregnant"),
    ("做了過敏測試，原來只對蝦蟹過敏，其他海鮮沒問題", "我對海鮮過敏"),
    ("dairy's fine now, the allergy clinic cleared me", "I'm dairy-free, no milk at all"),
])
def test_a_diet_or_restriction_is_lifted(text: str, diet: str) -> None:
    assert holds_a_diet(diet)
    assert diet_lifted(text, diet)


@pytest.mark.parametrize(("text", "diet"), [
    ("我老公不吃素了", "我吃素"),
    ("beef is fine for my husband", "I'm vegetarian"),
    ("牛肉不可以，鸡肉可以吗？", "我吃素"),
    ("Is decaf still on my order?", "decaf only while I'm pregnant"),
    ("still no meat for me, vegetarian as always", "I'm vegetarian"),
    ("我還是對海鮮過敏喔", "我對海鮮過敏"),
])
def test_look_alikes_lift_nothing(text: str, diet: str) -> None:
    assert not diet_lifted(text, diet)


@pytest.mark.parametrize(("turns", "old"), [
    (["我吃素，每次午餐都帮我备注一下", "跟你们说一下我现在不吃素了，牛肉鸡肉都可以"], "我吃素"),
    (["我對海鮮過敏，訂餐請幫我備註", "做了過敏測試，原來只對蝦蟹過敏，魚沒問題"], "對海鮮過敏"),
    (["I'm vegetarian, please note it for the Friday lunches",
      "Quick update, I've started eating fish again, so pescatarian now"], "I'm vegetarian"),
])
def test_a_lifted_restriction_is_history_from_the_lift(any_mem: Memory, turns: list[str],
                                                       old: str) -> None:
    say(any_mem, turns)
    current = any_mem.store.find_units(Scope("u", None), as_of=LATER)
    assert not any(old in u.content for u in current)
    # still there, as history: an earlier as_of finds it current
    before = any_mem.store.find_units(Scope("u", None), as_of=T0 + timedelta(days=1))
    assert any(old in u.content for u in before)


def test_someone_elses_lift_keeps_my_diet(any_mem: Memory) -> None:
    say(any_mem, ["我吃素，每次午餐都帮我备注一下", "我老公现在不吃素了，他的那份要牛肉"])
    current = any_mem.store.find_units(Scope("u", None), as_of=LATER)
    assert any("我吃素" in u.content for u in current)


@pytest.mark.parametrize(("turns", "new", "old"), [
    (["先办个洗护月卡吧", "月卡到期不续了，直接换成精致美容年卡"], "美容年卡", "洗护月卡"),
    (["我報的是每週一次的鋼琴課", "下個月開始改成兩週一次的課"], "兩週一次", "每週一次"),
    (["We'll take the Starter Sprout plan for the garden",
      "we switched to the Green Thumb plan at the counter yesterday"], "Green Thumb", "Starter Sprout"),
    (["I signed up for the Premium Box subscription",
      "money's tight, can we drop down to the Mini Box one?"], "Mini Box", "Premium Box"),
    (["I signed up for the Monthly Bloom Box",
      "a box every month is too much, let's do the Seasonal Box instead"], "Seasonal Box",
     "Monthly Bloom Box"),
    (["Just renewed my FilmPass Unlimited",
      "can you move me down to FilmPass Lite from next month?"], "FilmPass Lite",
     "FilmPass Unlimited"),
])
def test_a_move_replaces_a_plan_said_in_words(any_mem: Memory, turns: list[str], new: str,
                                               old: str) -> None:
    say(any_mem, turns)
    plans = [u.content for u in slot_units(any_mem, "membership")]
    assert len(plans) == 1 and new in plans[0]
    current = any_mem.store.find_units(Scope("u", None), as_of=LATER)
    assert not any(old in u.content for u in current)


@pytest.mark.parametrize("later", [
    "如果换成美容年卡会便宜多少？",
    "我闺蜜想换成美容年卡",
    "换成信用卡支付可以吗",
])
def test_look_alike_moves_keep_the_plan(any_mem: Memory, later: str) -> None:
    say(any_mem, ["先办个洗护月卡吧", later])
    assert not slot_units(any_mem, "membership")
    current = any_mem.store.find_units(Scope("u", None), as_of=LATER)
    assert any("洗护月卡" in u.content for u in current)


@pytest.mark.parametrize(("turns", "value"), [
    (["can you deliver weekday mornings before 9am?",
      "I'm back in the office now so weekdays won't work. Can you bring it on Saturday mornings "
      "instead?"], "Saturday mornings"),
    (["please deliver 9 to 11am, reception is staffed then",
      "reception is part time now, so no morning drops please — 1 to 5pm works"], "1 to 5pm"),
    (["每周上门取件 周三下午方便", "取件时间改下 周三→周五 上午十点左右"], "周三→周五"),
    (["每週來收件 週二下午方便", "收件時間改一下 週二→週四 早上十點左右"], "週二→週四"),
])
def test_a_change_asked_or_said_to_work_is_the_new_time(any_mem: Memory, turns: list[str],
                                                        value: str) -> None:
    say(any_mem, turns)
    times = [u.content for u in slot_units(any_mem, "delivery_time")]
    assert len(times) == 1 and value in times[0]


@pytest.mark.parametrize(("turns", "ask", "name"), [
    (["我叫周敏，订个蛋糕", "我改名了，现在叫周语彤", "以后取货就报这个名字哈"], "取货的时候报哪个名字", "周语彤"),
    (["我叫林雅婷", "我改名字了 現在叫林芷晴", "之後訂位都用這個名字"], "我訂位是用什麼名字", "林芷晴"),
])
def test_a_name_pointed_back_at_keeps_the_current_name(any_mem: Memory, turns: list[str],
                                                       ask: str, name: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    assert any(h.current and name in h.unit.content for h in hits)


@pytest.mark.parametrize(("turns", "value"), [
    (["报名云南6日游 有啥事直接打电话 微信我不常看"], "直接打电话"),
    (["訂了兩盒茶 有什麼問題就傳LINE給我"], "LINE"),
])
def test_an_indefinite_question_word_states_a_channel(any_mem: Memory, turns: list[str],
                                                      value: str) -> None:
    say(any_mem, turns)
    channels = [u.content for u in slot_units(any_mem, "contact_channel")]
    assert len(channels) == 1 and value in channels[0]


@pytest.mark.parametrize("later", [
    "我同事說你們也有 IG 私訊 那邊也會回嗎 還是只有LINE",
    "我想幫我阿媽訂兩盒茶 寄去佢屋企 佢冇 WhatsApp 嘅 出貨打電話俾佢就得",
    "我朋友说你们也能发短信 那个也行吗 还是只有微信",
])
def test_an_either_or_question_or_someone_elses_channel_keeps_mine(any_mem: Memory,
                                                                   later: str) -> None:
    say(any_mem, ["有貨到的話 用LINE通知我就好", later])
    channels = [u.content for u in slot_units(any_mem, "contact_channel")]
    assert len(channels) == 1 and "LINE通知我" in channels[0]


@pytest.mark.parametrize(("first", "later", "kind", "kept"), [
    ("Unit 7/12 Beach Rd, Bondi NSW 2026",
     "when the visa's ready can you courier it to my dad's place for this one? I'm staying with "
     "him for a fortnight. 4 Banksia St, Dubbo NSW 2830", "address", "Beach Rd"),
    ("Priya Nair, priya.nair@outlook.com",
     "I'm ordering a surprise cake for my brother. Could you send the updates for this one to his "
     "wife so he doesn't find out? meera.k@btinternet.com", "email", "priya.nair@outlook.com"),
])
def test_a_bare_value_after_a_one_off_request_is_not_mine(any_mem: Memory, first: str,
                                                          later: str, kind: str,
                                                          kept: str) -> None:
    say(any_mem, [first, later])
    values = [u.content for u in slot_units(any_mem, kind)]
    assert len(values) == 1 and kept in values[0]


@pytest.mark.parametrize(("turns", "ask", "old", "name"), [
    (["会员名就写 Kevin 吧", "会员名帮我改成真名 陈家豪 吧"], "我的会员名现在是啥", "Kevin", "陈家豪"),
    (["會員名先寫 Amy 就好", "會員名幫我改成本名 林佩君"], "我的會員名現在是什麼", "Amy", "林佩君"),
])
def test_words_on_the_name_before_the_current_one_are_history(any_mem: Memory, turns: list[str],
                                                             ask: str, old: str,
                                                             name: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    assert any(h.current and name in h.unit.content for h in hits)
    assert not any(h.current and old in h.unit.content for h in hits)


@pytest.mark.parametrize(("turns", "kept"), [
    (["家里订水 每周六上午送", "这周六我不在家 这次改周日送吧 就这一次 下周还是周六"], "每周六上午送"),
    (["家裡訂水 每週六上午送", "這週六我不在 這次改週日送吧 就這一次 下週照舊"], "每週六上午送"),
    (["Please deliver Friday mornings", "Can you deliver on Saturday instead? Just this once."],
     "Friday mornings"),
])
def test_a_one_off_said_after_the_value_keeps_the_standing_one(any_mem: Memory,
                                                               turns: list[str],
                                                               kept: str) -> None:
    say(any_mem, turns)
    times = [u.content for u in slot_units(any_mem, "delivery_time")]
    assert len(times) == 1 and kept in times[0]


@pytest.mark.parametrize(("turns", "kept"), [
    (["每周三下午送 我那天在家", "问一下 如果我改成晚上送能行吗 就是问问"], "每周三下午送"),
    (["Please deliver Wednesday afternoons", "if I moved it to evenings, would that work?"],
     "Wednesday afternoons"),
])
def test_a_supposed_change_asked_about_changes_nothing(any_mem: Memory, turns: list[str],
                                                       kept: str) -> None:
    say(any_mem, turns)
    times = [u.content for u in slot_units(any_mem, "delivery_time")]
    assert len(times) == 1 and kept in times[0]


@pytest.mark.parametrize(("turns", "kept"), [
    (["The router is a Netgear R7000 and I'm on the 500 Mbps plan",
      "I'd like to upgrade to the 1 Gbps plan once I've moved"], "Netgear R7000"),
    (["路由器是华硕 RT-AX86U，我办的是300M套餐", "搬家以后升级成千兆套餐吧"], "RT-AX86U"),
])
def test_a_plan_said_beside_another_fact_keeps_that_fact_current(any_mem: Memory,
                                                                 turns: list[str],
                                                                 kept: str) -> None:
    say(any_mem, turns)
    current = any_mem.store.find_units(Scope("u", None), as_of=LATER)
    assert any(kept in u.content for u in current)
