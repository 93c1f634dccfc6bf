"""Single-valued facts of a user ("slots") and validity windows (replacement and freshness).

A slot is a fact that has exactly one current value per user: phone, email, name, address,
city, membership level, birthday. A new value for the slot supersedes the old unit (the store
keeps it, invalidated with a time). Multi-valued things (orders, tracking numbers, coupons,
products) never get a slot. A slot fact is written in a canonical wording
(``用户的手机号是13912345678`` / ``Caroline lives in Berlin``) so a repeat of the same value is
the same content hash, and an update is a new value of the same slot.

Validity: "这张券到5月3日有效", "valid until May 3", "有效期至2026年6月30日" give ``valid_until``
(the end of the stated day, UTC).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from ..keyfacts.asking import asks_value, is_request, one_off, supposes_value
from ..keyfacts.roles import name_role
from ..keyfacts.schema import dated_thing, schema, spec, third_party
from ..text import slotwords as sw
from ..text.entities import sets_a_name
from ..text.fastre import gate_all
from ..text.levels import (
    NOT_NAME_HEAD_ZH,
    level_mentions,
    level_worded,
    mentions_level,
    plausible_en_name,
)
from ..text.segment import script_of_text
from ..text.spelled import spelled_beside
from ..units import Entity
from .filler import CACHED_TEXT_CHARS, content_left
from .timeparse import TimeMatch

#: Someone other than the user (the schema's list: "我妈妈", "my colleague", "the courier").
_THIRD_PARTY = third_party()
_SELF = re.compile(r"我|本人|\b(?:my|me|I|I'm|I've|we|us|our)\b|新号|新號|换号|換號|新的", re.I)
def wants_a_change(sentence: str) -> bool:
    """A request about the speaker's own things or a change ("Could you switch my notifications
    to SMS?", "可以改成短信通知吗？", "可唔可以用電郵通知我？"), not one about a product ("這個可以用
    洗碗機洗嗎？")."""
    return is_request(sentence) and (_SELF.search(sentence) is not None
                                     or CHANGE_WORDS.search(sentence) is not None)


#: Words saying a value changed or is new: they also make a clause without "我"/"my" the
#: speaker's own ("剛升金卡會員", "搬到深圳了", "new number: ...").
CHANGE_WORDS = re.compile(
    sw.alternation(sw.CHANGED_ZH, sw.USING_NOW_ZH, sw.BROKEN_ZH, sw.CHANGED_TO_ZH, sw.IS_NOW_ZH,
                   sw.NEW_ZH, sw.RETIRED_ZH, sw.FORMER_ZH, sw.LEVEL_MOVED_ZH, sw.MOVED_ZH,
                   sw.FROM_NOW_ON_ZH, sw.FROM_NOW_ON_LEAD_ZH) + "|"
    + sw.en_words(sw.CHANGED_EN, sw.NEW_EN, sw.IS_NOW_EN, sw.MOVED_EN, sw.LEVEL_MOVED_EN,
                  sw.RETIRED_EN, sw.FORMER_EN, sw.FROM_NOW_ON_EN, sw.BROKEN_EN,
                  sw.OUT_OF_SERVICE_EN, ("instead", r"shift\w* (?:it |them |the \w+ )?to")), re.I)
_PHONE_WORDS = re.compile(sw.alternation(sw.PHONE_ZH, sw.PHONE_MINE_ZH) + "|"
                          + sw.en_words(sw.PHONE_EN, sw.PHONE_MINE_EN), re.I)
#: A new value labelled right before it ("新邮箱X", "新號碼：X", "new addy is X", "搬到X了") is
#: stated, whatever question stands around it in a run-on turn ("…啥时候有活动啊新邮箱X 老的那个
#: 登不上了…便宜点不").
_STATED_BEFORE = re.compile(
    r"(?:(?:新|\bnew\s+)(?:的\s*)?(?:" + sw.alternation(sw.VALUE_NOUNS_ZH) + "|"
    + sw.en_words(sw.VALUE_NOUNS_EN) + r")|" + sw.alternation(sw.MOVED_TO_ZH) + "|"
    + sw.en_words(sw.MOVED_TO_EN) + r")\s*(?:\bis\s+|[:：]\s*)?$", re.I)
#: Said right before a number, these make it one to call ("text or call (439) 648-2603",
#: "改打0933…", "撥這支").
_CALL_BEFORE = re.compile(r"(?:\b(?:call|text|ring|dial|phone)(?:\s+me)?(?:\s+(?:on|at))?|打|打返|打番|撥|拨|致电|致電|"
                          # "text updates to …", "send the alerts to …"
                          r"\b(?:text|sms|message|whatsapp)\s+(?:\w+\s+){0,2}to)"
                          r"\s*[:：]?\s*$", re.I)
#: The number is how to reach the speaker ("快递员联系我就打…", "you'll get me on…"): theirs even
#: when a third party is named ("让他打…找我").
_REACH_ME = re.compile(
    # "联系我同事小孟 137…" reaches the colleague: 我 owning a relation is no "me"
    r"(?:联系我|聯繫我|聯絡我|找我|找得到我|找到我|打我|打给我|打給我|搵我)" + sw.NOT_MY_RELATION_ZH + "|"
    r"打这个|打這個|打这支|打這支|用的是|"
    r"现在用|現在用|现在打|現在打|以后打|以後打|我自己的|我的是|打呢个|打呢個|打呢支|"
    r"\b(?:call me|reach me|get me|ring me|text me|i'm on|i am on|using|use|ring|"
    # "mine is …", "the correct one is …": the speaker's own, said against another's
    r"mine(?:'s| is)|my one is|(?:the )?(?:correct|right) one(?:'s| is))\b", re.I)
#: A user sending something to an address is giving their own ("发amy@…就行", "send it to …").
_SEND_TO = re.compile(r"发|發|寄|送|用的|(?:^|[改换換转轉就都])用\s*$|\b(?:send|sent|go to|goes to|switch|use|to)\b",
                      re.I)
