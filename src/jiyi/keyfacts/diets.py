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
    "dairy": r"奶|芝士|起司|乳酪|酸奶|黄油|牛油(?!果)|\b(?:dairy|cheese|milk|butter|cream|yogh?urt|latte|"
             r"ghee|paneer|milkshake)\b",
    "egg": r"蛋(?!糕)|\b(?:eggs?|omelett?e|mayo)\b",
    "spicy": r"辣|咖喱|麻婆|水煮|\b(?:spicy|curry|curries|chill?i|hot sauce|sriracha|jalape\w*|"
             r"wasabi|sambal|vindaloo|rendang|mala)\b",
    "fried": r"炸|鸡排|薯条|\b(?:fried|fries|tempura|nuggets?|katsu|schnitzel)\b",
    "beef": r"牛(?!奶|油)|\b(?:beef|steak|brisket|veal)\b",
    "red_meat": r"牛(?!奶|油)|羊(?!奶)|猪|叉烧|\b(?:beef|lamb|mutton|pork|steak|brisket|rendang|"
                r"veal|bacon|ham)\b",
    "sugar": r"糖(?!尿)|甜|蛋糕|曲奇|巧克力|朱古力|饼干|\b(?:sugar|sugary|sweets?|desserts?|cakes?|"
             r"cookies?|brownies?|candy|chocolates?|biscuits?)\b",
    "caffeine": r"咖啡因|普通咖啡|正常咖啡|\b(?:caffeine|caffeinated|full[- ]caff\w*|regular coffee|"
                r"normal coffee)\b",
    "gluten": r"麸质|面筋|小麦|面包|面条|\b(?:gluten|wheat|bread|pasta|croissants?|toast|pastr(?:y|ies)|"
              r"bagels?|noodles?)\b",
}
#: A restriction verb before a kind ("不吃", "戒", "cut down on", "no more").
_OFF = (r"(?:不吃|不要|不能吃|吃不了|少吃|别吃|别再吃|不要吃|唔好食|唔好再食|戒|唔食|唔要|食唔得|不加|唔加|走(?=辣|葱|蒜|姜|芫荽|香菜|冰|糖|甜|肉|牛|猪)|\bno (?:more )?|\bavoid(?:ing)? |"
        r"\b(?:don'?t|don’t|do not|can'?t|can’t|cannot|never|won'?t|no longer) (?:eat|have|touch|do) |"
        r"\bcut(?:ting)? (?:down |out |back )?(?:on )?|\bquit(?:ting)? |\bgave up |\bstay(?:ing)? "
        r"away from |\boff (?:the )?)(?:咗|了|掉)?")
