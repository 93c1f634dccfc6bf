"""A coupon the user says is used up, voided or no longer working is history for a question
about what can still be used (issue #24 item 5): never listed as usable, still findable; a
question asked before the ending still sees it as valid. Three scripts, both backends."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.ended import ended_codes
from jiyi.keyfacts.schema import spec
from jiyi.store.base import Scope
from keyfacts_memory import T0, say


def _row():  # type: ignore[no-untyped-def]
    row = spec("coupon")
    assert row is not None
    return row


@pytest.mark.parametrize(("text", "codes", "ended"), [
    # used up / voided / no longer working, in each script
    ("RELAX8 那张昨天买鞋用掉了", ["RELAX8"], {"RELAX8"}),
    ("客服说 QQ520 系统发错了，已经作废", ["QQ520"], {"QQ520"}),
    ("HAPPY9 試咗幾次都話已失效", ["HAPPY9"], {"HAPPY9"}),
    ("張 MOON33 上個禮拜用咗喇", ["MOON33"], {"MOON33"}),
    ("禮券 TEA77 已經過期了啦", ["TEA77"], {"TEA77"}),
    ("I already used BAKE15 on the cake tins", ["BAKE15"], {"BAKE15"}),
    ("FLEX40 doesn't work anymore, says invalid", ["FLEX40"], {"FLEX40"}),
    ("gift card GC9001 balance is now $0", ["GC9001"], {"GC9001"}),
    ("cannot use PROMO7 liao, fully redeemed", ["PROMO7"], {"PROMO7"}),
    # two codes in one sentence: the ending is the one of its own clause
    ("ZZ100 结账时用掉了，AB200 先留着", ["ZZ100", "AB200"], {"ZZ100"}),
    ("I used KIWI5 yesterday, MANGO9 is still valid", ["KIWI5", "MANGO9"], {"KIWI5"}),
    # look-alikes: an expiry still ahead, a question, unused, a restriction, "used to"
    ("SUMMER5 月底才过期", ["SUMMER5"], set()),
    ("优惠码 NIGHT3 6月30日作废", ["NIGHT3"], set()),
    ("有冇得用 SPA30 㗎？", ["SPA30"], set()),
    ("has WINTER20 expired?", ["WINTER20"], set()),
    ("DIM20 仲未用，下個禮拜先買", ["DIM20"], set()),
    ("I haven't used OAK5 yet", ["OAK5"], set()),
    ("STU10 can't be combined with sale items", ["STU10"], set()),
    ("this code SAVE20 expires on May 3", ["SAVE20"], set()),
    ("I used to get codes like RAIN12 every month", ["RAIN12"], set()),
])
def test_which_codes_a_text_says_have_ended(text: str, codes: list[str], ended: set[str]) -> None:
    assert ended_codes(_row(), text, codes) == ended


CASES = [
    # (turns, question, still valid, ended)
    (["我有两张券：LUCK88 和 HOME66，都是6月底到期", "LUCK88 昨天买电饭煲用掉了"],
     "我还有哪些优惠券能用？", "HOME66", "LUCK88"),
    (["我手上有 SNOW15 同 RICE25 兩張優惠券，用到六月底", "SNOW15 嗰張話已經失效咗"],
     "我仲有咩優惠券用得？", "RICE25", "SNOW15"),
    (["I have two vouchers, PEAR10 and PLUM20, both good till the end of June",
      "PEAR10 got used on the blender order"],
     "Which of my vouchers can I still use?", "PLUM20", "PEAR10"),
]


@pytest.mark.parametrize(("turns", "question", "valid", "gone"), CASES)
def test_an_ended_coupon_is_never_listed_as_usable(any_mem: Memory, turns: list[str],
                                                   question: str, valid: str, gone: str) -> None:
    say(any_mem, turns, days=3)
    hits = any_mem.recall(question, session_id="q", user_id="u", k=5,
                          as_of=T0 + timedelta(days=10))
    current = [h for h in hits if h.current]
    assert any(valid in h.unit.content for h in current)
    assert not any(gone in h.unit.content and valid not in h.unit.content for h in current)
    # asked before the ending was said, the coupon was still valid then (recall by as_of)
    before = any_mem.recall(question, session_id="q0", user_id="u", k=5,
                            as_of=T0 + timedelta(days=1))
    assert any(gone in h.unit.content and h.current for h in before)


def test_the_words_of_an_ended_coupon_are_kept(any_mem: Memory) -> None:
    say(any_mem, ["我有一张券 LUCK88，6月底到期", "LUCK88 昨天买电饭煲用掉了"], days=3)
    hits = any_mem.recall("LUCK88", session_id="q", user_id="u", k=5,
                          as_of=T0 + timedelta(days=10))
    assert any("LUCK88" in h.unit.content for h in hits)


# A list of codes, each with its own expiry: one code's early date does not end the others.
LISTS = [
    ("我有两张券：LUCK88 到3月10号，HOME66 到6月底", "HOME66", "LUCK88"),
    ("我有兩張券：HOME66 到6月底，LUCK88 到3月10號", "HOME66", "LUCK88"),
    ("Saving my codes here: PEAR10 (exp 3/9), PLUM20 (exp 6/15), FIG30 (exp 3/12)", "PLUM20",
     "PEAR10"),
    # day first: the turn's own dates with a year say so ("20/03/2026")
    ("Kindly note my coupons: RAIN5 (expiry 20/03/2026), SUN15 (expiry 30/06/2026), "
     "WIND25 (expiry 07/03/2026).", "SUN15", "WIND25"),
]


@pytest.mark.parametrize(("turn", "valid", "gone"), LISTS)
def test_each_code_of_a_list_keeps_its_own_expiry(any_mem: Memory, turn: str, valid: str,
                                                  gone: str) -> None:
    any_mem.ingest(turn, session_id="s0", user_id="u", at=T0 - timedelta(days=61),
                   role="user")  # 4 March 2026
    hits = any_mem.recall("which coupons can I still use?", session_id="q", user_id="u", k=5,
                          as_of=T0 - timedelta(days=40))  # 25 March 2026
    current = [h for h in hits if h.current]
    assert any(valid in h.unit.content for h in current)
    assert not any(gone in h.unit.content and valid not in h.unit.content for h in current)


def test_codes_sharing_one_date_stay_together(any_mem: Memory) -> None:
    any_mem.ingest("我有三张：GOLD300、SILVER100、BRONZE50，全部到六月底", session_id="s0",
                   user_id="u", at=T0 - timedelta(days=61), role="user")
    units = [u for u in any_mem.store.find_units(Scope("u", None), as_of=T0 - timedelta(days=40))
             if "GOLD300" in u.content]
    assert units and all("BRONZE50" in u.content and u.valid_until is not None for u in units)


@pytest.mark.parametrize(("turn", "code"), [
    ("SPRING7 这张4月11日就过期了，帮我记着", "SPRING7"),
    ("SPRING7 這張4月11號就過期了", "SPRING7"),
    ("My $10 off coupon SPRING7 can be used up to April 11.", "SPRING7"),
])
def test_an_expiry_still_ahead_is_no_ending(any_mem: Memory, turn: str, code: str) -> None:
    any_mem.ingest(turn, session_id="s0", user_id="u", at=T0 - timedelta(days=61), role="user")
    hits = any_mem.recall("which coupons can I still use?", session_id="q", user_id="u", k=5,
                          as_of=T0 - timedelta(days=40))  # 25 March 2026, before 11 April
    assert any(code in h.unit.content and h.current for h in hits)