_EMAIL_WORDS = re.compile(r"邮箱|郵箱|邮件|郵件|电邮|電郵|信箱|\b(?:e-?mail|mail|inbox)\b", re.I)
_ADDRESS_WORDS = re.compile(
    r"地址|住址|住在|住|寄到|寄|送到|送|收货|收貨|收件|取货|取貨|取件|搬到|搬家|搬|家|屋|公司|办公|辦公|单位|單位|宿舍|"
    r"\b(?:address\w*|addy|addr|ship\w*|deliver\w*|"
    r"send\w*|sent|liv(?:e|es|ed|ing)|mov(?:e|es|ed|ing)|place|home|house|flat|apartment|condo|"
    r"office|work|staying|stay|located|based|drop\w*|bring|parcels?|packages?|courier|post|mail|"
    r"collect\w*|pick(?:s|ed|ing)? ?up|pickups?|"
    r"go(?:es)? to|going to|forward\w*|redirect\w*|"
    r"(?:I'm|I am|we're|we are|I'll be|we'll be|I've been|find me|reach me|(?:will|gonna) be|"
    r"(?:I'm|I am) now) at)\b", re.I)
_CITY_WORDS = re.compile(
    r"(?:住在|住|搬到|搬去|搬家到|定居|移居|现居|現居|常驻|常駐|家在)|"
    r"\b(?:live in|living in|lives in|moved to|move to|moving to|relocated to|based in|reside in)\b", re.I)
_CITY_PAST = re.compile(r"以前|曾经|曾經|小时候|小時候|\b(?:used to|grew up|visited|trip|travel)", re.I)
_NAME_INTRO = re.compile(
    r"我叫|俺叫|我名叫|我的名字|名字|收件人|联系人|聯絡人|登记|登記|抬头|抬頭|叫我|我是|我係|我名係|我個名|"
    r"我嘅名|英文名|全名|真名|敝人|在下|本人|姓名|會員名|会员名|用戶名|用户名|这边|這邊|改名|更名|现在叫|現在叫|我(?:其实|其實|本名|全名|真名|大名|而家|宜家|以后|以後|今后|今後)叫|(?:我|本人|敝|免贵|免貴|鄙人)姓|^姓|\b(?:my names?|call me|I'm|I am|it's|it is|this is|"
    r"real name|name on|account is under|under the name|addressed to|recipient|myself|"
    r"to be (?:called|known as|addressed as)|[Ii](?:'d|’d| would) (?:like|prefer|love|want) to be|"
    r"(?:account|card) ?holder(?: is)?|(?:put|keep|register|book|file|list|save|reserve) "
    r"(?:it|the \w+|everything|this|that|them) under|name(?:'s|’s)?|surname|go by|going by|went by|"
    r"im|i’m|(?:it|that|everything)(?:'s|’s| is) under|address me|refer to me|spelled|spelt|"
    r"(?:on|in) (?:my |the )?(?:pan card|id card|id|passport|licen[cs]e|documents?|aadhaar|nric)\b|"
    r"put (?:me |it |my name |that |everything )?(?:down )?as|"
    r"(?:booking|account|order|reservation|ticket|sender|contact|policy) name|"
    r"name for (?:the|my|this)|"
    r"(?:you|u) (?:just |had |did )?(?:asked|wanted|needed|requested))\b|"
    r"\b(?:speaking|here)\s*[,.!]?\s*$", re.I)
#: Said right after a name, these make it the speaker's ("Hello, Daniel Reyes here", "…Aisha
#: Khan, that's me", "Ryan O'Connor as the recipient").
_NAME_AFTER = re.compile(r"\s*(?:(?:,|[-—–]+)?\s*(?:that's|that’s|that is|it's|it is|which is)\s+me|"
                         r"speaking|here|this side|calling|again|as (?:the |my )?(?:recipient|name|"
                         r"account holder|contact name)|on the (?:account|order|parcel|package|"
                         r"label|receipt|invoice))\b", re.I)
_IS_ME = re.compile(r"\b(?:that's|that is|it's|it is|this is|which is)\s+me\b", re.I)
#: A clause that is a name and nothing else but a filler ("Sure — Wojciech Nowak", "嗯，何佳琪"):
#: a name is only found where something marks it as given (an introduction, "that's me", "you
#: asked" in the next clause), so said alone it is the speaker's answer.
_BARE_LEAD = re.compile(r"^[\W_]*(?:(?:ok(?:ay)?|so|sure|yes|yeah|yep|right|um+|uh+|er+m?|well|oh|"
                        r"hi|hello|hey|嗯|哦|噢|喔|好|好的|对|對|是的|係)(?![a-z])[\W_]*)*$", re.I)
_BARE_TAIL = re.compile(r"^[\W_]*$")
#: A name said in the clause after its label ("Please note my name: Chloe Martin").
_NAME_BEFORE = re.compile(r"(?:名字|姓名|\bname)\s*[:：]?\s*$", re.I)
#: "I'm Sapphire now", "I'm Three Star this month": a level or a state, not a name.
_NOT_A_NAME = re.compile(r"\s*(?:now|already|this (?:month|year|week)|these days|at the moment|currently|member|tier|level|"
                         r"status|VIP)\b", re.I)
_TITLE_SUFFIX = re.compile(
    r"(?:先生|女士|小姐|老师|老師|经理|經理|医生|醫生|律师|律師|教授|总|總|主任|师傅|師傅)$")
_LEVEL = (r"金卡|银卡|銀卡|铜卡|銅卡|白金卡|白金|钻石卡|鑽石卡|钻石|鑽石|黑金卡|黑金|黄金|黃金|金牌|银牌|銀牌|"
          r"普通|高级|高級|超级|超級|SVIP|VIP\s?\d+(?![A-Za-z0-9])|VIP(?![A-Za-z0-9])|PLUS|Plus|Gold|Silver|Platinum|Diamond|Premium|"
          r"Basic|Bronze|Elite|gold|silver|platinum|diamond|premium|basic|bronze|elite")
_MEMBERSHIP = re.compile(
    r"(?:会员|會員|membership|member|tier|status|level|等级|等級)(?:等级|等級|级别|級別)?"
    r"\s*(?:是|为|為|:|：|is|is now|now|has been|was)?\s*(?:升级|升級|升|降级|降級|降|变|變|改)?"
    r"(?:到|成|为|為|to)?\s*(" + _LEVEL + r")(?![A-Za-z])"
    r"|(?<![A-Za-z])(" + _LEVEL + r")\s?(?:会员|會員|卡|用户|用戶|member|tier|status|level|card)"
    r"|(?:升级|升級|升到|升为|升為|升成|升了|刚升|剛升|降到|降为|降為|成为|成為|变成|變成|"
    r"(?:upgraded|downgraded|moved|promoted|bumped)(?:\s+(?:me|us))?(?:\s+(?:up|down))?\s+to|now)"
    r"\s*(" + _LEVEL + r")(?![A-Za-z])",
    re.I)
