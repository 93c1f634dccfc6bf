"""Second hop, replies after a question, and result diversity (jiyi.recall.multihop): pure
functions, then end to end through Memory.recall on a real SQLite store with the fake embedder,
in Simplified Chinese, Traditional Chinese and English."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from jiyi import Hit, Memory, MemoryType, MemoryUnit
from jiyi.config import JiyiConfig, RecallWeights
from jiyi.recall.multihop import (
    diversify,
    hop_ranks,
    hop_terms,
    is_question,
    merge_max,
    neighbours,
)
from jiyi.store import IngestBatch, Scope, TurnRecord
from jiyi.units import Lifespan
from test_recall_helpers import T0, put

LATER = T0 + timedelta(days=30)
OFF = RecallWeights(second_hop=False, neighbour_turns=False, turn_repeat_factor=1.0)


def _mem(db_path: str, weights: RecallWeights) -> Memory:
    return Memory.open(db_path, embedder="fake", config=JiyiConfig(recall=weights))


@pytest.fixture
def paths(tmp_path: object) -> Iterator[str]:
    yield str(tmp_path) + "/m.db"


def _unit(content: str, turns: list[str], at: datetime = T0, session: str = "s1") -> MemoryUnit:
    return MemoryUnit(content=content, type=MemoryType.FACT_REFERENCE,
                      lifespan=Lifespan(created_at=at, expires_in=10**8), session_id=session,
                      user_id="u1", source_turn_ids=turns)


def _hit(content: str, turns: list[str], score: float) -> Hit:
    return Hit(unit=_unit(content, turns), score=score, stage="semantic", confidence=score)


def put_turn(mem: Memory, contents: list[str], *, at: datetime, text: str,
             speaker: str | None = None) -> list[MemoryUnit]:
    """Several units cut from one turn (as the write path does with a long turn)."""
    key = "t_" + uuid.uuid4().hex
    turn = TurnRecord(key=key, turn_id=key, session_id="s1", user_id="u1", role="user",
                      text=text, at=at, speaker=speaker)
    units = [_unit(c, [key], at) for c in contents]
    batch = IngestBatch(turn=turn, embedder=mem.embedder.name, upserts=units)
    for u, v in zip(units, mem.embedder.embed_passages(contents), strict=True):
        batch.vectors[u.id] = v
    mem.store.commit_ingest(batch)
    return units


def fill(mem: Memory, lines: list[str], start: datetime) -> None:
    """Unrelated filler, one turn an hour, so the question is not alone in the store."""
    for i, line in enumerate(lines):
        put(mem, line, at=start + timedelta(hours=i))


FILLER_EN = [f"Note {i}: the weekly meeting moved to room {i} and the printer needs toner"
             for i in range(40)]
FILLER_ZH = [f"第{i}条：周会改到{i}号会议室，打印机需要换墨盒" for i in range(40)]


# ------------------------------------------------------------------------------ pure functions


def test_is_question_zh_hant_en() -> None:
    assert is_question("你上周末去哪里徒步了？")
    assert is_question("你上週末去哪裡徒步了？")
    assert is_question("Where did you go hiking?")
    assert not is_question("We went to Yosemite.")


def test_hop_terms_skip_query_and_speakers_prefer_shared() -> None:
    seeds = [_hit("Caroline: my sister Anna moved to Lisbon", ["a"], 0.9),
             _hit("Caroline: Anna started a bakery", ["b"], 0.8)]
    terms = hop_terms(["caroline", "sister"], seeds, exclude=["Caroline"], limit=4)
    assert terms == ["lisbon", "moved", "anna", "started"]  # best seed first, longer words first
    assert "caroline" in hop_terms(["sister"], seeds, limit=6)  # only names excluded are out
    zh = hop_terms(["姐姐"], [_hit("我姐姐安娜搬到了里斯本", ["a"], 0.9)], limit=4)
    hant = hop_terms(["姐姐"], [_hit("我姐姐安娜搬到了里斯本", ["a"], 0.9)], limit=4)
    assert "姐姐" not in zh and "里斯本" in zh and zh == hant
    assert hop_terms(["x"], [], limit=5) == []


def test_hop_ranks_and_merge_max() -> None:
    ranks = hop_ranks(["a", "b"], ["b", "c", "d"], discount=0.5, rrf_k=60)
    assert set(ranks) == {"c", "d"}  # units of the first list keep their own rank
    assert ranks["c"] == pytest.approx(0.5) and ranks["d"] < ranks["c"]
    assert merge_max({"a": 0.9, "c": 0.1}, ranks) == {"a": 0.9, "c": 0.5, "d": ranks["d"]}


def test_next_turn_follows_ingestion_order_not_timestamps(store_url: str) -> None:
    """Many imports give every turn of a session one timestamp: "the next turn" is the next
    one ingested in the same session (``seq``), never read from ``at``."""
    with Memory.open(store_url, embedder="fake") as m:
        for sid in ("s1", "s2"):  # interleaved sessions, one timestamp for everything
            for i in range(3):
                m.ingest(f"{sid} turn {i} 第{i}句", session_id=sid, user_id="u1", at=T0,
                         turn_id=f"{sid}-{i}")
        turns = {t.turn_id: t for t in m.store.recent_turns(Scope("u1", None), 10)}
        assert [t.turn_id for t in sorted(turns.values(), key=lambda t: t.seq)] == [
            "s1-0", "s1-1", "s1-2", "s2-0", "s2-1", "s2-2"]
        nxt = m.store.next_turns([turns["s1-0"].key, turns["s1-2"].key, turns["s2-1"].key])
        assert nxt == {turns["s1-0"].key: turns["s1-1"].key,
                       turns["s2-1"].key: turns["s2-2"].key}


def test_diversify_pushes_repeats_of_one_turn_down() -> None:
    hits = [_hit("a1", ["t1"], 0.9), _hit("a2", ["t1"], 0.85), _hit("a3", ["t1"], 0.8),
            _hit("b", ["t2"], 0.6), _hit("c", ["t3"], 0.5), _hit("none", [], 0.4),
            _hit("none2", [], 0.39)]
    out = diversify(hits, 0.5)
    assert [h.unit.content for h in out[:3]] == ["a1", "b", "c"]
    assert {h.unit.content for h in out} == {h.unit.content for h in hits}
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True)
    # no provenance is never a repeat; factor 1 changes nothing
    assert next(h for h in out if h.unit.content == "none2").score == pytest.approx(0.39)
    assert [h.unit.content for h in diversify(hits, 1.0)] == [h.unit.content for h in hits]


# ------------------------------------------------------------------------ end to end (SQLite)


def _ids(hits: list[Hit]) -> list[str]:
    return [h.unit.id for h in hits]


@pytest.mark.parametrize(("question", "reply", "query", "filler"), [
    ("Where did you go hiking last weekend?", "We drove up to Yosemite with the kids.",
     "where did she go hiking last weekend", FILLER_EN),
    ("你上周末去哪里徒步了？", "我们开车到了黄山，孩子们玩得很开心。", "上周末去哪里徒步", FILLER_ZH),
    ("你上週末去哪裡徒步了？", "我們開車到了陽明山，孩子們玩得很開心。", "上週末去哪裡徒步", FILLER_ZH),
])
def test_reply_after_question_is_recalled(paths: str, question: str, reply: str, query: str,
                                          filler: list[str]) -> None:
    """Both evidence units of a question-and-answer exchange come back: the question by its
    words, the reply (which shares none of them) as the turn right after it."""
    at = T0 + timedelta(days=3)
    with _mem(paths, OFF) as off:
        fill(off, filler, T0)
        q = put(off, question, at=at, speaker="Caroline")
        r = put(off, reply, at=at + timedelta(seconds=40), speaker="Melanie")
        put(off, "Unrelated: the car needs new tyres 换轮胎", at=at + timedelta(minutes=5))
        without = off.recall(query, session_id="s1", user_id="u1", k=2, as_of=LATER)
    with _mem(paths, OFF.model_copy(update={"neighbour_turns": True})) as on:
        hits = on.recall(query, session_id="s1", user_id="u1", k=2, as_of=LATER)
    assert set(_ids(hits)) == {q.id, r.id}  # the question and its reply
    assert _ids(hits)[0] == r.id  # asked again: the reply, not the question, answers it
    assert q.id in _ids(without) and r.id not in _ids(without)  # the mechanism found it


@pytest.mark.parametrize(("first", "second", "query", "filler"), [
    ("Caroline's sister is called Anastasia", "Anastasia works as a baker in Lisbon",
     "what does Caroline's sister do", FILLER_EN),
    ("卡罗琳的妹妹叫安娜斯塔西娅", "安娜斯塔西娅在里斯本开了一家面包店", "卡罗琳的妹妹做什么工作", FILLER_ZH),
    ("卡羅琳的妹妹叫安娜斯塔西婭", "安娜斯塔西婭在里斯本開了一家麵包店", "卡羅琳的妹妹做什麼工作",
     FILLER_ZH),
])
def test_second_hop_finds_both_evidence_units(paths: str, first: str, second: str, query: str,
                                              filler: list[str]) -> None:
    """The question names the sister, the answer names only her name: the second hop follows
    the name from the first hit to the second fact."""
    with _mem(paths, OFF) as off:
        a = put(off, first, at=T0 - timedelta(days=20))
        b = put(off, second, at=T0 - timedelta(days=15))
        fill(off, filler, T0)
        without = off.recall(query, session_id="s1", user_id="u1", k=5, as_of=LATER)
    with _mem(paths, OFF.model_copy(update={"second_hop": True})) as on:
        hits = on.recall(query, session_id="s1", user_id="u1", k=5, as_of=LATER)
    assert _ids(hits)[0] == a.id and b.id in _ids(hits)
    assert _ids(without)[0] == a.id and b.id not in _ids(without)


@pytest.mark.parametrize(("pieces", "others", "query"), [
    (["Melanie painted a sunset by the lake", "Melanie painted the lake at dawn",
      "Melanie said painting the lake calms her"],
     ["Melanie painted her dog for the art fair", "Melanie painted a mural at school"],
     "what did Melanie paint"),
    (["小美画了湖边的日落", "小美在清晨画了湖", "小美说画湖让她平静"],
     ["小美画了她的狗，送去艺术展", "小美画了学校的一幅壁画"], "小美画了什么"),
    (["小美畫了湖邊的日落", "小美在清晨畫了湖", "小美說畫湖讓她平靜"],
     ["小美畫了她的狗，送去藝術展", "小美畫了學校的一幅壁畫"], "小美畫了什麼"),
])
def test_diversity_covers_more_turns(paths: str, pieces: list[str], others: list[str],
                                     query: str) -> None:
    """Three units cut from one turn do not fill the slots that other turns' evidence needs."""
    with _mem(paths, OFF) as off:
        fill(off, FILLER_EN[:10], T0)
        put_turn(off, pieces, at=T0 + timedelta(days=2), text=" ".join(pieces))
        other = [put(off, o, at=T0 - timedelta(days=20 + i)) for i, o in enumerate(others)]
        before = off.recall(query, session_id="s1", user_id="u1", k=3, as_of=LATER)
    with _mem(paths, OFF.model_copy(update={"turn_repeat_factor": 0.5})) as on:
        after = on.recall(query, session_id="s1", user_id="u1", k=3, as_of=LATER)

    def turns(hits: list[Hit]) -> set[str]:
        return {t for h in hits for t in h.unit.source_turn_ids}

    assert len(turns(after)) == 3 and len(turns(after)) >= len(turns(before))
    assert {o.id for o in other} <= set(_ids(after))
    assert [h.score for h in after] == sorted((h.score for h in after), reverse=True)


