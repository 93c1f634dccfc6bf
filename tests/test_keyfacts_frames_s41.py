"""Frames of stop 41, read from a fresh code-blind dev half (``sets43``), each written once for
every script:

* **someone reached is not me**: "联系我同事小孟 137…" reaches the colleague (我 owns a relation);
* **one order, one time**: "这单能不能下午三点送", "這一次改週四送就好，下週恢復週二", "just for today";
* **an example of a supposition is supposed**: "如果我以后搬去北京了，比如搬到X那边";
* **a building said after a space** belongs to the address ("…27号 中关村大厦1108室");
* **a value typed with a space before a question** is stated ("地址填好了 X 送货上门吗");
* **names**: "Name on the account is X" names X, not "Name"; "I'm SkyPlus Silver" is a tier;
  how the user is to be addressed ("以后称呼还是用全名吧 刘美佳") sets their name;
* **an item allergy lifted by eating the item** ("医生说海鲜可以吃了"), a spice level asked for
  after "不辣" ("以后都给我做重辣");
* **a typed value leads the words of its turn**: the clause that matched the question ("the mail
  address for the invoice is now my company's") lends its rank to the turn's typed e-mail;
* **no level read from words of a sentence** ("所以會員跟機票的名字都要改" has no level 所以);
  a plan named before the current level is history ("I've got the Anytime delivery pass");
* **a UK mobile** ("07452 881 903") is a phone number.

Sentences written for these tests; look-alikes beside each frame change nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import all_supposed, one_off
from jiyi.keyfacts.diets import diet_lifted, holds_a_diet, item_eaten_again
from jiyi.text.entities import extract_entities
from jiyi.text.levels import level_mentions
from keyfacts_memory import ask_after, say, slot_units

AT = datetime(2026, 5, 4, tzinfo=UTC)


def _kinds(text: str, kind: str) -> list[str]:
    return [e.text for e in extract_entities(text, AT) if e.kind == kind]


@pytest.mark.parametrize(("first", "later"), [
    ("我的手机号是13912345678", "明天我不在家，到了联系我同事小孟 13722904415，放她那就行"),
    ("我的電話是0912345678", "這週我出差，貨到了聯絡我老公 0933222111 就好"),
    ("我嘅電話係 9123 4567", "今日唔喺屋企，到咗打俾我媽 6234 5678 啦"),
])
def test_someone_reached_through_me_keeps_my_phone(any_mem: Memory, first: str, later: str) -> None:
    say(any_mem, [first, later])
    phones = [u.content for u in slot_units(any_mem, "phone")]
    assert len(phones) == 1 and any(d in phones[0] for d in ("13912345678", "0912345678", "9123 4567"))


@pytest.mark.parametrize(("text", "once"), [
    ("今天我请假在家，这单能不能下午三点送？", True),
    ("這週我出差，這一次改週四送就好，下週恢復週二", True),
    ("Just for today, please drop it at the front desk after 6pm", True),
    ("这单到了直接打我电话吧", True),
    ("以后都改成下午三点送，这单也是", False),  # a standing change named with this order
    ("以後改週四送", False),
    ("Please deliver after 6pm from now on", False),
])
def test_one_order_or_one_time_is_a_one_off(text: str, once: bool) -> None:
    assert one_off(text) is once


@pytest.mark.parametrize(("first", "later", "ask", "kept", "not_kept"), [
    ("每周二晚上送", "这周我出差，这一次改周四送就好，下周恢复周二", "平时哪天送？", "周二", "周四"),
    ("每週二晚上送", "這週我出差，這一次改週四送就好，下週恢復週二", "平常哪天送？", "週二", "週四"),
    ("Please deliver on Tuesday evenings", "I'm away this week, just for this delivery make it Thursday",
     "which day do you usually deliver?", "Tuesday", "Thursday"),
])
def test_a_one_off_time_does_not_replace_the_standing_one(e5_mem: Memory, first: str, later: str,
                                                          ask: str, kept: str,
                                                          not_kept: str) -> None:
    hits = ask_after(e5_mem, [first, later], ask)
    assert any(kept in h.unit.content and h.current for h in hits)
    assert not [u for u in slot_units(e5_mem, "delivery_time") if not_kept in u.content]


@pytest.mark.parametrize("text", [
    "如果我以后搬去北京了，比如搬到朝阳区建国路88号那边，账单地址要怎么改？",
    "如果我以後搬去台中，比方說搬到台中市西屯區台灣大道三段99號，帳單要怎麼改？",
    "If I moved, say to 12 Oak Street, Leeds, how would I change the billing address?",
])
def test_an_example_of_a_supposition_states_no_address(any_mem: Memory, text: str) -> None:
    say(any_mem, ["我的地址是上海市静安区南京西路1266号", text])
    addresses = [u.content for u in slot_units(any_mem, "address")]
    assert len(addresses) == 1 and "南京西路1266号" in addresses[0]


def test_a_consequence_is_still_stated() -> None:
    assert not all_supposed("如果有问题，打我电话13800138000")
    assert all_supposed("如果我以后搬去北京了，比如搬到朝阳区那边")


@pytest.mark.parametrize(("text", "address"), [
    ("地址是海淀区中关村大街27号 中关村大厦1108室 前台签收就行", "海淀区中关村大街27号 中关村大厦1108室"),
    ("以後寄重慶市渝北區金開大道1588號 龍湖星悅薈7棟9-3 成都那邊都別寄了",
     "重慶市渝北區金開大道1588號 龍湖星悅薈7棟9-3"),
    ("新地址天府三街199号 太平洋保险金融大厦A区18楼", "天府三街199号 太平洋保险金融大厦A区18楼"),
])
def test_a_building_after_a_space_belongs_to_the_address(text: str, address: str) -> None:
    assert any(address in a for a in _kinds(text, "address"))


def test_a_street_then_other_words_is_not_extended() -> None:
    assert _kinds("地址是海淀区中关村大街27号 明天送", "address") == ["海淀区中关村大街27号"]


@pytest.mark.parametrize("text", [
    "第一次用 地址填好了 朝阳区望京西园三区312号楼1单元502 送货上门吗",
    "第一次用 地址填好了 台北市大安區復興南路一段100號5樓 可以貨到付款嗎",
])
def test_a_value_before_a_separate_question_is_stated(any_mem: Memory, text: str) -> None:
    say(any_mem, [text])
    assert slot_units(any_mem, "address")


@pytest.mark.parametrize(("text", "name"), [
    ("Setting up autoship for my cats. Name on the account is Rebecca Lindqvist.", "Rebecca Lindqvist"),
    ("那个 以后称呼还是用全名吧 刘美佳 别再叫我英文名了", "刘美佳"),
    ("以後稱呼請用本名 陳怡君 謝謝", "陳怡君"),
    ("郵件開頭稱呼寫 Tiffany Tang 就可以", "Tiffany Tang"),
])
def test_a_name_set_for_the_record_or_the_greeting(any_mem: Memory, text: str, name: str) -> None:
    say(any_mem, [text])
    names = [u.content for u in slot_units(any_mem, "name")]
    assert any(name in n for n in names) and not any("Name" in n.split()[-1] for n in names)


@pytest.mark.parametrize("text", [
    "hi, I'm SkyPlus Silver, does that get me free seat selection?",
    "I'm Marriott Gold, can I get a late checkout?",
])
def test_a_programme_and_its_tier_is_no_name(text: str) -> None:
    assert not _kinds(text, "person")


@pytest.mark.parametrize(("text", "diet"), [
    ("我最近做了脱敏治疗，医生说海鲜可以吃了", "我海鲜过敏，不吃海鲜"),
    ("做咗脫敏治療，醫生話海鮮食得返", "我對海鮮過敏"),
    ("I did the allergy programme, I can eat shellfish again", "I'm allergic to shellfish"),
    ("胃养好了，可以试试微辣了", "我一点辣都不能吃，菜都做不辣的"),
    ("以後都幫我做重辣，越辣越好", "我一點辣都不能吃"),
])
def test_an_item_eaten_again_lifts_its_restriction(text: str, diet: str) -> None:
    assert holds_a_diet(diet)
    assert diet_lifted(text, diet)


@pytest.mark.parametrize(("text", "diet"), [
    ("我不能吃海鲜", "我海鲜过敏"),
    ("海鲜可以吃吗？", "我海鲜过敏"),
    ("我老公海鲜可以吃了", "我海鲜过敏"),
    ("I still can't eat shellfish", "I'm allergic to shellfish"),
    ("不要加辣", "我一点辣都不能吃"),
])
def test_look_alikes_eat_no_item_again(text: str, diet: str) -> None:
    assert not item_eaten_again(text, diet)
    assert not diet_lifted(text, diet)


def test_an_allergy_said_before_a_question_is_held() -> None:
    assert holds_a_diet("我花生过敏，买坚果礼盒的时候有没有不含花生的")


@pytest.mark.parametrize(("first", "change", "ask", "old", "lift"), [
    ("我海鲜过敏，不吃海鲜，订餐麻烦备注", "我最近做了脱敏治疗，医生说海鲜可以吃了，以后不用备注了",
     "我的饮食限制有哪些？", "不吃海鲜", "海鲜可以吃了"),
    ("我對海鮮過敏，訂位請幫我備註", "做咗脫敏治療，醫生話海鮮食得返，唔使再備註喇", "我有咩飲食限制？",
     "對海鮮過敏", "海鮮食得返"),
    ("I'm allergic to shellfish, please note it on bookings", "Good news, after the allergy programme "
     "I can eat shellfish again, no need for the note", "any dietary restrictions on file?",
     "allergic to shellfish", "shellfish again"),
])
def test_an_allergy_lifted_is_not_current(e5_mem: Memory, first: str, change: str, ask: str,
                                          old: str, lift: str) -> None:
    hits = ask_after(e5_mem, [first, change], ask)
    assert not any(old in h.unit.content and h.current for h in hits)
    # the user's word lifting it is the list's state now: it is found
    assert any(lift in h.unit.content for h in hits)


@pytest.mark.parametrize(("turns", "ask", "value"), [
    (["My mail is claire.m@orange.fr, send the confirmation there please.",
      "For the next orders, the mail address for the invoice is now the one of my company: "
      "c.moreau@atelier-moreau.fr. I opened my own studio."],
     "I did not get the invoice. To which mail did you send it?", "c.moreau@atelier-moreau.fr"),
    (["我的邮箱是 wangli@163.com", "以后发票都开公司的，公司邮箱是 finance@haida-tech.cn，个人那个不用了"],
     "发票发到哪个邮箱了？", "finance@haida-tech.cn"),
    (["我嘅電郵係 kitlam@yahoo.com.hk", "之後啲單據寄公司電郵 kit.lam@wingfat.hk，私人嗰個唔用喇"],
     "單據寄咗去邊個電郵？", "kit.lam@wingfat.hk"),
])
def test_the_typed_value_of_a_turn_is_found(e5_mem: Memory, turns: list[str], ask: str,
                                            value: str) -> None:
    hits = ask_after(e5_mem, turns, ask)
    assert any(value in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize("text", [
    "所以會員跟機票的名字都要跟著改，不然出境會不會有問題",
    "我想改一下會員資料，先幫我確認名字",
    "然后会员那边帮我看一下",
])
def test_words_of_a_sentence_before_membership_are_no_level(text: str) -> None:
    assert not level_mentions(text)


@pytest.mark.parametrize(("text", "level"), [
    ("我是白金会员", "白金"), ("金卡會員", "金卡"), ("PLUS会员", "PLUS"), ("年卡会员", "年卡"),
])
def test_level_names_before_membership_are_still_read(text: str, level: str) -> None:
    assert [m.value for m in level_mentions(text)] == [level]


@pytest.mark.parametrize(("first", "change", "ask", "old"), [
    ("Hi, I've got the Anytime delivery pass, can I book a Saturday slot on it?",
     "I'm home midweek now, can you put me on the Midweek pass instead?",
     "Which delivery pass have I got at the moment?", "Anytime"),
    ("I am subscribing Autoship Essentials plan for my cat food.",
     "I think I change to the Plus plan from now, my cat needs grooming.", "Which plan I am now?",
     "Essentials"),
])
def test_a_plan_named_before_the_current_level_is_history(e5_mem: Memory, first: str, change: str,
                                                          ask: str, old: str) -> None:
    hits = ask_after(e5_mem, [first, change], ask)
    assert not any(old in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize("text", [
    "Now please use 07452 881 903 for the courier.",
    "my mobile is 07911204356",
])
def test_a_uk_mobile_is_a_phone(text: str) -> None:
    assert _kinds(text, "phone")


def test_a_uk_mobile_given_in_a_request_is_the_users_phone(any_mem: Memory) -> None:
    say(any_mem, ["Tomasz Wiśniewski, 07911 204 356",
                  "My number is changed, 07911 204 356 is not working anymore. Now please use "
                  "07452 881 903 for the courier."])
    phones = [u.content for u in slot_units(any_mem, "phone")]
    assert len(phones) == 1 and "07452 881 903" in phones[0]