_LEVEL_HINT = re.compile(r"会员|會員|卡|级|級|VIP|PLUS|member|tier|status|level|plan|gold|silver|"
                         r"platinum|diamond|premium|basic|bronze|elite|upgrad\w*|downgrad\w*|"
                         r"promoted|bumped|moved me|went up|gone up", re.I)
#: A membership label ending the text before a clause ("Membership: " / "会员等级：").
_LEVEL_LABEL = re.compile(r"(?:membership|member level|tier|会员等级|會員等級|会员|會員|等级|等級)\s*[:：]\s*$",
                          re.I)
_MEMBERSHIP_SELF = re.compile(
    r"我|本人|俺|咱|账号|帳號|账户|帳戶|\b(?:my|me|I|I'm|im|I've|I was)\b|"
    # "Silver member here": the speaker naming their own level
    r"\b(?:member|tier|status|VIP|level)s? here\b|升|降|成为|成為|变成|變成|办了|辦了|开通|開通|拿到|"
    r"现在是|現在是|现在|現在|目前|如今|已经是|已經是|涨到|漲到|晋升|晉升|"
    r"\b(?:upgraded|downgraded|promoted|became|got|now|"
    r"as an?|with my|account'?s|account is|as of)\b|"
    # reaching a level is said of oneself ("just hit Legend tier", "finally made Onyx level")
    r"\b(?:hit|made|reached|went (?:up|from)|moved (?:up|from)|unlocked|earned|achieved|"
    r"climbed)\b|"
    r"^\s*(?:membership|member level|tier|level|status|会员等级|會員等級|会员|會員|等级|等級)\s*[:：]",
    re.I)
_BIRTHDAY = re.compile(r"生日|出生|\b(?:birthday|born on)\b", re.I)
_VALIDITY = re.compile(
    r"(?:有效期?(?:至|到|截止到?)|到|至|截止到?|截至|前有效|能用到|用到|until|till|through|thru|expires?(?:\s+on)?|"
    r"ends?(?:\s+on)?|laps(?:es?|ing)(?:\s+on)?|lasts?(?:\s+until)?|usable (?:before|until|till)|use (?:it )?(?:by|before)|before|"
    r"截止日期?|期限(?:到|至|是)?|有效期|runs? out(?:\s+on)?|valid to|expire until|"
    r"valid (?:until|till|through|thru|to|for|up to)|good (?:until|till|til|through|thru|to|for|up to)|"
    r"(?:usable|used|use it|redeemable) up to|"
    r"(?:valid|good|usable|lasts?) for(?: another| the next| up to)?|(?:used |usable |valid )?within|runs? (?:until|till|through|to)|by|til|'til|expiring(?:\s+on)?|exp\.?|"
    r"(?:expiry|expiration)(?: date)?(?:\s*(?:is|of|on|:))?|last day(?: to use it)?(?: is)?|"
    r"deadline(?: is)?)\s*$", re.I)
_VALIDITY_CONTEXT = re.compile(
    r"有效|过期|過期|到期|截止|券|优惠|優惠|折扣|活动|活動|促销|促銷|valid|expire|coupon|voucher|offer|"
    r"deal|promo|discount|trial|subscription|lasts|ends|laps(?:es?|ing)|usable|runs out|能用|可用|期限|失效|"
    r"good (?:until|till|til|through|thru|for)|\bexp\b|deadline|last day|"
    r"(?<![A-Za-z0-9])[A-Z]{2,}-?\d+[A-Z0-9]{0,4}(?![A-Za-z0-9])", re.I)


@dataclass(frozen=True)
class SlotFact:
    slot: str
    value: str  # the text shown in the content (an entity's exact text where there is one)
    content: str
    entity: Entity | None = None


#: The end of the previous clause read with this one, for a slot word or a change word said
#: just before the value ("手机号变了哈，现在是62340143").
CUE_WINDOW_CHARS = 40
#: A third party named this close before the clause ("快递员的电话是…") owns its value.
THIRD_PARTY_WINDOW_CHARS = 24
#: A validity word ("有效期至", "valid until") this close before a time, or ("前有效", "到期")
#: this close after it, makes the time the end of the fact's validity.
VALIDITY_BEFORE_CHARS = 12
VALIDITY_AFTER_CHARS = 8


def slot_sentence(slot: str, value: str, lang: str, speaker: str | None = None) -> str:
    """The canonical sentence a slot fact is stored as (``lang``: zh, hant or en).

    Public so a checker (the write-quality benchmark) can tell an exact slot value from a near miss
    without reaching into this module's helpers."""
    return _template(slot, value, lang, speaker)


def _template(slot: str, value: str, lang: str, speaker: str | None) -> str:
    """The schema row's sentence (:mod:`jiyi.keyfacts.schema`); a Traditional turn keeps its
    script ("用戶的會員等級是黃金")."""
    row = spec(slot)
    if row is None:
        raise KeyError(f"no slot {slot!r} in the schema")
    role = slot.split(":", 1)[1] if ":" in slot else None
    return row.render(value, lang, speaker, role=role)


def _script(clause: str, lang: str) -> str:
    """The script a slot fact is written in: the clause's own, or the turn's (``lang`` "hant":
    a Traditional turn) when the clause has no character of either script ("寄kevin@…")."""
    if lang not in ("zh", "hant"):
        return lang
    own = script_of_text(clause)
    return "hant" if own == "hant" or (own == "" and lang == "hant") else "zh"


