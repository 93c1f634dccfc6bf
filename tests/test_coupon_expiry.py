"""A coupon, a booking or a promise carries its expiry from the sentence, however the date is
written ("5/3", "the 15th", "月底前", "到下個月10號", "valid for 7 days"), and an expiry said
today is read as a day ahead, never a day just passed when another reading is ahead."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.text.timegrammar import find_times
from jiyi.write.pipeline import TurnInput, extract_turn

SAID = datetime(2026, 4, 20, 10, 0, tzinfo=UTC)  # a Monday


def _last_valid_day(turn: str, at: datetime = SAID) -> set[date]:
    """The last day each unit of the turn is valid (``valid_until`` is the midnight after)."""
    drafts = extract_turn(TurnInput(text=turn, role="user", at=at, session_id="s", user_id="u",
                                    turn_id="t")).drafts
    return {(d.valid_until - timedelta(days=1)).date() for d in drafts if d.valid_until}


@pytest.mark.parametrize(("turn", "last"), [
    # zh-Hans
    ("这张优惠券SAVE20到5/3有效", date(2026, 5, 3)),
    ("优惠券HAPPY8截止05-03", date(2026, 5, 3)),
    ("优惠券HAPPY8有效期是5/3", date(2026, 5, 3)),
    ("那张券月底前能用完就行", date(2026, 4, 30)),
    ("满减券MJ50，五月中到期", date(2026, 5, 15)),
    ("折扣券ZK30下周五之前能用", date(2026, 5, 1)),
    ("优惠券QQ66五月三号到期哈", date(2026, 5, 3)),
    ("这张券SAVE9，5号前用掉", date(2026, 5, 5)),  # the 5th of this month is past: next month's
    ("新人券NEW5领了，3天内有效", date(2026, 4, 23)),
    ("那个代金券DJ20下个月底过期", date(2026, 5, 31)),
    # zh-Hant, Taiwan and Cantonese
    ("優惠券SPRING15到下個月10號", date(2026, 5, 10)),
    ("這張折價券本週五前有效", date(2026, 4, 24)),
    ("優惠券TW88 4月中旬到期", date(2026, 4, 15)),
    ("嗰張現金券HK50用到月尾", date(2026, 4, 30)),
    ("張券HK20到5號㗎", date(2026, 5, 5)),
    ("兌換碼GIFT7，七天內有效", date(2026, 4, 27)),
    ("这张券ABC12 截止日期 5.31", date(2026, 5, 31)),
    ("ABC12这张券五一前用掉", date(2026, 5, 1)),
    ("ABC12 月底作废", date(2026, 4, 30)),  # not December: the 12 is the code's
    ("优惠码ABC12，有效期7天", date(2026, 4, 27)),
    ("这张券年底前都能用", date(2026, 12, 31)),
    ("ABC12的券还剩三天", date(2026, 4, 23)),
    ("ABC12張券聽日過期", date(2026, 4, 21)),
    ("ABC12 is valid for another 10 days", date(2026, 4, 30)),
    ("voucher XMAS5 valid until Christmas", date(2026, 12, 25)),
    ("优惠券ABC12两周内有效", date(2026, 5, 4)),
    ("優惠券ABC12兩個禮拜內要用完", date(2026, 5, 4)),
    ("优惠券ABC12 24小时内有效", date(2026, 4, 21)),
    ("优惠券ABC12下月初到期", date(2026, 5, 5)),
    ("coupon ABC12 can be used within 30 days", date(2026, 5, 20)),
    ("coupon ABC12 is valid for 48 hours", date(2026, 4, 22)),
    ("coupon ABC12 expires a week from today", date(2026, 4, 27)),
    ("我仲有張MEMBER15KZ，5月19日之前要用", date(2026, 5, 19)),  # a code is the thing
    ("朋友轉俾我一張FLASH50KA，用到5月25日，9折", date(2026, 5, 25)),
    # a date written right after the code ("…UP5月29日"): the month number is the date's
    ("嗯那个优惠码MEMBER30UP5月29日之前能用", date(2026, 5, 29)),
    ("我領了個9折的券碼是VIP15PL5月11日到期", date(2026, 5, 11)),
    # en, US / UK / terse
    ("voucher SAVE20AB valid till 5/3", date(2026, 5, 3)),
    ("I have a voucher SAVE20AB valid till 3/5/2026", date(2026, 5, 3)),  # March 5 is past
    ("Got a £5 voucher GBP5OFF, good until 6/5", date(2026, 5, 6)),  # day first: 6 May
    ("coupon CODE12 is good until the 15th", date(2026, 5, 15)),
    ("promo code MID10 expires mid-May", date(2026, 5, 15)),
    ("the coupon SAVE20AB runs till end of the month", date(2026, 4, 30)),
    ("coupon NEXTWK good by the end of next week", date(2026, 5, 3)),
    ("voucher GIFT10AB good till Sunday", date(2026, 4, 26)),
    ("use the voucher WKND5 before the weekend", date(2026, 4, 25)),
    ("the voucher WEEK7 is valid for 7 days", date(2026, 4, 27)),
    ("my coupon TWO14 expires in two weeks", date(2026, 5, 4)),
    ("Please keep SHIP10SY on my account, it lapses May 28, 2026.", date(2026, 5, 28)),
])
def test_an_expiry_is_read_however_the_date_is_written(turn: str, last: date) -> None:
    assert _last_valid_day(turn) == {last}


@pytest.mark.parametrize(("turn", "at", "last"), [
    # said in December, a January day is next year's
    ("优惠券NY10到1月15日有效", datetime(2026, 12, 20, tzinfo=UTC), date(2027, 1, 15)),
    ("voucher NY10 valid until Jan 15", datetime(2026, 12, 20, tzinfo=UTC), date(2027, 1, 15)),
    ("優惠券NY10，1/15前有效", datetime(2026, 12, 20, tzinfo=UTC), date(2027, 1, 15)),
    # a day a week past is a day just passed, not next year's; so is one months past
    ("这张券到3月22日有效", datetime(2026, 6, 10, tzinfo=UTC), date(2026, 3, 22)),
    ("优惠券OLD5五月三号到期", datetime(2026, 5, 10, tzinfo=UTC), date(2026, 5, 3)),
    # the clause says it has ended: the date as said, never moved ahead
    ("the coupon OLD15 expired on the 15th", SAID, date(2026, 4, 15)),
    ("那张券OLD5，5号就已经过期了", SAID, date(2026, 4, 5)),
    ("嗰張券OLD3 3/5已經過期咗", SAID, date(2026, 3, 5)),
])
def test_an_expiry_is_the_nearest_reading_ahead_unless_it_has_ended(turn: str, at: datetime,
                                                                    last: date) -> None:
    assert _last_valid_day(turn, at) == {last}


@pytest.mark.parametrize(("text", "day", "alt"), [
    ("valid till 3/5", date(2026, 3, 5), date(2026, 5, 3)),  # no evidence: month first (US)
    ("valid till 3/5, see you on 25/12", date(2026, 5, 3), date(2026, 3, 5)),  # day first
    ("valid till 3/5, the colour one", date(2026, 5, 3), date(2026, 3, 5)),
    ("valid till 15/5", date(2026, 5, 15), None),  # only one reading
    ("到3/5有效", date(2026, 3, 5), None),  # Chinese: month first
])
def test_a_numeric_date_is_read_by_the_turns_evidence(text: str, day: date,
                                                      alt: date | None) -> None:
    found = [t for t in find_times(text, SAID) if t.text.endswith(("3/5", "15/5"))]
    assert [(t.day, t.alt) for t in found] == [(day, alt)]


@pytest.mark.parametrize("text", [
    "I ate 3/4 of the cake", "我住3号楼", "3号线换乘", "a 3-2 win on the night",
    "it was the 5th time I asked", "最近3天内我说过什么", "这三天内都在加班",
    "打5/3折也不买", "rated it 4/5 stars", "the 21st century", "down 10 in the 4th",
    "说起来我周末经常在家做饭", "I'm tired over the last two days", "圣诞老人来了",
    "价格是5.31元", "我还有3天假", "正月初一回老家", "最近24小时内的消息",
    "比分是2-1", "我在3/4的位置",
])
def test_no_date_where_there_is_none(text: str) -> None:
    assert find_times(text, SAID) == []


@pytest.mark.parametrize(("text", "value"), [
    ("下個月10號", "2026-05-10"), ("月底", "2026-04-30"), ("用到月尾", "2026-04-30"),
    ("4月中旬", "2026-04-15"), ("end of next week", "2026-05-03"), ("mid-May", "2026-05-15"),
    ("今年年底", "2026-12-31"), ("下周末", "2026-05-02"),
])
def test_parts_of_months_and_weeks_are_days(text: str, value: str) -> None:
    assert [t.value for t in find_times(text, SAID)] == [value]


# -- end to end: listed while valid, never usable once expired, both backends -----------------

ASK_AT = SAID + timedelta(days=12)  # 2 May 2026
CASES = {
    "zh-Hans": ("满减券FULL30用到下个月15号。", "那张折扣券OLDWK9本周五前有效。", "还有哪些券能用"),
    "zh-Hant": ("現金券FULL30到下個月15號都可以用。", "另外嗰張券OLDWK9本週五前有效。",
                "還有哪些券能用"),
    "en": ("I've got voucher FULL30 that's good till 5/15.",
           "Voucher OLDWK9 is good till Friday.", "which vouchers can I still use?"),
}


@pytest.mark.parametrize("lang", list(CASES))
def test_a_valid_coupon_is_listed_as_current_and_an_expired_one_never(e5_mem: Memory,
                                                                       lang: str) -> None:
    valid, expired, ask = CASES[lang]
    e5_mem.ingest(valid, session_id="s1", user_id="u", at=SAID, role="user")
    e5_mem.ingest(expired, session_id="s1", user_id="u", at=SAID + timedelta(minutes=1),
                  role="user")
    hits = e5_mem.recall(ask, session_id="s2", user_id="u", as_of=ASK_AT, k=5)
    seen = [(h.unit.content, h.status) for h in hits]
    assert [h for h in hits if "FULL30" in h.unit.content and h.current], seen
    assert not [h for h in hits if "OLDWK9" in h.unit.content and h.current], seen
