"""Long chatty turns glued without punctuation (issue #24 item 6): chat fragments end sentences,
hesitation / waiting / thanks fragments and bare questions are no units, and the fact inside the
run is kept: the units are at most 0.85x the turn's characters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory, MemoryType
from jiyi.write import Extraction, TurnInput, extract_turn
from jiyi.write.compress import is_open_question, split_sentences
from jiyi.write.filler import filler_kind

AT = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
RATIO = 0.85

#: (turn, slot, value, filler that must be in no unit)
GLUED = {
    "zh-Hans": ("在吗在吗我想问下好滴好滴我再想想哈等一下 我先去开个会蟹蟹亲我换手机号了 新号码是"
                "13912345678以后打这个算了算了 没事 hhh你们周末发货吗emmm 让我想想",
                "phone", "13912345678", ("好滴", "再想想", "蟹蟹", "算了", "hhh", "emmm", "周末发货")),
    "zh-Hant": ("等一下喔 我先去倒個垃圾好喔 謝啦你們幾點出貨啊我搬家了 新地址是台中市西區公益路二段51號8樓"
                "哈哈哈 算了算了 沒事我再想想看喔",
                "address", "台中市西區公益路二段51號8樓", ("好喔", "謝啦", "幾點出貨", "哈哈", "算了", "再想想")),
    "en": ("hey u there? brb grabbing coffee lol ok thx!! my new email is jo.lin@example.com k cool "
           "nvm lemme think how do refunds work ugh lol",
           "email", "jo.lin@example.com", ("brb", "lol", "thx", "k cool", "nvm", "lemme", "refunds")),
}


def ex(text: str) -> Extraction:
    return extract_turn(TurnInput(text, "user", AT, "s", "u", "t1"))


@pytest.mark.parametrize("lang", sorted(GLUED))
def test_a_glued_chat_turn_keeps_its_fact_and_drops_the_filler(lang: str) -> None:
    text, slot, value, filler = GLUED[lang]
    out = ex(text)
    units = [d.content for d in out.drafts]
    assert any(d.slot == slot and value in d.content and d.type is MemoryType.USER_PROFILE
               for d in out.drafts), units
    for word in filler:
        assert all(word.casefold() not in u.casefold() for u in units), (word, units)
    ratio = sum(len(u) for u in units) / len(out.redacted_text)
    assert ratio <= RATIO, (ratio, units)


@pytest.mark.parametrize(("text", "sentences"), [
    ("这个有现货吧我再想想哈这个能退吗", ["这个有现货吧", "我再想想哈", "这个能退吗"]),
    ("行吧蟹蟹亲我明天再来", ["行吧", "蟹蟹亲", "我明天再来"]),
    ("好熱喔你們幾點開門啊我在樓下等", ["好熱喔", "你們幾點開門啊", "我在樓下等"]),
    ("ur app is sooo slow lol ok thx!! brb my cat is on the keyboard",
     ["ur app is sooo slow", "lol ok thx!!", "brb", "my cat is on the keyboard"]),
])
def test_chat_fragments_end_sentences(text: str, sentences: list[str]) -> None:
    assert [s.text for s in split_sentences(text)] == sentences


@pytest.mark.parametrize("text", [
    "我在酒吧台等你啊", "哈哈哈我搬到哈尔滨了", "那就谢谢啦", "網吧那邊有人", "is it ok to ship today",
    "I'll call you back, cool?",
])
def test_no_cut_inside_words_or_plain_sentences(text: str) -> None:
    assert len([s for s in split_sentences(text) if s.text not in ("哈哈哈",)]) == 1, \
        split_sentences(text)


@pytest.mark.parametrize(("clause", "asks"), [
    ("你们几点发货啊", True), ("能开发票不", True), ("这件有现货没", True), ("退貨流程怎麼弄", True),
    ("你們有沒有門市", True), ("do ur shirts come in blue", True), ("how do refunds work", True),
    ("where's the nearest store", True),
    ("我住哪都行", False), ("我隔几天就要吃一次", False), ("没什么", False), ("想做些什么好玩的", False), ("你没有做错什么", False), ("但是不太清楚怎么做", False), ("無論他們怎麼說", False), ("好像什么烦恼都没有了", False), ("退款到现在还没", False),
    ("我還是要藍色的", False), ("what a week", False), ("which made her very happy", False),
    ("what I need is a blue one", False),
])
def test_a_bare_question_without_a_mark_is_an_open_question(clause: str, asks: bool) -> None:
    assert is_open_question(clause) is asks


@pytest.mark.parametrize("clause", [
    "等一下", "我再想想", "让我想想", "算了算了", "不问了", "好滴好滴", "蟹蟹亲", "酱紫吧", "emmm",
    "等我一下喔", "讓我想想", "好喔", "謝啦", "沒事沒事", "醬紫", "hhh",
    "brb", "nvm", "k cool", "lemme think", "hey u there?", "ok thx", "gotcha", "lol ok",
])
def test_hesitation_waiting_and_thanks_fragments_are_filler(clause: str) -> None:
    assert filler_kind(clause) == "filler"


@pytest.mark.parametrize("clause", [
    "等一下 我的新号码是13912345678", "算了 我搬到杭州了", "我再想想要不要红色的",
    "等一下喔 我改用LINE聯絡", "沒事 我喜歡吃辣", "brb my new number is 0412 555 123",
    "nvm I moved to Leeds", "k cool I like the blue one",
])
def test_a_fragment_with_a_fact_is_no_filler(clause: str) -> None:
    assert filler_kind(clause) is None


@pytest.mark.parametrize(("turn", "ask", "value"), [
    (GLUED["zh-Hans"][0], "我现在的手机号是多少", "13912345678"),
    (GLUED["zh-Hant"][0], "我的收件地址是哪裡", "台中市西區公益路二段51號8樓"),
    (GLUED["en"][0], "what's my email?", "jo.lin@example.com"),
])
def test_the_fact_of_a_glued_chat_turn_is_found(e5_mem: Memory, turn: str, ask: str,
                                                value: str) -> None:
    e5_mem.ingest(turn, session_id="s1", user_id="u", at=AT, role="user")
    hits = e5_mem.recall(ask, session_id="s2", user_id="u", k=3, as_of=AT + timedelta(days=1))
    assert any(value in h.unit.content for h in hits), [h.unit.content for h in hits]


@pytest.mark.parametrize(("turn", "value"), [
    ("通知发飞书消息就行啥时候有周年庆活动啊算了算了", "飞书"),
    ("以後寄到公司就好你們什麼時候補貨啊好喔", "寄到公司"),
    ("can u check my order status hmm also my fave snack is mochi put that in my notes k cool",
     "mochi"),
])
def test_a_statement_glued_before_a_question_stays_a_unit(turn: str, value: str) -> None:
    units = [d.content for d in ex(turn).drafts]
    assert any(value in u for u in units), units
