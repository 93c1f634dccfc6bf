"""A diet the user takes up takes back the liked foods it excludes, though the food is never
named again (issue #24 item 4: a contradiction in a list). Three scripts, both backends;
look-alikes: someone else's diet, a diet denied, a question, a food the diet allows."""

from __future__ import annotations

import pytest

from jiyi import Memory
from jiyi.keyfacts.diets import diet_excludes
from keyfacts_memory import ask_after


@pytest.mark.parametrize(("text", "item", "excluded"), [
    ("我开始吃素了，以后推荐素菜就行", "红烧牛肉面", True),
    ("我而家轉咗食齋", "叉燒飯", True),
    ("最近改吃全素，蛋奶都不碰", "芝士蛋糕", True),
    ("I've gone vegetarian this year", "pepperoni pizza", True),
    ("went vegan last month", "cheese toastie", True),
    ("I only eat halal food now", "bacon roll", True),
    # look-alikes
    ("我妈开始吃素了", "红烧牛肉面", False),
    ("I'm no longer vegetarian", "beef burrito", False),
    ("are you vegetarian?", "beef burrito", False),
    ("我开始吃素了", "牛油果沙拉", False),
    ("I've gone vegetarian", "mushroom risotto", False),
    ("I only eat halal food now", "chicken biryani", False),
])
def test_a_diet_excludes_its_foods(text: str, item: str, excluded: bool) -> None:
    assert diet_excludes(text, item) is excluded


CASES = [
    (["我最喜欢吃红烧牛肉面", "我开始吃素了，以后推荐素菜就行"], "我现在喜欢吃什么？", "牛肉面"),
    (["我超愛吃叉燒飯", "我而家轉咗食齋喇"], "我而家鍾意食咩？", "叉燒飯"),
    (["I love pepperoni pizza", "Heads up, I've gone vegetarian"],
     "What food do I like now?", "pepperoni"),
]


@pytest.mark.parametrize(("turns", "question", "old"), CASES)
def test_a_liked_food_a_diet_excludes_is_not_current(any_mem: Memory, turns: list[str],
                                                     question: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert not any(h.current and old in h.unit.content for h in hits)
    # still findable, as history
    named = any_mem.recall(old, session_id="s9", user_id="u", k=5)
    assert any(old in h.unit.content for h in named)


def test_someone_elses_diet_takes_nothing_back(any_mem: Memory) -> None:
    hits = ask_after(any_mem, ["I love pepperoni pizza",
                               "My sister has gone vegetarian"], "What food do I like now?")
    assert any(h.current and "pepperoni" in h.unit.content for h in hits)