def find_slots(clause: str, entities: list[Entity], role: str, lang: str,
               speaker: str | None, before: str = "", earlier: str = "",
               after: str = "") -> list[SlotFact]:
    """Slot facts stated by the speaker about themselves in one clause.

    ``lang``: "en", "zh" or "hant" (a turn written in Traditional: a fact in a clause of
    neither script is written in Traditional).

    ``before``: the text of the sentence before this clause, where a cue may stand
    ("手机号变了哈，现在是62340143": the phone word is in the previous clause). ``earlier``: the
    message's text before this sentence: a value's word said at the end of the sentence before
    is its cue too ("typo in my address lol. its 1128 Oak Street", "i change number already.
    new one 8765 4321"). ``after``: the start of the sentence after this clause (a name spelled
    out there: "是何思语，语言的语"). A question states no slot ("我现在的电话是多少？")."""
    label = _LEVEL_LABEL.search(before)
    if role != "user" or (not entities and not _LEVEL_HINT.search(clause) and label is None
                          and not _EN_LEVEL_NOW.search(clause) and not mentions_level(clause)):
        return []
    lead_in = before if len(before) >= CUE_WINDOW_CHARS else earlier + " " + before
    context = lead_in[-CUE_WINDOW_CHARS:] + " " + clause
    own = bool(_SELF.search(clause)) or speaker is not None
    said_changed: list[bool] = []

    def changed() -> bool:  # read only where a rule needs it (most clauses never do)
        if not said_changed:
            said_changed.append(CHANGE_WORDS.search(context) is not None)
        return said_changed[0]

    out: list[SlotFact] = []
    seen: set[str] = set()

    def add(slot: str, value: str, entity: Entity | None) -> None:
        fact = SlotFact(slot, value, _template(slot, value, _script(clause, lang), speaker), entity)
        if slot not in seen:
            seen.add(slot)
            out.append(fact)
            return
        i = next(i for i, f in enumerate(out) if f.slot == slot)
        if current_between(clause, out[i].entity, entity):
            out[i] = fact  # "X，不对，是Y", "X for now, from next week Y"

    near = before[-THIRD_PARTY_WINDOW_CHARS:]
    # someone else named before the clause and no one else, or named in the clause right
    # before it and not the user after them ("送我朋友當生日禮物，這台寄到她家：…": the friend's;
    # "我妈的号码是X，我的是Y": the user's)
    prev_third = (bool(_THIRD_PARTY.search(near)) and not _SELF.search(near)) \
        or _others(_LAST_CLAUSE.split(near)[-1])
    # a request opening the sentence governs the clause holding the value ("以后能不能寄到公司，
    # 地址是…？", "could you, from now on, use …?"): the value is wanted, not asked about
    requested = bool(before) and is_request(before)
    for e in entities:
        labelled = _STATED_BEFORE.search(clause[:e.start]) is not None
        if asks_value(clause, e.start, e.end) and not labelled and not requested:
            continue  # "我现在的电话是13800138000吗？" asks; "can you change it to …?" states
        if supposes_value(clause, e.start) or (
                before and supposes_value(before + clause, len(before) + e.start)):
            continue  # "如果我搬去深圳南山区…", "if I moved to 12 Oak St": supposed, not stated
        if e.kind in ("phone", "email", "address") and _retired(
                clause, e, [k for k in entities if k.kind == e.kind and k is not e]):
            continue  # "我不用X了", "X isn't mine anymore": the value being replaced
        # A third party owns the value only when named before it ("快递员的电话是…", "my
        # friend's number is…"); "我的手机号是…，快递员可以打这个电话" is still the user's own.
        lead = clause[:max(0, e.start)]
        # a new value labelled right before it ("…客服小姐姐挺好的…新邮箱X"): its holder is named
        # close before the label, a third party further back in a run-on talks of something else
        third = _others(lead) if labelled else \
            names_third_party(lead) or (prev_third and not _SELF.search(lead))
        thing_role = name_role(lead_in[-CUE_WINDOW_CHARS:] + " " + lead) \
            if e.kind == "person" and not _TITLE_SUFFIX.search(e.text) else None
        # a name set on the user's record ("會員名麻煩改做X", "set the account holder as X"):
        # stated, the user's own unless someone else is named before it (then the account's)
        set_here = e.kind == "person" and sets_a_name(lead_in[-CUE_WINDOW_CHARS:] + " " + lead)
        if set_here and thing_role is None and third:
            thing_role = "account"
        if thing_role is not None:
            # the name on a thing (the recipient, the guest...), whoever they are to the user
            add(f"name:{thing_role}", e.text, e)
            continue
        # "if you can't reach me, call …" gives the user's own number, unless someone else is
        # named right before it ("if he can't get hold of me he can ring my wife Tanya on …")
        if third and not (e.kind in ("phone", "email") and _REACH_ME.search(clause)
                          and not _others(lead)) \
                and not (e.kind == "person" and _IS_ME.search(clause[e.end:])):
            continue
        if e.kind == "person" and not _SELF.search(lead) and for_someone(earlier + " " + before):
            continue  # "我要幫我媽媽掛號，她假牙有點鬆。名字是陳王秀蘭": the mother's name
        # the name change said anywhere in the sentence ("I changed my surname by deed poll -
        # long story, family stuff - so it's Christopher Hale now")
        renamed = e.kind == "person" and (set_here or _NAME_CHANGED.search(context) is not None
                                          or _NAME_CHANGED.search(lead_in) is not None)
        if e.kind == "person" and (_NAME_INTRO.search(lead or clause) or renamed
                                   or _NAME_AFTER.match(clause[e.end:])
                                   or (_BARE_LEAD.match(lead) and _BARE_TAIL.match(clause[e.end:]))
                                   or (not lead.strip() and _NAME_BEFORE.search(before))
                                   or spelled_beside(before + lead, clause[e.end:] + after)) \
                and not _TITLE_SUFFIX.search(e.text) \
                and (renamed or not _NOT_A_NAME.match(clause[e.end:])):
            add("name", e.text, e)
        elif e.kind == "phone" and (_PHONE_WORDS.search(context) or _only(clause, e)
                                    or _CALL_BEFORE.search(lead)
                                    or _REACH_ME.search(context) or changed()):
            add("phone", e.text, e)
        elif e.kind == "email" and (own or changed() or _EMAIL_WORDS.search(context)
                                    or _only(clause, e) or _SEND_TO.search(lead)):
            add("email", e.text, e)
        elif e.kind == "address" and (_ADDRESS_WORDS.search(context) or _only(clause, e)):
            add("address", e.text, e)
        elif e.kind == "city" and (own or changed()) and _CITY_WORDS.search(clause) \
                and not _CITY_PAST.search(clause):
            add("city", e.text, e)
        elif e.kind == "date" and _BIRTHDAY.search(clause):
            add("birthday", e.text, e)
    level = level_mention(clause)
    if level is None and label is not None:  # "Membership: Obsidian" (cut at the colon)
        found = level_mention(label.group(0) + clause)
        shift = len(label.group(0))
        level = (found[0], found[1] - shift) if found and found[1] >= shift else None
    if level is not None and not asks_value(clause, level[1], level[1] + len(level[0])) \
            and not supposes_value(clause, level[1]) \
            and not _others(clause[:level[1]]) and not names_another_slot(level[0]) \
            and not (_NAME_CHANGED.search(context) and any(
                e.kind == "person" and e.text == level[0].strip() for e in entities)) and (
            own or changed() or _MEMBERSHIP_SELF.search(context)):
        add("membership", level[0], None)
    return out


