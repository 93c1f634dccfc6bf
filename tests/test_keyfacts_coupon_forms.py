"""Coupons said the many ways people say them (issue #24 item 5): short codes named beside a
coupon word or their expiry, a validity said as a span ("a fortnight", "半个月"), one code
dated and another not in one sentence, two dated codes joined by "and", a coupon "抵扣" /
"折抵" at checkout. Each: the valid code listed as current, the ended one never. Three
scripts, both backends; look-alikes that must not change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.ended import ended_codes
from jiyi.keyfacts.schema import spec
from jiyi.store.base import Scope
from jiyi.text.entities import extract_entities
from jiyi.text.timegrammar import find_times
from jiyi.write.slots import validity_end
from keyfacts_memory import T0, say

AT = datetime(2026, 3, 9, 10, tzinfo=UTC)


def _codes(text: str) -> list[str]:
    return [e.value for e in extract_entities(text, AT) if e.kind == "code"]


@pytest.mark.parametrize(("text", "codes"), [
    # a coupon word near a short code says it is one
    ("我有 QM50 同 QM80 兩張券", ["QM50", "QM80"]),
    ("店铺券 RB20 和平台券 RT15 可以一起用吗", ["RB20", "RT15"]),
    ("the promo WX12 can't be combined", ["WX12"]),
    # its own expiry right after it
    ("NV10 到4月5号，NV20 到5月5号", ["NV10", "NV20"]),
    ("ZQ12 (exp 3/9)", ["ZQ12"]),
    ("YT30 只能用到本周五", ["YT30"]),
    ("那張 HD30 上禮拜就到期了", ["HD30"]),
    # look-alikes: no coupon word, no expiry
    ("Room B12 is on the third floor", []),
    ("I live at block C21 near the MRT", []),
    ("G7 到3月5号", []),  # two characters: too short to be a code
])
def test_a_short_code_is_read_where_its_context_says_so(text: str, codes: list[str]) -> None:
    assert _codes(text) == codes


@pytest.mark.parametrize(("text", "days"), [
    ("voucher valid for a fortnight from today", 15),
    ("the code expires in a fortnight", 15),
    ("this coupon is good for 14 days", 15),
    ("优惠券半个月内有效", 16),
    ("禮券有效期半個月", 16),
    ("兩個禮拜內有效", 15),
])
def test_a_validity_said_as_a_span(text: str, days: int) -> None:
    end = validity_end(text, find_times(text, AT))
    assert end is not None and (end.date() - AT.date()).days == days


def test_a_span_said_before_today_is_no_validity() -> None:
    text = "I bought it a fortnight ago"
    assert validity_end(text, find_times(text, AT)) is None


def test_a_span_made_a_date_reads_as_an_end(any_mem: Memory) -> None:
    any_mem.ingest("Got a voucher, TEA2GO, valid for a fortnight from today.", session_id="s",
                   user_id="u", at=AT, role="user")
    units = any_mem.store.find_units(Scope("u", None), as_of=None)
    said = " ".join(u.content for u in units)
    assert "until 23 March 2026" in said and "for 23 March" not in said
    assert any("TEA2GO" in u.content and u.valid_until is not None
               and u.valid_until.date().isoformat() == "2026-03-24" for u in units)


@pytest.mark.parametrize(("text", "codes", "ended"), [
    ("满减券 TB100 下单时已经抵扣掉了", ["TB100"], {"TB100"}),
    ("KK50 已經折抵咗", ["KK50"], {"KK50"}),
    ("結帳時 FP20 折抵了兩百", ["FP20"], {"FP20"}),
    ("JQ99 那个活动结束了，券也没了", ["JQ99"], {"JQ99"}),
    ("ZC56 剛剛結帳被扣掉了", ["ZC56"], {"ZC56"}),
    ("TB200 可以抵扣运费吗？", ["TB200"], set()),  # a question
    ("HB8 能抵扣二十块，月底到期", ["HB8"], set()),  # what it is worth, not its use
])
def test_a_coupon_taken_off_the_bill_has_ended(text: str, codes: list[str],
                                               ended: set[str]) -> None:
    row = spec("coupon")
    assert row is not None
    assert ended_codes(row, text, codes) == ended


# (turns said three days apart from T0, day asked, question, still valid, ended)
CASES = [
    (["I have two codes: SAVE10 runs out this Sunday and FREESHIP9 is good through June."], 9,
     "which coupons can I still use?", "FREESHIP9", "SAVE10"),
    (["BDAY10 gift code expires on the 6th, GIFT77 has no expiry"], 6,
     "coupons still valid?", "GIFT77", "BDAY10"),
    (["优惠券 JD50 这周日就到期，MT20 下个月底到期"], 9, "我还有哪些券能用", "MT20", "JD50"),
    (["XY88 只能用到本周五，ZZ66 到6月30日"], 9, "可用优惠券", "ZZ66", "XY88"),
    (["那張 FP30 這個禮拜天就到期了，不過 FP50 還可以用到六月底"], 9, "我還有什麼券", "FP50",
     "FP30"),
    (["我有满减券 TB100 和 TB200", "TB100 下单时已经抵扣掉了"], 6, "还有哪些优惠券", "TB200",
     "TB100"),
    (["我有 KK50 同 KK80 兩張券", "KK50 已經折抵咗"], 6, "仲有咩券用得", "KK80", "KK50"),
    # a coupon beside a labelled one is a coupon of its own, with its own (no) date
    (["优惠券 CC33 还有3天过期，DD44 还能用两个月"], 6, "我有什么可用的券", "DD44", "CC33"),
    # a day-first date at the end of a sentence; "valid up to"
    (["I have two coupons, SUPER3 which is valid up to 31-05-2026 and FLAT5 which is valid up "
      "to 08-05-2026."], 9, "List my coupons that are still redeemable.", "SUPER3", "FLAT5"),
    # a code used on an order is no order: its ending ends it
    (["Codes for later: PEAR40 (exp 5/31), FIG25 (exp 6/30)", "PEAR40 got used on the rug order"],
     6, "Which of my coupons are still valid?", "FIG25", "PEAR40"),
]


@pytest.mark.parametrize(("turns", "day", "question", "valid", "gone"), CASES)
def test_the_valid_code_is_listed_and_the_ended_one_is_not(
        any_mem: Memory, turns: list[str], day: int, question: str, valid: str,
        gone: str) -> None:
    say(any_mem, turns, days=3)  # T0 is Monday 4 May 2026
    hits = any_mem.recall(question, session_id="q", user_id="u", k=5,
                          as_of=T0 + timedelta(days=day))
    current = [h for h in hits if h.current]
    assert any(valid in h.unit.content for h in current)
    assert not any(gone in h.unit.content and valid not in h.unit.content for h in current)
    # nothing is lost: the ended code is still found by its name
    named = any_mem.recall(gone, session_id="q2", user_id="u", k=5,
                           as_of=T0 + timedelta(days=day))
    assert any(gone in h.unit.content for h in named)


def test_codes_sharing_a_date_said_after_them_stay_together(any_mem: Memory) -> None:
    any_mem.ingest("GOLD300，SILVER100，全部到六月底", session_id="s0", user_id="u",
                   at=T0, role="user")
    units = [u for u in any_mem.store.find_units(Scope("u", None), as_of=T0)
             if "GOLD300" in u.content]
    assert units and all("SILVER100" in u.content and u.valid_until is not None
                         for u in units)


@pytest.mark.parametrize("text", ["valid up to 10-03-2026.", "good till 10.03.2026.",
                                  "FLAT5 which is valid up to 08-05-2026."])
def test_a_dated_validity_at_the_end_of_a_sentence(text: str) -> None:
    times = find_times(text, AT)
    assert times and validity_end(text, times) is not None


def test_a_code_used_on_an_order_is_a_coupon_not_the_order() -> None:
    from jiyi.write.idfacts import find_ids, keys
    text = "PEAR40 got used on the rug order"
    assert [m.category for m in find_ids(text, extract_entities(text, AT))] != ["order"]
    text = "优惠券 CC33 还有3天过期，DD44 还能用两个月"
    ids = find_ids(text, extract_entities(text, AT))
    assert sorted(m.entity.value for m in keys(ids)) == ["CC33", "DD44"]