#: Diets the user takes up, and the kinds they exclude.
_DIETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"纯素|全素|\bvegan\b|plant[- ]based", ("meat", "fish", "dairy", "egg")),
    (r"吃素|素食|茹素|食素|吃斋|食斋|斋菜|蛋奶素|奶蛋素|\bvegetarian\b|\bveggie\b|\blacto[- ]ovo\b|不吃肉|唔食肉|戒肉|"
     r"\bno (?:more )?meat\b|\b(?:quit(?:ting)?|gave up|giving up|stopped eating|cut(?:ting)?(?: out)?|"
     r"off) meat\b", ("meat", "fish")),
    (r"\bpescatarian\b|\bpescetarian\b|只吃(?:鱼|海鲜)|海鲜素|鱼素", ("meat",)),
    (r"\bjain\b|耆那", ("meat", "fish", "egg")),
    (r"\bhalal\b|清真", ("pork",)),
    (_OFF + r"(?:辣|spicy|hot food)|辣的都不|辣都不|辣嘢都唔|做不辣|不辣的|免辣|上火", ("spicy",)),
    (_OFF + r"(?:炸|fried|deep[- ]fried)|炸的都不|炸嘢都唔", ("fried",)),
    (_OFF + r"(?:红肉|red meat)", ("red_meat",)),
    (_OFF + r"(?:牛|\bbeef\b)", ("beef",)),
    (_OFF + r"(?:猪|\bpork\b)", ("pork",)),
    # a diet for weight or health that keeps no kind of food out ("在减肥", "doing low-carb"):
    # held, and ended, as any other
    (r"低碳|低脂|低糖|低盐|生酮|减肥|减脂|节食|\bketo\b|\blow[- ](?:carb|fat|sugar|salt|sodium|fodmap)\b|"
     r"\bon a diet\b", ()),
    (_OFF + r"(?:海鲜|seafood|shellfish)|(?:海鲜|\bshellfish|\bseafood)\s?(?:过敏|allergy)|"
     r"allergic to (?:seafood|shellfish)", ("fish",)),
    (r"乳糖不耐|戒奶|不喝奶|唔饮奶|牛奶蛋白(?:过敏|敏感)|乳蛋白过敏|\blactose\b|\bdairy[- ]free\b|\bcmpa\b|"
     r"\bcow'?s milk (?:protein )?allergy\b|"
     r"\b(?:no|quit(?:ting)?|gave up|giving up|cut(?:ting)?(?: out)?|off) dairy\b",
     ("dairy",)),
    # a time without sugar, caffeine or gluten ("我戒紧糖", "decaf only for now", "I need
    # gluten-free breakfast, might be celiac"): lifted by eating it again or by the diet denied
    (r"戒(?:紧|着|咗|了|掉)?(?:糖|甜)|控糖|(?:唔好|不要)有甜|" + _OFF + r"(?:甜|sweets|desserts?)|\b(?:sugar[- ]free|"
     r"no (?:more )?sugar|quit(?:ting)? sugar|off sugar|cut(?:ting)? (?:out )?sugar)\b", ("sugar",)),
    (r"低因|无咖啡因|去咖啡因|戒咖啡|\bdecaf\w*|\b(?:caffeine[- ]free|no (?:more )?caffeine|off caffeine|"
     r"quit(?:ting)? caffeine|cut(?:ting)? (?:out )?caffeine)\b", ("caffeine",)),
    (r"无麸质|无麸|麸质过敏|乳糜泻|\bgluten[- ]free\b|\bno gluten\b|\bco?eliac\b", ("gluten",)),
)
#: Said just before a diet word, these deny it ("not vegetarian", "no longer vegan", "不再吃素").
_DENIED = re.compile(r"(?:\bnot|n't|\bno longer|\bno more|\bnever|\bstopped being|\bquit being|"
                     r"\bgave up being|\bdone with|不再|不是|没有|没再|唔再|冇再|唔系|不用|不需要|唔使|唔洗|无需|不|唔)\s*对?\s*(?:再\s*)?(?:备注|写|注明)?\s*(?:\w+\s+){0,2}$")


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]:
    return tuple((re.compile(diet), re.compile("|".join(_KINDS[k] for k in kinds) or "(?!)"))
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


#: Eating a kind (again) said as news ("最近开始吃鱼了", "又食返辣", "现在可以吃牛", "食得辣喇",
#: "I've started eating chicken again", "can drink normal milk again", "back on meat"), or no
#: longer needing it kept out ("唔使再写走辣", "no need for the no-chilli note"): the words before
#: the kind (folded text).
_EATS_NOW = re.compile(
    r"(?:开始|又|重新|恢复|现在|而家|宜家|依家|已经|都|也|可以|能)(?:会|有|可以)?(?:吃|食|喝|饮)(?:返|番|回|得)?|"
    r"(?:吃|食|喝|饮)(?:返|番|回|得)|"
    # a spice level asked for now ("可以试试微辣了", "以后都给我做重辣"): spicy food eaten again
    r"(?:可以|能)(?:试试|试下|试一下)|(?<![不没冇唔])(?=(?:重|中|微|特|加|多)辣)|越(?=辣越好)|"
    r"(?:不用|不需要|唔使|唔洗|无需|毋须|免)(?:再)?(?:备注|写|注明|标注)?(?:走|去|不要|唔要|不加|唔加)?|"
    r"开荤|破戒|\b(?:start(?:ed|ing|s)? (?:to )?(?:eat|drink)(?:ing)?|"
    r"(?:eat|eating|drink|drinking|having|have|take|taking) (?:\w+ ){0,2}again|"
    r"can (?:now )?(?:eat|have|drink|take)(?: \w+)?|"
    r"back (?:on|to)(?: eating| drinking)?|(?:now|also) (?:eat|eating|drink|drinking)|(?:i|we) (?:do )?eat|"
    r"i'm eating|i am eating|added|reintroduc\w*|no need for(?: the)?|remove(?: the)?)\b ?")
#: How far after that word the kind is read (characters).
_EATS_REACH = 24


def diet_ended(text: str, diet_text: str) -> bool:
    """``text`` says the user now eats a kind that the diet said in ``diet_text`` excludes
    ("最近開始食魚喇" after "我係素食者", "started eating chicken again" after "I'm vegetarian",
    "又开始吃辣了" after "我不吃辣"): the diet is over, though no word denies it. Not a question,
    not someone else's meal."""
    held, said = fold(diet_text), fold(text)
    diets = _compiled()
    for diet, excluded in diets:
        if not _takes_up(held, diet) or (_takes_up(said, diet) and not (
                diet is diets[1][0] and 1 not in _family_held(said))):
            continue  # not the diet held, or said again here ("vegetarian, eggs are fine")
        if _kind_fine(said, excluded):
            return True
        for m in _EATS_NOW.finditer(said):
            clause = _clause_at(said, m.start(), m.end())
            rest = said[m.end():m.end() + _EATS_REACH]
            end = _CUT.search(rest)
            if excluded.search(rest[:end.start()] if end else rest) \
                    and not QUESTION.search(clause) and owns("food", clause) \
                    and not _DENIED.search(said[max(0, m.start() - 24):m.start()]) \
                    and not re.search(_OFF + r"$", said[max(0, m.start() - 8):m.start()]):
                return True
    return False


#: A diet said to be over, or no diet at all now ("斋期结束了，恢复正常饮食", "减肥结束了", "不用忌口了",
#: "back to eating whatever, no restrictions", "finished the keto experiment", "the diet is
#: over"): every diet and restriction held before is history (folded text).
_DIET_OVER = re.compile(
    r"(?:减肥|减脂|节食|斋期|斋戒|戒口|忌口|生酮|低碳|低脂|吃素|食素|素食|\b(?:diet|keto|low[- ]carb|low[- ]fat|"
    r"fast|fasting|cleanse|detox|lent|ramadan)\b)[^,.;!?]{0,8}?"
    r"(?:结束|完了|完咗|停了|停咗|不减了|唔减喇|\b(?:is over|are over|over now|done|finished|ended|ends))|"
    r"(?:结束|完成|停)(?:了|咗)?(?:减肥|减脂|节食|斋期|斋戒)|恢复正常(?:饮食|吃|食)|正常(?:饮食|吃|食)(?:就|了|喇)|"
    r"什么都(?:吃|能吃|可以吃)|乜都食|(?:不用|不需要|唔使|无需|没有|冇)(?:再)?忌口|"
    r"\b(?:no (?:dietary |diet |food )?restrictions?(?: now| anymore| any more)?|"
    r"eat(?:ing)? (?:anything|everything|whatever)|"
    r"back to (?:normal|eating (?:normally|whatever|anything|everything)|a normal diet)|off the diet|"
    r"(?:finished|ended|stopped|quit|done with) (?:the |my )?(?:\w+ )?(?:diet|experiment|keto|cleanse|fast))\b")


#: Said right after a kind, it is fine to eat now ("鸡肉牛肉都可以", "dairy's fine now", "魚冇問題"):
#: the skipped words hold no negation ("牛肉不可以").
_FINE_AFTER = re.compile(
    r"(?P<skip>[^，,。.!！?？;；\n]{0,6}?)(?:都|也|就)?(?:可以(?!不)|没问题|冇问题|无问题|食得|吃得|饮得|"
    r"ok\b|okay\b)|(?P<eskip>(?:'s|’s| is| are)?(?: totally| all)?) (?:fine|ok|okay|allowed|good) "
    r"(?:now|again|for (?:me|her|him|us))\b")
_NEGATION_WORD = re.compile(r"不|唔|没|冇|别|\b(?:not|no|never)\b|n't")


@lru_cache(maxsize=1)
def _any_kind() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{k})" for k in _KINDS.values()))


