"""Identifier facts: order, tracking, return, refund, ticket, booking, coupon and account ids
become durable ``fact_reference`` units of the user, whoever said them.

A tool result or an assistant line that carries an id lives hours as ``tool_result`` /
``session_state``; the id itself must outlive it ("我买净化器那一单的订单号是多少？" two weeks
later). For each identifier of a sentence (or tool record) this module words one fact:
``订单 PO-10023：空气净化器，运单YT8812345678`` / ``Ticket CS-4410: complaint about the courier``,
with the slot ``id:<ID>``, so a later fact about the same id (a new status) supersedes the older
one (:meth:`jiyi.write.placement.WritePath._place_draft`), and a repeat is the same content. A mention with
nothing said about the id ("帮我查一下订单ABC123") gets a bare ``订单 ABC123`` and no slot: it
must not replace a richer fact. A status line without an id ("您的订单已发货") is no id fact.

The category of an id comes from its label ("退货单号 RT…", "coupon code …", "这张券"), then
from the entity kind; a bare code without any label is no identifier.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.entities import ID_LABELS
from ..text.fastre import gate_all
from ..text.segment import to_simplified
from ..units import Entity

#: Categories in order of specificity: the key of a sentence that names several ids.
CATEGORIES: tuple[str, ...] = ("return", "refund", "ticket", "booking", "coupon", "order",
                               "account", "tracking")
_LABEL_HANS = {"order": "订单", "tracking": "运单", "return": "退货单", "refund": "退款单",
               "ticket": "工单", "booking": "预订", "coupon": "优惠券", "account": "账号"}
_LABEL_HANT = {"order": "訂單", "tracking": "運單", "return": "退貨單", "refund": "退款單",
               "ticket": "工單", "booking": "預訂", "coupon": "優惠券", "account": "帳號"}
_LABEL_EN = {"order": "Order", "tracking": "Tracking number", "return": "Return",
             "refund": "Refund", "ticket": "Ticket", "booking": "Booking", "coupon": "Coupon",
             "account": "Account"}
_KIND_CATEGORY = {"order_id": "order", "tracking_no": "tracking", "ticket_id": "ticket"}
#: A label right before the id ("工单号 TK…", "order #A12"), by category.
_LABEL_BEFORE = {cat: re.compile(r"(?:" + rx + r")\s*(?:(?:是|为|為|:|：|#|＃|is|was|no\.?)\s*)*$",
                                 re.I)
                 for cat, rx in ID_LABELS.items()}
#: Words in the same clause naming what a bare code is ("VIP-C65A这张券", "code X for the flight").
_CLAUSE_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("coupon", re.compile(r"券|优惠|優惠|折扣|兑换|兌換|coupon|voucher|promo|discount|gift card", re.I)),
    ("return", re.compile(r"退货|退貨|退换|退換|\breturn", re.I)),
    ("refund", re.compile(r"退款|\brefund", re.I)),
    ("ticket", re.compile(r"工单|工單|投诉|投訴|报修|報修|案件|客诉|客訴|维修|維修|售后|售後|\bticket|"
                          r"\bcomplaint|\bcase\b|\brepair", re.I)),
    ("booking", re.compile(r"预订|預訂|预约|預約|订位|訂位|订房|訂房|机票|機票|航班|酒店|\bbooking|"
                           r"\breservation|\bflight|\bhotel", re.I)),
    ("tracking", re.compile(r"快递|快遞|物流|包裹|\bparcel|\bpackage|\bshipment", re.I)),
    ("order", re.compile(r"订单|訂單|下单|下單|\border\b", re.I)),
    ("account", re.compile(r"账号|賬號|帳號|账户|帳戶|会员号|會員號|\baccount|\bmember(?:ship)? (?:id|number)",
                           re.I)),
)
_CLAUSE_SPLIT = re.compile(r"[，,;；。！？!?]")
#: An order named before a bare code, as a noun ("订单 XK2281", "order AB123"): the code may be
#: the order's. Named after it, or as a verb ("下单"), the code is one used on an order.
_ORDER_NOUN = re.compile(r"订单|訂單|\border\b", re.I)
#: Words of a status: a mention carrying one updates the id's fact (supersedes); a mention
#: without one ("已补充到工单 TS…") adds a unit and replaces nothing.
STATUS_WORDS = re.compile(
    r"已?发货|已?發貨|出库|出庫|运输中|運輸中|派送|配送中|签收|簽收|送达|送達|取消|退款成功|已退款|已退货|已退貨|"
    r"处理中|處理中|已处理|已處理|已?解决|已?解決|已完成|已关闭|已關閉|受理|待付款|待处理|待處理|已?支付|已付款|"
    r"已确认|已確認|过期|過期|已使用|失效|生效|出貨|审核|審核|驳回|駁回|延迟|延遲|结案|結案|"
    r"登记|登記|已提交|提交了|已创建|已創建|建立|开立|開立|已受理|"
    r"\b(?:shipped|in transit|out for delivery|delivered|cancell?ed|refunded|returned|processing|"
    r"pending|resolved|closed|completed|confirmed|paid|approved|rejected|expired|redeemed|on hold|"
    r"delayed|received|open(?:ed)?|registered|created|submitted|filed|logged)\b", re.I)


@dataclass(frozen=True)
class IdMention:
    category: str
    entity: Entity
    labelled: bool = True  # a label stands right before it ("预订号 …"), not only a cue word


def id_category(text: str, e: Entity) -> str | None:
    """The category of entity ``e`` in ``text`` (offsets relative to ``text``), or None when it
    is not an identifier."""
    if e.kind not in ("order_id", "tracking_no", "ticket_id", "code"):
        return None
    before = text[max(0, e.start - LABEL_WINDOW_CHARS):e.start]
    for cat, rx in _LABEL_BEFORE.items():
        if rx.search(before):
            return cat
    lo = max((m.end() for m in _CLAUSE_SPLIT.finditer(text, 0, e.start)), default=0)
    nxt = _CLAUSE_SPLIT.search(text, e.end)
    clause = text[lo:nxt.start() if nxt else len(text)]
    for cat, rx in _CLAUSE_CUES:
        if cat == "order" and e.kind == "code" and not _ORDER_NOUN.search(text, lo, e.start):
            continue  # "HOME40 got used on the rug order", "下单时用了 KK50": a code used on one
        if rx.search(clause):
            return cat
    return _KIND_CATEGORY.get(e.kind)


def find_ids(text: str, entities: list[Entity]) -> list[IdMention]:
    """Every identifier of ``text`` with its category (entity offsets relative to ``text``)."""
    out: list[IdMention] = []
    seen: set[str] = set()
    cats = [id_category(text, e) for e in entities]
    # a bare code in a sentence naming a coupon by its label is another coupon ("优惠券 CC33
    # 三天后过期，DD44 还能用两个月"), with a date of its own
    coupon_said = any(c == "coupon" and _LABEL_BEFORE["coupon"].search(
        text[max(0, e.start - LABEL_WINDOW_CHARS):e.start])
        for e, c in zip(entities, cats, strict=True))
    for e, cat in zip(entities, cats, strict=True):
        if cat is None and coupon_said and e.kind == "code":
            cat = "coupon"
        if cat and e.value not in seen:
            seen.add(e.value)
            before = text[max(0, e.start - LABEL_WINDOW_CHARS):e.start]
            out.append(IdMention(cat, e, _LABEL_BEFORE[cat].search(before) is not None))
    return out


#: How far before an id its label may stand ("退货单号是", "the return number is").
LABEL_WINDOW_CHARS = 24
_SPECIFIC = ("return", "refund", "ticket", "booking")


def key_categories(categories: list[str]) -> list[int]:
    """Which ids of a sentence or record are its keys (indices). A return, refund, ticket or
    booking names its order only as a parent ("退货单RT…，订单ABC…": a fact about the return,
    which must not replace the order's own fact); a tracking number beside an order is an
    attribute of the order; a coupon is always a key of its own."""
    specific = [i for i, c in enumerate(categories) if c in _SPECIFIC or c == "coupon"]
    if any(categories[i] in _SPECIFIC for i in specific):
        return specific
    main = [i for i, c in enumerate(categories) if c != "tracking"]
    return main or list(range(len(categories)))


def keys(ids: list[IdMention]) -> list[IdMention]:
    """The ids a sentence is *about* (see :func:`key_categories`). A code named only by a cue
    word beside a labelled id of the same category ("已为您预订 G1234 次，预订号 G1234-8832019")
    is a detail of that id, not a key of its own."""
    labelled = {m.category for m in ids if m.labelled}
    # a coupon beside a labelled one is another coupon ("优惠券 CC33 …，DD44 …"), never a detail
    main = [m for m in ids if m.labelled or m.category not in labelled or m.category == "coupon"]
    return [main[i] for i in key_categories([m.category for m in main])]


def label(category: str, script: str) -> str:
    """How a category is named in ``script`` ("hans", "hant" or "en")."""
    table = _LABEL_HANT if script == "hant" else _LABEL_HANS if script == "hans" else _LABEL_EN
    return table[category]


def script_of(text: str, cjk: bool) -> str:
    if not cjk:
        return "en"
    return "hant" if to_simplified(text) != text else "hans"


#: Any label of any category, right before an id ("订单号是", "the coupon", "券码").
_ANY_LABEL_BEFORE = re.compile(r"(?:" + "|".join(ID_LABELS.values()) + "|" + "|".join(
    sorted({*_LABEL_HANS.values(), *_LABEL_HANT.values()}, key=len, reverse=True)) + r"|券|单|單)\s*"
                               r"(?:(?:是|为|為|:|：|#|＃|is|was|no\.?)\s*)*$", re.I)


def labelled(category: str, value: str, context: str, script: str) -> str:
    """``context`` (which names ``value``) with the id said once and labelled: as it stands when
    a label is right before it ("上周买的净化器订单号是PO-10023"), else with the category's label
    put in front of it ("VIP-C65A这张券" -> "优惠券 VIP-C65A这张券")."""
    ctx = context.strip(" ，,;；")
    pos = ctx.find(value)
    if pos < 0:
        return word_fact(category, value, ctx, script)
    if _ANY_LABEL_BEFORE.search(ctx, max(0, pos - LABEL_WINDOW_CHARS), pos):
        return ctx
    name = label(category, script)
    if script == "en" and pos > 0:
        name = name.lower()
    gap = "" if pos == 0 or ctx[pos - 1] == " " else " "
    return f"{ctx[:pos]}{gap}{name} {ctx[pos:]}"


def word_fact(category: str, value: str, context: str, script: str) -> str:
    """``订单 PO-10023：空气净化器…`` / ``Order A7781: …``; the bare ``订单 PO-10023`` when the
    context says nothing more."""
    head = f"{label(category, script)} {value}"
    ctx = context.strip(" ，,。.;；:：")
    if not ctx:
        return head
    return f"{head}：{ctx}" if script != "en" else f"{head}: {ctx}"


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
