"""The question asked, said back (``recall/echo.py``): an agent ingests the user's turn and then
recalls with it; the unit that turn became is not the answer, so it goes after every other hit,
and is still there when nothing else is found. A typed value said in the asking turn keeps its
rank. Both backends, three scripts."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jiyi import Memory
from keyfacts_memory import T0, say

CASES = [
    (["I just bought the Pro annual plan, $299.", "the video of lesson 12 won't load"],
     "what plan am I on and when does it renew?", "Pro annual"),
    (["我买的是年度专业版会员，299块", "第12课的视频打不开"],
     "我现在是什么会员？什么时候续费？", "年度专业版"),
    (["我買的是年度專業版會員，299塊", "第12課的影片打不開"],
     "我現在是什麼會員？什麼時候續費？", "年度專業版"),
]


def _ask(mem: Memory, question: str, k: int = 5) -> list[str]:
    at = T0 + timedelta(days=20)
    mem.ingest(question, session_id="s9", user_id="u", role="user", at=at)
    return [h.unit.content for h in mem.recall(question, session_id="s9", user_id="u", k=k,
                                                as_of=at)]


@pytest.mark.parametrize(("turns", "question", "value"), CASES)
def test_the_question_asked_is_not_its_own_first_answer(any_mem: Memory, turns: list[str],
                                                        question: str, value: str) -> None:
    say(any_mem, turns)
    hits = _ask(any_mem, question, k=10)
    assert any(value in h for h in hits)
    echoes = [i for i, h in enumerate(hits) if h.rstrip("?？").lower() in question.lower()]
    assert echoes, hits  # still found: nothing the user said is lost
    assert all(i == len(hits) - len(echoes) + n for n, i in enumerate(echoes)), hits


def test_an_echo_alone_is_still_returned(any_mem: Memory) -> None:
    hits = _ask(any_mem, "what plan am I on?")
    assert hits and "plan" in hits[0]


def test_a_value_said_in_the_asking_turn_keeps_its_rank(any_mem: Memory) -> None:
    say(any_mem, ["My address is 12 Elm Road, Leeds LS6 2AB", "the parcel was late again"])
    hits = _ask(any_mem, "I moved to 5 Oak Street, Bristol BS1 4DJ. Can you confirm my address?")
    assert any("5 Oak Street" in h for h in hits[:2]), hits


def test_a_question_typed_as_a_value_is_still_an_echo(any_mem: Memory) -> None:
    say(any_mem, ["I'm pescatarian - fish is fine but no meat please",
                  "can you switch my kits to vegetarian? eggs and cheese still fine"])
    question = "last kit is shipping monday - what diet is it set up for?"
    hits = _ask(any_mem, question, k=10)
    echoes = [i for i, h in enumerate(hits) if h.lower().rstrip("?") in question]
    assert echoes and echoes[-1] == len(hits) - 1 and echoes[0] > 0, hits