def _kind_fine_said(said: str) -> bool:
    """Some kind of food is said to be fine to eat now (a cheap test: no diet read)."""
    return any(_FINE_AFTER.match(said, m.end()) is not None for m in _any_kind().finditer(said))


def _kind_fine(said: str, excluded: re.Pattern[str]) -> bool:
    """A kind the diet excludes said to be fine to eat now, in a statement of the user's own."""
    for m in excluded.finditer(said):
        fine = _FINE_AFTER.match(said, m.end())
        if fine is None or _NEGATION_WORD.search(fine.group("skip") or fine.group("eskip") or ""):
            continue
        clause = _clause_at(said, m.start(), fine.end())
        if not QUESTION.search(clause) and owns("food", clause) and not _NOT_ME.search(clause) \
                and not _DENIED.search(said[max(0, m.start() - 24):m.start()]) \
                and not re.search(_OFF + r"$", said[max(0, m.start() - 8):m.start()]):
            return True
    return False


def diet_over(text: str) -> bool:
    """``text`` says the user's diet is over, or that they keep none now ("恢复正常饮食", "no
    restrictions"): a statement of their own, not a question."""
    said = fold(text)
    for m in _DIET_OVER.finditer(said):
        clause = _clause_at(said, m.start(), m.end())
        if not QUESTION.search(clause) and not _NOT_ME.search(clause) \
                and not _DENIED.search(said[max(0, m.start() - 24):m.start()]):
            return True
    return False