#: The user's own name changed: a name said after it is the user's new one ("it's X now").
_NAME_CHANGED = re.compile(sw.alternation(sw.NAME_CHANGED_ZH) + "|" + sw.en_words(sw.NAME_CHANGED_EN),
                           re.I)
def names_another_slot(name: str) -> bool:
    """A level name that is a value word of a clause-valued slot ("it's Snapchat now" names a
    contact channel, "It's Saturday mornings now" a delivery time): no level."""
    return any(row.value == "clause" and row.value_words is not None
               and row.value_words.fullmatch(name.strip()) for row in schema())


#: How far before a value its holder is named: a third party further back in a run-on sentence
#: is talking about something else ("they're all 5 stars the colour looks way darker … account's
#: Platinum as of this week").
HOLDER_WINDOW_CHARS = 32


#: Where a clause ends: the last clause before a value is where its holder is named.
_LAST_CLAUSE = re.compile(r"[，,;；。.!！?？]")


def _others(lead: str) -> bool:
    """The words shortly before a value name someone else as its holder: a third party with no
    "我"/"me" after it ("我姐姐是金卡会员" yes; "They moved me up to Sapphire" no)."""
    lead = lead[-HOLDER_WINDOW_CHARS:]
    ends = [m.end() for m in _THIRD_PARTY.finditer(lead)]
    return bool(ends) and not _SELF.search(lead[ends[-1]:])


#: An open-vocabulary level: a short name right before a membership word ("星钻会员", "尊榮VIP",
#: "Royal Elite tier", "Black VIP"). A Chinese name is the up to four characters before the
#: word, cut after the last character that cannot be part of a name ("你们店的普通会员").
_ZH_LEVEL_WORD = re.compile(r"会员|會員|(?<![A-Za-z0-9])VIP(?![A-Za-z0-9])")
_ZH_NAME = re.compile(r"[\u4e00-\u9fff0-9]{1,4}$")
_ZH_CUT = re.compile(r".*[是係喺咗嘅到成为為了的个個我你您们們店从從升在就还還也这這那张張位名级級办辦开開买買当當返翻續续"
                     r"做加入现現新旧舊老原本说說讲講叫称稱于於与與和跟对對给給被把将將帮幫让讓请請有没沒"
                     r"不算]")
_ZH_NOT_LEVEL = re.compile(r"[吗嗎呢吧啊么麼什哪谁誰]")
_EN_LEVEL_WORD = re.compile(
    r"(?<![A-Za-z])((?-i:(?:[A-Z][A-Za-z]+\s){1,2}(?:card\s)?))(?:VIP|member(?:ship)?|tier|status|"
    r"level)s?\b")
_EN_LEVEL_AFTER = re.compile(
    r"\b(?:from|to|reached|hit|made it to|listed as|classed as|registered as|shows?|says)\s+"
    r"(?:the\s+)?((?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+)?))"
    r"(?![A-Za-z])")
#: "Membership: Obsidian", "Tier: Four Star".
_EN_LEVEL_LABEL = re.compile(r"\b(?i:membership|member level|level|tier|status)\s*[:：]\s*"
                             r"((?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+)?))(?![A-Za-z])")
#: "It's Infinite now", "Five Star now".
_EN_LEVEL_NOW = re.compile(
    r"(?:^|[,.;]\s*|\b(?:I'm|I am|it's|it is|(?:(?i:my|the) )?(?i:account|membership|tier|status|level)"
    r"(?:'s| is))\s+(?:on\s+)?(?:the\s+)?)"
    r"((?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+)?))\s+(?:now|already|this (?:month|year|week)|"
    r"at the moment|currently|these days|as of (?:today|now|this (?:week|month|year)))\b")
_OF_ACCOUNT = re.compile(r"\b(?:account|membership|tier|status|level)\b", re.I)
#: "my account's on Diamond", "membership is at Gold": the account's level with no time word.
_EN_LEVEL_ON = re.compile(
    r"\b(?i:account|membership)(?:'s| is)\s+(?:on|at)\s+(?:the\s+)?"
    r"((?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+)?))(?![A-Za-z])")
_EN_NOT_LEVEL = re.compile(r"^(?:January|February|March|April|May|June|July|August|September|"
                           r"October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|"
                           r"Saturday|Sunday|The|A|An|My|Your|Our|As|With|I|I'm|Dear|Hi|Hey|This|That|It|"
                           r"It's|Please|Now|So|And|But|Oh|Ok|Okay|Yes|No|Just|Been|New|Old|"
                           r"From|Since|Until|Till|Right|Only|Even|Also|Then|Starting|Finally|Made|Hit|Reached|"
                           r"Got|Became|Unlocked|Earned|Achieved|Joined|Went|Moved)$")
