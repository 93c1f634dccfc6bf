"""The newest statement of a single-valued fact is its current value, however the change was said
(issue #24): by design, not by reading the change's words.

* A slot nothing typed (a delivery day said in two questions, a number said in passing twice):
  the newest candidate naming a value of it stands for the current one, and an older candidate
  naming another value is history (shown with its date, ranked as found).
* A typed current value and a later statement or question naming another value the write path
  did not read ("Regards, Laura Okafor" after "Laura Mensah"): neither is presented as current.
* A household member at home says when a delivery can be taken ("晚上六点以后我儿子在家").
* A short question with no possessor asks for the user's own fact ("電話幾多號"), and "哪天送"
  asks for the delivery day; buying a phone or an order's arrival day asks for neither.

Three scripts, both backends; nothing a user said is lost."""

from __future__ import annotations

import pytest

from jiyi import Hit, Memory
from jiyi.keyfacts.typing import owns
from jiyi.recall.rules import slot_intent
from keyfacts_memory import ask_after


def _flat(text: str) -> str:
    return text.replace(" ", "")


def _current_with(hits: list[Hit], word: str, without: str) -> bool:
    """A hit presented as current holds ``word`` and not ``without``."""
    return any(h.current and word in _flat(h.unit.content) and without not in _flat(h.unit.content)
               for h in hits)


@pytest.mark.parametrize(("question", "slot"), [
    ("電話幾多號", "phone"),
    ("电话几多号", "phone"),
    ("電話號碼係咩", "phone"),
    ("what is the phone number?", "phone"),
    ("蔬菜箱現在哪天送？", "delivery_time"),
    ("这位客人希望哪天送货？", "delivery_time"),
    ("what day do you deliver my groceries now?", "delivery_time"),
    ("which days does she want deliveries", "delivery_time"),
])
def test_a_short_question_with_no_possessor_asks_for_the_users_fact(question: str,
                                                                    slot: str) -> None:
    intent = slot_intent(question)
    assert intent is not None and intent.slots[0] == slot


@pytest.mark.parametrize(("question", "slot"), [
    ("What's her number now?", "phone"),
    ("what is his email", "email"),
    ("how to contact her ah?", "contact_channel"),
    ("她现在的电话是多少", "phone"),
    ("他叫什么名字", "name"),
    ("佢個電話幾多號", "phone"),
])
def test_a_short_question_about_her_or_him_asks_for_the_users_fact(question: str,
                                                                   slot: str) -> None:
    """The agent asks about the customer in the third person."""
    intent = slot_intent(question)
    assert intent is not None and intent.own and intent.slots[0] == slot


@pytest.mark.parametrize("question", [
    "哪款手机好", "recommend a phone", "What phone did Caroline buy?", "我的订单哪天到",
    "哪天到货", "What is Caroline's phone?", "What did her mother say about the phone?",
    "how do I contact her manager?", "他同事的电话",
])
def test_buying_a_thing_or_an_orders_day_is_no_key_fact_question(question: str) -> None:
    assert slot_intent(question) is None


@pytest.mark.parametrize(("text", "own"), [
    ("晚上六点以后我儿子在家", True),
    ("夜晚六點後我個仔喺屋企", True),
    ("my son is home after 6 pm so evenings work", True),
    ("我儿子晚上六点以后有空打球", False),
    ("my son has football after 6 pm", False),
])
def test_a_household_member_at_home_is_the_users_delivery_window(text: str, own: bool) -> None:
    assert owns("delivery_time", text) is own


UNTYPED_DAY_CASES = [
    (["上次说好的沙发周三送，那天还可以吧？", "周三临时要出差，改到周五吧"], "沙发哪天送？", "周五", "周三"),
    (["上次說好洗碗機星期三送，那天還可以嗎？", "星期三要出差，改成星期五吧"], "洗碗機哪天送？", "星期五",
     "星期三"),
]


