"""Stage 1 of the funnel: exact, model-free recall of fixed-format facts.

Two rules, both pure functions of the query text:

* **fixed-format entities** in the query (order ids and other codes, phone numbers, e-mail
  addresses, ISO/Chinese dates) are looked up exactly among the user's units' entities;
* **slot questions** ("我的订单号是多少", "what's my phone number", "怎么联系我", "我現在的電話")
  name a single-valued fact of the user; they resolve against units that carry that ``slot``
  or an entity of the matching kind.

The store answers both lookups inside its SQL (scope and ``as_of`` are WHERE clauses).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import fold
from ..units import Entity

#: Fewer digits than this is an extension, a count or a code, not a phone number.
MIN_PHONE_DIGITS = 7
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_CODE_RE = re.compile(
    r"(?<![A-Za-z0-9])(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]{3,}"
)
_PHONE_RE = re.compile(r"(?<![\d\w])\+?\d[\d -]{5,}\d(?!\d)")
_LONG_NUMBER_RE = re.compile(r"(?<!\d)\d{5,}(?!\d)")
_ISO_DATE_RE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_ZH_DATE_RE = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号號]")


def _entity(kind: str, m: re.Match[str], value: str) -> Entity:
    return Entity(kind=kind, text=m.group(0), value=value, start=m.start(), end=m.end())


def query_entities(query: str) -> list[Entity]:
    """Fixed-format things in ``query`` that can be matched exactly, normalised the way the
    write path normalises them (phones: digits and a leading +; codes: upper case; e-mail:
    lower case; dates: ``YYYY-MM-DD`` or ``MM-DD`` when the year is not given)."""
    found: list[Entity] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= s or m.start() >= e for s, e in taken)

    for m in _EMAIL_RE.finditer(query):
        found.append(_entity("email", m, m.group(0).lower()))
        taken.append(m.span())
    for m in _ISO_DATE_RE.finditer(query):
        if free(m):
            y, mo, d = (int(g) for g in m.groups())
            if 1 <= mo <= 12 and 1 <= d <= 31:
                found.append(_entity("date", m, f"{y:04d}-{mo:02d}-{d:02d}"))
                taken.append(m.span())
    for m in _ZH_DATE_RE.finditer(query):
        if free(m):
            mo, d = int(m.group(2)), int(m.group(3))
            if 1 <= mo <= 12 and 1 <= d <= 31:
                value = f"{int(m.group(1)):04d}-{mo:02d}-{d:02d}" if m.group(1) else f"{mo:02d}-{d:02d}"
                found.append(_entity("date", m, value))
                taken.append(m.span())
    for m in _CODE_RE.finditer(query):
        if free(m):
            found.append(_entity("code", m, m.group(0).upper()))
            taken.append(m.span())
    for m in _PHONE_RE.finditer(query):
        if free(m):
            digits = re.sub(r"[ -]", "", m.group(0))
            if sum(ch.isdigit() for ch in digits) >= MIN_PHONE_DIGITS:
                found.append(_entity("phone", m, digits))
                taken.append(m.span())
    for m in _LONG_NUMBER_RE.finditer(query):
        if free(m):
            found.append(_entity("number", m, m.group(0)))
            taken.append(m.span())
    return found


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


#: (cue regex over folded text, slot names, entity kinds). Folded text is NFKC, case-folded and
#: Simplified, so 電話 matches 电话. Cues are about the *user's own* fact ("my", "我").
_SLOT_CUES: tuple[tuple[re.Pattern[str], tuple[str, ...], tuple[str, ...]], ...] = (
    (re.compile(r"订单号|订单编号|单号|order (?:number|id|no)|order#"),
     ("order_id", "order"), ("order_id", "code")),
    (re.compile(r"电话|手机|号码|联系方式|phone|mobile|cell|telephone"),
     ("phone", "mobile"), ("phone",)),
    (re.compile(r"邮箱|电子邮件|邮件地址|e-?mail"), ("email",), ("email",)),
    (re.compile(r"怎么联系|如何联系|联系我|contact me|reach me|contact (?:info|details)"),
     ("phone", "mobile", "email"), ("phone", "email")),
    (re.compile(r"地址|住在哪|住哪|address|where do i live|where i live"),
     ("address", "city"), ("address",)),
    (re.compile(r"我叫什么|我的名字|我的姓名|my name|who am i"), ("name",), ("person", "name")),
    (re.compile(r"生日|birthday|date of birth"), ("birthday",), ("date",)),
    (re.compile(r"快递单号|运单号|物流单号|tracking (?:number|no)"),
     ("tracking_no", "tracking"), ("tracking_no", "code")),
)

_OWN_RE = re.compile(r"我|咱|my\b|\bme\b|\bi\b|mine")

#: An identifier of another kind than an order (a return, refund, complaint ticket, coupon,
#: booking, account): "退货单号" contains "单号" but does not ask for the order number. Such a
#: question has no slot; its id fact ("退货单 RT778899：…") is found by its label's words.
_OTHER_ID_RE = re.compile(
    r"退货|退款|退换|换货|工单|投诉|维修单|优惠券|券码|预订|预约|订位|订房|会员号|账号|账户|"
    r"\breturn\b|\brefund|\bticket|\bcomplaint|\bcoupon|\bvoucher|\bbooking|\breservation|"
    r"\baccount\b|\bmembership\b")


def slot_intent(query: str) -> SlotIntent | None:
    """The slot a question asks about, when it asks about the user's own single-valued fact."""
    text = fold(query)
    if not _OWN_RE.search(text):
        return None
    slots: list[str] = []
    kinds: list[str] = []
    other_id = bool(_OTHER_ID_RE.search(text))
    for rx, names, ks in _SLOT_CUES:
        if other_id and "order_id" in names:
            continue
        if rx.search(text):
            slots.extend(n for n in names if n not in slots)
            kinds.extend(k for k in ks if k not in kinds)
    if not slots:
        return None
    return SlotIntent(tuple(slots), tuple(kinds))
