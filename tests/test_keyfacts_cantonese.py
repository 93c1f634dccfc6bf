"""Key facts said in Cantonese, in Taiwan Mandarin and in Chinese with English words written into
it (issue #24): the words of Hong Kong and Taiwan beside their Mandarin ones, so a value said
and a value changed there are read as they are in Simplified Chinese. Sentences written for these
tests, in Simplified Chinese, Traditional Chinese (Cantonese and Taiwan Mandarin) and English;
the Memory tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import re

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import ZH_RUN_ON
from keyfacts_memory import ask_after, say, slot_units


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


# --- 呢 before a measure word is "this", not a question particle ------------------------------

@pytest.mark.parametrize("text", ["有嘢就打呢個", "之後啲嘢寄呢度", "呢排好忙", "幫我查下呢張單"])
def test_this_before_a_measure_word_ends_no_sentence(text: str) -> None:
    assert not ZH_RUN_ON.search(text)


@pytest.mark.parametrize("text", ["你們幾時送呢我等了好耐", "点算好呢我都唔知", "为什么呢我不明白"])
def test_a_question_particle_still_ends_a_sentence(text: str) -> None:
    assert ZH_RUN_ON.search(text)


@pytest.mark.parametrize(("turns", "old", "new"), [
    (["我手機係 6123 4570", "之前嗰個唔好再打喇，搵我打呢個：6988 7712"], "61234570", "69887712"),
    (["我的手機是 0912-345-678", "舊的那支不用了，找我打這支：0987-654-321"], "12345678",
     "87654321"),
    (["我的手机是13812345678", "之前那个别打了，打这个：13987654321"], "12345678", "87654321"),
    (["My number is 0412 555 111", "Don't call the old one any more, call 0498 222 333"],
     "05555111", "98222333"),
])
def test_a_phone_changed_in_cantonese_is_current(any_mem: Memory, turns: list[str], old: str,
                                                 new: str) -> None:
    say(any_mem, turns)
    units = slot_units(any_mem, "phone")
    assert [u for u in units if new in _digits(u.content)], [u.content for u in units]
    assert not [u for u in units if old in _digits(u.content)], [u.content for u in units]


# --- an English word written into Chinese is a word -------------------------------------------

@pytest.mark.parametrize(("turn", "number"), [
    ("唔該check下我張單，my phone係 6234 1187", "62341187"),
    ("有事call我，我的number是13912345678", "13912345678"),
    ("有問題可以打去我個mobile：0922 118 765", "0922118765"),
    ("Any problem, my phone is 0412 777 890", "0412777890"),
])
def test_a_phone_word_in_english_beside_chinese_types_the_number(
        any_mem: Memory, turn: str, number: str) -> None:
    say(any_mem, [turn])
    assert [_digits(u.content) for u in slot_units(any_mem, "phone")] == [number]


@pytest.mark.parametrize("turn", [
    "我張order number係 40581234，幾時出貨？",
    "我的訂單 tracking number 是 77120934",
    "my order number is 40581234",
])
def test_an_order_number_is_no_phone(any_mem: Memory, turn: str) -> None:
    say(any_mem, [turn])
    assert slot_units(any_mem, "phone") == []


# --- Hong Kong addresses ----------------------------------------------------------------------

@pytest.mark.parametrize(("turns", "old", "new"), [
    (["我住喺屯門青山公路 22 號", "我轉咗工，以後寄去公司啦：中環皇后大道中 88 號 20 樓"],
     "青山公路", "皇后大道中 88 號"),
    (["寄到屯門鄉事會路 5 號 3 樓", "我搬咗，新地址係沙田第一城 12 座 8 樓 A 室，之後寄呢度"],
     "鄉事會路", "第一城 12 座 8 樓"),
    (["收件地址：台北市忠孝東路四段 100 號", "我搬家了，新地址是新店區碧潭城 3 棟 5 樓"],
     "忠孝東路", "碧潭城 3 棟 5 樓"),
    (["寄到上海市徐汇区漕溪北路 88 号", "我搬家了，以后寄到杭州万科城 3 栋 2 单元 501"],
     "漕溪北路", "万科城 3 栋 2 单元"),
])
def test_a_hong_kong_address_replaces_the_old_one(any_mem: Memory, turns: list[str], old: str,
                                                  new: str) -> None:
    say(any_mem, turns)
    units = [u.content for u in slot_units(any_mem, "address")]
    assert [c for c in units if new in c], units
    assert not [c for c in units if old in c], units


@pytest.mark.parametrize("turn", ["我們約在城門口 3 號", "我在城里住了 3 年", "路中 5 號車位有人停"])
def test_a_place_talked_of_is_no_address(any_mem: Memory, turn: str) -> None:
    say(any_mem, [turn])
    assert slot_units(any_mem, "address") == []


# --- a level not renewed, a level gone back to -------------------------------------------------

@pytest.mark.parametrize(("turns", "new", "not_value"), [
    (["我係黑卡會員", "我唔續黑卡喇，轉咗返金卡會員"], "金卡", "黑卡"),
    (["我是白金卡會員", "我沒有續約白金卡，降回普卡了"], "普卡", "白金"),
    (["我是白金会员", "我没有续费白金，降回银卡了"], "银卡", "白金"),
])
def test_a_level_not_renewed_is_the_old_one(any_mem: Memory, turns: list[str], new: str,
                                            not_value: str) -> None:
    say(any_mem, turns)
    units = [u.content for u in slot_units(any_mem, "membership")]
    assert len(units) == 1 and units[0].endswith(new), units
    assert not_value not in units[0] and "返" not in units[0] and "回" not in units[0]


# --- a channel seldom read, from now on -------------------------------------------------------

@pytest.mark.parametrize(("turns", "ask", "new", "old"), [
    (["有更新就用email通知我", "我好少睇email，之後WhatsApp我啦"], "你哋點樣通知我？",
     "WhatsApp", "用email通知我"),
    (["出貨通知請傳LINE給我", "LINE很少看了，從現在開始改用Email通知"], "出貨時怎麼通知我？",
     "Email", "請傳LINE給我"),
    (["有事发短信给我", "短信我很少看，从现在开始打电话给我"], "你们怎么联系我？",
     "打电话", "发短信给我"),
])
def test_a_channel_seldom_read_gives_way(any_mem: Memory, turns: list[str], ask: str,
                                         new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    assert [h for h in hits if new in h.unit.content and h.current], \
        [(h.unit.content, h.current) for h in hits]
    assert not [h for h in hits if old in h.unit.content and h.current], \
        [(h.unit.content, h.current) for h in hits]


@pytest.mark.parametrize("later", ["收到貨之後我再同你講", "下班之後我會再看看", "after work I'll check again"])
def test_after_an_event_is_no_change_of_channel(any_mem: Memory, later: str) -> None:
    say(any_mem, ["有事WhatsApp我", later])
    units = [u.content for u in slot_units(any_mem, "contact_channel")]
    assert len(units) == 1 and "WhatsApp" in units[0], units


# --- a Latin name after a Chinese introduction ------------------------------------------------

@pytest.mark.parametrize(("turn", "name"), [
    ("我係Ken，想問下張單幾時到", "Ken"),
    ("你好，我叫Amy Chen，想改送貨時間", "Amy Chen"),
    ("我的英文名是Kenneth Yip", "Kenneth Yip"),
    ("你好，我叫Jason Wong，想查一下订单", "Jason Wong"),
    ("Hi, my name is Grace Lau", "Grace Lau"),
])
def test_a_latin_name_after_a_chinese_introduction_is_the_name(any_mem: Memory, turn: str,
                                                               name: str) -> None:
    say(any_mem, [turn])
    units = [u.content for u in slot_units(any_mem, "name")]
    assert len(units) == 1 and units[0].endswith(name), units


@pytest.mark.parametrize("turn", ["我是Apple的粉絲", "我係Samsung嘅老客", "我是Gold會員",
                                  "I'm a Samsung fan"])
def test_a_brand_or_a_level_after_i_am_is_no_name(any_mem: Memory, turn: str) -> None:
    say(any_mem, [turn])
    assert slot_units(any_mem, "name") == []


# --- "inform" names the activity of a contact channel -----------------------------------------

@pytest.mark.parametrize("turn", ["維修進度麻煩電郵告知", "处理结果请邮件告知", "有結果請短信知會我",
                                  "Please inform me of the result by email"])
def test_a_channel_to_inform_by_is_the_contact_channel(any_mem: Memory, turn: str) -> None:
    say(any_mem, [turn])
    assert [u.content for u in slot_units(any_mem, "contact_channel")] == [turn]


@pytest.mark.parametrize("turn", ["我已經告知快遞員了", "我已经告知客服我的地址"])
def test_informing_someone_names_no_channel(any_mem: Memory, turn: str) -> None:
    say(any_mem, [turn])
    assert slot_units(any_mem, "contact_channel") == []


# --- a convenience store's branch is where parcels go -----------------------------------------

@pytest.mark.parametrize(("turns", "old", "new"), [
    (["包裹寄到高雄市苓雅區四維三路6號", "之後都用超商取貨，寄到7-11台中文心門市"], "四維三路",
     "文心門市"),
    (["寄去旺角彌敦道600號", "以後寄去OK便利店旺角店，我自己攞"], "彌敦道", "旺角店"),
    (["包裹寄到上海市徐汇区漕溪北路88号", "以后寄到全家便利店朝阳店，我自己去取"], "漕溪北路",
     "朝阳店"),
])
def test_a_store_pickup_branch_replaces_the_address(any_mem: Memory, turns: list[str], old: str,
                                                    new: str) -> None:
    say(any_mem, turns)
    units = [u.content for u in slot_units(any_mem, "address")]
    assert [c for c in units if new in c], units
    assert not [c for c in units if old in c], units
    assert slot_units(any_mem, "delivery_time") == []


@pytest.mark.parametrize("turn", ["我在全家買了咖啡", "全家人都喜歡吃辣", "我在7-11店員那裡問過了",
                                  "I grabbed a coffee at 7-Eleven"])
def test_a_store_talked_of_is_no_address(any_mem: Memory, turn: str) -> None:
    say(any_mem, [turn])
    assert slot_units(any_mem, "address") == []


def test_an_hour_range_is_still_a_delivery_time(any_mem: Memory) -> None:
    say(any_mem, ["晚上7-11點送貨最方便"])
    assert [u.content for u in slot_units(any_mem, "delivery_time")] == ["晚上7-11點送貨最方便"]
    assert slot_units(any_mem, "address") == []
