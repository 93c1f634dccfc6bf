"""Frames of stop 47, read from ``sets49`` (development data since this stop), each written for
every script it applies to:

* **a user's words are never silently lost**: a clause the clause planner left out but whose
  content words no unit of the turn holds ("APP上我变成铂金会员了？？", "Could I go down to the 150
  Mbps plan?") becomes a unit in the user's words; a clause with one content word ("What would
  that cost?"), laughter, and a time rewritten as a date ("last year" -> "2025") add nothing;
* **the standing value stays when the message says so**: "平時都係送屋企", "下周一开始照旧",
  "Keep it as it is", "不過記錄上面都係用返我自己個電話" make a value given beside them an
  exception or a refusal, unless the message asks for the update outright ("地址改成…，其他照舊");
* **"only" before "this"** is a one-off, however phrased ("淨係今次", "只有這一張喔", "Only this
  one", "Just for Friday");
* **someone else named before the value, and not the user after them**, holds it ("送我朋友當生日
  禮物，這台寄到她家：…"; "if he can't get hold of me he can ring my wife Tanya on …");
* **a plan or level is the user's standing fact**: "我現在是月租599的4G方案", "幫我換1199那個
  吃到飽", "Could I go down to the 150 Mbps plan?" and a level checked ("升上金卡了？") outlive
  their session; "幫我換貨" and "金卡有什么权益？" stay tasks.

Sentences written for these tests unless marked; look-alikes beside each frame change nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import keeps_the_standing_value, one_off
from jiyi.units import MemoryType
from jiyi.write.classify import classify
from jiyi.write.drafts import TurnInput
from jiyi.write.pipeline import rule_extract
from keyfacts_memory import ask_after, say, slot_units

AT = datetime(2026, 3, 1, 9, tzinfo=UTC)


def drafts(text: str) -> list[tuple[str, MemoryType]]:
    turn = TurnInput(text=text, role="user", at=AT, session_id="s", user_id="u", turn_id="t")
    return [(d.content, d.type) for d in rule_extract(turn).drafts]


@pytest.mark.parametrize(("text", "kept"), [
    ("怎么回事，APP上我变成铂金会员了？？", "铂金会员"),
    ("怎麼回事，APP上我變成鉑金會員了？？", "鉑金會員"),
    ("收到 email 話我會籍年費過咗期冇續，咁即係我而家降咗做普通會員？好啦算數", "普通會員"),
    ("剛剛收到通知說累積消費滿一萬，升上金卡了？那生日禮會變多嗎", "金卡"),
    ("刚刚收到通知说消费满一万了，升到金卡了？那生日礼会变多吗", "金卡"),
    ("Hey, kids moved out, we barely use it. Could I go down to the 150 Mbps plan? What would "
     "that cost?", "150 Mbps"),
    ("Got a letter this morning. So am I on the Platinum tier now? Weird.", "Platinum"),
])
def test_a_clause_no_unit_holds_is_kept_in_the_users_words(text: str, kept: str) -> None:
    assert any(kept in content for content, _ in drafts(text))


@pytest.mark.parametrize(("text", "order"), [
    ("Could I go down to the 150 Mbps plan? Could I get the 50GB add-on too? Kids moved out and we "
     "barely use it.", ["150 Mbps", "50GB", "Kids moved out"]),
    ("可以降到100M的套餐吗？能不能加个20GB的流量包？孩子搬出去了，家里用得少。", ["100M", "20GB", "孩子搬出去"]),
    ("可唔可以降到100M嘅plan？加個20GB數據包得唔得？啲仔女搬咗出去，屋企用得少。", ["100M", "20GB", "仔女搬咗"]),
])
def test_the_words_kept_stay_in_the_turns_order_once(text: str, order: list[str]) -> None:
    contents = [content for content, _ in drafts(text)]
    places = [[i for i, c in enumerate(contents) if words in c] for words in order]
    assert all(len(p) == 1 for p in places), contents
    assert [p[0] for p in places] == sorted(p[0] for p in places), contents


@pytest.mark.parametrize("text", [
    "I went there last year with my sister. What would that cost?",
    "我去年和我姐去过那里。多少钱？",
    "我舊年同我家姐去過嗰度。幾錢？",
])
def test_a_time_rewritten_and_a_one_word_question_add_no_unit(text: str) -> None:
    assert len(drafts(text)) == 1


@pytest.mark.parametrize("text", ["哈哈哈 👍", "Thanks so much!", "好的谢谢"])
def test_filler_stays_out(text: str) -> None:
    assert drafts(text) == []


@pytest.mark.parametrize("text", [
    "淨係今次，平時都係送屋企",
    "只有這一張喔",
    "就这一次啊",
    "Only this one, please",
    "Just for Friday obviously",
])
def test_only_before_this_is_a_one_off(text: str) -> None:
    assert one_off(text)


@pytest.mark.parametrize("text", [
    "我只用这个号码", "I only use this number", "just moved to 5 Elm St",
])
def test_only_without_this_is_no_one_off(text: str) -> None:
    assert not one_off(text)


@pytest.mark.parametrize(("message", "sentence", "stays"), [
    ("下午三四点送吧 下周一开始照旧", "下午三四点送吧", True),
    ("下晝三四點送啦 下星期一開始照舊", "下晝三四點送啦", True),
    ("No thanks, no push notifications. Keep it as it is.", "No thanks, no push notifications.",
     True),
    ("收據寄到 finance@a.com.tw，其他還是寄我自己信箱", "收據寄到 finance@a.com.tw", True),
    ("地址改成中山路1號，其他照舊", "地址改成中山路1號", False),
    ("Please update my address to 9 Elm St, everything else stays the same",
     "Please update my address to 9 Elm St", False),
    ("我搬家了，新地址是中山路1号", "我搬家了，新地址是中山路1号", False),
    ("新地址：中山路1号，其他都是小问题", "新地址：中山路1号", False),
])
def test_the_standing_value_stays_unless_the_update_is_asked_for(
        message: str, sentence: str, stays: bool) -> None:
    assert keeps_the_standing_value(message, sentence) is stays


@pytest.mark.parametrize(("turns", "new"), [
    (["地址是郑州市金水区花园路88号", "我搬家了，新地址是郑州市二七区大学路12号，其他照旧"], "大学路12号"),
    (["地址係沙田第一城38座12樓F室", "我哋搬咗屋，新地址係將軍澳日出康城2座21樓B室，其他照舊"], "日出康城"),
    (["ship to 14 Birch Road, Leeds LS6 2AB",
      "We moved, new address is 9 Kowhai Lane, Lower Hutt 5010. Everything else as usual."],
     "9 Kowhai Lane"),
])
def test_a_change_said_beside_everything_else_as_usual_still_replaces(
        any_mem: Memory, turns: list[str], new: str) -> None:
    say(any_mem, turns)
    addresses = [u.content for u in slot_units(any_mem, "address")]
    assert len(addresses) == 1 and new in addresses[0], addresses


@pytest.mark.parametrize(("turns", "slot", "kept", "exception"), [
    (["好，送去屯門兆康苑兆順閣 9樓 6室",
      "想加買多個濾網，不過今次可唔可以送去我公司？長沙灣道 883 號 12樓，淨係今次，平時都係送屋企"],
     "address", "兆康苑", "長沙灣道"),
    (["好，送到浦东新区张杨路500号 12楼",
      "这次能不能送我公司？南京西路1266号 8楼，平时还是送家里"],
     "address", "张杨路", "南京西路"),
    (["你们最早几点能送？我每天7点半出门，最好7点前送到",
      "这周日我要睡懒觉 周日那天的别早上送了 下午三四点送吧 下周一开始照旧"],
     "delivery_time", "7点前", "三四点"),
    (["My mobile's 0412 558 903 for the account.",
      "I'm at work all Friday. If he can't get hold of me he can ring my wife Tanya on "
      "0433 017 246. Just for Friday obviously."],
     "phone", "0412 558 903", "0433 017 246"),
    (["我的電話是 0912 345 678",
      "如果搵唔到我，可以打俾我老婆 0933 222 111，不過記錄上面都係用返我自己個電話"],
     "phone", "0912 345 678", "0933 222 111"),
])
def test_an_exception_beside_the_standing_value_replaces_nothing(
        e5_mem: Memory, turns: list[str], slot: str, kept: str, exception: str) -> None:
    say(e5_mem, turns)
    contents = [u.content for u in slot_units(e5_mem, slot)]
    assert any(kept in c for c in contents)
    assert not any(exception in c for c in contents)


@pytest.mark.parametrize(("turns", "ask", "mine", "theirs"), [
    (["我想買電視盒，送到台北市大安區復興南路一段215號7樓",
      "我想再買一台送我朋友當生日禮物，這台寄到她家：台中市西屯區市政路386號"],
     "我的收件地址是哪裡？", "復興南路", "市政路"),
    (["我想买电视盒，送到上海市徐汇区漕溪北路88号",
      "我想再买一台送我朋友当生日礼物，这台寄到她家：杭州市西湖区文三路90号"],
     "我的收货地址是哪里？", "漕溪北路", "文三路"),
])
def test_someone_named_before_the_clause_holds_its_value(
        e5_mem: Memory, turns: list[str], ask: str, mine: str, theirs: str) -> None:
    hits = ask_after(e5_mem, turns, ask)
    assert any(mine in h.unit.content for h in hits)
    assert not any(theirs in h.unit.content and h.current for h in hits)
    assert not any(theirs in u.content for u in slot_units(e5_mem, "address"))


@pytest.mark.parametrize("text", [
    "我現在是月租599的4G方案，最近網路一直降速",
    "我现在用的是 4G 599 套餐",
    "我而家用緊 500M 計劃",
    "好啦 幫我換1199那個吃到飽",
    "帮我换成 5G 199 的套餐",
    "Could I go down to the 150 Mbps plan?",
    "Can I change my shipping address to 12 Elm Road?",
    "升上金卡了？",
    "咁即係我而家降咗做普通會員？",
    "是不是给我升到铂金会员了？",
    "So am I on the Platinum tier now?",
])
def test_a_plan_of_the_users_outlives_the_session(text: str) -> None:
    assert classify(text, "user", [], None) is MemoryType.FACT_REFERENCE


@pytest.mark.parametrize("text", ["幫我換貨", "帮我换个颜色吧", "幫我查一下訂單", "金卡有什么权益？",
                                  "白金會員有咩優惠？", "Can I return this?", "Could I get a refund?"])
def test_an_exchange_of_goods_stays_a_task(text: str) -> None:
    assert classify(text, "user", [], None) is MemoryType.SESSION_STATE
