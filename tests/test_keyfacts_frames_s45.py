"""Frames of stop 45, read from the development half of ``sets48`` (conversations written
code-blind for this stop), each written for every script it applies to:

* **a move of plan with nothing on file**: a move that grades the plan ("upgrade me to 500
  Mbps", "降到300M吧", "drop to the Off-Peak plan") or names one (its own noun, or a noun the
  recent turns say it with: "switch me to Duo" after "the Duo plan is £16.99") is the plan on
  file; a plan said earlier in words no reader holds is history for a question about the plan;
* **questions find their slot** in more of the ways customers ask ("what apartment are you
  bringing it to?", "會發到哪兒", "資費", "月費計劃", "how are you going to let me know…");
* **values kept whole and clean**: an address after 填 / 写 ("收货地址填海淀区…"), a block, floor
  and room typed with spaces ("唐德街 9 號 天晉 2 座 30 樓 D 室"), a weekday said as a standing
  time ("送花改星期日下晝 2 點後", "固定禮拜四晚上 7 點以後") or a count of days ("一週五天") is
  not made a date;
* **nothing stated**: a supposition whose rest only hedges ("Random q. If I end up moving to
  Leeds next year (work might relocate me, nothing decided)"), a name given after saying it is
  for someone else ("我要幫我媽媽掛號…名字是陳王秀蘭"), an e-mail for one booking only
  ("淨係呢單 cc 佢"), a name the user stops going by (no food);
* **a name wished for** ("I'd like to be Greta now", "could the account say Katherine Alvarez
  from now on?") is the user's name.

Sentences written for these tests; look-alikes beside each frame change nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import all_supposed, one_off
from jiyi.keyfacts.schema import list_item, spec
from jiyi.recall.rules import slot_intent
from jiyi.store.base import Scope
from jiyi.text.entities import extract_entities
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import LATER, T0, ask_after, say, slot_units


def _drafts(text: str) -> list[tuple[str | None, str]]:
    turn = TurnInput(text=text, role="user", at=datetime(2026, 3, 1, tzinfo=UTC), session_id="s",
                     user_id="u", turn_id="t")
    return [(d.slot, d.content) for d in extract_turn(turn).drafts]


def _addresses(text: str) -> list[str]:
    return [e.text for e in extract_entities(text, datetime(2026, 3, 1, tzinfo=UTC))
            if e.kind == "address"]


@pytest.mark.parametrize(("turns", "new"), [
    (["internet keeps dropping, I'm on the 150 Mbps fibre plan", "go on then, upgrade me to 500 Mbps"],
     "500 Mbps"),
    (["家里宽带是1000M的，最近晚上看视频老卡", "宽带续费太贵，降到300M吧"], "300M"),
    (["家裡寬頻是1000M的，晚上常常斷線", "寬頻續約太貴了，降到300M吧"], "300M"),
])
def test_a_graded_move_with_nothing_on_file_is_the_plan(any_mem: Memory, turns: list[str],
                                                        new: str) -> None:
    say(any_mem, turns)
    plans = [u.content for u in slot_units(any_mem, "membership")]
    assert len(plans) == 1 and new in plans[0]


def test_a_drop_to_another_plan_replaces_the_typed_one(any_mem: Memory) -> None:
    say(any_mem, ["Hi, I'm on the Anytime Plus membership, can I bring my own chalk bag?",
                  "Money's tight so I'd like to drop to the Off-Peak plan"])
    plans = [u.content for u in slot_units(any_mem, "membership")]
    assert len(plans) == 1 and "Off-Peak" in plans[0]


def test_a_plan_named_by_the_agent_makes_a_switch_a_move(any_mem: Memory) -> None:
    at = T0
    for role, text in [("user", "I'm on the Individual plan and the app keeps skipping songs"),
                       ("user", "is there a plan where we each get our own account?"),
                       ("assistant", "The Duo plan is £16.99 for 2 accounts, the Family plan "
                                     "£19.99 for up to 6."),
                       ("user", "can you switch me to Duo then?")]:
        at += timedelta(days=1)
        any_mem.ingest(text, session_id="s1", user_id="u", role=role, at=at)
    plans = [u.content for u in slot_units(any_mem, "membership")]
    assert len(plans) == 1 and "Duo" in plans[0]


@pytest.mark.parametrize("later", [
    "can you switch me to oat milk instead?",  # no plan word anywhere: a food choice
    "my sister wants to upgrade to 500 Mbps",  # someone else's
    "if I upgraded to 500 Mbps would it be faster?",  # supposed
])
def test_look_alike_moves_type_no_plan(any_mem: Memory, later: str) -> None:
    say(any_mem, ["hi, the router keeps dropping in the evenings", later])
    assert not slot_units(any_mem, "membership")


def test_a_plan_said_in_words_before_the_typed_one_is_history(any_mem: Memory) -> None:
    hits = ask_after(any_mem, ["internet keeps dropping in the evenings, I'm on the 150 Mbps "
                               "fibre plan", "both kids are gaming now, upgrade me to 500 Mbps"],
                     "What speed package am I paying for at the moment?")
    assert any("500 Mbps" in h.unit.content and h.current for h in hits)
    assert not any("150 Mbps" in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize(("question", "slot"), [
    ("what apartment are you guys bringing it to?", "address"),
    ("这两罐龙井会发到哪儿？", "address"),
    ("呢兩罐茶葉會寄去邊？", "address"),
    ("What card level am I on with you?", "membership"),
    ("我家宽带现在是多少兆的？", "membership"),
    ("我手機現在用的是哪個資費？", "membership"),
    ("我而家每個月係咩月費計劃？", "membership"),
    ("How are you going to let me know when the MOT's done?", "contact_channel"),
    ("For tomorrow, what will the kitchen keep off my plate?", "food"),
    ("我自己嗰份飯盒有咩要特別注意？", "food"),
    ("Where's the invoice for this one going to be emailed?", "email"),
])
def test_questions_find_their_slot(question: str, slot: str) -> None:
    intent = slot_intent(question)
    assert intent is not None and slot in intent.slots


@pytest.mark.parametrize("question", [
    "这个快递发到哪了？",  # where the parcel is now: an order's status
    "What card payment methods do you take?",
])
def test_look_alike_questions_ask_no_such_slot(question: str) -> None:
    intent = slot_intent(question)
    assert intent is None or not {"address", "membership"} & set(intent.slots)


@pytest.mark.parametrize(("text", "address"), [
    ("买了个机械键盘，收货地址填海淀区学院路30号院8号楼2单元501，帮我看下", "海淀区学院路30号院8号楼2单元501"),
    ("收件地址寫台北市信義路五段7號", "台北市信義路五段7號"),
    ("btw 我 move 咗屋喇，new address 係將軍澳唐德街 9 號 天晉 2 座 30 樓 D 室，以後 send 嘢嚟呢度",
     "將軍澳唐德街 9 號 天晉 2 座 30 樓 D 室"),
])
def test_an_address_is_read_whole_and_without_its_verb(text: str, address: str) -> None:
    assert address in _addresses(text)


@pytest.mark.parametrize(("text", "kept"), [
    ("你好，想訂你們的健康餐盒，一週五天午餐", "一週五天"),
    ("每周三次瑜伽课，帮我都排在晚上", "每周三次"),
    ("送花改星期日下晝 2 點後，我而家星期六要返朝", "星期日下晝 2 點後"),
    ("配送可以固定禮拜四晚上 7 點以後嗎？", "禮拜四晚上 7 點以後"),
])
def test_a_standing_weekday_or_a_count_of_days_is_no_date(text: str, kept: str) -> None:
    assert any(kept in content for _, content in _drafts(text))


def test_a_weekday_of_an_event_is_still_a_date() -> None:
    contents = [content for _, content in _drafts("周五下午3点开会")]
    assert any("2026年" in c for c in contents) and not any("周五" in c for c in contents)


@pytest.mark.parametrize("text", [
    "Random q. If I end up moving to Leeds next year (work might relocate me, nothing decided)",
    "如果我搬去深圳，还没定，只是问问",
    "如果搬去台中的話，可能啦，還沒確定",
])
def test_a_supposition_that_only_hedges_states_nothing(text: str) -> None:
    assert all_supposed(text)


@pytest.mark.parametrize("text", [
    "If I move to Leeds, send it to 4 Oak St",
    "If I upgrade, will my points carry over? My address is 5 Elm St",
])
def test_a_supposition_with_a_statement_beside_it_states_that(text: str) -> None:
    assert not all_supposed(text)


def test_a_hedged_move_is_no_address(e5_mem: Memory) -> None:
    say(e5_mem, ["Hi, my quarterly case should have come last week. I'm at 7 Harcourt Mews, "
                 "Didsbury, M20 2RL.",
                 "Random q. If I end up moving to Leeds next year (work might relocate me, "
                 "nothing decided), would you still deliver there?"])
    addresses = [u.content for u in slot_units(e5_mem, "address")]
    assert addresses and all("Leeds" not in a for a in addresses)


@pytest.mark.parametrize(("text", "name"), [
    ("hey small thing for your notes. I've stopped going by Maggie, new job new me, so I'd like "
     "to be Greta now (it also comes from Margaret, long story)", "Greta"),
    ("Bit of admin first: I got married over the weekend and I'm changing everything over, so "
     "could the account say Katherine Alvarez from now on?", "Katherine Alvarez"),
    ("I'd prefer to be called Sam from now on", "Sam"),
])
def test_a_name_wished_for_is_the_users(text: str, name: str) -> None:
    assert any(slot == "name" and name in content for slot, content in _drafts(text))


@pytest.mark.parametrize("text", [
    "I'd like to be notified by text",
    "I'd like to be Gold now",  # a level wished for, no name
])
def test_a_wish_to_be_something_else_is_no_name(text: str) -> None:
    assert not any(slot == "name" for slot, _ in _drafts(text))


@pytest.mark.parametrize("text", [
    "我要幫我媽媽掛號，她假牙有點鬆，吃東西會卡。名字是陳王秀蘭，電話跟我留一樣的就好",
    "我要帮我妈妈挂号，她假牙有点松。名字是陈王秀兰，电话跟我留的一样",
])
def test_a_name_given_for_someone_else_is_not_mine(text: str) -> None:
    assert not any(slot == "name" for slot, _ in _drafts(text))


def test_a_name_given_as_mine_after_booking_for_someone_is_mine() -> None:
    drafts = _drafts("我要幫我媽媽掛號。我的名字是陳柏翰，我陪她去")
    assert any(slot == "name" and "陳柏翰" in content for slot, content in drafts)


@pytest.mark.parametrize("text", [
    "確認信今次可唔可以 cc 埋我老婆？佢要攞去同公司請假，sandy.tse@hotmail.com，淨係呢單 cc 佢就得",
    "确认信这次能不能抄送我老婆？sandy.tse@hotmail.com，只系呢单就得",
])
def test_an_email_for_one_booking_only_is_not_mine(text: str) -> None:
    assert one_off(text)
    assert not any(slot == "email" for slot, _ in _drafts(text))


def test_a_name_i_stop_going_by_is_no_food(e5_mem: Memory) -> None:
    say(e5_mem, ["hey small thing for your notes. I've stopped going by Maggie, new job new me"])
    current = e5_mem.store.find_units(Scope("u", None), as_of=LATER)
    assert not any(u.slot and u.slot.startswith("food:") for u in current)


def test_a_list_item_is_named_by_words_not_marks() -> None:
    row = spec("food")
    assert row is not None
    item = list_item(row, "I just don't like it). Spicy is fine.")
    assert any(ch.isalpha() for ch in item) and item != ")"


@pytest.mark.parametrize(("text", "item"), [
    ("I'm lactose intolerant", "lactose"),
    ("no pork please", "pork"),
    ("A couple of things: I'm lactose intolerant, and no pork please", "pork"),
])
def test_a_diet_said_in_plain_words_is_a_food_item(e5_mem: Memory, text: str, item: str) -> None:
    say(e5_mem, [text])
    foods = [u.slot for u in slot_units(e5_mem, "food")]
    assert any(item in (slot or "") for slot in foods)


@pytest.mark.parametrize("text", [
    "Sam in accounts has a peanut allergy",  # someone else's
    "is the curry dairy-free?",  # asked
])
def test_a_diet_not_my_own_is_no_food_item(e5_mem: Memory, text: str) -> None:
    say(e5_mem, [text])
    assert not slot_units(e5_mem, "food")


@pytest.mark.parametrize("text", [
    "Can you send a copy of the OS-11820 invoice to my accountant? ledger@harrisbooks.co.uk. "
    "Just that one, she's doing my VAT return.",
    "Send this one invoice to billing@acme-ops.com please, only that one",
])
def test_an_address_for_that_one_only_is_not_mine(any_mem: Memory, text: str) -> None:
    say(any_mem, ["Invoices go to tomh1982@gmail.com", text])
    emails = [u.content for u in slot_units(any_mem, "email")]
    assert len(emails) == 1 and "tomh1982@gmail.com" in emails[0]


@pytest.mark.parametrize(("weighed", "plan"), [
    ("我在考慮要不要升到 1G，家裡小孩打電動一直說卡", "300M"),
    ("我在考虑要不要升到1G，小孩打游戏老说卡", "300M"),
    ("thinking of upgrading to Unlimited Max next month, what's the price on that", "20GB"),
])
def test_a_plan_weighed_is_no_move(any_mem: Memory, weighed: str, plan: str) -> None:
    first = ("I'm on the 20GB Essentials plan" if plan == "20GB"
             else "家里宽带是你们 300M 的方案")
    say(any_mem, [first, weighed])
    assert not slot_units(any_mem, "membership")


@pytest.mark.parametrize(("turns", "now"), [
    (["text me at (415) 555-0139 when it's ready",
      "my phone got stolen so text my work cell instead, its 415 555 0177",
      "got a replacement sim with my old number on it so it's 415-555-0139 again, you can stop "
      "using the work one"], "0139"),
    (["电话是13912345678", "手机丢了，先打我同事的13800001111", "补办了卡，电话改回13912345678了"], "13912345678"),
])
def test_an_old_number_in_use_again_is_current(any_mem: Memory, turns: list[str],
                                               now: str) -> None:
    say(any_mem, turns)
    phones = [u.content for u in slot_units(any_mem, "phone")]
    assert len(phones) == 1 and now in phones[0].replace("-", "").replace(" ", "")


@pytest.mark.parametrize(("turns", "ask", "other"), [
    (["Hi, I'm a Blue Card member and my popcorn voucher didn't come through",
      "what's the difference between mine and the Black Card again"],
     "What membership level am I on with you?", "Black Card"),
    (["收货地址是海淀区学院路30号院8号楼2单元501", "再买个支架，这单先寄公司，朝阳区望京SOHO T3 1502，就这一单"],
     "我的收货地址是哪里？", "望京"),
    (["我係你哋嘅金卡會員", "我老婆想問白金卡有咩著數"], "我而家係咩會員等級？", "白金卡"),
])
def test_a_question_a_one_off_or_someone_elses_value_is_not_current(
        any_mem: Memory, turns: list[str], ask: str, other: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    assert not any(other in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize(("turns", "ask", "other"), [
    (["I'm on 20GB Essentials and keep running out", "thinking of upgrading to Unlimited Max "
      "maybe next month"], "Remind me which plan I've got with you?", "Unlimited Max"),
    (["我用緊 $198 30GB 嗰個 plan", "如果轉 $98 10GB 會唔會唔夠用？"], "我而家每個月係咩月費計劃？", "$98"),
])
def test_with_nothing_typed_a_weighed_value_is_not_current(
        any_mem: Memory, turns: list[str], ask: str, other: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    assert not any(other in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize(("turns", "value"), [
    (["下晝2點至6點送啦，屋企有工人姐姐收", "唔好意思又要改，平日要 OT，改做9點後好冇？"], "9點後"),
    (["下午2点到6点送，家里有阿姨收", "阿姨放假了，送货改成晚上9点后好不好？"], "9点后"),
])
def test_a_change_put_as_a_suggestion_is_the_new_time(any_mem: Memory, turns: list[str],
                                                      value: str) -> None:
    say(any_mem, turns)
    times = [u.content for u in slot_units(any_mem, "delivery_time")]
    assert len(times) == 1 and value in times[0]
