"""Stage 1 of the funnel: exact, model-free recall of fixed-format facts.

Two rules, both pure functions of the query text:

* **fixed-format entities** in the query (order ids and other codes, phone numbers, e-mail
  addresses, dates with their year), read by the write path's own recogniser, are looked up
  exactly among the user's units' entities;
* **slot questions** ("我的订单号是多少", "what's my phone number", "怎么联系我", "我現在的電話")
  name a single-valued fact of the user; they resolve against units that carry that ``slot``
  or an entity of the matching kind.

The store answers both lookups inside its SQL (scope and ``as_of`` are WHERE clauses).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..keyfacts.roles import asked_role, asks_name
from ..keyfacts.schema import schema
from ..text import fold
from ..text.entities import QUERY, extract_entities
from ..units import Entity


def query_entities(query: str, as_of: datetime) -> list[Entity]:
    """Fixed-format things in ``query`` that can be matched exactly: the one recogniser
    (:mod:`jiyi.text.entities`) read as a query (:data:`~jiyi.text.entities.QUERY`), so each
    value is the one the write path stored for the same words."""
    return extract_entities(query, as_of, QUERY)


def lookup_values(entities: list[Entity]) -> list[Entity]:
    """Each query entity plus spelling variants (raw text, upper, lower, digits only), so a
    store that normalised a little differently still matches exactly."""
    out: dict[str, Entity] = {}
    for e in entities:
        variants = {e.value, e.text, e.text.upper(), e.text.lower()}
        digits = re.sub(r"\D", "", e.text)
        if e.kind in ("phone", "number") and digits:
            variants.update({digits, "+" + digits})
            if digits.startswith("86") and len(digits) == 13:
                variants.add(digits[2:])
        for v in variants:
            if v:
                out.setdefault(v, Entity(kind=e.kind, text=e.text, value=v))
    return list(out.values())


@dataclass(frozen=True)
class SlotIntent:
    """A question about a single-valued fact: the slot names it may be stored under and the
    entity kinds that answer it."""

    slots: tuple[str, ...]
    kinds: tuple[str, ...]
    own: bool = True  # the question says "my"/"我": entity kinds may answer it too


#: The question is about the user's own record: "my"/"我", the user's account or file ("帐号上的",
#: "on file", "on record", "in the system"), where something is sent to the user ("寄到哪",
#: "发到哪个邮箱"), or a thing of the conversation pointed back to ("那笔", "这单", "上回查的": the
#: user's own order), or a value the user left or changed ("以前留的电话", "改号码前的那个号码").
_OWN_RE = re.compile(
    r"我|咱|本人|敝人|俺|帐号|账号|账户|帐户|登记|记录|纪录|存档|存檔|寄到|寄去|寄给|发到|发去|发给|送到|送去|"
    r"(?:寄|send|发|送)\s?咗?\s?去边|"
    r"[那这]一?[单笔](?!钱|款|账|费)|(?:上次|上回|之前|先前|刚才|早前)(?:问|查|说)(?:的|过)|"
    r"留(?:的|给|过|下)|(?:改|换|变)(?:了)?(?:号|手机|电话|地址|邮箱)|"
    # the business as the one who acts ("你哋會email去邊度", as "you" below), not its own things
    r"(?:你们|你哋|您)(?!的|嘅|那边|那邊|这边|這邊|店|门店|公司|客服|总部|地址|电话|邮箱|官网|网站|app)|"
    r"my\b|\bme\b|\bi\b|mine|\baccount\b|on file|\b(?:you|u|ya)\b(?!['’]?(?:r|re|ll|ve)\b)|on (?:the )?records?\b|in (?:the|your) (?:system|records?)\b|\byou (?:ring|call|text)\b|"
    r"\b(?:courier|driver) (?:will |would |should )?(?:ring|call|text|phone)\b|"
    # something the business sends, asked without naming whom ("where's the invoice for this one
    # going to be emailed?"): sent to the user
    r"\bbe (?:e-?mailed|sent|shipped|delivered|posted|mailed|texted)\b|"
    # the business's people reaching the user ("which number will your delivery guy call?")
    r"\b(?:your|ur) (?:delivery|driver|courier|rider|technician|engineer|team|staff|guy|crew|van)\b")
#: Someone else's fact ("my sister", "我妈妈的"): a slot asked for without "my" is not the user's.
OTHERS_RE = re.compile(
    r"(?<!其)他|她|朋友|同事|妈|爸|老婆|老公|妻子|丈夫|儿子|女儿|姐|妹|哥|弟|爷|奶|孩子|"
    r"\b(?:his|her|their|friend|mom|mum|dad|mother|father|wife|husband|son|daughter|brother|"
    r"sister|colleague|boss|kids?|parents?)\b")
#: A fact said to be someone else's ("我妈妈的电话", "my son's birthday"): not the user's, even
#: with "my".
OTHERS_OF_RE = re.compile(
    r"(?:(?<!其)他|她|朋友|同事|妈妈?|爸爸?|老婆|老公|妻子|丈夫|儿子|女儿|姐姐?|妹妹?|哥哥?|弟弟?|爷爷|奶奶|"
    r"孩子|家人)的|\b(?:his|her|their)\b|\b(?:friend|mom|mum|dad|mother|father|wife|husband|son|"
    r"daughter|brother|sister|colleague|boss|kid|child|parent)s?'s?\b(?! (?:is|was|are|were)\b)")
#: Longer than this (or several lines), a query is a conversation excerpt, not one question.
SHORT_QUESTION_CHARS = 80
#: A clause that asks something (a question word or mark): the slot named there is the one
#: asked for ("旧地址是哪儿，我要给物业打个电话" asks for the address).
_ASKS_RE = re.compile(
    r"[?？]|哪|什么|多少|几|啥|谁|吗|是不是|有没有|\b(?:what|which|where|when|who|whose|how)\b")
_CLAUSE_RE = re.compile(r"[^,，。.!！;；?？]+[?？]?")


def _asked_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the clauses of ``text`` that ask something (all of it when none does)."""
    spans = [m.span() for m in _CLAUSE_RE.finditer(text) if _ASKS_RE.search(m.group(0))]
    return spans or [(0, len(text))]


