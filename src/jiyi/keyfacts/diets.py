"""A diet the user has taken up takes back the liked foods it excludes: "我开始吃素了" after
"红烧牛肉饭是我最爱", "I've gone vegan" after "a cheese toastie is my go-to", "轉咗食齋" after
"最鍾意叉燒飯". The old item is never named again, so no negation of it is ever said; what the
diet excludes is world knowledge, kept here as data (three scripts, folded: Simplified, lower
case). Pure functions.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..text import fold
from ..text.fastre import gate_all
from .typing import QUESTION, owns

#: Kinds of food, as words an item may hold (folded). Look-alikes kept out: 牛奶/牛油 (milk,
#: butter), 鸡蛋 (egg), 肉桂 (cinnamon), 羊奶 (goat's milk).
_KINDS: dict[str, str] = {
    "meat": r"肉(?!桂)|牛(?!奶|油)|猪|鸡(?!蛋)|鸭(?!蛋)|鹅|羊(?!奶)|排骨|培根|火腿|香肠|腊肠|叉烧|烧腊|"
            r"卤味|牛排|汉堡|\b(?:meat|beef|pork|chicken|lamb|mutton|ham|steak|burgers?|sausages?|"
            r"bacon|turkey|duck|veal|salami|pepperoni|brisket|ribs|wings|kebabs?|satay|mince|"
            r"meatballs?|nuggets?)\b",
    "pork": r"猪|叉烧|培根|火腿|腊肠|\b(?:pork|bacon|ham|lard|pepperoni|salami)\b",
    "fish": r"鱼(?!露)|虾|蟹|海鲜|蚝|贝|鱿|三文|刺身|寿司|\b(?:fish|salmon|tuna|shrimps?|prawns?|"
            r"crabs?|lobsters?|oysters?|seafood|sushi|sashimi|clams?|mussels?|squid|anchov\w*)\b",
    "dairy": r"奶|芝士|起司|乳酪|酸奶|黄油|牛油(?!果)|\b(?:cheese|milk|butter|cream|yogh?urt|latte|"
             r"ghee|paneer|milkshake)\b",
    "egg": r"蛋(?!糕)|\b(?:eggs?|omelett?e|mayo)\b",
}
#: Diets the user takes up, and the kinds they exclude.
_DIETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"纯素|全素|\bvegan\b|plant[- ]based", ("meat", "fish", "dairy", "egg")),
    (r"吃素|素食|茹素|食素|吃斋|食斋|斋菜|\bvegetarian\b|\bveggie\b|不吃肉|唔食肉|戒肉|"
     r"\bno (?:more )?meat\b|\b(?:quit(?:ting)?|gave up|giving up|stopped eating|cut(?:ting)?(?: out)?|"
     r"off) meat\b", ("meat", "fish")),
    (r"\bpescatarian\b|只吃(?:鱼|海鲜)", ("meat",)),
    (r"\bjain\b|耆那", ("meat", "fish", "egg")),
    (r"\bhalal\b|清真", ("pork",)),
    (r"乳糖不耐|戒奶|不喝奶|唔饮奶|\blactose\b|\bdairy[- ]free\b|"
     r"\b(?:no|quit(?:ting)?|gave up|giving up|cut(?:ting)?(?: out)?|off) dairy\b",
     ("dairy",)),
)
#: Said just before a diet word, these deny it ("not vegetarian", "no longer vegan", "不再吃素").
_DENIED = re.compile(r"(?:\bnot|n't|\bno longer|\bnever|\bstopped being|\bquit being|"
                     r"\bgave up being|不再|不是|没有|没再|唔再|冇再|唔系|不用)\s*(?:\w+\s+){0,2}$")


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]:
    return tuple((re.compile(diet), re.compile("|".join(_KINDS[k] for k in kinds)))
                 for diet, kinds in _DIETS)


def diet_excludes(text: str, item: str) -> bool:
    """``text`` says the user has taken up a diet that excludes ``item`` (a liked food): a
    statement of the user's own (not a question, not someone else's diet: "my mum is vegan"),
    the diet not denied ("no longer vegetarian")."""
    said, thing = fold(text), fold(item)
    return any(excluded.search(thing) and _takes_up(said, diet)
               for diet, excluded in _compiled())


def takes_up_diet(text: str) -> bool:
    """``text`` says the user keeps a diet (of their own, not denied, not asked): a lasting
    fact about the user, whatever request comes with it ("I've gone vegetarian, no meat in my
    box please")."""
    said = fold(text)
    return any(_takes_up(said, diet) for diet, _ in _compiled())


def _takes_up(said: str, diet: re.Pattern[str]) -> bool:
    for m in diet.finditer(said):
        clause = _clause_at(said, m.start(), m.end())
        if _DENIED.search(said[max(0, m.start() - 24):m.start()]) or QUESTION.search(clause):
            continue
        if owns("food", clause):
            return True
    return False


def states_diet(text: str) -> bool:
    """Some diet word is said (a cheap test before any item is read)."""
    said = fold(text)
    return any(diet.search(said) for diet, _ in _compiled())


_CUT = re.compile(r"[，,;；。.!！?？\n]")


def _clause_at(text: str, start: int, end: int) -> str:
    a = max((m.end() for m in _CUT.finditer(text, 0, start)), default=0)
    b = next((m.start() for m in _CUT.finditer(text, end)), len(text))
    return text[a:b + 1]


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
