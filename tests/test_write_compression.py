"""Compression that compresses: a long compound turn gives units shorter than itself with every
entity kept, an identifier is said once per unit, laughter, emoji, repeated emphasis and talk
about the talk never become durable units."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import MemoryType
from jiyi.write import Extraction, TurnInput, extract_turn
from jiyi.write.compress import split_sentences

AT = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
DURABLE = (MemoryType.FACT_REFERENCE, MemoryType.USER_PROFILE)
RATIO = 0.85


def ex(text: str, role: str = "user", speaker: str | None = None) -> Extraction:
    return extract_turn(TurnInput(text, role, AT, "s", "u", "t1", speaker))


COMPOUND = {
    "zh-Hans": "你好，我叫王芳，手机号是13812345678。上周买的空气净化器，订单号是PO-10023，到现在还没"
               "发货，麻烦帮我查一下。另外这张优惠券SAVE20到5月3日有效，满200元可用，下单的时候帮我用上。"
               "这个非常重要，真的非常重要！哈哈哈 👍 谢谢啦！",
    "zh-Hant": "你好，我叫陳怡安，手機號碼是0912345678。上週買的空氣清淨機，訂單編號是PO-10023，到現在還"
               "沒出貨，麻煩幫我查一下。另外這張優惠券SAVE20到5月3日有效，滿200元可用，下單的時候幫我用上。"
               "這個非常重要，真的非常重要！哈哈哈 👍 謝謝啦！",
    "en": "Hi there! I ordered an air purifier last week, order PO-10023, and it still hasn't "
          "shipped, could you check on it? Also the coupon SAVE20 is valid until May 3 for orders "
          "over $200, please apply it at checkout. This is really important, really really "
          "important! lol 😂😂 thanks so much!",
}


@pytest.mark.parametrize("lang", sorted(COMPOUND))
def test_a_compound_long_turn_gives_shorter_units_and_keeps_every_entity(lang: str) -> None:
    out = ex(COMPOUND[lang])
    units = [d.content for d in out.drafts]
    ratio = sum(len(u) for u in units) / len(out.redacted_text)
    assert ratio <= RATIO, (ratio, units)
    joined = "\n".join(units)
    for e in out.entities:
        assert e.text in joined or e.kind == "date", (e, units)
    for ident in ("PO-10023", "SAVE20"):
        assert any(ident in d.content and d.type is MemoryType.FACT_REFERENCE
                   for d in out.drafts), units


@pytest.mark.parametrize(("text", "ident"), [
    ("优惠券 SAVE20 到5月3日有效", "SAVE20"),
    ("這張優惠券SAVE20到5月3日前有效，滿200元可用", "SAVE20"),
    ("The coupon SAVE20 is valid until June 30.", "SAVE20"),
    ("上周买的空气净化器，订单号是PO-10023，到现在还没发货", "PO-10023"),
    ("I ordered an air purifier last week, order PO-10023, and it still hasn't shipped", "PO-10023"),
    ("您的订单ABC123已发货，运单SF1234567890", "ABC123"),
])
def test_an_id_appears_once_per_unit(text: str, ident: str) -> None:
    drafts = ex(text).drafts
    facts = [d for d in drafts if d.about_id == ident]
    assert facts, [d.content for d in drafts]
    for d in drafts:
        assert d.content.count(ident) <= 1, d.content


def test_an_id_fact_says_what_the_clauses_around_it_say_and_they_are_not_repeated() -> None:
    drafts = ex("上周买的空气净化器，订单号是PO-10023，花了¥1299").drafts
    fact = next(d for d in drafts if d.about_id == "PO-10023")
    assert "空气净化器" in fact.content and "¥1299" in fact.content
    assert "2026年4月20日那周" in fact.content  # dated
    assert [d for d in drafts if d is not fact and "空气净化器" in d.content] == []


def test_a_status_takes_no_fact_of_the_user_with_it() -> None:
    """A later status replaces an id's fact: what the user said beside the status (the
    purchase) stays a unit of its own, said once."""
    drafts = ex("上周买了一台加湿器，订单号 JD5520193377，到现在还没发货").drafts
    fact = next(d for d in drafts if d.about_id == "JD5520193377")
    assert fact.slot == "id:JD5520193377" and "还没发货" in fact.content
    assert "加湿器" not in fact.content
    assert [d.content for d in drafts if "加湿器" in d.content] == ["2026年4月20日那周买了一台加湿器"]


@pytest.mark.parametrize("text", ["哈哈哈 👍", "lol 😂😂", "真的非常重要，真的非常重要", "这个非常重要，真的非常重要",
                                  "這個非常重要，真的非常重要", "This is really important, really important!",
                                  "哈哈哈哈", "haha 👍👍", "Hi, quick question in English",
                                  "用英文问一下", "Quick question in English:"])
def test_laughter_emoji_emphasis_and_talk_about_the_talk_are_not_durable(text: str) -> None:
    assert not [d for d in ex(text).drafts if d.type in DURABLE], ex(text).drafts


def test_the_demo_opening_keeps_the_email_and_not_the_remark() -> None:
    drafts = ex("Hi, quick question in English: my email is zhang.wei@example.com").drafts
    assert [d.slot for d in drafts if d.type in DURABLE] == ["email"]
    assert not any("question" in d.content.lower() for d in drafts)


def test_emphasis_beside_a_fact_keeps_only_the_fact() -> None:
    drafts = ex("我对花生过敏，这个非常重要，真的非常重要").drafts
    assert [d.content for d in drafts] == ["我对花生过敏"]


def test_a_clause_said_twice_is_kept_once() -> None:
    drafts = ex("帮我查一下物流，帮我查一下物流").drafts
    assert [d.content.count("物流") for d in drafts] == [1]


def test_laughter_before_a_fact_goes_the_fact_stays() -> None:
    drafts = ex("哈哈，我下周去杭州出差").drafts
    assert len(drafts) == 1 and "杭州" in drafts[0].content and "哈" not in drafts[0].content


def test_a_transcript_tag_is_not_repeated_in_every_unit() -> None:
    out = ex("Caroline: I went to a support group yesterday. It was so powerful. My mom came "
             "along and we talked for hours.", speaker="Caroline")
    contents = [d.content for d in out.drafts]
    assert contents and all(c.count("Caroline") >= 1 for c in contents)
    assert not any(c.count("Caroline:") > 1 or c.startswith("Caroline: Caroline") for c in contents)
    assert contents[0].startswith("Caroline went to a support group")


@pytest.mark.parametrize(("text", "parts"), [
    ("请稍后重试 帮我查一下订单", ["请稍后重试", "帮我查一下订单"]),
    ("帮我登录一下 I moved to Taipei last month", ["帮我登录一下", "I moved to Taipei last month"]),
    ("My phone number is +1 415-555-8328 上次买的耳机坏了", ["My phone number is +1 415-555-8328",
                                                   "上次买的耳机坏了"]),
    ("订单号是 DD75131379 我的邮箱是a@b.com", ["订单号是 DD75131379", "我的邮箱是a@b.com"]),
    ("订单号是 DD92523270 My phone number is 555-0330", ["订单号是 DD92523270",
                                                     "My phone number is 555-0330"]),
    ("新号是13999902990 I moved to Beijing", ["新号是13999902990", "I moved to Beijing"]),
    ("我的 iPhone 15 Pro Max 订单", ["我的 iPhone 15 Pro Max 订单"]),
    ("用 Google Maps 查了一下", ["用 Google Maps 查了一下"]),
])
def test_spaces_between_scripts_may_end_a_sentence(text: str, parts: list[str]) -> None:
    assert [s.text for s in split_sentences(text)] == parts


@pytest.mark.parametrize("text", [
    "我们去海边看了日出，心情特别好。",
    "我們去海邊看了日出，心情特別好。",
])
def test_a_chinese_unit_is_the_sentence_without_its_closing_full_stop(text: str) -> None:
    """The slot prototypes' margins are calibrated on units without the closing 。."""
    assert [d.content for d in ex(text).drafts] == [text.rstrip("。")]