#: Someone else's meal ("my son", "我老公"): not the user's diet.
_NOT_ME = re.compile(r"老公|老婆|儿子|女儿|孩子|小孩|爸|妈|朋友|同事|\b(?:my|our) (?:son|daughter|kids?|"
                     r"husband|wife|partner|friend|mum|mom|dad|father|mother|colleague|boss)\b|"
                     r"\b(?:he|she|they)\b")
#: Diets of one family (what meat, fish, eggs and dairy the user eats): a later one replaces an
#: earlier different one ("全素" -> "蛋奶素", "vegetarian" -> "gone fully vegan"). Indices into
#: ``_DIETS``.
_FAMILY = (0, 1, 2, 3)
#: A correction said with an allergy ("其实是对芒果过敏", "turns out it's sesame, not peanuts"):
#: the allergy said before was wrong.
_CORRECTED = re.compile(r"其实|实际上|原来|搞错|弄错|误诊|不是之前|不是.{0,6}(?:过敏|那个)|更正|净系|淨係|只有|只对|"
                        r"\b(?:actually|turns out|turned out|not .{0,20}at all|misdiagnos\w*|"
                        r"wrong|correct(?:ed|ion)?|instead|only)\b")


_ALLERGIC = re.compile(r"过敏|敏感|\b(?:allerg\w*|react(?:s|ion)? to|intoleran\w*)")


def holds_a_diet(text: str) -> bool:
    """``text`` says the user keeps a diet or has an allergy or intolerance (of their own)."""
    said = fold(text)
    # the clause saying it is no question; a question may follow ("我花生过敏，买坚果礼盒的时候有
    # 没有不含花生的")
    return takes_up_diet(text) or (owns("food", said) and not _NOT_ME.search(said) and any(
        _ALLERGIC.search(c) is not None and not QUESTION.search(c) for c in _CLAUSES.split(said)))


_CLAUSES = re.compile(r"[，,。.!！?？;；]")