@pytest.mark.parametrize(("turns", "question", "new", "old"), UNTYPED_DAY_CASES)
def test_the_newest_mention_of_an_untyped_slot_stands_for_its_value(
        any_mem: Memory, turns: list[str], question: str, new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert _current_with(hits, new, "\0")
    # the older day is shown as history (ranked as found), never as current
    older = [h for h in hits if old in h.unit.content and new not in h.unit.content]
    assert older and not any(h.current for h in older)


HOUSEHOLD_CASES = [
    (["以后都工作日上午十点前送货", "跟你说一下，早上家里没人了，晚上六点以后我儿子在家"],
     "我的送货时间是什么时候？", "六点", "十点"),
    (["以後都平日早上十點前送貨", "講聲先，早上屋企冇人喇，夜晚六點後我個仔喺屋企"],
     "我嘅送貨時間係幾點？", "六點", "十點"),
    (["Please deliver on weekday mornings before 10am",
      "Heads up, mornings are tricky now; my son is home after 6 pm so evenings work"],
     "What's my delivery time?", "6pm", "10am"),
]


@pytest.mark.parametrize(("turns", "question", "new", "old"), HOUSEHOLD_CASES)
def test_a_window_said_by_whos_at_home_replaces_the_old_one(
        any_mem: Memory, turns: list[str], question: str, new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert _current_with(hits, new, old)
    assert not _current_with(hits, old, new)


NAME_CASES = [
    (["My name is Laura Mensah, I'm ordering a kettle",
      "Got married last month! Spelling is O-K-A-F-O-R, Laura Okafor"], "What's my name?", "Mensah"),
    (["My name is Laura Mensah, I'm ordering a kettle",
      "It's Laura Okafor on my new passport, fyi"], "What's my name?", "Mensah"),
]
# "名字写错了，应该是王小明" / "個名寫錯咗，應該係王小明" are read by the write path now (a name set
# on the record): tests/test_keyfacts_name_set.py


@pytest.mark.parametrize(("turns", "question", "old"), NAME_CASES)
def test_a_later_name_the_rules_did_not_read_unseats_the_current_one(
        any_mem: Memory, turns: list[str], question: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert any(old in h.unit.content for h in hits)  # still recalled
    assert not any(h.current and old in h.unit.content for h in hits)


def test_a_name_said_again_with_the_current_one_contests_nothing(any_mem: Memory) -> None:
    hits = ask_after(any_mem, ["My name is Laura Mensah, I'm ordering a kettle",
                               "Thanks for the help! Regards, Laura Mensah"], "What's my name?")
    assert any(h.current and h.unit.slot == "name" and "Mensah" in h.unit.content for h in hits)


@pytest.mark.parametrize("later", [
    "Hit me up on Google Chat from now on",
    "New addy is 88 Harbor View Dr, San Diego, CA 92101",
    "Just hit Founders Club tier!!",
])
def test_an_app_a_place_or_a_tier_said_later_leaves_the_name_current(any_mem: Memory,
                                                                    later: str) -> None:
    """Capitalised runs that are no person ("Google Chat", "San Diego", "Founders Club")."""
    hits = ask_after(any_mem, ["My name is Laura Mensah, I'm ordering a kettle", later],
                     "What's my name?")
    assert any(h.current and h.unit.slot == "name" and "Mensah" in h.unit.content for h in hits)


def test_someone_elses_name_said_later_leaves_the_users_current(any_mem: Memory) -> None:
    hits = ask_after(any_mem, ["My name is Laura Mensah, I'm ordering a kettle",
                               "My sister Abena Owusu will pick it up"], "What's my name?")
    assert any(h.current and h.unit.slot == "name" and "Mensah" in h.unit.content for h in hits)


def test_a_name_change_said_with_a_married_surname_is_read(any_mem: Memory) -> None:
    hits = ask_after(any_mem, [
        "Hi, I'm Priya Nair, my blender is broken",
        "I got married last month and took my husband's surname, so please update it to "
        "Priya Menon"], "customer name?")
    assert any(h.current and h.unit.slot == "name" and "Menon" in h.unit.content for h in hits)
    assert not any(h.current and "Nair" in h.unit.content for h in hits)


TAKEN_BACK_CASES = [
    (["退款到底好了没？有事直接微信我就行，快一点", "别微信了啦，手机坏了，打座机吧"], "怎么联系她？", "微信"),
    (["退款搞掂未？有嘢直接WhatsApp我得喇，快啲", "唔好WhatsApp喇，部機壞咗，打屋企電話啦"], "點樣聯絡佢？",
     "WhatsApp"),
    (["the refund how already? u all can just whatsapp me, faster",
      "dont whatsapp me liao, phone spoil already. just email lor"], "how to contact her ah?",
     "whatsapp"),
]


@pytest.mark.parametrize(("turns", "question", "old"), TAKEN_BACK_CASES)
def test_a_channel_taken_back_later_is_no_longer_presented_as_current(
        any_mem: Memory, turns: list[str], question: str, old: str) -> None:
    """"别微信了", "唔好WhatsApp喇", "dont whatsapp me" (no apostrophe, as chat writes it)."""
    hits = ask_after(any_mem, turns, question)
    assert hits
    assert not any(h.current and old.casefold() in h.unit.content.casefold()
                   and not any(w in h.unit.content.casefold() for w in ("座机", "電話", "email"))
                   for h in hits)