#: Said just before a level, these make it the old one ("从银卡升到金卡", "from Silver to Gold").
_LEVEL_OLD_BEFORE = re.compile(r"(?:从|從|由|原来是|原來是|原本是|之前是|以前是|不是|唔係|唔系|失去了?|丢了|丟了|\bfrom|"
                               # not renewed, cancelled ("唔續黑卡", "不續約白金卡", "取消了金卡")
                               r"(?:唔|不|冇|沒|没)(?:有)?(?:再)?(?:續|续)(?:會|会|約|约|費|费|咗|了)?|取消(?:咗|了)?|"
                               r"\bwas|\bused to be|\bnot|\bno longer|\binstead of|\brather than|"
                               # ended by the user ("I've cancelled Gold Plus", "let my Silver
                               # lapse", "quit Premium")
                               r"\bcancell?ed|\bcancell?ing|\bquit|\bleft|\bended|\blet|"
                               r"\blost|\blosing|\bdropped (?:from|out of)|\bfell (?:from|out of)|"
                               r"\bformerly|\bpreviously)"
                               r"\s*(?:(?:the|a|an|my|our|his|her)\s+)?$", re.I)
LEVEL_OLD_WINDOW = 14
#: Said right after a level, these end it ("鑽石卡上個月到期咗", "my Gold status expired"): the
#: level is the one left, not the current one.
_LEVEL_OLD_AFTER = re.compile(r"[^，,。.;；!！?？]{0,14}?(?:到期|过期|過期|過咗期|过咗期|失效|冇咗|没了|沒了|"
                              r"\bexpired|\blapsed?|\bran out|\bis gone|\bwas taken away)")


def _en_name(text: str) -> str:
    words = text.split()
    while words and _EN_NOT_LEVEL.match(words[0]):
        words.pop(0)
    return " ".join(words)


def _zh_level_name(head: str) -> str:
    """The level's name in the characters before 会员/VIP: cut after the last character that
    cannot be part of a name; a 级 right before the word is the name's own ("银级会员" -> 银级,
    "我是金級會員" -> 金級)."""
    if len(head) >= 2 and head[-1] in "级級":
        name = _ZH_CUT.sub("", head[:-1])
        return name + head[-1] if name and name[-1] not in "等升降" else ""
    return _ZH_CUT.sub("", head)


def level_mention(clause: str) -> tuple[str, int] | None:
    """The membership level a clause says is the current one, and where it starts: the last
    level named that no "从/from/原来是" makes the old one ("从普通会员升到星钻会员" -> 星钻会员,
    "moved from Royal Elite to Infinite" -> Infinite). Levels are a closed list of common names
    or any short name before a membership word ("皇冠会员", "Four Star members")."""
    if len(clause) > CACHED_TEXT_CHARS:
        return _level_mention.__wrapped__(clause)
    return _level_mention(clause)


@lru_cache(maxsize=4096)
def _level_mention(clause: str) -> tuple[str, int] | None:
    """:func:`level_mention` (a pure function of the clause; common clauses recur: kept)."""
    found: list[tuple[int, int, str]] = []  # (start, end, value)
    for m in _MEMBERSHIP.finditer(clause):
        g = next(i for i in range(1, 4) if m.group(i))
        found.append((m.start(g), m.end(g), m.group(g)))
    for m in _ZH_LEVEL_WORD.finditer(clause):
        head = _ZH_NAME.search(clause[max(0, m.start() - 4):m.start()])
        name = _zh_level_name(head.group(0)) if head else ""
        if name and not _ZH_NOT_LEVEL.search(name) and name[-2:] not in NOT_NAME_HEAD_ZH \
                and name[-1:] not in NOT_NAME_HEAD_ZH:  # "星钻会员" -> 星钻, "黑卡VIP" whole;
            # "我想改一下會員資料" names no level 想改一下
            value = name if m.group(0) in ("会员", "會員") else name + m.group(0)
            found.append((m.start() - len(name), m.start() - len(name) + len(value), value))
    for m in _EN_LEVEL_WORD.finditer(clause):
        name = _en_name(m.group(1))
        if name:
            vip = " VIP" if m.group(0).rstrip("s").endswith("VIP") else ""
            found.append((m.end(1) - len(name) - 1, m.end(), name + vip))
    moved: set[tuple[int, int, str]] = set()
    for lm in level_mentions(clause):  # any name, numbered levels, after an up/down verb
        found.append((lm.start, lm.end, lm.value))
        if lm.moved:
            moved.add(found[-1])
    hint = _LEVEL_HINT.search(clause) is not None
    for rx in (_EN_LEVEL_AFTER, _EN_LEVEL_NOW, _EN_LEVEL_LABEL, _EN_LEVEL_ON):
        for m in rx.finditer(clause):
            name = _en_name(m.group(1))
            if rx is _EN_LEVEL_AFTER and not plausible_en_name(name, clause):
                continue  # "flying to the Gold Coast", "upgraded to the Pro Max"
            if rx is _EN_LEVEL_NOW and not hint and not level_worded(name) \
                    and not _OF_ACCOUNT.search(m.group(0)):
                continue  # "so I'm Priya Castellano now": a name; "my account is Five Star
                # at the moment" is the account's level
            if name and (hint or rx is not _EN_LEVEL_AFTER):
                found.append((m.end(1) - len(name), m.end(1), name))
    fresh = [f for f in found
             if not _LEVEL_OLD_BEFORE.search(clause[max(0, f[0] - LEVEL_OLD_WINDOW):f[0]])
             and not _LEVEL_OLD_AFTER.match(clause, f[1])]
    if not fresh:
        return None
    fresh = [f for f in fresh if f in moved] or fresh  # "upgraded to X" names the new one
    last = max(end for _, end, _ in fresh)
    start, _, value = max((f for f in fresh if f[1] == last), key=lambda f: len(f[2]))
    # a fuller reading of the same name ("the Patron's Circle membership": Patron's Circle, not
    # Circle)
    fuller = [f for f in fresh if len(f[2]) > len(value) and f[0] <= start
              and f[2].casefold().endswith(value.casefold())]
    if fuller:
        start, _, value = max(fuller, key=lambda f: len(f[2]))
    return value, start


#: Words that retire a value ("原来的…停机了", "I don't use … anymore") and words that then
#: introduce the current one ("现在是", "new one").
_OLD = re.compile(sw.alternation(sw.RETIRED_ZH, sw.NOT_ANY_MORE_ZH, sw.PAST_ZH) + "|"
                  + sw.en_words(sw.RETIRED_EN, sw.NOT_ANY_MORE_EN, sw.PAST_EN), re.I)
_NOW = re.compile(sw.alternation(sw.CURRENT_ZH) + "|" + sw.en_words(sw.CURRENT_EN), re.I)


