"""Frames of stop 43, read from the dev sets ``sets44`` and ``sets45`` (held out once each, in
stops 41 and 42; their numbers printed then), each written for every script it applies to:

* **a name spelled out** by how a character is written ("周薇薇 草字头的薇", "語言的語 何思語",
  "李振骅 马字旁一个华") is a name given, and a name right after its label with no verb ("名字
  刘海洋 驾照c1"); a correction across space-separated parts ("名字是X 我打错了 是Y 语言的语")
  keeps the later one;
* **one order only** with 一 ("就这一单啊", "就這一張哈") is no standing value; a mother-in-law,
  a partner in the business or a landlord owns the value said of them;
* **"they" of parcels** ("make sure they go to X") is no third party;
* **a block and a room with an entrance** ("华苑居华里 16号楼2门502", a space before the block);
* **the user's history**: a new phone, e-mail or address said with no cue word ("sorry it's 41
  Birch Road … not 14", "X ✅ the example.org one I don't check anymore") replaces the one on
  file; a move of plan to a named one ("switch me onto Glow Plus instead", "幫我轉成年度方案")
  replaces the plan on file when the verb grades it or the names share a word;
* **questions find their slot** in more of the ways they are asked ("which number will your
  driver call?", "when's my next pickup?", "你们会怎么提醒我", "寄咗去邊？").

Sentences written for these tests; look-alikes beside each frame change nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import is_request, one_off
from jiyi.recall.rules import slot_intent
from jiyi.text import spelled
from jiyi.text.entities import extract_entities
from keyfacts_memory import say, slot_units

AT = datetime(2026, 5, 4, tzinfo=UTC)


def _people(text: str) -> list[str]:
    return [e.text for e in extract_entities(text, AT) if e.kind == "person"]


def _addresses(text: str) -> list[str]:
    return [e.text for e in extract_entities(text, AT) if e.kind == "address"]


@pytest.mark.parametrize(("text", "person"), [
    ("跟你说下 那个字终于能打出来了 孙振骅 马字旁一个华 发票按这个开", "孙振骅"),
    ("門禁卡名字打錯了 不是維持的維 是草字頭的薇 林薇薇 麻煩改一下", "林薇薇"),
    ("我叫杜海扬 提手旁那个扬 不是海洋的洋", "杜海扬"),
    ("新身分證下來了 叫蔡東宸 東西的東", "蔡東宸"),
    ("途观吧 名字吴海洋 驾照c1", "吴海洋"),
    ("姓名 陳美玲", "陳美玲"),
])
def test_a_name_spelled_out_or_labelled_is_found(text: str, person: str) -> None:
    assert person in _people(text)


@pytest.mark.parametrize("text", ["王明 我的天", "名字和电话 发你了", "刘涛 上次的事谢谢了"])
def test_talk_beside_a_name_spells_nothing(text: str) -> None:
    assert _people(text) == []


@pytest.mark.parametrize(("after", "is_spelled"), [
    (" 语言的语", True), ("，草字头的薇", True), (" 马字旁一个华", True), (" 三點水那個", True),
    (" 我的天", False), (" 上次的事", False), ("", False),
])
def test_how_a_character_is_written(after: str, is_spelled: bool) -> None:
    assert spelled.spelled_after(after) is is_spelled


def test_a_spelling_before_the_name() -> None:
    assert spelled.spelled_before("不是维持的维 是草字头的薇 ")
    assert not spelled.spelled_before("我们上次的事 ")


@pytest.mark.parametrize(("first", "later", "name"), [
    ("途观吧 名字吴海洋 驾照c1", "我上次名字打错了 我叫吴海扬 提手旁那个扬 不是海洋的洋", "吴海扬"),
    ("名字 何思雨", "哎呀 名字是何思雨 我自己打错了 是何思语 语言的语 麻烦再改一下", "何思语"),
    ("名字 鄭曉東", "我改名了 新身分證這週下來 叫鄭東宸 東西的東 合約按新名字", "鄭東宸"),
])
def test_a_corrected_spelled_name_is_the_current_one(any_mem: Memory, first: str, later: str,
                                                    name: str) -> None:
    say(any_mem, [first, later])
    names = [u.content for u in slot_units(any_mem, "name")]
    assert len(names) == 1 and name in names[0], names


@pytest.mark.parametrize(("text", "once"), [
    ("这单寄到我婆婆家 就这一单啊 其他的还是寄家里", True),
    ("發票寄給合夥人那邊 就這一張哈 以後還是寄我", True),
    ("just this invoice to my accountant please", True),
    ("就这张卡付款", False), ("以后都寄这个地址", False),
])
def test_one_order_only(text: str, once: bool) -> None:
    assert one_off(text) is once


@pytest.mark.parametrize("later", [
    "我们回老家 这单纸尿裤寄到我婆婆家 驻马店市驿城区解放路 天中花园3号楼502 就这一单啊",
    "發票寄給我們合夥人那邊的財務 信箱是 finance@shop.example 就這一張哈 以後還是發我",
    "my landlord is at 9 Birch Road, Leeds LS6 2AB if you need him",
])
def test_a_value_of_someone_else_or_one_order_leaves_the_users(any_mem: Memory,
                                                               later: str) -> None:
    say(any_mem, ["地址是郑州市金水区花园路88号", "邮箱 lin@mail.example", later])
    for slot in ("address", "email"):
        units = slot_units(any_mem, slot)
        assert len(units) == 1 and ("花园路88号" in units[0].content
                                    or "lin@mail.example" in units[0].content), units


def test_parcels_called_they_are_no_third_party(any_mem: Memory) -> None:
    say(any_mem, ["ship to 14 Birch Road, Leeds LS6 2AB",
                  "I've moved so please make sure they go to Unit 5/88 Bondi Rd, Bondi NSW 2026 "
                  "and not Leeds"])
    addresses = [u.content for u in slot_units(any_mem, "address")]
    assert len(addresses) == 1 and "Bondi Rd" in addresses[0], addresses


@pytest.mark.parametrize(("text", "address"), [
    ("新地址是 南开区红旗南路 华苑居华里 16号楼2门502 没电梯", "华苑居华里 16号楼2门502"),
    ("搬到宾水西道 天房橙郡11号楼1门1703 都有电梯", "天房橙郡11号楼1门1703"),
    ("新地址 翠湖花園 8號樓3門201", "翠湖花園 8號樓3門201"),
])
def test_a_block_and_room_with_an_entrance(text: str, address: str) -> None:
    assert address in _addresses(text)


@pytest.mark.parametrize("text", ["我住 3栋 502", "走2门进去"])
def test_a_block_or_a_gate_alone_is_no_address(text: str) -> None:
    assert _addresses(text) == []


@pytest.mark.parametrize(("first", "later", "new"), [
    ("ship to 14 Birch Road, Leeds LS6 2AB", "sorry it's 41 Birch Road, Leeds LS6 2AB not 14",
     "41 Birch Road"),
    ("My email is tom.reyes@example.org",
     "t.reyes.home@example.net ✅ the example.org one I don't check anymore",
     "t.reyes.home@example.net"),
    ("地址是成都市武侯区天府大道100号", "不好意思 是天府大道108号 刚才手滑", "天府大道108号"),
])
def test_a_new_value_with_no_cue_replaces_the_one_on_file(any_mem: Memory, first: str,
                                                         later: str, new: str) -> None:
    say(any_mem, [first, later])
    slot = "email" if "@" in first else "address"
    units = [u.content for u in slot_units(any_mem, slot)]
    assert len(units) == 1 and new in units[0], units
    assert not slot_units(any_mem, "food")  # "I don't check anymore" takes back no food


@pytest.mark.parametrize("later", [
    "is 41 Birch Road, Leeds LS6 2AB in your delivery area?",
    "if I moved to 41 Birch Road, Leeds LS6 2AB would shipping cost more?",
    "send just this order to 41 Birch Road, Leeds LS6 2AB please",
])
def test_a_value_asked_supposed_or_for_one_order_keeps_the_one_on_file(any_mem: Memory,
                                                                      later: str) -> None:
    say(any_mem, ["ship to 14 Birch Road, Leeds LS6 2AB", later])
    units = [u.content for u in slot_units(any_mem, "address")]
    assert len(units) == 1 and "14 Birch Road" in units[0], units


def test_a_value_with_no_cue_and_none_on_file_is_left_to_the_rules(any_mem: Memory) -> None:
    say(any_mem, ["it's 41 Birch Road, Leeds LS6 2AB not 14"])
    assert not slot_units(any_mem, "address")


@pytest.mark.parametrize(("first", "later", "new"), [
    ("I signed up for the Glow Basic membership last week", "Is it possible to switch me onto "
     "Glow Plus instead? The facials are included with that one", "Glow Plus"),
    ("My membership is the Hot Desk plan", "Please upgrade me to a Dedicated Desk, same desk every day",
     "Dedicated Desk"),
    ("我办的是个人卡会员", "能把我这个卡升级成家庭卡吗 差价我补", "家庭卡"),
    ("我訂閱的是月度方案", "喝了兩個月了 幫我轉成年度方案吧", "年度方案"),
])
def test_a_move_of_plan_replaces_the_one_on_file(e5_mem: Memory, first: str, later: str,
                                                 new: str) -> None:
    say(e5_mem, [first, later])
    levels = [u.content for u in slot_units(e5_mem, "membership")]
    assert len(levels) == 1 and new in levels[0], levels


@pytest.mark.parametrize("later", [
    "can you switch my deliveries to Saturdays instead",
    "what's the difference between Glow Basic and Glow Plus?",
    "my sister wants to switch to Glow Plus, how does she sign up?",
])
def test_a_move_of_something_else_keeps_the_plan(any_mem: Memory, later: str) -> None:
    say(any_mem, ["I signed up for the Glow Basic membership last week", later])
    levels = [u.content for u in slot_units(any_mem, "membership")]
    assert len(levels) == 1 and "Glow Basic" in levels[0], levels


@pytest.mark.parametrize(("text", "wanted"), [
    ("Is it possible to switch me onto Glow Plus instead?", True),
    ("would it be possible to move me to evenings?", True),
    ("any chance you could text me instead?", True),
    ("Is it true the shop closes at 6?", False),
])
def test_asked_whether_it_can_be_done_is_a_request(text: str, wanted: bool) -> None:
    assert is_request(text) is wanted


@pytest.mark.parametrize(("question", "slot"), [
    ("Hi is the laptop fixed? which number will your delivery guy call?", "phone"),
    ("打哪个号来着", "phone"),
    ("個取件碼會 SMS 去邊個 number？", "phone"),
    ("didn't get the reminder, which email are you sending them to?", "email"),
    ("where's the record player going? want to make sure I'm in", "address"),
    ("第三期筆記寄咗去邊？", "address"),
    ("明天搬 东西最后卸到哪", "address"),
    ("my tablet cracked, am I covered? what plan am I on again", "membership"),
    ("我老公也想用 我现在办的是哪种卡啊", "membership"),
    ("我現在是訂哪個方案 月費多少？", "membership"),
    ("when's my next pickup? trying to plan my week", "delivery_time"),
    ("这周的豆子什么时候到啊 我好安排在家", "delivery_time"),
    ("後日定期送，大約幾點會到？", "delivery_time"),
    ("how will I know when the lipstick ships?", "contact_channel"),
    ("后天品鉴会 你们会怎么提醒我", "contact_channel"),
    ("確認會經咩渠道俾我？", "contact_channel"),
    ("planning next week's meals - any restrictions still on file for me?", "food"),
    ("你帮我挑两盒 记得我不能吃啥", "food"),
])
def test_questions_find_their_slot(question: str, slot: str) -> None:
    intent = slot_intent(question)
    assert intent is not None and intent.slots[0] == slot, intent


@pytest.mark.parametrize("question", [
    "what time do you open tomorrow?",
    "我妈的会员卡是什么级别",
    "how does the loyalty scheme work?",
])
def test_questions_of_something_else_find_no_user_slot(question: str) -> None:
    intent = slot_intent(question)
    assert intent is None or intent.slots[0] not in ("phone", "membership", "contact_channel",
                                                     "delivery_time"), intent