def test_an_english_unit_keeps_its_full_stop() -> None:
    assert ex("We watched the sunrise at the beach.").drafts[0].content.endswith("beach.")


def test_a_clock_time_is_never_cut_at_its_colon() -> None:
    """A rewritten time ("2026年5月2日早上08:00") is one value: a unit never ends at "08:"."""
    text = "订单号是ABC123" * 12 + "明天早上8点我的手机号是13812345678"
    units = [d.content for d in ex(text).drafts]
    assert any("08:00" in u for u in units), units
    assert not any(u.endswith(":") or u.startswith("00") for u in units), units


@pytest.mark.parametrize("text", [
    "这个能用洗碗机洗吗？你们周末上班吗？",
    "這個可以用洗碗機洗嗎？你們週末有上班嗎？",
    "Is this dishwasher safe? Are you open on weekends?",
])
def test_a_question_without_a_value_is_no_durable_unit(text: str) -> None:
    """It asks and states nothing: no durable unit. A turn of questions only keeps them as
    session state, the prompt of the answer that follows (a turn without any unit would be
    found by nothing: recall answers with units)."""
    drafts = ex(text).drafts
    assert drafts and all(d.type is MemoryType.SESSION_STATE for d in drafts)


@pytest.mark.parametrize("text", [
    "我昨天去跑步了。这个能用洗碗机洗吗？",
    "我昨天去跑步了。這個可以用洗碗機洗嗎？",
    "I went running yesterday. Is this dishwasher safe?",
])
def test_a_question_beside_a_statement_is_no_unit(text: str) -> None:
    """Among other sentences an open question is no unit: the raw turn keeps its words."""
    units = [d.content for d in ex(text).drafts]
    assert units and not any("洗碗" in u or "dishwasher" in u for u in units), units