#: The agent's voice: a question put by the agent about the person the memory belongs to names
#: them as "the customer", "this client", "the user" ("What's this customer's preferred contact
#: method?", "does the client have a delivery window?", "该客户的电话", "這位顧客住哪"), as the
#: user would say "my" / "me" / "我". Not a compound naming something of the business ("customer
#: service number", "user guide", "客户端", "客服", "用户名" the login), not customers in general
#: ("other customers", "a user", "其他用户", "新客户").
_PERSON_EN = (r"(?<!other\s)(?<!another\s)(?<!every\s)(?<!each\s)(?<!any\s)(?<!a\s)(?<!an\s)"
              r"(?:(?:the|this|that|our|said)\s+)?(?:customer|client|user|caller|shopper|buyer|"
              r"guest|consumer|account ?holder|card ?holder|subscriber|patron)")
_BUSINESS_EN = (r"\s+(?:service|services|support|care|cent(?:er|re)|portal|base|experience|"
                r"satisfaction|feedback|reviews?|agent|rep|representative|team|desk|hotline|"
                r"guide|manual|interface|agreement|side|list|story|journey|segment|id|ids|login|"
                r"account manager|success|category|categories|tier|level|class|grade|type)\b")
_NOT_PERSON_EN = r"(?!" + _BUSINESS_EN + ")"
#: A business compound ("customer service email?", "user guide", "客服邮箱"): a terse query
#: naming one asks about the business, not the user.
_BUSINESS = re.compile(r"\b(?:customer|client|user)s?" + _BUSINESS_EN + r"|客服|客户端|客户服务|用户手册")
_AGENT_VOICE_EN = re.compile(
    r"\b(?:(?P<aux>does|is|has|was)\s+)?" + _PERSON_EN + r"(?P<poss>'s|’s)?\b" + _NOT_PERSON_EN)
_AUX_FIRST_PERSON = {"does": "do i", "is": "am i", "has": "have i", "was": "was i"}
_AGENT_VOICE_ZH = re.compile(
    r"(?<!其他)(?<!其它)(?<!别的)(?<!很多)(?<!有些)(?<!所有)(?<!一些)(?<!每个)(?<!每位)(?<!新)(?<!老)"
    r"(?:这位|这个|该|此|那位)?(?:客户|顾客|用户|客人|买家|来电人|来电者)(?!端|经理|服务|名|协议|手册|群|量|数)"
    r"(?P<poss>的)?")


def in_own_voice(text: str) -> str:
    """A folded question in the agent's voice said in the user's: "the customer's" is "my",
    "does the client have" is "do i have", "this customer" is "me", "该客户的" is "我的"."""
    def en(m: re.Match[str]) -> str:
        aux = m.group("aux")
        if aux:
            return _AUX_FIRST_PERSON[aux]
        if m.group("poss") or re.match(r"\s+[a-z]", text[m.end():]):
            return "my"  # "the customer's phone", "client name"
        return "me"
    text = _AGENT_VOICE_EN.sub(en, text)
    return _AGENT_VOICE_ZH.sub(lambda m: "我的" if m.group("poss") else "我", text)