#: The user eats anything ("我没什么忌口", "啥都吃", "乜都食", "no restrictions, I eat everything"):
#: an open diet, ended by any restriction said after it.
_EATS_ANYTHING = re.compile(
    r"(?:没|沒|冇)(?:有|什么|什麼|啥|咩|乜)?(?:忌口|戒口|过敏|過敏|特别要求|特別要求)|无忌口|無忌口|不忌口|"
    r"(?:什么|什麼|啥|乜|咩|乜嘢|咩嘢)(?:都|也)(?:吃|食|可以吃|能吃|ok|OK)|都能吃|不挑食|唔挑食|"
    r"\b(?:no (?:dietary |food )?(?:restrictions?|allergies|preferences)|no allergies|"
    r"(?:i )?eat (?:anything|everything)|not allergic to anything|nothing i can'?t eat)\b", re.I)


def eats_anything(text: str) -> bool:
    """``text`` says the user has no food restriction (:data:`_EATS_ANYTHING`), not asked."""
    said = fold(text)
    return any(_EATS_ANYTHING.search(c) is not None and not QUESTION.search(c)
               for c in _CLAUSES.split(said))


def diet_replaced(text: str, diet_text: str) -> bool:
    """``text`` takes up a diet of the same family as the one ``diet_text`` holds, but another
    one ("我現在改吃蛋奶素了" after "我吃全素"), or corrects an allergy ("其实是对芒果过敏" after
    "我花生过敏"): the earlier diet is history."""
    said, held = fold(text), fold(diet_text)
    now, before = _family_held(said), _family_held(held)
    if now and before and not now & before:
        return True
    return _ALLERGIC.search(held) is not None and _ALLERGIC.search(said) is not None \
        and _CORRECTED.search(said) is not None and not QUESTION.search(said) \
        and owns("food", said) and not _NOT_ME.search(said)


def _family_held(said: str) -> set[int]:
    """The diets of the family ``said`` takes up; "no meat" beside a named diet that keeps meat
    out too is that diet's words ("pescatarian now, still no meat"), not vegetarian."""
    diets = _compiled()
    held = {i for i in _FAMILY if _takes_up(said, diets[i][0])}
    return held - {1} if held & {0, 2, 3} else held


def diet_lifted(text: str, diet_text: str) -> bool:
    """``text`` ends the diet or restriction ``diet_text`` holds: eating what it excludes, the
    diet denied ("冇再戒牛", "no longer vegetarian"), the diet over, or replaced by another of
    its family (:func:`diet_ended`, :func:`diet_over`, :func:`diet_replaced`)."""
    return diet_ended(text, diet_text) or _diet_denied(text, diet_text) or diet_over(text) \
        or diet_replaced(text, diet_text) or item_eaten_again(text, diet_text)


#: The thing an allergy or a restriction names ("对海鲜过敏", "我海鲜过敏", "不吃海鲜", "allergic to
#: shellfish", "no pork"): read in folded text; the item is the capture's tail.
_HELD_ITEM = re.compile(r"([\u4e00-\u9fff]{1,4}?)(?:过敏|敏感)|(?:不吃|不食|唔食|戒|忌)([\u4e00-\u9fff]{1,4})|"
                        r"\b(?:allergic to|allergy to|intolerant to|no|avoid|don't eat|do not eat|"
                        r"can't eat|cannot eat)\s+([a-z]+(?: [a-z]+)?)")
#: Said of the item now: no allergy to it any more ("海鲜不过敏了", "no longer allergic to it").
_NOT_ALLERGIC = re.compile(r"不过敏|不再过敏|冇再过敏|唔再过敏|没有过敏|不再敏感|唔再敏感|冇再敏感|不敏感了|"
                           r"过敏(?:已经|已)?(?:好了|好咗|好晒|没了|冇咗)|耐受了|耐受咗|已经耐受|"
                           r"\b(?:no longer|not) (?:allergic|intolerant|sensitive)\b|\boutgr[eo]wn?\b|"
                           r"\boutgrowing\b")
#: How far from the item a word of eating it is read (characters).
_ITEM_REACH = 8


def _held_items(held: str) -> list[str]:
    """The items an allergy or a restriction in ``held`` (folded) names, longest reading first
    ("备注我海鲜过敏" gives 注我海鲜, 我海鲜, 海鲜)."""
    out: list[str] = []
    for m in _HELD_ITEM.finditer(held):
        word = next(g for g in m.groups() if g)
        if word.isascii():
            out += [word, word.split()[-1]]
        else:
            out += [word[i:] for i in range(len(word) - 1)]  # its tails of two or more
    return [w for w in dict.fromkeys(out) if len(w) >= 2]