@pytest.mark.parametrize(("text", "kept"), [
    ("帮我查下，FLASH30这张券是5月13日到期吗？", ("FLASH30",)),
    ("幫我查一下訂單PO-10023到哪了？", ("PO-10023",)),
    ("Can you check ticket INC-10023? When will order W6186 ship?", ("INC-10023", "W6186")),
    ("我昨天下的单明天能到吗？", ("2026年5月2日",)),
])
def test_a_question_with_a_value_keeps_it(text: str, kept: tuple[str, ...]) -> None:
    """The value stays findable (an id in a durable unit), said once in each unit."""
    drafts = ex(text).drafts
    units = [d.content for d in drafts]
    for value in kept:
        assert any(value in u for u in units), units
        assert all(u.count(value) <= 1 for u in units), units
        if value[0].isalpha():
            assert any(value in d.content and d.type is MemoryType.FACT_REFERENCE
                       for d in drafts), units


def test_a_tag_question_still_states_its_fact() -> None:
    assert ex("I'm a Silver member, right?").drafts


@pytest.mark.parametrize("text", [
    "我们打算下个月去山里露营。我们打算下个月去山里露营。",
    "我們打算下個月去山裡露營。我們打算下個月去山裡露營。",
    "We're planning a camping trip in the mountains. We're planning a camping trip in the mountains.",
    "您的订单ABC123已发货",
])
def test_what_a_turn_says_twice_is_one_unit(text: str) -> None:
    units = [d.content for d in ex(text).drafts]
    assert len(units) == 1, units


@pytest.mark.parametrize("text", ["那张优惠券还能用吗？", "那張優惠券還能用嗎？", "Can I still use that coupon?"])
def test_a_turn_that_is_one_question_stays_the_prompt_of_its_answer(text: str) -> None:
    assert [d.type for d in ex(text).drafts] == [MemoryType.SESSION_STATE]


@pytest.mark.parametrize(("text", "question"), [
    ("哇！你是怎么开始跑步的？", "你是怎么开始跑步的"),
    ("哇！你是怎麼開始跑步的？", "你是怎麼開始跑步的"),
    ("Wow! What got you into running?", "What got you into running"),
])
def test_a_question_beside_filler_only_is_the_turn_and_stays(text: str, question: str) -> None:
    """The other sentence is filler: the turn is one question and keeps it as a unit (recall
    answers with units, so a turn without any would be found by nothing)."""
    units = [d.content for d in ex(text).drafts]
    assert any(question in u for u in units), units