def test_defaults_keep_other_users_and_validity(paths: str) -> None:
    """The extra candidates go through the same scope and status rules as every other: never
    another user's, an expired unit only as history."""
    with _mem(paths, RecallWeights(second_hop=True)) as m:
        at = T0 + timedelta(days=1)
        put(m, "Where did you go hiking?", at=at)
        put(m, "Other user: we went hiking in Yosemite", user="u2", at=at + timedelta(seconds=20))
        gone = put(m, "We went hiking in Zion", at=at + timedelta(seconds=30), expires_in=60)
        hits = m.recall("where did you go hiking", session_id="s1", user_id="u1", k=10,
                        as_of=LATER)
    assert hits and all(h.unit.user_id == "u1" for h in hits)
    assert all(not h.current for h in hits if h.unit.id == gone.id)


def test_neighbours_follow_only_strong_questions(mem: Memory) -> None:
    """A question far below the best hit merely resembles the query: its reply is not added.
    Zh and en; the reply is the same session's next turn, just below its question."""
    at = T0 + timedelta(days=2)
    q_en = put(mem, "Did the technician fix the printer?", at=at)
    r_en = put(mem, "Yes, he replaced the fuser this morning.", at=at + timedelta(seconds=30))
    q_zh = put(mem, "打印机修好了嗎？", at=at + timedelta(hours=1))
    r_zh = put(mem, "修好了，换了一个定影器。", at=at + timedelta(hours=1, seconds=30))
    late = put(mem, "The printer jammed again", at=at + timedelta(hours=3))
    weights = RecallWeights()

    def ranked(*pairs: tuple[MemoryUnit, float, float]) -> list[tuple[Hit, float]]:
        return [(Hit(unit=u, score=s, stage="semantic"), z) for u, s, z in pairs]

    strong = neighbours(mem.store, ranked((q_en, 0.9, 2.0), (q_zh, 0.8, 1.5), (late, 0.7, 1.0)),
                        weights)
    assert set(strong) == {r_en.id, r_zh.id}
    assert strong[r_en.id] == pytest.approx(2.0 - weights.neighbour_discount)
    assert strong[r_en.id] > strong[r_zh.id]  # follows the seed's z
    weak = neighbours(mem.store, ranked((late, 0.9, 2.0), (q_en, 0.2, 0.1), (q_zh, 0.3, 0.2)),
                      weights)
    assert weak == {}