#: A terse keyword question ("phone?", "email addr?", "contact pref now", "电话？") is put to
#: the memory about its user: no one else is named, so the fact asked for is the user's own.
MAX_TERSE_WORDS = 4
MAX_TERSE_CHARS = 4
_WORD = re.compile(r"[a-z0-9@.#'-]+|[\u4e00-\u9fff]", re.I)


def _sized(text: str) -> tuple[list[str], int]:
    """The query's words (a Chinese character is one) and how many are Chinese characters."""
    words = _WORD.findall(text)
    return words, sum(1 for w in words if len(w) == 1 and "\u4e00" <= w <= "\u9fff")


def is_terse(text: str) -> bool:
    """The folded query is a few keywords with no verb of asking ("ship addr?", "tier now?",
    "邮箱?")."""
    words, cjk = _sized(text)
    if not words or "\n" in text.strip() or _ASKS_WORDS.search(text) or _BUSINESS.search(text):
        return False
    return (cjk <= MAX_TERSE_CHARS if cjk else len(words) <= MAX_TERSE_WORDS) \
        and not (cjk and len(words) > cjk)


#: Words of a sentence (a question word, a verb, an article: "recommend a phone", "推荐手机"): a
#: query with them is no keyword list.
_ASKS_WORDS = re.compile(r"\b(?:what|which|where|when|who|whose|how|why|is|are|do|does|did|can|"
                         r"could|will|would|should|have|has|a|an|the|this|that|some|any|"
                         r"recommend\w*|buy|sell|need|want|fix|repair|find|compare|cheap\w*)\b|"
                         r"什么|哪|多少|几|啥|谁|吗|是|怎|推荐|买|卖|要|想|修|找|看")


#: A short question with no possessor asking for a value ("電話幾多號", "what's the phone
#: number?"): of a memory kept for one user, it asks for the user's own (never when someone
#: else is named, or when buying or comparing things: "哪款手机好", "recommend a phone").
MAX_BARE_CHARS = 8
MAX_BARE_WORDS = 6
_NOT_BARE = re.compile(r"\b(?:recommend\w*|buy|sell|compare|cheap\w*|best|good|review\w*|price|"
                       r"other|others|another|someone|somebody|everyone|anyone)\b|"
                       r"推荐|买|卖|比较|便宜|好用|哪款|哪个牌子|价格|价钱|多少钱|其他|其它|别的|别人|大家|"
                       r"所有")


def _bare_question(query: str, text: str) -> bool:
    """The one-line query (``text``: folded) is a short question naming no one
    (:data:`MAX_BARE_CHARS`)."""
    words, cjk = _sized(text)
    short = cjk <= MAX_BARE_CHARS if cjk else len(words) <= MAX_BARE_WORDS
    return bool(words) and short and "\n" not in text.strip() and not OTHERS_RE.search(text) \
        and not _NAMED_EN.search(query) \
        and not _BUSINESS.search(text) and not _NOT_BARE.search(text)


#: A short question about "her" or "him" naming no one ("What's her number now?", "how to
#: contact her ah?", "佢而家住邊", "她现在的电话是多少"): put to the memory of one user, the
#: pronoun is that user (the agent asks about the customer in the third person).
_PRONOUN_EN = re.compile(r"\b(?:(?P<poss>his|their)|(?P<her>her)|(?P<obj>him|them)|(?P<subj>she|he|they)"
                         r"(?P<aux>'s|'re| is| are| was| were| has| have| does| do)?)\b")
_PRONOUN_ZH = re.compile(r"(?<![其吉])(?:他|她|佢)(?!们|們|哋|地)(?P<poss>的|嘅|哋嘅)?")
_AFTER_OBJECT = re.compile(r"\s*(?:$|[?,.!~]|(?:at|on|by|via|about|to|for|with|in|now|again|"
                           r"ah|lah|la|leh|pls|please|back|through|using|up)\b)")
#: A proper name said in the question (a capitalised word not opening it): someone named.
_NAMED_EN = re.compile(r"(?<=[a-z,;:]\s)[A-Z][a-z]+|"
                       r"\b(?!(?:What|Where|Who|How|When|Which|That|There|Here|It|He|She|Let)\b)"
                       r"[A-Z][a-z]+(?:'s|’s)")