def item_eaten_again(text: str, diet_text: str) -> bool:
    """``text`` says the user eats again the very item an allergy or a restriction in
    ``diet_text`` named ("医生说海鲜可以吃了" after "我海鲜过敏，不吃海鲜", "can eat shellfish again",
    "海鲜不过敏了"): the restriction is over. Not a question, not someone else's."""
    said, held = fold(text), fold(diet_text)
    for item in _held_items(held):
        for m in re.finditer(re.escape(item), said):
            clause = _clause_at(said, m.start(), m.end())
            if QUESTION.search(clause) or _NOT_ME.search(clause):
                continue
            lo = max(0, m.start() - _ITEM_REACH)
            near = said[lo:m.end() + _ITEM_REACH]
            if _NOT_ALLERGIC.search(near):
                return True
            if _DENIED.search(said[lo:m.start()]):
                continue
            if any(not _NEGATED_BEFORE.search(near, max(0, e.start() - 4), e.start())
                   for e in _EATS_NOW.finditer(near)):
                return True
    return False


#: A word of eating negated ("不能吃", "唔可以食", "can't eat", "never eat").
_NEGATED_BEFORE = re.compile(r"[不没沒唔冇别別莫未]\s*$|(?:n't|\bnot|\bnever|\bno)\s*$")


def _diet_denied(text: str, diet_text: str) -> bool:
    """``text`` denies, as the user's own now, a diet ``diet_text`` holds ("冇再食齋喇" after
    "我食齋嘅", "not vegetarian anymore", "不再忌牛")."""
    said, held = fold(text), fold(diet_text)
    for diet, _ in _compiled():
        if not _takes_up(held, diet):
            continue
        for m in diet.finditer(said):
            clause = _clause_at(said, m.start(), m.end())
            if (_DENIED.search(said[max(0, m.start() - 24):m.start()])
                    or _ENDED_AFTER.match(said, m.end())) \
                    and not QUESTION.search(clause) and not _NOT_ME.search(clause):
                return True
    return False


def takes_up_diet(text: str) -> bool:
    """``text`` says the user keeps a diet (of their own, not denied, not asked): a lasting
    fact about the user, whatever request comes with it ("I've gone vegetarian, no meat in my
    box please")."""
    said = fold(text)
    return any(_takes_up(said, diet) for diet, _ in _compiled())


#: Said right after a diet's words, the diet is over ("戒糖 challenge 完咗喇", "the keto month is
#: over").
_ENDED_AFTER = re.compile(r"[^，,。.!！?？;；\n]{0,14}?(?:结束|完了|完咗|完成了|停了|停咗|\b(?:is over|are over|"
                          r"over now|has ended|ended|finished)\b)")


def _takes_up(said: str, diet: re.Pattern[str]) -> bool:
    for m in diet.finditer(said):
        clause = _clause_at(said, m.start(), m.end())
        if _DENIED.search(said[max(0, m.start() - 24):m.start()]) or QUESTION.search(clause) \
                or _ENDED_AFTER.match(said, m.end()):
            continue
        if owns("food", clause):
            return True
    return False


def states_diet(text: str) -> bool:
    """Some diet word or allergy, or eating a kind as news, is said (a cheap test before any
    item is read)."""
    said = fold(text)
    return any(diet.search(said) for diet, _ in _compiled()) or "过敏" in said \
        or "allerg" in said or _ONLY.search(said) is not None or _EATS_NOW.search(said) is not None \
        or _DIET_OVER.search(said) is not None or _ALLERGIC.search(said) is not None \
        or _kind_fine_said(said)


_CUT = re.compile(r"[，,;；。.!！?？\n]")


def _clause_at(text: str, start: int, end: int) -> str:
    a = max((m.end() for m in _CUT.finditer(text, 0, start)), default=0)
    b = next((m.start() for m in _CUT.finditer(text, end)), len(text))
    return text[a:b + 1]


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
