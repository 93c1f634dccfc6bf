"""A list item is a thing (issue #24): what is left of a clause once its verb of liking or aversion
is gone may be only words that name nothing ("cannot eat already", "I don't eat it again", "which
I enjoy daily", "我不吃这个了"); such a clause is kept as it was said, never typed as a list item
("food:already"). Sentences written for these tests, in Simplified Chinese, Traditional Chinese
and English; the Memory test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import one_item
from keyfacts_memory import say, slot_units


@pytest.mark.parametrize("item", ["already", "again", "daily", "it anymore", "these",
                                  "这个", "東西", "嗰個"])
def test_words_that_name_nothing_are_no_item(item: str) -> None:
    assert not one_item(item)


@pytest.mark.parametrize("item", ["durian", "pad thai", "kopi-o kosong", "羊肉串", "鳳梨酥",
                                  "daily bread"])
def test_a_thing_is_an_item(item: str) -> None:
    assert one_item(item)


@pytest.mark.parametrize("turns", [
    ["I love mango sticky rice", "Cannot eat already, doc say my sugar too high."],
    ["I love jollof rice", "I don't eat it again, I'm tired of it."],
    ["我最喜欢吃榴莲", "我不吃这个了"],
    ["我好鍾意食鳳梨酥", "我唔食呢個喇"],
])
def test_a_clause_naming_nothing_is_not_a_list_item(any_mem: Memory, turns: list[str]) -> None:
    say(any_mem, turns)
    items = [u.slot for u in slot_units(any_mem, "food")]
    assert not [s for s in items if s and s.split(":", 1)[-1] in
                ("already", "again", "这个", "呢个", "呢個", "it again")], items


@pytest.mark.parametrize(("item", "is_item"), [
    ("hiking", False), ("cooking", False), ("swimming", False),
    ("pudding", True), ("dumplings", True), ("herring", True),
])
def test_a_pastime_in_ing_is_no_item_a_food_in_ing_is(item: str, is_item: bool) -> None:
    assert one_item(item) is is_item
