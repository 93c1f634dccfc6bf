"""Single-valued facts of a user ("slots") and validity windows (S2, S3).

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
from dataclasses import dataclass
from datetime import datetime

from ..units import Entity
from .timeparse import TimeMatch

_THIRD_PARTY = re.compile(
    r"他|她|朋友|同事|妈|媽|爸|老婆|老公|妻子|丈夫|儿子|兒子|女儿|女兒|客服|快递员|快遞員|商家|"
    r"\b(?:his|her|their|friend|friend's|mom|dad|mother|father|wife|husband|son|daughter|brother|"
    r"sister|colleague|boss|support)\b", re.I)
_SELF = re.compile(r"我|本人|\b(?:my|me|I|I'm|I've)\b|新号|新號|换号|換號|新的", re.I)
_PHONE_WORDS = re.compile(r"手机|手機|电话|電話|号码|號碼|联系方式|聯繫方式|换号|換號|新号|新號|\b(?:phone|number|cell|mobile|call me|reach me|text me)\b", re.I)
_EMAIL_WORDS = re.compile(r"邮箱|郵箱|邮件|郵件|电邮|電郵|\b(?:e-?mail|mail)\b", re.I)
_ADDRESS_WORDS = re.compile(r"地址|住址|住在|住|寄到|送到|收货|收貨|搬到|搬家|\b(?:address|ship|deliver|live|moved)\b", re.I)
_CITY_WORDS = re.compile(
    r"(?:住在|住|搬到|搬去|搬家到|定居|移居|现居|現居|常驻|常駐|家在)|"
    r"\b(?:live in|living in|lives in|moved to|move to|moving to|relocated to|based in|reside in)\b", re.I)
_CITY_PAST = re.compile(r"以前|曾经|曾經|小时候|小時候|\b(?:used to|grew up|visited|trip|travel)", re.I)
_NAME_INTRO = re.compile(r"我叫|我名叫|我的名字|名字是|名字叫|叫我|我是|本人|\b(?:my name|call me|I'm|I am)\b", re.I)
_MEMBERSHIP = re.compile(
    r"(?:会员|會員|membership|member|tier|等级|等級).{0,12}?"
    r"(金卡|银卡|銀卡|白金卡?|钻石卡?|鑽石卡?|黑金卡?|普通会员|普通會員|VIP\s?\d+|PLUS|Plus|"
    r"gold|silver|platinum|diamond|premium|basic|bronze)"
    r"|(金卡|银卡|銀卡|白金|钻石|鑽石|黑金|gold|silver|platinum|diamond|premium)\s?(?:会员|會員|member)",
    re.I)
_BIRTHDAY = re.compile(r"生日|出生|\b(?:birthday|born on)\b", re.I)
_VALIDITY = re.compile(
    r"(?:有效期?(?:至|到|截止到?)|到|至|截止到?|截至|前有效|until|till|through|thru|expires?(?:\s+on)?|"
    r"valid (?:until|till|through)|good (?:until|through)|by)\s*$", re.I)
_VALIDITY_CONTEXT = re.compile(
    r"有效|过期|過期|到期|截止|券|优惠|優惠|折扣|活动|活動|促销|促銷|valid|expire|coupon|voucher|offer|"
    r"deal|promo|discount|trial|subscription", re.I)


@dataclass(frozen=True)
class SlotFact:
    slot: str
    value: str  # the text shown in the content (an entity's exact text where there is one)
    content: str
    entity: Entity | None = None


def _subject(lang: str, speaker: str | None) -> str:
    if speaker:
        return speaker
    return "用户" if lang == "zh" else "The user"


def _template(slot: str, value: str, lang: str, speaker: str | None) -> str:
    subj = _subject(lang, speaker)
    if lang == "zh":
        return {
            "phone": f"{subj}的手机号是{value}", "email": f"{subj}的邮箱是{value}",
            "name": f"{subj}的名字是{value}", "address": f"{subj}的地址是{value}",
            "city": f"{subj}住在{value}", "membership": f"{subj}的会员等级是{value}",
            "birthday": f"{subj}的生日是{value}",
        }[slot]
    poss = f"{subj}'s" if subj != "The user" else "The user's"
    return {
        "phone": f"{poss} phone number is {value}", "email": f"{poss} email is {value}",
        "name": f"{poss} name is {value}", "address": f"{poss} address is {value}",
        "city": f"{subj} lives in {value}", "membership": f"{poss} membership level is {value}",
        "birthday": f"{poss} birthday is {value}",
    }[slot]


def find_slots(clause: str, entities: list[Entity], role: str, lang: str,
               speaker: str | None) -> list[SlotFact]:
    """Slot facts stated by the speaker about themselves in one clause."""
    if role != "user":
        return []
    third = bool(_THIRD_PARTY.search(clause))
    self_ref = bool(_SELF.search(clause)) or speaker is not None
    out: list[SlotFact] = []
    seen: set[str] = set()

    def add(slot: str, value: str, entity: Entity | None) -> None:
        if slot not in seen:
            seen.add(slot)
            out.append(SlotFact(slot, value, _template(slot, value, lang, speaker), entity))

    for e in entities:
        # A third party owns the value only when named before it ("快递员的电话是…", "my
        # friend's number is…"); "我的手机号是…，快递员可以打这个电话" is still the user's own.
        third = bool(_THIRD_PARTY.search(clause[:max(0, e.start)]))
        if e.kind == "person" and _NAME_INTRO.search(clause[:max(0, e.start)] or clause) \
                and not third and "先生" not in e.text and "女士" not in e.text:
            add("name", e.text, e)
        elif e.kind == "phone" and not third and (self_ref or _PHONE_WORDS.search(clause)) \
                and _PHONE_WORDS.search(clause):
            add("phone", e.text, e)
        elif e.kind == "email" and not third and (self_ref or _EMAIL_WORDS.search(clause)):
            add("email", e.text, e)
        elif e.kind == "address" and not third and _ADDRESS_WORDS.search(clause):
            add("address", e.text, e)
        elif e.kind == "city" and not third and self_ref and _CITY_WORDS.search(clause) \
                and not _CITY_PAST.search(clause):
            add("city", e.text, e)
        elif e.kind == "date" and _BIRTHDAY.search(clause) and self_ref and not third:
            add("birthday", e.text, e)
    m = _MEMBERSHIP.search(clause)
    if m and self_ref and not third:
        add("membership", m.group(1) or m.group(2), None)
    return out


def validity_end(clause: str, times: list[TimeMatch], offset: int = 0) -> datetime | None:
    """``valid_until`` when the clause states until when something is valid."""
    if not times or not _VALIDITY_CONTEXT.search(clause):
        return None
    for tm in times:
        before = clause[max(0, tm.start - offset - 12):max(0, tm.start - offset)]
        after = clause[tm.end - offset:tm.end - offset + 8]
        if _VALIDITY.search(before) or re.match(r"\s*(?:前|之前|以前)?(?:有效|到期|过期|過期|截止)", after):
            return tm.end_instant()
    return None
