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
    "spicy": r"辣|咖喱|麻婆|水煮|\b(?:spicy|curry|curries|chill?i|hot sauce|sriracha|jalape\w*|"
             r"wasabi|sambal|vindaloo|rendang|mala)\b",
    "fried": r"炸|鸡排|薯条|\b(?:fried|fries|tempura|nuggets?|katsu|schnitzel)\b",
    "red_meat": r"牛(?!奶|油)|羊(?!奶)|猪|叉烧|\b(?:beef|lamb|mutton|pork|steak|brisket|rendang|"
                r"veal|bacon|ham)\b",
}
#: A restriction verb before a kind ("不吃", "戒", "cut down on", "no more").
_OFF = (r"(?:不吃|不要|不能吃|吃不了|少吃|戒|唔食|唔要|食唔得|\bno (?:more )?|\bavoid(?:ing)? |"
        r"\bcut(?:ting)? (?:down |out |back )?(?:on )?|\bquit(?:ting)? |\bgave up |\bstay(?:ing)? "
        r"away from |\boff (?:the )?)(?:咗|了|掉)?")
#: Diets the user takes up, and the kinds they exclude.
_DIETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"纯素|全素|\bvegan\b|plant[- ]based", ("meat", "fish", "dairy", "egg")),
    (r"吃素|素食|茹素|食素|吃斋|食斋|斋菜|\bvegetarian\b|\bveggie\b|不吃肉|唔食肉|戒肉|"
     r"\bno (?:more )?meat\b|\b(?:quit(?:ting)?|gave up|giving up|stopped eating|cut(?:ting)?(?: out)?|"
     r"off) meat\b", ("meat", "fish")),
    (r"\bpescatarian\b|只吃(?:鱼|海鲜)", ("meat",)),
    (r"\bjain\b|耆那", ("meat", "fish", "egg")),
    (r"\bhalal\b|清真", ("pork",)),
    (_OFF + r"(?:辣|spicy|hot food)|辣的都不|辣嘢都唔|上火", ("spicy",)),
    (_OFF + r"(?:炸|fried|deep[- ]fried)|炸的都不|炸嘢都唔", ("fried",)),
    (_OFF + r"(?:红肉|red meat)", ("red_meat",)),
    (_OFF + r"(?:海鲜|seafood|shellfish)|(?:海鲜|\bshellfish|\bseafood)\s?(?:过敏|allergy)|"
     r"allergic to (?:seafood|shellfish)", ("fish",)),
    (r"乳糖不耐|戒奶|不喝奶|唔饮奶|\blactose\b|\bdairy[- ]free\b|"
     r"\b(?:no|quit(?:ting)?|gave up|giving up|cut(?:ting)?(?: out)?|off) dairy\b",
     ("dairy",)),
)
#: Said just before a diet word, these deny it ("not vegetarian", "no longer vegan", "不再吃素").
_DENIED = re.compile(r"(?:\bnot|n't|\bno longer|\bnever|\bstopped being|\bquit being|"
                     r"\bgave up being|不再|不是|没有|没再|唔再|冇再|唔系|不用)\s*对?\s*(?:\w+\s+){0,2}$")


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]:
    return tuple((re.compile(diet), re.compile("|".join(_KINDS[k] for k in kinds)))
                 for diet, kinds in _DIETS)


def diet_excludes(text: str, item: str) -> bool:
    """``text`` says the user has taken up a diet that excludes ``item`` (a liked food): a
    statement of the user's own (not a question, not someone else's diet: "my mum is vegan"),
    the diet not denied ("no longer vegetarian"); or an allergy to something the item holds
    ("对虾过敏" after 虾仁炒饭, "allergic to peanuts" after peanut noodles)."""
    said, thing = fold(text), fold(item)
    return any(excluded.search(thing) and _takes_up(said, diet)
               for diet, excluded in _compiled()) or _allergy_excludes(said, thing) \
        or _only_excludes(said, thing)


#: Eating only one thing now ("现在只吃鸡胸肉", "淨係食粥", "I only eat salads now"): every other
#: liked food is taken back.
_ONLY = re.compile(r"(?:只|净系|淨係|就)(?:吃|食|喝|饮|点|叫)(\w{2,6})|\bonly (?:eat|eating|have|having|order|"
                   r"ordering) ([a-z]+(?: [a-z]+)?)")


#: Qualities of food, not a dish ("organic", "健康", "清淡").
_QUALITY = re.compile(r"有机|健康|清淡|新鲜|家常|素|斋|\b(?:halal|kosher|organic|healthy|fresh|home|"
                      r"homemade|local|vegan|vegetarian|plant|low|light|clean|whole)\b")


def _only_excludes(said: str, thing: str) -> bool:
    for m in _ONLY.finditer(said):
        what = next(g for g in m.groups() if g)
        clause = _clause_at(said, m.start(), m.end())
        if _QUALITY.search(what) or any(diet.search(what) for diet, _ in _compiled()):
            continue  # "I only eat halal food now": a diet or a quality, not one dish
        if what not in thing and thing not in what and not QUESTION.search(clause) \
                and owns("food", clause) and not _DENIED.search(said[max(0, m.start() - 24):m.start()]):
            return True
    return False


#: An allergy to a named thing ("对虾过敏", "花生過敏", "allergic to peanuts", "a cashew allergy").
_ALLERGY = re.compile(r"对(\w{1,4}?)过敏|(?<![不没无])(\w{1,2})过敏|\ballergic to (?:all )?([a-z]+)|"
                      r"\b([a-z]{3,}) allergy\b")


def _allergy_excludes(said: str, thing: str) -> bool:
    if "过敏" not in said and "allerg" not in said:
        return False
    for m in _ALLERGY.finditer(said):
        what = next(g for g in m.groups() if g)
        what = what[:-1] if what.endswith("s") and len(what) > 4 else what  # peanuts -> peanut
        clause = _clause_at(said, m.start(), m.end())
        if what in thing and not QUESTION.search(clause) and owns("food", clause) \
                and not _DENIED.search(said[max(0, m.start() - 24):m.start()]):
            return True
    return False


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
    """Some diet word or allergy is said (a cheap test before any item is read)."""
    said = fold(text)
    return any(diet.search(said) for diet, _ in _compiled()) or "过敏" in said \
        or "allerg" in said or _ONLY.search(said) is not None


_CUT = re.compile(r"[，,;；。.!！?？\n]")


def _clause_at(text: str, start: int, end: int) -> str:
    a = max((m.end() for m in _CUT.finditer(text, 0, start)), default=0)
    b = next((m.start() for m in _CUT.finditer(text, end)), len(text))
    return text[a:b + 1]


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