#: Said after a value, these say it stopped working ("X那个邮箱被盗了", "X's been hacked"): retired
#: like :data:`_OLD`; before a value they may be the reason for a new one ("号码丢了，补了张卡…").
_GONE = re.compile(sw.alternation(sw.BROKEN_ZH, sw.BROKEN_AFTER_ZH) + "|"
                   + sw.en_words(sw.BROKEN_EN, sw.BROKEN_AFTER_EN), re.I)


#: Said after a value, these retire *another* one: the value itself is the new one ("just
#: moved to X so don't use the old one", "X now, the lease on the old flat ran out", "X, the
#: hotmail one is dead").
_OTHER_OLD = re.compile(
    sw.alternation(sw.OTHER_OLD_ZH) + r"|\b(?:the|my|that) (?:old|previous|former|other) \w+"
    # another value named by its provider ("X ✅ rediff one I don't open anymore", "the yahoo one")
    r"|\b(?!(?:this|that|the|my|no|any|every|some|which|each|last|first|new|only)\b)[a-z]{3,} one\b",
    re.I)


#: "X is my old number", "X是旧的": the value itself is the old one.
_IS_THE_OLD = re.compile(r"\s*(?:is|was|'s|are|were|是|为|為|就是|算是)", re.I)


#: Right before a value, these make it the one changed from ("由X变更为Y", "從X改成Y", "changed
#: from X to Y").
#: "from" before a value: the value changed from ("由X变更为Y", "from X to Y"), unless it is
#: where something is collected from ("please collect from Block 405 …", "从公司取件").
_FROM = re.compile(r"(?<!取)(?<!取件)(?<!收件)(?:由|从|從|自|(?<!collect )(?<!pick up )(?<!pickup )"
                   r"(?<!picked up )(?<!pick it up )\bfrom)\s*$", re.I)


#: Words of using a value: after a retiring word that belongs to an earlier value, they
#: introduce this one ("X不用了 改打Y", "X那个不开了 寄Y", "X is dead, use Y").
_USE = re.compile(sw.alternation(sw.USE_ZH) + "|" + sw.en_words(sw.USE_EN), re.I)


#: A change into the value said right before it ("change the email on my account to X",
#: "把邮箱改成X"): how far back its verb may stand.
CHANGED_INTO_CHARS = 60
_CHANGED_INTO = re.compile(r"(?:\b(?:change|changed|changing|switch|switched|switching|update|updated|"
                           r"updating)\b[^.!?。！？\n]{0,45}\b(?:to|into)|改成|改为|改為|换成|換成|"
                           r"更改为|更改為|变更为|變更為)\s*[:：]?\s*$", re.I)


#: A value in use again ("it's 415-555-0139 again", "back to X", "改回X", "又用返X").
_RESTORED_AFTER = re.compile(r"\s*[,，]?\s*(?:again|once more)\b", re.I)
_RESTORED_BEFORE = re.compile(r"(?:\bback (?:to|on)|改回|换回|換回|又用回|用返|改返|转回|轉回)\s*(?:to\s*)?$", re.I)


def _retired(clause: str, e: Entity, kin: Sequence[Entity] = ()) -> bool:
    """The clause says the value no longer holds: a retiring word after it ("X不用了", "X isn't
    mine anymore") that names no other value as the old one, before it with no word for the
    current value in between ("原来的X"), or "from" right before it ("由X变更为Y").

    ``kin``: the other values of the same kind in the clause. The words after the next of them
    are that one's ("寄X 之前那个Y别寄了"); a retiring word after an earlier one is that one's
    when a word of using a value comes between it and this value ("X不用了 改打Y": Y is the
    current one)."""
    if _FROM.search(clause, max(0, e.start - 6), e.start):
        return True
    if _RESTORED_AFTER.match(clause, e.end) or _RESTORED_BEFORE.search(clause, 0, e.start):
        return False  # "my old number on it so it's 415-555-0139 again", "改回X": in use again
    if _CHANGED_INTO.search(clause, max(0, e.start - CHANGED_INTO_CHARS), e.start):
        return False  # "change the email on my account to X the gmail one I barely check
        # anymore": X is what the user changes to; the retiring words are the other one's
    nxt = min((k.start for k in kin if k.start >= e.end), default=len(clause))
    after = clause[e.end:nxt]
    if (_OLD.search(after) or _GONE.search(after)) \
            and (_IS_THE_OLD.match(after) or not _OTHER_OLD.search(after)):
        return True
    before = clause[:max(0, e.start)]
    ends = [m.end() for m in _OLD.finditer(before)]
    if not ends or _NOW.search(before[ends[-1]:]):
        return False
    # "X那支不用了 改打Y", "之前那个X别打了 打Y": the retiring word is X's; so it is when X
    # stands between it and this value ("stop sending to X - I'm at Y now")
    return not ((any(k.end <= ends[-1] for k in kin) and _USE.search(before[ends[-1]:][1:]))
                or any(ends[-1] <= k.start and k.end <= e.start for k in kin))


#: Words that correct a value just said ("不对，是…", "打错了", "I mean …", "wait no").
_CORRECTION = re.compile(sw.alternation(sw.CORRECTION_ZH) + "|" + sw.en_words(sw.CORRECTION_EN),
                         re.I)


def current_between(clause: str, first: Entity | None, then: Entity | None) -> bool:
    """Two values of one slot in a clause: the later one is the current one when the words
    between them say so (a word for the current value, a change or a correction: "X，现在改成Y",
    "X, I mean Y"); otherwise the first stands."""
    if first is None or then is None or then.start < first.end:
        return False
    between = clause[first.end:then.start]
    return bool(_NOW.search(between) or CHANGE_WORDS.search(between)
                or _CORRECTION.search(between))


#: "They" that are the user's parcels or orders, not people ("make sure they go to X", "they
#: keep getting sent to Y"): no third party owns the value after it.
_THINGS_THEY = re.compile(r"\bthey(?:'re|’re| are| keep| should| can| will| must)?(?: (?:all|both|always|now))?"
                          r" (?:go|get|getting|be|being|come|ship|arrive|end up|sent|shipped|delivered|"
                          r"posted|mailed|dropped)\b", re.I)