#: "she's" is "i'm", "they were" is "i was" (the pronoun with the verb after it).
_FIRST_PERSON = {"": "i", "'s": "i'm", "'re": "i'm", "is": "i am", "are": "i am", "was": "i was",
                 "were": "i was", "has": "i have", "have": "i have", "does": "i do", "do": "i do"}
MAX_PRONOUN_WORDS = 12
MAX_PRONOUN_CHARS = 16


def _pronoun_is_user(query: str, text: str) -> str:
    """``text`` (the folded query) with a third-person pronoun read as the user, when the query
    is one short line naming no one else; else ``text`` unchanged."""
    words, cjk = _sized(text)
    if "\n" in query.strip() or _NAMED_EN.search(query) \
            or (cjk > MAX_PRONOUN_CHARS if cjk else len(words) > MAX_PRONOUN_WORDS):
        return text

    def en(m: re.Match[str]) -> str:
        if m.group("poss"):
            return "my"
        if m.group("her"):
            return "me" if _AFTER_OBJECT.match(text, m.end()) else "my"
        if m.group("obj"):
            return "me"
        return _FIRST_PERSON[(m.group("aux") or "").strip()]
    said = _PRONOUN_ZH.sub(lambda m: "我的" if m.group("poss") else "我", _PRONOUN_EN.sub(en, text))
    return text if OTHERS_RE.search(said) else said  # "her mother", "他同事": someone else


def slot_intent(query: str) -> SlotIntent | None:
    """The slot a question asks about, by the cue words of the slot schema
    (:mod:`jiyi.keyfacts.schema`): the user's own single-valued fact ("我的电话", "my email"),
    or a slot whose row does not need "my" ("寄到哪裡", "还有哪些券能用"). When several rows'
    cues are said, a row named in the clause that asks comes first, then the schema's order."""
    said = fold(query)
    # read in the user's voice ("the customer's phone" is "my phone"), and as said: the words
    # of the agent's voice may be a slot's own cue ("who's the account holder")
    text = _pronoun_is_user(query, in_own_voice(said))
    own = (bool(_OWN_RE.search(text)) or (is_terse(text) and not OTHERS_RE.search(text))
           or _bare_question(query, text)) and not OTHERS_OF_RE.search(text)
    one_line = "\n" not in query.strip()
    # a slot asked for without "my" only by one short question, not by a conversation excerpt
    # (someone else named beside the user's own words does not make it theirs: "我老公也想洗牙
    # 他能用我的会员吗 我现在办的是哪种卡")
    short = one_line and (len(query) <= SHORT_QUESTION_CHARS or own) \
        and (own or not OTHERS_RE.search(text))
    asked, asked_said = _asked_spans(text), _asked_spans(said)
    matched: list[tuple[int, int, tuple[str, ...], tuple[str, ...]]] = []
    for order, row in enumerate(schema()):
        if row.question is None or (row.own and not own) or (not row.own and not short):
            continue
        if row.not_with is not None and row.not_with.search(text):
            continue
        hits, spans = list(row.question.finditer(text)), asked
        if not hits:
            hits, spans = list(row.question.finditer(said)), asked_said
        if hits:
            in_ask = any(s <= m.start() < e for m in hits for s, e in spans)
            # a dated thing is listed only while valid (recall/keyslots.py): no entity kinds
            matched.append((0 if in_ask else 1, order, (row.name, *row.also),
                            () if row.dated else row.kinds))
    slots: list[str] = []
    kinds: list[str] = []
    for _, _, names, row_kinds in sorted(matched, key=lambda m: (m[0], m[1])):
        slots.extend(n for n in names if n not in slots)
        kinds.extend(k for k in row_kinds if k not in kinds)
    # a name asked for a role of a thing ("收件人姓名", "入住人是谁", "name for the parcel?"):
    # the role's name first, the user's own name behind it (the answer while no name was
    # given for the role: recall/keyslots.py)
    role = asked_role(said) if one_line else None
    # (with no slot's cue said, only when a name or person is asked for: "when do you deliver
    # to me?" asks a time, its slot found by meaning)
    if role is not None and ("name" in slots or (not slots and asks_name(said))):
        if "name" not in slots:
            slots.append("name")
            kinds.extend(k for k in ("person", "name") if k not in kinds)
        slots.insert(slots.index("name"), f"name:{role}")
    if not slots:
        return None
    return SlotIntent(tuple(slots), tuple(kinds), own)
