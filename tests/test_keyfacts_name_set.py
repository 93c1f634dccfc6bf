"""A name set on the user's record, in any script: a verb of setting the name of something that
holds one ("会员名改成X", "收件人轉做我阿媽X", "set the account holder as X", "the name should be
written as X") gives a person; the write path types it as the user's new name, or the account's
or a role's when someone else is named. Sentences written for these tests; look-alikes (a colour,
a place, a day, a product set "to" something) name nobody."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Memory
from jiyi.text.entities import extract_entities, sets_a_name
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import ask_after, say, slot_units

AT = datetime(2026, 5, 4, tzinfo=UTC)


def _people(text: str) -> list[str]:
    return [e.text for e in extract_entities(text, AT) if e.kind == "person"]


def _slots(text: str) -> dict[str, str]:
    drafts = extract_turn(TurnInput(text, "user", AT, "s", "u", "t")).drafts
    return {d.slot: d.content for d in drafts if d.slot}


@pytest.mark.parametrize(("text", "name"), [
    ("会员资料麻烦帮我改成孙雅琴，谢谢", "孙雅琴"),
    ("姓名那一栏改为郭志强吧", "郭志强"),
    ("收件人换成我妈妈宋丽华，她在家", "宋丽华"),
    ("登記嘅名麻煩改做袁家豪，唔該", "袁家豪"),
    ("帳戶名稱請改成蕭雅雯喔", "蕭雅雯"),
    ("我全名係潘詠欣，之前少打咗個字", "潘詠欣"),
    ("打錯字呀，係魏嘉明先啱", "魏嘉明"),
    ("离婚了，名字麻烦改回唐静怡就好", "唐静怡"),
    ("结婚后冠了夫姓，会员名改成陆沈雨桐", "陆沈雨桐"),
    ("Please set the account holder as Farah Haddad from today", "Farah Haddad"),
    ("Could you switch the booking to Tomasz Nowak? He is taking over", "Tomasz Nowak"),
    ("the name on file should be written as Oluwaseun Adeyemi, not the short form", "Oluwaseun Adeyemi"),
    ("change the recipient to my brother Kwame Mensah please", "Kwame Mensah"),
    ("the account goes to my wife from next month, Priya Raman.", "Priya Raman"),
])
def test_a_name_set_on_a_record_is_a_person(text: str, name: str) -> None:
    assert name in _people(text)


@pytest.mark.parametrize("text", [
    "颜色帮我改成白色吧",
    "地址改回高新区吧",
    "送货时间改成周五吧",
    "資料裡的城市改成高雄",
    "会员名改成金卡吧",
    "please change my delivery to Saturday morning",
    "I moved the order to Express Shipping",
    "Switch the account to Apple Pay please",
    "change the booking to Friday Evening",
    "I'll have it delivered to Central Station",
])
def test_a_thing_set_to_a_value_that_is_no_name_names_nobody(text: str) -> None:
    assert _people(text) == []


@pytest.mark.parametrize(("lead", "sets"), [
    ("会员名麻烦改成", True),
    ("訂購人可以改成", True),
    ("please set the account holder as ", True),
    ("the name should be written as ", True),
    ("颜色改成", False),
    ("I moved the order to ", False),
])
def test_sets_a_name_reads_the_words_before_a_name(lead: str, sets: bool) -> None:
    assert sets_a_name(lead) is sets


@pytest.mark.parametrize(("text", "slot", "name"), [
    ("会员名麻烦改成孙雅琴，谢谢", "name", "孙雅琴"),
    ("會員名麻煩改做袁家豪，唔該", "name", "袁家豪"),
    ("Please note the name should be written as Oluwaseun Adeyemi from now on", "name",
     "Oluwaseun Adeyemi"),
    ("收件人改成我弟邓志伟，我那几天不在家", "name:recipient", "邓志伟"),
    ("收件人轉做我媽咪梁秀芬啦，佢日頭喺屋企", "name:recipient", "梁秀芬"),
    ("my dad says the account should be under him, so set the account holder as Martin Kowalski",
     "name:account", "Martin Kowalski"),
])
def test_the_write_path_types_a_name_set_on_a_record(text: str, slot: str, name: str) -> None:
    slots = _slots(text)
    assert slot in slots and name in slots[slot]


@pytest.mark.parametrize(("first", "change", "ask", "old", "new"), [
    ("我是孙雅芳，想查下订单", "会员名麻烦改成孙雅琴，之前登记错了", "我的会员名字是什么", "孙雅芳", "孙雅琴"),
    ("你好，我係袁家樂，想問張單", "登記嘅名麻煩改做袁家豪，唔該", "我個名登記咗咩", "袁家樂", "袁家豪"),
    ("你好，我是蕭雅文，想問退貨", "帳戶名稱請改成蕭雅雯喔，之前打錯了", "帳戶名字是什麼", "蕭雅文", "蕭雅雯"),
    ("我叫王晓明，帮我查下快递", "名字写错了，应该是王小明", "我叫什么名字？", "王晓明", "王小明"),
    ("我叫王曉明，幫我查下速遞", "個名寫錯咗，應該係王小明", "我叫咩名？", "王曉明", "王小明"),
    ("Hi, this is Seun Adeyemi about my blender order",
     "Please note the name should be written as Oluwaseun Adeyemi, Seun is short",
     "what is my name on the account?", "Seun Adeyemi", "Oluwaseun Adeyemi"),
])
def test_the_new_name_is_current_and_the_old_one_is_not(any_mem: Memory, first: str, change: str,
                                                       ask: str, old: str, new: str) -> None:
    hits = ask_after(any_mem, [first, change], ask)
    assert any(new in h.unit.content and h.current for h in hits)
    assert not any(old in h.unit.content and new not in h.unit.content and h.current
                   for h in hits)


def test_a_recipient_set_for_a_relative_leaves_the_users_own_name(any_mem: Memory) -> None:
    say(any_mem, ["我是邓志强，订单帮我查一下", "收件人改成我弟邓志伟，我那几天不在家"])
    assert any("邓志强" in u.content for u in slot_units(any_mem, "name")
               if u.slot == "name")
    assert any("邓志伟" in u.content for u in slot_units(any_mem, "name")
               if u.slot == "name:recipient")


@pytest.mark.parametrize(("text", "slot"), [
    ("如果我升等成白金的話，會有什麼額外福利？", "membership"),
    ("假如我开了年费黑卡，能省多少？", "membership"),
    ("if I upgraded to Gold tier would shipping be free", "membership"),
    ("要是我搬去深圳市南山区科技园路1号，运费多少", "address"),
    ("这次给我爸寄个礼物，寄到武汉市江岸区解放大道1000号，就这单", "address"),
    ("can you also cc my assistant dana@mikerealty.com on this one invoice? thx", "email"),
    ("呢張單淨係呢次寄去公司，九龍灣宏照道38號，唔該", "address"),
])
def test_a_supposed_or_one_off_value_is_no_slot(text: str, slot: str) -> None:
    assert slot not in _slots(text)


@pytest.mark.parametrize(("text", "slot"), [
    ("如果有问题就打我电话13800138000", "phone"),
    ("call me at 415-555-0192 if anything comes up", "phone"),
    ("If you need anything, my new number is 628-555-0147", "phone"),
    ("我而家係金卡會員", "membership"),
])
def test_a_value_outside_the_supposition_is_stated(text: str, slot: str) -> None:
    assert slot in _slots(text)


@pytest.mark.parametrize(("first", "change", "ask", "old"), [
    ("我开了plus会员的，为啥还要运费", "plus退了，太贵，现在用免费版就行", "我现在是什么会员", "plus"),
    ("我係Plus會員，點解仲要運費", "個Plus我退咗喇，太貴", "我而家咩會員", "Plus"),
    ("hey so im on the Silver plan, can i stack codes", "i let my membership lapse, not paying for it",
     "what tier am i on", "Silver"),
])
def test_a_membership_said_to_have_ended_is_not_current(any_mem: Memory, first: str, change: str,
                                                       ask: str, old: str) -> None:
    hits = ask_after(any_mem, [first, change], ask)
    assert any(old in h.unit.content for h in hits)  # still found, as history
    assert not any(old in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize(("first", "change", "ask", "level"), [
    ("我係Plus會員，點解仲要運費", "如果我升等成白金的話，會有什麼額外福利？", "我而家咩會員", "Plus"),
    ("我目前黄金会员", "假如我开了年费黑卡，能省多少？先问问哈", "会员等级", "黄金"),
    ("I'm a Gold member", "my sister cancelled her Platinum membership", "what's my tier?", "Gold"),
])
def test_a_supposed_level_or_someone_elses_ending_leaves_the_level(any_mem: Memory, first: str,
                                                                  change: str, ask: str,
                                                                  level: str) -> None:
    hits = ask_after(any_mem, [first, change], ask)
    assert any(level in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize(("first", "change", "ask", "old"), [
    ("hello, i'm Keisha Robinson, following up on my complaint",
     "a supervisor named Mr. Patel said he would call me back. nobody called", "my name on file?",
     "Keisha Robinson"),
    ("我是蘇佩珊，之前客服說要幫我補寄", "上次是一個叫王小姐的專員處理的，到現在都沒有", "麻煩確認一下我的名字",
     "蘇佩珊"),
    ("Hi, Nadia Petrova here, about my pillow order", "my doctor, Dr. Harrison, said I need the soft one",
     "name on the order?", "Nadia Petrova"),
])
def test_someone_spoken_of_later_leaves_the_users_name_current(any_mem: Memory, first: str,
                                                             change: str, ask: str,
                                                             old: str) -> None:
    hits = ask_after(any_mem, [first, change], ask)
    assert any(old in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize(("first", "change", "ask", "old", "new"), [
    ("哈囉～我是阿珍啦 想問退貨", "資料要寫本名吧，我叫林淑珍", "我的會員名字是？", "阿珍", "林淑珍"),
    ("收到啦，多謝晒 — 黃美玲", "會員名麻煩改做何黃美玲，啱啱結咗婚", "會員登記名", "— 黃美玲", "何黃美玲"),
    ("谢谢你们 许志文 敬上", "名字改成许志远了，上个月改的名", "我叫什么名字", "许志文", "许志远"),
])
def test_an_earlier_self_introduction_is_not_the_current_name(any_mem: Memory, first: str,
                                                            change: str, ask: str, old: str,
                                                            new: str) -> None:
    hits = ask_after(any_mem, [first, change], ask)
    assert any(new in h.unit.content and h.current for h in hits)
    assert not any(old in h.unit.content and new not in h.unit.content and h.current
                   for h in hits)