@pytest.mark.parametrize(("turn", "reply", "question"), [
    ("我今天早上去跑步了。你是怎么开始跑步的？", "我爸爸十岁时带我去参加了一场比赛。", "怎么开始跑步"),
    ("我今天早上去跑步了。你是怎麼開始跑步的？", "我爸爸十歲時帶我去參加了一場比賽。", "怎麼開始跑步"),
    ("I went running this morning. What got you into running?",
     "My dad took me to a race when I was ten.", "got you into running"),
])
def test_reply_after_a_question_the_units_left_out(paths: str, turn: str, reply: str,
                                                    question: str) -> None:
    """The write path keeps no unit of an open question said among other sentences; the turn
    still asked it, so a hit cut from that turn leads to the reply after it."""
    mem = _mem(paths, RecallWeights())
    try:
        at = T0 + timedelta(days=1)
        asked = mem.ingest(turn, session_id="s1", user_id="u1", at=at)
        answered = mem.ingest(reply, session_id="s1", user_id="u1", at=at + timedelta(seconds=20))
        assert asked and answered
        assert not any(question in u.content for u in asked)  # the question is no unit
        found = neighbours(mem.store, [(Hit(unit=asked[0], score=0.9, stage="semantic"), 1.0)],
                           RecallWeights())
        assert {u.id for u in answered} <= set(found)
        # found by a rule on a value it holds, the unit says nothing of how the question matched
        assert neighbours(mem.store, [(Hit(unit=asked[0], score=0.9, stage="rule"), 1.0)],
                          RecallWeights()) == {}
    finally:
        mem.close()


def test_reply_found_by_order_not_by_time_or_validity(paths: str) -> None:
    """A reply whose validity starts later ("下週三上門", a date in the text) is still the turn
    after the question; a turn of another session said in between is not."""
    mem = _mem(paths, RecallWeights())
    try:
        at = T0 + timedelta(days=3)
        q = _unit("師傅什麼時候上門？", ["tq"], at)
        other = _unit("when will the technician come?", ["to"], at, session="s2")
        reply = _unit("下週三上門維修", ["tr"], at).model_copy(
            update={"valid_at": at + timedelta(days=7)})
        for unit, key in ((q, "tq"), (other, "to"), (reply, "tr")):
            turn = TurnRecord(key=key, turn_id=key, session_id=unit.session_id, user_id="u1",
                              role="user", text=unit.content, at=unit.created_at)
            mem.store.commit_ingest(IngestBatch(turn=turn, upserts=[unit]))
        found = neighbours(mem.store, [(Hit(unit=q, score=0.9, stage="keyword"), 1.0)],
                           RecallWeights())
        assert set(found) == {reply.id}  # not the other session's unit, not the question
    finally:
        mem.close()