#: A verb of doing something for someone ("幫我媽媽掛號", "替老婆订", "booking for my mum"): the
#: next words name who it is for.
_FOR_VERB = re.compile(r"幫|帮|替|代|為|为|\bfor\b", re.I)
#: How many characters after such a verb may name the third party.
FOR_WINDOW_CHARS = 10


def for_someone(text: str) -> bool:
    """``text`` (the message before a bare name label) says what follows is done for a third party
    ("我要幫我媽媽掛號", "this booking is for my dad"), and the user speaks of themselves nowhere
    after it."""
    last = None
    for m in _FOR_VERB.finditer(text):
        if names_third_party(text[m.end():m.end() + FOR_WINDOW_CHARS]):
            last = m
    return last is not None and not _SELF_AGAIN.search(text, last.end() + FOR_WINDOW_CHARS)


#: The user speaking of themselves again ("我自己", "my own", "me too").
_SELF_AGAIN = re.compile(r"我自己|我的|我叫|\b(?:my own|myself|me too|i'm|my name)\b", re.I)


def names_third_party(lead: str) -> bool:
    """A third party named in ``lead`` (the words before a value), "they" of things aside."""
    return _THIRD_PARTY.search(_THINGS_THEY.sub(" ", lead)) is not None


def stated_as_own(clause: str, e: Entity, kin: Sequence[Entity] = ()) -> bool:
    """The clause states ``e`` as the speaker's own value, cue word or not: not asked about,
    not supposed, not the value being replaced, not someone else's, not for one order only.
    A caller that knows the user has a value of the kind already (the write path's history)
    reads such a clause as the new one ("it's 4412 Maple Ave, Apt 21 not 12")."""
    return not (asks_value(clause, e.start, e.end) or supposes_value(clause, e.start)
                or _retired(clause, e, kin) or names_third_party(clause[:e.start]) or one_off(clause))


def _only(clause: str, e: Entity) -> bool:
    """The clause is nothing but this value (a user turn "+852 5183 9443")."""
    rest = clause[:e.start] + clause[e.end:]
    return not content_left(rest)


def validity_end(clause: str, times: list[TimeMatch], offset: int = 0,
                 thing_said: bool = False) -> datetime | None:
    """``valid_until`` when the clause states until when something is valid. ``thing_said``:
    the clause is one item of a list of dated things the sentence names ("我有两张券：…，
    HOME66 到6月底"): the sentence's words make its "到6月底" an expiry."""
    if not times or not (thing_said or _VALIDITY_CONTEXT.search(clause)
                         or _DATED_THING.search(clause)):
        return None
    for tm in times:
        start, end = tm.start - offset, tm.end - offset
        before = clause[max(0, start - VALIDITY_BEFORE_CHARS):max(0, start)]
        after = clause[end:end + VALIDITY_AFTER_CHARS]
        if _VALIDITY.search(before) or _VALID_AFTER.match(after):
            return _end(clause, tm)
    return _thing_end(clause, times, offset)


#: Said after a time, these make it the end ("5月3日前有效", "3天内有效", "月底到期").
_VALID_AFTER = re.compile(r"\s*(?:前|之前|以前|之内|之內|以内|以內|内|內|为止|為止)?\s*(?:都|才|就|还|還)?"
                          r"\s*(?:已经|已經|已|可以|能|要|得|必须|必須)?(?:有效|到期|过期|過期|截止|能用|可用|可以用|用)")
#: Words that say the thing has already ended ("上个月就过期了", "expired on the 15th"): its date
#: is then read as said, never moved ahead to a future reading.
_ENDED = re.compile(r"过期了|過期了|已过期|已過期|已经过期|已經過期|已经到期|已經到期|到期了|失效了|已失效|"
                    r"作废了|作廢了|用不了|不能用了|\b(?:expired|ran out|has run out|no longer valid|"
                    r"not valid any ?more|ended)\b", re.I)


def _end(clause: str, tm: TimeMatch) -> datetime:
    """The end of validity a time gives: read as an expiry (the nearest reading not already
    past when said: :meth:`TimeMatch.expiry_instant`), unless the clause says it has ended."""
    return tm.end_instant() if _ENDED.search(clause) else tm.expiry_instant()


#: A thing that is used up or runs out (a coupon, a voucher, a gift card: the schema's dated
#: rows' ``thing`` words): the one date said with it is when it ends, however the ending is
#: worded ("SAVE20AB, good thru June 30", "兑换码X，6月30日作废"), unless the date is said to be
#: its start.
_DATED_THING = dated_thing()
#: Words that say something ends, wherever they stand ("the expiry date on BIGSALE30 is May 3",
#: "last day to use FLASH10 is May 3"): with the one date of the clause, it is the end.
_EXPIRY = re.compile(r"expir\w*|\bexp\b|\blaps(?:es?|ing)\b|deadline|last day|到期|过期|過期|失效|作废|作廢",
                     re.I)
#: Said before a date in its sub-clause, these make it when the thing was got or starts.
_START_BEFORE = re.compile(
    r"(?:从|從|自|由|收到|领|領|拿到|送|发|發|给|給|买|買|注册|註冊|\b(?:from|since|starting|starts?|"
    r"received|got|sent|gave|given|issued|bought|signed up)\b)[^，,。;；!?！？]*$", re.I)
_START_AFTER = re.compile(r"\s*(?:起|开始|開始|生效|领|領|收到|送的|发的|發的)")


def dated_thing_said(text: str) -> bool:
    """The text names a thing with a date of its own (a coupon, a voucher, a gift card) or an
    expiry."""
    return bool(_DATED_THING.search(text) or _EXPIRY.search(text))


def _thing_end(clause: str, times: list[TimeMatch], offset: int) -> datetime | None:
    """The end of a dated thing said with exactly one date (see :data:`_DATED_THING`)."""
    if not (_DATED_THING.search(clause) or _EXPIRY.search(clause)):
        return None
    days = [tm for tm in times if tm.grain in ("day", "month")]
    if len(days) != 1:
        return None
    tm = days[0]
    start, end = tm.start - offset, tm.end - offset
    if _START_BEFORE.search(clause[:max(0, start)]) \
            or _START_AFTER.match(clause[end:]):
        return None
    return _end(clause, tm)


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
