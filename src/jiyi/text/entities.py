"""The one entity recogniser: rules, Chinese (Simplified and Traditional) and English, no model.

:func:`extract_entities` finds people, phones, emails, URLs, order / tracking / ticket ids,
error codes, other codes, amounts with currency, dates and clock times (resolved against the
turn's ``at``), cities, addresses and product models. Each :class:`~jiyi.units.Entity` carries
its kind, the exact source span (``text``, ``start``, ``end``) and a normalised ``value`` that
the rule stage of recall matches exactly (phones as digits, codes upper-case, amounts as
``"199 CNY"``, dates as ISO ``2026-05-03``). Overlaps are settled by a fixed priority.
Full-width digits and Latin letters (``１３８…``, ``ＡＢＣ``) read as their ASCII forms; spans
and ``text`` stay those of the text as given.

Three callers read texts with it, so a phone the write path stores is the phone the rule stage
of recall looks up and the summary channel weighs; what differs between them is a
:class:`Reading` (which kinds are kept, which dates, whether an unlabelled code counts), never a
pattern of their own:

* :data:`WRITE` (the write path, :mod:`jiyi.write.pipeline`): every kind, every date;
* :data:`QUERY` (stage 1 of recall, :mod:`jiyi.recall.rules`): the fixed-format kinds it looks up
  exactly, dates only when they name one day with its year (a day said without its year may be
  last year's, which the time window of recall settles), and bare codes and digit runs that
  carry no label ("A123 到哪了", "12345 那单"): a query names an id without saying what it is;
* :data:`SUMMARY` (the summary channel, :mod:`jiyi.context.summary`): people, ids, phones,
  amounts, dates and times, and the bare codes and digit runs too; it weighs the spans, not
  the values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from ..units import Entity
from . import slotwords as sw
from .addresses import find_addresses, store_pickups
from .fastre import gate_all
from .lexicon import (
    CITIES_EN,
    CITIES_ZH,
    NAME_STOP,
    NOT_NAMES_EN,
    PRODUCT_BRANDS,
    SURNAME_PATTERN,
    SURNAMES,
    SURNAMES_MULTI,
)
from .segment import has_cjk, to_simplified
from .spelled import spelled_beside
from .timebase import TimeMatch
from .timeclock import find_clocks
from .timegrammar import find_times

_NB = r"(?<![0-9A-Za-z])"  # a left edge that also works next to CJK (where \b does not)
_NA = r"(?![0-9A-Za-z])"


def _at(firsts: str) -> str:
    """A look-ahead on the characters a match can start with, put before a pattern that opens
    with a look-behind or an alternation: the many positions where no match can start then fail
    on one character instead of running the whole pattern (the result is the same)."""
    return "(?=[" + firsts + "])"


URL_RE = re.compile(r"(?:https?://|www\.)[^\s\u3000-\u303f\uff00-\uffef\u4e00-\u9fff\"'<>)\]]+", re.I)
EMAIL_RE = re.compile(r"(?=[A-Za-z0-9._%+-])(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z])")
_MOBILE = re.compile(_at("+81") + _NB + r"(?:\+?86[ \-]?)?(1[3-9]\d)[ \-]?(\d{4})[ \-]?(\d{4})" + _NA)
_MASKED = re.compile(_at("1") + _NB + r"(1[3-9]\d)(\*{4}|\*{2,5}|x{4}|X{4})(\d{4})" + _NA)
_LANDLINE = re.compile(_at("(0") + _NB + r"(?:\(0\d{2,3}\)|0\d{2,3})[ \-]?\d{7,8}" + _NA)
_INTL = re.compile(_at("+") + r"(?<![0-9A-Za-z+])\+\d{1,3}[ \-]?\(?\d{1,4}\)?(?:[ \-]?\d{2,4}){2,4}" + _NA)
_US = re.compile(_at("(2-9") + _NB + r"\(?[2-9]\d{2}\)?[ \-.]\d{3}[ \-.]\d{4}" + _NA)
#: Taiwan mobiles (09xx-xxx-xxx) and landlines written with separators (02-2345-6789).
_TW_MOBILE = re.compile(_at("0") + _NB + r"09\d{2}[ \-]?\d{3}[ \-]?\d{3}" + _NA)
_DASHED_LANDLINE = re.compile(
    _at("(0") + _NB + r"(?:(?:\(0\d{1,3}\)\s?|0\d{1,3}[ \-])\d{3,4}[ \-]\d{4}|0\d{4}[ \-]\d{6})" + _NA)
#: E.164: a phone number has at most 15 digits; fewer than 7 is a code or an amount.
PHONE_DIGITS_MIN, PHONE_DIGITS_MAX = 7, 15
#: How close before a bare 8-digit number its phone word must stand (see ``_LOCAL8``); further
#: away the word belongs to another number.
PHONE_CUE_WINDOW_CHARS = 24
#: An id label ("订单号", "order number") is looked for this far before a code: enough for
#: "订单号是：" or "my order number for the blender is", not the whole text (the slow part).
ID_LABEL_WINDOW_CHARS = 40
#: A bare 8-digit local number (Hong Kong, Macau, Singapore...) is a phone only when a phone
#: word comes shortly before it: "手机号变了，现在是62340143"; otherwise it may be an order id.
_LOCAL8 = re.compile(_at("2-9") + _NB + r"[2-9]\d{3}[ \-]?\d{4}" + _NA)
#: A mobile written in 4-3-3 groups with its trunk 0 (Australia 0412 345 678, Taiwan 0912 345 678).
_GROUPED_MOBILE = re.compile(_at("0") + _NB + r"0[4-9]\d{2}[ \-.]\d{3}[ \-.]\d{3}" + _NA)
#: A UK mobile (eleven digits from 07, grouped "07911 204 356", "07911 204356" or written whole).
_UK_MOBILE = re.compile(_at("0") + _NB + r"07\d{3}(?:[ \-]?\d{3}[ \-]?\d{3}|[ \-]\d{6})" + _NA)
#: Any other run of 9 to 12 digits, grouped or not ("4155550142", "98765 43210", "6 1234 5678"),
#: is a phone when a phone word stands close before or after it, as for ``_LOCAL8``.
_CUED_DIGITS = re.compile(_at("0-9") + _NB + r"\d(?:[ \-.]?\d){8,11}" + _NA)
#: An order's word right after a number ("0408330142呢張單", "W12345678 這筆訂單"): the number is
#: the order's, never a phone.
_ORDER_WORD_AFTER = re.compile(r"\s*(?:呢|這|这|嗰|那|個|个)?\s*(?:張|张|筆|笔)?\s*(?:訂單|订单|單|单)(?!位)")
_PHONE_CUE = re.compile(
    "(?:" + sw.alternation(sw.PHONE_ZH, sw.PHONE_CUE_ZH, sw.PHONE_EN, ("call",))
    + r"|打\s*$|\b(?:num|ph|tel|mob|hp)\b|\b(?:new|my)\s*#)",
    re.I)
#: Said right after a bare 8-digit number, these make it a phone ("现在用9384 3997，有事打这支").
_PHONE_CUE_AFTER = re.compile(
    r"\s*[，,]?\s*(?:有事|有问题|有問題|可以|就)?(?:打这|打這|打呢|打给我|打給我|打畀我|打俾我|打我|找我|搵我|"
    r"联系我|聯絡我|聯繫我|这支|這支|呢支|手机|手機|\b(?:call|text|ring|whatsapp)\b)", re.I)
#: How far after a bare 8-digit number its phone word may stand.
PHONE_CUE_AFTER_CHARS = 12
#: A number right after words pointing back ("new one", "mine is", "新的是") is of the kind the
#: message named before: a phone when a phone word stands this far back with no other number
#: between ("i change number already lah, old one stop using liao. new one 8765 4321").
_POINTER_BACK = re.compile(
    "(?:" + sw.alternation(sw.POINTER_BACK_ZH) + "|" + sw.en_words(sw.POINTER_BACK_EN)
    + r")\s*(?:是|係|系|is|:|：)?\s*$", re.I)
POINTER_BACK_CHARS = 80
_DIGIT_RUN = re.compile(r"\d{4,}")
_NOT_PHONE_CUE = re.compile(
    r"订单|訂單|单号|單號|运单|運單|工单|工單|券|order|tracking|ticket|invoice|account|booking", re.I)

#: Labels of identifiers, by category (zh-Hans, zh-Hant, en). The category names what an id
#: refers to (:mod:`jiyi.write.idfacts` words the durable fact with it); the entity kind stays
#: one of order_id / tracking_no / ticket_id / code, the kinds recall's rules look up.
ID_LABELS: dict[str, str] = {
    "tracking": r"运单号|運單號|运单编号|運單編號|快递单号|快遞單號|物流单号|物流單號|快递号|快遞號|运单|運單|"
                r"包裹号|包裹號|tracking\s*(?:number|no\.?|#|id|code)?|waybill(?:\s*(?:number|no\.?))?|"
                r"parcel\s*(?:number|no\.?|id)|shipment\s*(?:number|no\.?|id)",
    "return": r"退货单号|退貨單號|退货单|退貨單|退货号|退貨號|退换货单号|退換貨單號|退货编号|退貨編號|"
              r"return\s*(?:id|number|no\.?|#|label|code|request|authorization)|RMA(?:\s*(?:number|no\.?|#))?",
    "refund": r"退款单号|退款單號|退款单|退款單|退款编号|退款編號|退款流水号|退款流水號|"
              r"refund\s*(?:id|number|no\.?|#|reference|ref\.?)",
    "ticket": r"工单号|工單號|工单|工單|投诉单号|投訴單號|投诉编号|投訴編號|服务单号|服務單號|案件编号|案件編號|"
              r"ticket\s*(?:number|no\.?|#|id)?|case\s*(?:number|no\.?|#|id)|complaint\s*(?:number|no\.?|#|id)",
    "booking": r"预约号|預約號|预订号|預訂號|预订编号|預訂編號|订位号|訂位號|确认号|確認號|确认码|確認碼|"
               r"reservation\s*(?:number|no\.?|#|code)?|booking\s*(?:number|no\.?|#|code|reference|ref\.?)?|"
               r"confirmation\s*(?:number|no\.?|#|code)",
    "order": r"订单号|訂單號|订单编号|訂單編號|订单|訂單|单号|單號|order\s*(?:number|no\.?|#|id)?|"
             r"invoice\s*(?:number|no\.?|#)?|发票号|發票號",
    "coupon": r"优惠券码|優惠券碼|优惠码|優惠碼|券码|券碼|兑换码|兌換碼|礼品卡号|禮品卡號|优惠券|優惠券|"
              r"coupon\s*(?:code)?|promo\s*code|voucher\s*(?:code)?|discount\s*code|"
              r"gift\s*card\s*(?:number|no\.?|code)?",
    "account": r"会员卡号|會員卡號|会员号|會員號|账户号|賬戶號|帳戶號|账号|賬號|帳號|用户ID|用戶ID|"
               r"account\s*(?:number|no\.?|#|id)?|member(?:ship)?\s*(?:number|no\.?|#|id)|"
               r"customer\s*(?:number|no\.?|#|id)",
}
ID_KIND: dict[str, str] = {"tracking": "tracking_no", "return": "order_id", "refund": "order_id",
                           "ticket": "ticket_id", "booking": "ticket_id", "order": "order_id",
                           "coupon": "code", "account": "code"}
#: A short code as written (capitals then digits, standing alone: "XS60", "KX30"), too short or
#: bare for the code reader; only read where the context says a code is meant
#: (:func:`code_like_words`).
_CODE_LIKE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,10}[0-9]{1,8}[A-Z0-9]*(?![A-Za-z0-9])")


def code_like_words(text: str) -> list[str]:
    """The words of ``text`` written like a code ("新手券 XS60", "KX30 用了"): the caller knows
    from the context (a coupon word, a code the user named before) that one is meant."""
    return _CODE_LIKE.findall(text)


#: The entity kinds that name one identifier (an order, a parcel, a ticket, a code).
ID_KINDS = frozenset(ID_KIND.values())
_CODE_BODY = r"([A-Za-z0-9][A-Za-z0-9\-_]{2,39})"
_MIN_CODE_CHARS = 3
_SEP = r"\s*(?:(?:是|为|為|:|：|#|＃|is|was|no\.?|No\.?)\s*)*"
_ID_BODY = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-_]*\d[A-Za-z0-9\-_]*|\d[A-Za-z0-9\-_]*")


def _first_chars(alternation: str) -> str:
    """The characters the top-level alternatives of a pattern start with (each starts with a
    literal character): a look-ahead on them lets the many positions where no label can start
    fail at once instead of trying every alternative."""
    firsts: set[str] = set()
    depth, start = 0, True
    i = 0
    while i < len(alternation):
        ch = alternation[i]
        if start:
            firsts.add(ch)
            start = False
        if ch == "\\":
            i += 2
            continue
        depth += ch == "("
        depth -= ch == ")"
        start = ch == "|" and depth == 0
        i += 1
    return "".join(sorted(firsts))


_ID_CONTEXT = re.compile(
    "(?=[" + re.escape(_first_chars("|".join(ID_LABELS.values()))) + "])"
    r"(?P<kind>" + "|".join(f"(?P<{cat}>{rx})" for cat, rx in ID_LABELS.items()) + r")"
    + _SEP + _CODE_BODY, re.I)
_TRACKING_PREFIX = re.compile(_at("SYZJED1") + _NB + r"(?:SF|YT|ZTO|JD|JT|YD|STO|EMS|DPK|1Z)[0-9A-Z]{9,18}" + _NA)
_ERROR_CONTEXT = re.compile(
    _at("错錯故状狀esx") + r"(?:错误码|錯誤碼|错误代码|錯誤代碼|错误编号|故障码|故障碼|状态码|狀態碼|error\s*code|error|err|"
    r"status\s*code|status|exit\s*code)\s*(?:是|为|為|:|：|#)?\s*([A-Za-z]{0,6}[\-_]?\d{2,6}[A-Za-z0-9\-]*)"
    + _NA, re.I)
_ERROR_BARE = re.compile(
    _at("EHh45") + _NB + r"(?:(E|ERR|ERR_)\d{3,5}|(?:HTTP|http)\s?[45]\d{2}|[45]\d{2}(?=\s*(?:错误|錯誤|error|Error|"
    r"Internal|Bad|Not Found|Service|Gateway|Forbidden|Unauthorized)))" + _NA)
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th|s|am|pm|km|kg|cm|mm|ml|gb|mb|tb|px|k|m|h|min|x)",
                      re.I)

_CURRENCY_PREFIX = {"¥": "CNY", "￥": "CNY", "$": "USD", "US$": "USD", "€": "EUR", "£": "GBP",
                    "HK$": "HKD", "NT$": "TWD", "RMB": "CNY", "CNY": "CNY", "USD": "USD",
                    "EUR": "EUR", "新臺幣": "TWD", "新台币": "TWD", "新台幣": "TWD", "台币": "TWD",
                    "台幣": "TWD", "港币": "HKD", "港幣": "HKD", "人民币": "CNY", "人民幣": "CNY",
                    "美元": "USD", "美金": "USD"}
_CURRENCY_SUFFIX = {"元": "CNY", "块钱": "CNY", "块": "CNY", "塊錢": "CNY", "塊": "CNY",
                    "人民币": "CNY", "人民幣": "CNY", "美元": "USD", "美金": "USD", "欧元": "EUR",
                    "歐元": "EUR", "英镑": "GBP", "英鎊": "GBP", "港币": "HKD", "港幣": "HKD",
                    "日元": "JPY", "日圓": "JPY", "新台币": "TWD", "新臺幣": "TWD", "台币": "TWD",
                    "rmb": "CNY", "cny": "CNY", "usd": "USD", "eur": "EUR", "dollars": "USD",
                    "dollar": "USD", "bucks": "USD", "yuan": "CNY", "euros": "EUR", "euro": "EUR",
                    "pounds": "GBP"}
_NUM = r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?"
_AMOUNT_PRE = re.compile(r"(US\$|HK\$|NT\$|RMB|CNY|USD|EUR|新臺幣|新台币|新台幣|台币|台幣|港币|港幣|人民币|人民幣|美元|美金|[¥￥$€£])\s?" + _NUM + r"(?:\s?(万|萬|千|k|K|m|M)(?![A-Za-z]))?(?![0-9])")
_AMOUNT_SUF = re.compile(
    _at("0-9") + _NB + _NUM + r"\s*(万|萬|千|k|K)?\s*(" + "|".join(sorted(_CURRENCY_SUFFIX, key=len, reverse=True))
    + r")(?![A-Za-z])", re.I)

_SURNAME_FIRSTS = "".join(sorted({*SURNAMES, *(s[0] for s in SURNAMES_MULTI)}))
_ZH_SURNAME = SURNAME_PATTERN
_ZH_INTRO = re.compile(_at("我名姓叫本联聯收敝在俺") + r"(?:我(?:现在|現在|而家|宜家|以后|以後|今后|今後|其实|其實|本名|全名|真名|大名)?叫|俺叫|我名叫|我的名字是|我的名字叫|名字是|名字叫|姓名是|姓名[:：]|叫我|我是(?:你们的|你們的|贵店的|貴店的)?老?(?:会员|會員|客户|客戶|用户|用戶|顾客|顧客|买家|買家)|我是|我係|我名係|我個名係|我嘅名係|我个名系|敝人|在下|本人|联系人[:：是]?|聯絡人[:：是]?|收件人[:：是]?)\s*(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})")
#: A name in the Latin script after a Chinese introduction: Hong Kong, Taiwan and overseas
#: Chinese go by English names ("我係Ken", "我叫Amy Chen", "我的英文名是Kenneth Yip", "全名，
#: Kenneth Yip"); not a level or a thing after it ("我是Gold會員", "我係iPhone用戶").
_ZH_INTRO_LATIN = re.compile(
    r"(?:(?:我(?:现在|現在|其实|其實|本名|全名|真名|大名|英文名)?叫|我的名字(?:是|叫)|我名係|我個名係|"
    r"我嘅名係|叫我|(?:英文名|全名|真名)(?:字)?(?:是|係|系|叫|[:：，,])\s*(?:是|係|系|叫)?)\s*"
    r"((?-i:[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2}))(?![A-Za-z])"
    # "I am X" says a name only when nothing follows ("我係Ken，…"; "我是Apple的粉絲" is none)
    r"|(?:我是|我係|我系)\s*((?-i:[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2}))"
    r"(?=\s*(?:[，,。.!！?？~]|$|啊|呀|喇|啦|呀|喔|哦)))"
    r"(?!\s?(?:会员|會員|卡|级|級|用户|用戶|客户|客戶|版|款|號|号|VIP|[Mm]ember|[Tt]ier|[Cc]ard|[Pp]lan))")
#: A name given for the account or the parcel ("收件人寫鄭凱文", "登记的名字写李娜", "名字…是郭佳怡"),
#: or a caller naming themselves ("罗志强这边").
_ZH_NAME_FOR = re.compile(r"(?:(?:名字|姓名|新名|(?<=[嘅的個个])名(?![片单單牌额額])|(?:會員|会员|用戶|用户)名(?=[是係系:：])|收件人|联系人|聯絡人|登记|登記|抬头|抬頭)[\u4e00-\u9fff]{0,3}?"
                          r"(?:是|係|写|寫|填|叫|为|為|成|做|[:：])(?:成|为|為|作)?|登[记記]名用|"
                          r"(?:改名|改了名|改咗名|換咗名|换咗名|更名|改名字|改了名字|改咗名字)[^。！？!?]{0,8}?(?:叫|为|為|成))"
                          r"\s*(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})")
#: A name given for a role of a thing, whoever holds it: the role or its thing, a verb of
#: giving or changing, perhaps who the person is to the user and "的名字", then the name
#: ("收件人改成我先生王志明", "入住人換成我同事周婷", "訂位改我同事的名字，蔡佩君", "訂位人是黃小姐，
#: 黃詩涵").
_ZH_ROLE_NAME = re.compile(
    r"(?:" + sw.alternation(*sw.ROLE_PERSON_ZH.values(), *sw.ROLE_THING_ZH.values()) + r")"
    r"[^，,。！!？?；;]{0,6}?(?:改成|换成|換成|改为|改為|改做|改作|写成|寫成|填成|是|係|系|写|寫|填|叫|为|為|"
    r"改|换|換|[:：])(?:的|嘅)?\s*(?:(?:我|我的|我嘅)?(?:" + sw.alternation(sw.RELATION_ZH) + r")(?:的|嘅)?"
    r"(?:名字|姓名|名)?)?[，,、:：\s]*(?:" + _ZH_SURNAME + r"(?:小姐|先生|女士|太太)[，,、\s]+)?"
    r"(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})"
    # "写我老婆的名字刘丽", "用我同事嘅名：陳家明": someone's name given right after it
    r"|(?:我|我的|我嘅)(?:" + sw.alternation(sw.RELATION_ZH) + r")(?:的|嘅)(?:名字|姓名|名)"
    r"(?:是|係|叫|为|為)?[，,、:：\s]*(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})"
    # "寄给我妹妹张小雨", "送去畀我阿媽陳秀英": sent to someone named after who they are
    r"|(?:寄|送|交|转|轉)(?:去|到)?(?:给|給|畀|俾)(?:我|我的|我嘅)?(?:" + sw.alternation(sw.RELATION_ZH) + r")"
    r"[，,、:：\s]*(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})")
#: Where a name is being set: a thing a name is written on (the account, the member's record,
#: the invoice, the parcel's recipient) or a word for the name itself.
_ZH_NAME_PLACE = (r"名|收件人|收貨人|收货人|訂購人|订购人|取貨人|取货人|購買人|购买人|持有人|會員資料|会员资料|"
                  r"資料|资料|戶口|户口|帳戶|帐户|账户|帳號|账号|帐号|登記|登记|抬頭|抬头|發票|发票|夫姓|證件|证件|"
                  # who a line, a household or a ticket is registered to ("实名改成…", "户主变更为…")
                  r"实名|實名|户主|戶主|机主|機主|乘机人|乘機人|乘客|旅客|入住人|预订人|預訂人")
#: A verb setting a value to what follows ("改成", "改做", "改回", "換成", "轉做", "寫成").
_ZH_SET_TO = (r"改成|改做|改作|改为|改為|改回|改返(?:做|成)?|换成|換成|换做|換做|转做|轉做|转成|轉成|写成|寫成|"
              r"填成|更正为|更正為|更正成|(?:應該|应该)(?:係|是|為|为|寫|写)|"
              r"变更为|變更為|变更成|變更成|更改为|更改為|更改成|更换为|更換為|更新为|更新為|转到|轉到|转给|轉給|过户给|過戶給|"
              r"(?:转|轉|过户|過戶)(?:咗|了)?(?:俾|畀|给|給)")
#: The end of a name given as the new value: a stop, the end, or a particle closing the request
#: ("改成黃詩晴嗎", "改做梁國輝啦", "係李志明先啱").
_ZH_NAME_END = r"(?=[，,。.！!？?；;\s~～（(）)、]|$|了|啦|吧|喇|咯|囉|啰|嗎|吗|呀|啊|喔|哦|就好|就得|就可以|就行|得喇|先啱|先至啱|才對|才对)"
#: A name set as the new value of something that holds a name: the place, a verb of setting
#: (or of being, right after the place), perhaps who the person is to the user, then the name
#: ("會員名麻煩改做周鄭慧敏", "訂購人可以改成陳國雄嗎", "收件人轉做我媽咪梁美玲", "全名係羅敏儀");
#: a name restored or corrected ("麻煩改回李秀英就好", "係李志明先啱").
_ZH_RELATION_BEFORE_NAME = (r"(?:(?:(?:我|我的|我嘅)?(?:" + sw.alternation(sw.RELATION_ZH) + r")|他|她|佢)(?:的|嘅)?"
                            r"(?:名字|姓名|名)?[，,、:：\s]*)?")
#: The words that set a name, up to where the name starts (shared with :func:`sets_a_name`).
_ZH_NAME_SET_LEAD = (
    r"(?:(?:" + _ZH_NAME_PLACE + r")[^。！？!?；;]{0,12}?(?:" + _ZH_SET_TO + r")|"
    r"(?:全名|本名|真名|正名|新名字?|中文名|名字|姓名)(?:應該|应该|其實|其实)?(?:係|是|系|叫|为|為|[:：])|"
    r"(?:新名字?|全名|本名|真名)[哦喔啊呀]?[，,:：\s]+)\s*"
    + _ZH_RELATION_BEFORE_NAME
    + r"|(?:改回|改返|(?:幫|帮)我改(?:成|做|為|为)|麻煩改(?:成|做|為)|麻烦改(?:成|做|为)|(?:本名|全名|真名|正名)(?:係|是|叫|为|為|[:：])?)"
    # the name on an identity document ("現在身分證上是 劉詩涵 了", "护照上写的是王磊")
    r"|(?:身分證|身份證|身份证|護照|护照|證件|证件)上?(?:的名字|嘅名)?(?:而家|現在|现在)?(?:寫的|写的)?(?:是|係|寫|写)\s*"
    # how the user is to be addressed ("以后称呼还是用全名吧 刘美佳", "称呼写 Tiffany Tang")
    r"|(?:称呼|稱呼)我?(?:[^。！？!?；;]{0,10}?(?:写|寫|用|做|为|為|成|是|係|[，,:：\s]))?\s*"
    r"(?!全名|全称|全稱|真名|本名|英文名|中文名)")
_ZH_NAME_SET = re.compile(
    r"(?:" + _ZH_NAME_SET_LEAD + r")(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,3}?)" + _ZH_NAME_END
    + r"|(?:^|(?<=[，,。！!？?\s]))(?:其實|其实)?(?:係|是)(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2}?)"
    r"(?=先啱|先至啱|才對|才对|才是對的|才是对的)"
    # a name corrected after saying it was mistyped ("名字打错一个字，是陈健华")
    r"|(?:打错|打錯|写错|寫錯|拼错|拼錯|弄错|弄錯|错了|錯了)[^。！？!?]{0,10}?[，,\s]\s*"
    r"(?:应该|應該|正确的|正確的|正確係|其实|其實)?(?:係|是|系)(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2}?)"
    + _ZH_NAME_END)
#: A name right after the role it holds, with nothing between ("乘机人陈建华，身份证已经填好了",
#: "我是户主黄国平"): the role's holder.
_ZH_ROLE_APPOSED = re.compile(r"(?:" + sw.alternation(*sw.ROLE_PERSON_ZH.values()) + r")(?:[是係]|\s)?"
                              r"(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2}?)" + _ZH_NAME_END)
#: A level said where a name might be ("會員名係金卡"): no person.
_LEVEL_LIKE = re.compile(r"[卡级級钻鑽]|会员|會員|VIP", re.I)
#: An English name set in a Chinese sentence about a name ("結咗婚之後我用返老公個姓，麻煩改做
#: Mandy Cheung", "英文名改成 Grace Lin").
_ZH_SET_EN_NAME = re.compile(r"(?:" + _ZH_SET_TO + r")\s*((?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+){1,2}))"
                             r"(?![A-Za-z])")
_ZH_NAME_WORD = re.compile(r"名|姓|叫|稱呼|称呼")
#: A last character no name ends with: a colour, a place, a day, a street ("改成白色", "改回高新区",
#: "改成周五"): the value set is not a name.
_ZH_NOT_NAME_LAST = frozenset("色区區市县縣省路街道号號天日点點款店站园園楼樓门門州山江湖海港镇鎮村期末")
#: A name said of the person just named ("帳戶轉到我太太名下，她叫林美玲", "佢個名係陳大文").
_ZH_THIRD_CALLED = re.compile(
    r"(?:他|她|佢)(?:的名字|嘅名|個名|个名)?(?:叫做|叫|係|是)(?<!他是)(?<!她是)(?<!佢係)"
    r"(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})")
#: A full name said right after the surname with a title ("劉先生，劉建國", "黃小姐，黃詩涵"): the
#: speaker restating who they are.
_ZH_TITLE_THEN_NAME = re.compile(
    r"(" + _ZH_SURNAME + r")(?:先生|小姐|女士|太太)[，,、\s]+(\1[\u4e00-\u9fff]{1,2})"
    # the surname said, then the full name ("我姓王，王丽", "敝姓黃，黃大明")
    r"|姓(" + _ZH_SURNAME + r")[，,、\s]+(\3[\u4e00-\u9fff]{1,2})(?=[，,。！!？?\s；;]|$)")
#: A surname said alone, often with how it is written ("姓陈，耳东陈", "敝姓林", "免贵姓赵",
#: "本人姓許，許諾的許"): said by the speaker (after 我/本人/敝/免贵 or opening the clause) and
#: ending there, so "姓陈的快递员" and "他姓陈" name nobody.
_ZH_SURNAME_SAID = re.compile(r"(?:我|俺|本人|敝|免贵|免貴|鄙人|在下|(?:^|(?<=[，,。！!？?\s、])))姓("
                              + _ZH_SURNAME + r")(?=[，,。！!？?\s、；;]|$|(?:啊|哦|喔|啦|呀|哈))")
#: The answer to the agent's question about the name, set off by a pause before it (the turn's
#: start, a space or a stop, perhaps a filler) and followed by the remark that it answers the
#: question: "何佳琪，你刚问我叫啥", "嗯 就是那个 陳志明，你問我名字嘛".
_ZH_ANSWER = re.compile(r"(?:^|(?<=[\s，,。.!！？?~～]))(?:(?:[嗯哦噢喔呃]|好的?|对|對|是的|就是|那个|那個)"
                        r"[啊呀]?[，,\s]*)*(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})[，,。.!！\s]+"
                        r"(?:你|您|妳)[^。！？!?他她]{0,4}[问問](?![他她])[^。！？!?]{0,6}(?:叫|名|称呼|稱呼|姓)")
#: What the speaker wants to be called, a familiar form of the surname ("叫我小周就行", "叫我阿傑
#: 就可以"): 小/老 before a surname, 阿 before a name's character but not a kinship word.
_ZH_CALL_ME = re.compile(r"叫我(?:做|作)?((?:小|老)" + _ZH_SURNAME + r"|阿[^\W\d姨婆公爸妈媽嫂哥姐妹弟伯叔舅嬸婶]"
                         r")(?=就|吧|好了|即可|便可|可以|行|[，,。！!？?\s]|$)")
#: How the user wants to be addressed, set to a name ("以后称呼还是用全名吧 刘美佳", "称呼我刘美佳
#: 就行", "邮件里称呼用我英文名就行 Vivian Tang"): their name.
_ZH_ADDRESSED_AS = re.compile(r"(?:称呼|稱呼)我?[^。！？!?\n]{0,10}?(?:[\s，,：:我用写寫做为為成])\s*(?:("
                              + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2}?)" + _ZH_NAME_END
                              + r"|((?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+){1,2}))(?![A-Za-z]))")
#: A name said on its own beside how one of its characters is written ("李振骅 马字旁一个华",
#: "是草字头的薇 周薇薇"): kept when :func:`jiyi.text.spelled.spelled_beside` says so.
_ZH_SPELLED_NAME = re.compile(r"(?:^|(?<=[\s，,。！!？?、是叫]))(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})"
                              r"(?=[\s，,、。.！!？?]|$)")
#: A name right after its label, with no verb ("途观吧 名字刘海洋 驾照c1"): a chat-style answer.
_ZH_LABEL_NAME = re.compile(r"(?:^|(?<=[\s，,。！!？?、吧]))(?:名字|姓名)\s*(?![和跟与與及都也还還就要我你])("
                            + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2})(?=[\s，,。！!？?]|$)")
_ZH_THIS_SIDE = re.compile(r"(?:^|(?<=[，,。！!？?\s]))(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{1,2}?)(?:这边|這邊)")
_ZH_HONORIFIC = re.compile(_at(_SURNAME_FIRSTS) + "(" + _ZH_SURNAME + r"[\u4e00-\u9fff]{0,2}?(?:先生|女士|小姐|老师|老師|经理|經理|医生|醫生|律师|律師|教授))")
#: Letters of names written in the Latin script: a capital (any Latin capital, "Ł", "Ś", "Ó")
#: then small letters with or without marks ("Ciarán", "Nguyễn", "Thị", "Zoë").
_EN_UP = "A-Z\u00c0-\u00d6\u00d8-\u00de" + "".join(
    c for c in map(chr, range(0x100, 0x180)) if c.isupper())
_EN_LOW = "a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u017f\u1e00-\u1eff"
#: Any small letter of a Latin name: every pattern of a Latin-script name needs one (a text of
#: Chinese and capitals-and-digits codes names no one in the Latin script).
_EN_SMALL = re.compile("[" + _EN_LOW + "]")
#: A name's word may be "O'Connor", "D'Souza", "McDonald".
_EN_WORD = "(?:[" + _EN_UP + "]['’])?[" + _EN_UP + "][" + _EN_LOW + "]+(?:[" + _EN_UP + "][" \
    + _EN_LOW + "]+)?"
#: The small words inside a family name: "Maria de la Cruz", "Pieter van der Berg", "Ana dos
#: Santos", "Omar bin Said", "Ali al-Hassan".
_EN_PARTICLE = r"(?:de|del|della|di|da|das|dos|du|la|le|van|von|der|den|ter|ten|bin|binti|al|el)"
#: A given name and up to two more words (a middle name, a family name), each joined by a space
#: or a hyphen ("Chidi Adebayo-Okafor", "Nguyễn Thị Lan"), with the particles between.
_EN_NAME = r"(" + _EN_WORD + r"(?:(?:[ \-]" + _EN_PARTICLE + r"){0,2}[ \-]" + _EN_WORD \
    + r"){0,2})"
#: Ways of giving one's own name before it: "my name is", "name's", "call me", "I go by", "in
#: the name of", "put it under", "address me as", "my surname is", "changed my name to".
_EN_INTRO = re.compile(_at("MmCcTtINnRrAaUuPpKkBbHhSsLlFfGgiOoEeDdYyWw") + r"(?<![A-Za-z])(?:"
                       r"[Mm]y (?:(?:full|real|legal|first|given|last|family|maiden|married|new) )?"
                       r"name(?: is| 's|'s|’s)(?: now| actually| really)?|[Mm]y names are|[Mm]y surname is|"
                       r"[Nn]ame(?:'s|’s)|[Cc]all me|[Tt]his is|I am|I'm|I’m|im|[Nn]ame:|"
                       r"(?:[Ff]irst|[Ll]ast|[Ff]amily|[Gg]iven|[Ff]ull) name(?: is|:)?|[Ss]urname(?: is|:)?|"
                       r"[Rr]eal name is|[Rr]eal name's|[Nn]ame on (?:the|my) (?:account|order|parcel|package|"
                       r"booking|card|reservation|ID|id|IC|passport|licen[cs]e|documents?|"
                       r"certificate|ticket|invoice|receipt) (?:is|should be|will be|reads|says)|"
                       r"(?:[Aa]ccount|[Oo]rder|[Bb]ooking|[Ii]t|[Ee]verything) is under|"
                       r"(?:[Aa]ccount|[Oo]rder|[Bb]ooking|[Ii]t|[Ee]verything|[Tt]hat)['’]s under|"
                       r"[Uu]nder the name(?: of)?|[Ii]n the name of|[Aa]ddressed to|[Rr]ecipient is|"
                       r"[Ii] (?:go|went) by|[Ii]['’]m going by|[Ii]['’]m|[Ii] am|[Aa]ddress me as|[Rr]efer to me as|"
                       # "I'd like to be called Greta", "I'd like to be Greta now"
                       r"I(?:['’]d| would) (?:like|prefer|love|want) to be (?:called|known as|addressed as)|"
                       r"I(?:['’]d| would) (?:like|prefer|love|want) to be(?= [A-Z][a-z]+(?: [A-Z][a-z]+)? now\b)|"
                       r"(?:changed|change|changing|updated|update) my names? to|(?:now )?use the name|"
                       r"[Mm]yself|(?:[Aa]ccount|[Cc]ard)[ -]?[Hh]older is|[Hh]older is|"
                       # the name a record carries ("Booking name is X", "Sender name X", "Name
                       # for the ticket: X"), a document saying it ("my ID now says X"), a name
                       # put on the record ("Please put as X on my account")
                       r"(?:[Bb]ooking|[Aa]ccount|[Oo]rder|[Rr]eservation|[Tt]icket|[Ss]ender|"
                       r"[Cc]ontact|[Dd]elivery|[Pp]olicy|[Cc]ard) name(?: is|:|'s|’s)?|"
                       r"[Nn]ame for (?:the|my|this) (?:\w+ ){0,2}\w+(?: is|:)|"
                       r"(?:[Mm]y |[Tt]he )?(?:ID|passport|licen[cs]e|driving licen[cs]e|driver's licen[cs]e|"
                       r"documents?)(?: now)? (?:says|reads|shows)|"
                       r"[Pp]ut (?:me |it |my name |that |everything )?(?:down )?as|"
                       r"(?:[Pp]ut|[Kk]eep|[Bb]ook|[Rr]egister|[Ff]ile|[Ll]ist|[Ss]ave|[Rr]eserve)\s+"
                       r"(?:it|the \w+|everything|this|that|them)\s+under)\s+"
                       r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)?" + _EN_NAME + r"(?![" + _EN_LOW + _EN_UP + r"])")
#: "Hannah Becker speaking." / "Tom here," at the start of a sentence or after a greeting; in
#: a run-on chat turn before a chat word ("g'day, Tom Reed here lol ok …").
_EN_SPEAKING = re.compile(r"(?:^|(?<=[.!?,]\s)|(?<=[.!?,]))\s*" + _EN_NAME
                          + r"\s+(?:speaking|here|this side)(?=\s*(?:[,.!;:]|$|\s[-—])|\s+(?:lol|haha|lmao|"
                          r"ok|okay|thx|thanks|ty|pls|btw)\b)")
#: A name said with "here" or "speaking" right after a greeting, whatever follows in a run-on
#: chat turn ("g'day, Kayla Brooks here wifi died again", "hi there, Ana-Sofia Lima here just
#: checking").
_EN_GREETED = re.compile(r"(?i:\b(?:hi|hello|hey|hiya|howdy|g'?day|yo|morning|evening|afternoon|"
                         r"good (?:morning|afternoon|evening)))(?i: (?:there|all|team|guys|folks))?"
                         r"[,!.]*\s+" + _EN_NAME + r"\s+(?:here|speaking)\b")
#: "it's Megan Fletcher again", "Um, it's Isabel Ortega?": a first name and a surname after
#: "it's" that end the clause or come before again/here/speaking/calling.
_EN_ITS = re.compile(_at("Ii") + r"\b[Ii]t(?:'s|’s| is)\s+(" + _EN_WORD + r"[ \-]" + _EN_WORD
                     + r")(?=\s+(?:again|here|now|speaking|calling|btw|by the way|fyi|lol|haha)\b|"
                     r"\s*(?:[,.!?;]|$))")
#: A name given as the answer to the agent's question, one word or more: "It's Ciarán, you
#: asked", "Ngozi Eze, since you asked", "Bartek — you asked for my name". The answer opens the
#: turn (after a filler or "it's") and is followed by the remark that it answers a question.
_EN_ANSWER = re.compile(r"^(?i:\W*(?:ok(?:ay)?|so|sure|yes|yeah|yep|right|um+|uh+|well|oh|hi|hello|hey)\b"
                        r"[\s,.!]*)*(?i:(?:it|that)(?:'s|’s| is)\s+|(?:I'm|I am)\s+)?" + _EN_NAME
                        + r"\s*(?:[,.;:!]|[-—–]+)\s*(?i:(?:since|as|like|because|cos|cuz)\s+)?"
                        r"(?i:(?:you|u)\s+(?:just\s+|had\s+|did\s+)?(?:asked|wanted|needed|requested))")
#: "Wojciech Nowak, that's me", "the recipient is Ana Lima — that's me": a name the speaker
#: says is theirs right after it.
_EN_IS_ME = re.compile(_EN_NAME + r"\s*(?:,|[-—–]+)?\s*(?:that's|that is|that’s|it's|it is|"
                       r"which is)\s+me\b")
#: A spelling given for a name ("it's spelled Aoife, not Eva", "my name is spelt Sean, no h"):
#: the spelling is the name as it should be.
_EN_SPELLED = re.compile(_at("IiNnTt") + r"\b(?:[Ii]t(?:'s|’s| is)|[Nn]ame(?:'s|’s| is)|[Tt]hat(?:'s|’s| is))"
                         r"\s+(?:actually\s+|really\s+)?(?:spelled|spelt|written)\s+(?:as\s+)?"
                         + _EN_NAME + r"(?=\s*(?:[,.;!]|$|\s+(?:not|with|no)\b))")
#: "You can put Ryan O'Connor as the recipient", "Emily Carter on the label please".
_EN_AS_NAME = re.compile(_at("A-Z") + _EN_NAME + r"\s+(?:as (?:the |my )?(?:recipient|name|"
                         r"account holder|contact name)|on the (?:account|order|parcel|package|"
                         r"label|receipt|invoice))\b")
#: A name typed in lower case after a plain introduction ("my name is emily carter", "name's
#: noah patel btw"): one or two words that end the clause, none a common word.
_EN_INTRO_LOWER = re.compile(
    _at("mMnNtT") + r"\b(?:[Mm]y name is|[Mm]y name's|[Nn]ame's|[Tt]he name is|[Nn]ame on (?:the|my) "
    r"account is)\s+([a-z]{2,}(?: [a-z]{2,})?)(?=\s*(?:[,.!?;]|$)|\s+(?:and|btw|by the way|thanks|"
    r"thx|pls|please)\b)")
_LOWER_NOT_NAME = frozenset({
    "not", "wrong", "spelled", "spelt", "misspelled", "correct", "incorrect", "missing", "on",
    "in", "the", "a", "an", "fine", "ok", "okay", "still", "also", "already", "here", "there",
    "different", "same", "changed", "new", "old", "right", "listed", "shown", "blank", "empty",
    "gone", "it", "this", "that", "what", "which", "unknown", "private", "hidden",
    "long", "short", "weird", "common", "unusual", "below", "above", "attached", "too", "so",
    "very", "really", "just", "now", "updated", "mine", "yours", "is", "was", "and", "or"})
#: A name given for someone the user names by what they are to them ("addressed to my flatmate,
#: Liam Carter", "under my mom's name, Sandra Cho", "my husband's name is David Lee"): theirs,
#: not the speaker's (the slot rules decide whether it is a role's name).
_EN_RELATION_NAME = re.compile(
    _at("MmOo") + r"\b(?i:my|our)\s+(?i:" + sw.alternation(sw.RELATION_EN) + r")(?:'s|’s)?"
    r"(?:\s+(?i:full\s+)?name)?(?:\s+(?:is|was))?\s*[,:—–-]?\s*"
    r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)?" + _EN_NAME
    + r"(?![" + _EN_LOW + _EN_UP + r"])")
#: A name said after the user's own name changed ("my last name's changed, it's Jennifer
#: Morales now", "correct the name on the booking, it is Suresh Kumar Reddy as per my ID",
#: "paki-update po ng name ko: Ma. Theresa Santos-Reyes na po"): "now" after it says the
#: change, not a state.
_EN_NAME_CHANGED = re.compile(
    r"(?i:" + sw.en_words(sw.NAME_CHANGED_EN) + r")[^.!?\n]{0,40}?"
    r"(?:\b(?i:it(?:'s|’s| is| should be| will be| must be)|is now|should be|now|to|use|"
    r"call me|go by|put|write|make it|as)\b|[:：,，])\s*"
    r"((?:[" + _EN_UP + r"][a-z]?\.\s)?" + _EN_NAME + r")(?![" + _EN_LOW + _EN_UP + r"])")
#: A thing a name is set on, and the name itself ("the account", "the receiver", "it").
_EN_NAME_HOLDER = (r"(?i:account|name|holder|receiver|recipient|addressee|booking|reservation|invoice|"
                   r"label|profile)")
#: Last words of a capitalised pair that is a product, a service or a place, not a person
#: ("Apple Pay", "Express Shipping", "Central Station").
_NOT_A_NAME_LAST_EN = frozenset({
    "Pay", "Plus", "Premium", "Pro", "Card", "Account", "Wallet", "Drive", "Shipping", "Delivery",
    "Size", "Station", "Street", "Road", "Avenue", "Boulevard", "Lane", "Office", "Bank", "Mall",
    "Store", "Shop", "Centre", "Center", "Plan", "Tier", "Member", "Club", "Express", "Mail",
    "Team", "Group", "Company", "Ltd", "Inc", "Services", "Service", "Hotel", "Airport", "Morning",
    "Evening", "Afternoon", "Night", "Weekend"})
#: A name set as the new value of something that holds one: a verb of setting, the thing, a
#: preposition, perhaps who the person is to the user, then the name ("set the account holder
#: as Zainab Siddiqui", "switch the account to James Harper", "change the receiver to my hubby
#: Lim Jun Hao"); the name said to be the one to write ("the name should be written as
#: Chukwuemeka Obiora"); someone named by what they are to the user, then their name after a
#: pause ("under the missus from now on, Sharon Sullivan").
_EN_NAME_SET_LEAD = (
    r"\b(?i:set|put|change|changed|changing|switch|switched|update|updated|transfer|transferred|move|"
    r"moved|make|register|registered|list|listed|write|correct|corrected|have)\b[^.!?;\n]{0,30}?\b"
    + _EN_NAME_HOLDER + r"\b[^.!?;\n]{0,20}?\b(?i:to|as|under|into)\s+"
    r"(?:(?i:my|our|the|ma)\s+(?i:" + sw.alternation(sw.RELATION_EN) + r")(?:'s|’s)?\s*[,:—–-]?\s*)?"
    r"(?:(?:Dr|Mr|Mrs|Ms|Miss)\.?\s+)?"
    r"|\b(?i:name|holder|recipient|receiver)\b[^.!?;\n]{0,20}?\b(?i:should|must|needs? to|has to|"
    r"will|shall)\s+(?i:be|read|say|show)\s+(?i:written\s+|spelled\s+|spelt\s+|changed\s+to\s+|"
    r"updated\s+to\s+|put\s+)?(?i:as\s+)?"
    # asked for ("could the account say Katherine Alvarez from now on?")
    r"|\b(?i:can|could|would|will)\s+(?i:the|my)\s+(?i:account|booking|profile|order|name|card|"
    r"reservation)\s+(?i:say|read|show|be\s+under|be\s+in\s+the\s+name\s+of)\s+")
_EN_NAME_SET = re.compile(
    r"(?:" + _EN_NAME_SET_LEAD + r")" + _EN_NAME + r"(?![" + _EN_LOW + _EN_UP + r"])"
    r"|\b(?i:my|our|the|ma)\s+(?i:" + sw.alternation(sw.RELATION_EN) + r")\b[^.!?;,\n]{0,25},\s*"
    r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)?" + _EN_NAME + r"(?=\s*(?:[,.;!?]|$))")
#: The text before a name ends with words that set it (:func:`sets_a_name`).
_NAME_SET_BEFORE = re.compile(r"(?:" + _ZH_NAME_SET_LEAD + "|" + _EN_NAME_SET_LEAD + r")\s*$")


def sets_a_name(lead: str) -> bool:
    """The text right before a name sets it as the new name of something that holds one ("會員名
    麻煩改做", "訂購人可以改成", "please set the account holder as", "the name should be written
    as"): the name said next is stated, not mentioned."""
    return _NAME_SET_BEFORE.search(lead[-60:]) is not None


#: A name said as the one on the user's document ("it's actually Michael Thompson on my
#: licence", "Kevin Li, as on my passport").
_EN_ON_DOCUMENT = re.compile(
    _EN_NAME + r"(?:,?\s+(?:as|like|same as|exactly as))?\s+(?:it is |it's |as it is )?(?:on|in)\s+"
    r"(?:my|the)\s+(?i:id|ic|passport|licen[cs]e|documents?|certificate|aadhaar|nric|card)\b")
#: The name a document carries, said after it ("exactly as on PAN card which is Vikram Singh
#: Sethi", "on my passport it's Ana María Ruiz", "my licence says Jo Ann Park").
_EN_DOCUMENT_SAYS = re.compile(
    r"\b(?:on|in) (?:my |the )?(?i:pan card|id card|id|ic|passport|licen[cs]e|driving licen[cs]e|"
    r"aadhaar(?: card)?|nric|birth certificate|documents?)\s*,?\s*(?:(?i:which|that) (?i:is|says|reads)|"
    r"(?i:it is|it's|it says|is|says|reads)|[:：])\s+" + _EN_NAME
    + r"|\b(?:my )?(?i:pan card|id card|id|passport|licen[cs]e|driving licen[cs]e|aadhaar(?: card)?|"
    r"nric|birth certificate) (?i:says|reads|shows)\s+" + _EN_NAME)
#: A name after its label at the start of a sentence ("Name Vicky Sethi, mobile 98111 30276",
#: "Full name: Ana Ruiz").
_EN_LABEL_NAME = re.compile(r"(?:^|(?<=[.,;!?]\s)|(?<=[.,;!?]))\s*(?:(?i:full|customer|booking|my) )?"
                            r"(?i:name)\s*[:：\-]?\s+" + _EN_NAME)
#: Last words that make two capitalised words a day, a place or a level, not a person ("Black
#: Friday", "Two Star", "Gold Member").
_NOT_SURNAME = frozenset({"Day", "Eve", "Friday", "Monday", "Sale", "Week", "Weekend", "Time",
                          "Season", "Street", "Road", "Avenue", "Member", "Members", "Star",
                          "Stars", "Card", "Club", "Plus", "Prime", "Pro", "Max", "Tier", "Level",
                          "Status", "Class", "Elite", "Premium", "Crown"})
#: Nouns of a level, a role or a title: "我是金卡会员", "我是高级会员" state no name.
_ROLE_NOUN = re.compile(
    r"会员|會員|用户|用戶|客户|客戶|顾客|顧客|买家|買家|卖家|賣家|卡|级|級|学生|學生|老师|老師|经理|經理|"
    r"店长|店長|主管|医生|醫生|护士|護士|工程师|工程師|律师|律師|司机|司機|老板|老闆|员工|員工|会计|會計|"
    r"VIP|vip|Plus|PLUS")
#: Common words that start with a surname's character ("本人方便收件…" names nobody).
_SURNAME_LIKE_WORD = re.compile(
    r"方便|方面|方法|高兴|高興|马上|馬上|常常|安全|文件|白天|金额|金額|余额|餘額|时间|時間|周末|週末|黄色|黃色|"
    r"和平|游戏|遊戲|包裹|邮件|郵件|简单|簡單|于是|於是|曾经|曾經|尚未|任何|全部|全名|万一|萬一|向来|向來|"
    r"管理|程序|谢谢|謝謝|毛病|易用|容易|师傅|師傅|关于|關於|成功|应该|應該|江湖|朱古力|汤圆|湯圓")
_EN_TITLE = re.compile(_at("MDP") + r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)")

_CITY_ZH = re.compile("|".join(sorted(CITIES_ZH, key=len, reverse=True)))
_CITY_EN = re.compile(_at("".join(sorted({c[0] for c in CITIES_EN}))) + r"(?<![A-Za-z])(?:" + "|".join(re.escape(c) for c in sorted(CITIES_EN, key=len, reverse=True)) + r")(?![A-Za-z])")
_CITY_MOVE_EN = re.compile(_at("mlrb") + r"\b(?:moved to|move to|moving to|live in|living in|lives in|relocated to|based in)\s+([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)")
_PLACEHOLDER = re.compile(r"\[[A-Z_]+(?:_\d+)?\]")
_PRODUCT = re.compile(
    r"(?:" + "|".join(re.escape(b) for b in sorted(PRODUCT_BRANDS, key=len, reverse=True)) + r")"
    r"(?:\s?(?:Mate|Pura|nova|Note|Pad|Galaxy|Redmi|K))?"
    r"\s?(?:[A-Za-z]{0,3}\d+[A-Za-z]{0,3}|Pro|Max|Ultra|Plus|mini|Air|SE)"
    r"(?:\s?(?:Pro|Max|Ultra|Plus|mini|Air|SE|Ti|\d+[A-Za-z]{0,2}))*(?![A-Za-z0-9])")

#: Kinds in order of precedence when two spans overlap (``number``: a bare digit run, read
#: only by a :class:`Reading` with ``bare_ids``).
KIND_PRIORITY: tuple[str, ...] = (
    "url", "email", "date", "phone", "tracking_no", "order_id", "ticket_id", "error_code", "amount",
    "product", "address", "person", "city", "time", "code", "number",
)


@dataclass(frozen=True)
class Reading:
    """What a caller keeps of the one reading of a text (the same patterns, the same overlaps
    settled the same way; only what is kept differs)."""

    #: The kinds kept; ``None``: every kind.
    kinds: frozenset[str] | None = None
    #: ``"all"``: every date expression; ``"exact_days"``: only a day named with its year
    #: ("2026年5月3日", "2026-05-03", "May 3, 2026"), not "明天", "5月3日" or "in May".
    dates: Literal["all", "exact_days"] = "all"
    #: Also a code with no label (4+ letters and digits mixed, ``code``) and a digit run with
    #: no label (5+ digits, or 7+ with spaces or dashes, ``number``).
    bare_ids: bool = False

    def keeps(self, entity: Entity, time: TimeMatch | None) -> bool:
        if self.kinds is not None and entity.kind not in self.kinds:
            return False
        if entity.kind != "date" or self.dates == "all":
            return True
        return time is not None and time.grain == "day" and not time.relative \
            and not time.year_implied


#: The write path: everything.
WRITE = Reading()
#: Stage 1 of recall: what it looks up exactly among the stored entities' values.
QUERY_KINDS = frozenset({"url", "email", "date", "phone", "tracking_no", "order_id", "ticket_id",
                         "error_code", "code", "number"})
QUERY = Reading(kinds=QUERY_KINDS, dates="exact_days", bare_ids=True)
#: The summary channel: who, which id, how much and when, bare ids too; not places, products
#: or links (one short line keeps the name and the order before the street).
SUMMARY_KINDS = frozenset({"phone", "tracking_no", "order_id", "ticket_id", "error_code", "code",
                           "number", "amount", "date", "time", "person"})
SUMMARY = Reading(kinds=SUMMARY_KINDS, bare_ids=True)

#: Full-width digits, Latin letters and ``＋ － ＠`` read as ASCII (one character for one, so
#: spans do not move).
_HALF_WIDTH = {cp: cp - 0xFEE0 for cp in (*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B),
                                          *range(0xFF41, 0xFF5B), 0xFF0B, 0xFF0D, 0xFF20)}
_FULL_WIDTH = re.compile("[" + "".join(chr(cp) for cp in sorted(_HALF_WIDTH)) + "]")
_BARE_CODE = re.compile(_at("A-Za-z0-9") + r"(?<![A-Za-z0-9\-_])(?=[A-Za-z0-9\-_]*\d)"
                        r"(?=[A-Za-z0-9\-_]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9\-_]{3,39}(?![A-Za-z0-9\-_])")
_BARE_NUMBER = re.compile(_at("+0-9") + r"(?<![0-9A-Za-z+])\+?\d(?:[ \-]?\d)+(?![0-9A-Za-z])")
#: A bare digit run is an id from this many digits (fewer is a count, a price or a year); with
#: spaces or dashes between the digits from ``BARE_SPACED_DIGITS`` (a phone written in groups).
BARE_DIGITS, BARE_SPACED_DIGITS = 5, 7


def _ent(kind: str, m: re.Match[str], value: str, group: int = 0) -> Entity:
    s, e = m.span(group)
    return Entity(kind=kind, text=m.group(group), value=value, start=s, end=e)


def _amount_value(num: str, frac: str | None, mult: str | None, currency: str) -> str:
    whole = num.replace(",", "")
    factor = {"万": 10000, "萬": 10000, "千": 1000, "k": 1000, "K": 1000, "m": 10**6, "M": 10**6}.get(
        mult or "", 1)
    if factor == 1:
        value = whole + (f".{frac}" if frac else "")
    else:
        amount = float(whole + (f".{frac}" if frac else "")) * factor
        value = f"{amount:.2f}".rstrip("0").rstrip(".")
    return f"{value} {currency}"


#: A run of digits a phone may be, grouped or not ("9123 4567", "012-555 7788"), with no cue.
_PHONE_LIKE = re.compile(_at("+0-9") + r"(?<![0-9A-Za-z])\+?\d(?:[ \-.]?\d){6,14}(?![0-9A-Za-z])")


def phone_like_runs(text: str) -> list[str]:
    """Every run of 7 to 15 digits (spaces, dashes or dots between them allowed) in ``text``:
    the numbers that may be phones, read loosely where a number said in passing ("can call me
    9123 4567 ah") needs no cue to be compared with a known phone."""
    return [m.group(0) for m in _PHONE_LIKE.finditer(text)]


def _pointed_back(text: str, start: int) -> bool:
    """Words right before ``start`` point back to a phone word said shortly before them, with
    no other number between ("换号了，旧的停了，新的 6234 0143")."""
    lead = text[max(0, start - POINTER_BACK_CHARS):start]
    m = _POINTER_BACK.search(lead)
    if m is None:
        return False
    back = lead[:m.start()]
    cues = list(_PHONE_CUE.finditer(back))
    return bool(cues) and not _DIGIT_RUN.search(back, cues[-1].end()) \
        and not _NOT_PHONE_CUE.search(back, cues[-1].start())


#: How far after a number the sentence naming it a phone may end ("use 70221 86634 for
#: everything, that's my new personal mobile").
PHONE_NAMED_LATER_CHARS = 60
_NAMED_LATER = re.compile(r"\b(?:that|this|it|which)(?:'s|’s| is)\s+(?:my|the)\s+(?:\w+\s+){0,3}?"
                          r"(?:mobile|cell|cellphone|phone|number|line|whatsapp)\b|"
                          r"(?:这|這|呢)(?:个|個|支)?是我的?(?:新)?(?:手机|手機|电话|電話|号码|號碼)", re.I)


def _named_later(text: str, end: int) -> bool:
    """The words after a number, before any other number, say it is the speaker's phone
    ("…for everything, that's my new personal mobile", "…，这个是我的新手机")."""
    after = text[end:end + PHONE_NAMED_LATER_CHARS]
    digits = _DIGIT_RUN.search(after)
    return _NAMED_LATER.search(after[:digits.start()] if digits else after) is not None


def _phones(text: str) -> list[Entity]:
    out = [_ent("phone", m, m.group(1) + m.group(2) + m.group(3)) for m in _MOBILE.finditer(text)]
    out += [_ent("phone", m, f"{m.group(1)}****{m.group(3)}") for m in _MASKED.finditer(text)]
    out += [_ent("phone", m, re.sub(r"[ ()]", "", m.group(0))) for m in _LANDLINE.finditer(text)]
    for rx in (_INTL, _US):
        for m in rx.finditer(text):
            digits = re.sub(r"\D", "", m.group(0))
            if PHONE_DIGITS_MIN <= len(digits) <= PHONE_DIGITS_MAX:
                out.append(_ent("phone", m, ("+" if m.group(0).startswith("+") else "") + digits))
    for rx in (_TW_MOBILE, _DASHED_LANDLINE):
        out += [_ent("phone", m, re.sub(r"[ ()\-]", "", m.group(0))) for m in rx.finditer(text)]
    out += [_ent("phone", m, re.sub(r"\D", "", m.group(0))) for m in _GROUPED_MOBILE.finditer(text)]
    out += [_ent("phone", m, re.sub(r"\D", "", m.group(0))) for m in _UK_MOBILE.finditer(text)]
    for rx in (_LOCAL8, _CUED_DIGITS):
        for m in rx.finditer(text):
            window = text[max(0, m.start() - PHONE_CUE_WINDOW_CHARS):m.start()]
            after = text[m.end():m.end() + PHONE_CUE_AFTER_CHARS]
            if (_PHONE_CUE.search(window) or _PHONE_CUE_AFTER.match(after)
                    or _pointed_back(text, m.start()) or _named_later(text, m.end())) \
                    and not _NOT_PHONE_CUE.search(window):
                out.append(_ent("phone", m, re.sub(r"\D", "", m.group(0))))
    # a number with its order word after it is the order's ("查下0408330142呢張單")
    return [e for e in out if not _ORDER_WORD_AFTER.match(text, e.end)]


_TOKEN = re.compile(_at("A-Za-z0-9") + r"(?<![A-Za-z0-9\-_])[A-Za-z0-9][A-Za-z0-9\-_]{4,39}(?![A-Za-z0-9\-_])")
_HAS_DIGIT = re.compile(r"\d")
_HAS_ALPHA = re.compile(r"[A-Za-z]")
#: A short code (capitals then digits, under five characters: "KX10", "AB5") said with its own
#: expiry right after it ("KX10 到3月5号", "AB12 (exp 3/9)", "HK30 valid till 4/1",
#: "TW50 有效期至月底"): the expiry says a code is meant. Longer codes are read bare anyway.
_SHORT_CODE_DATED = re.compile(
    _at("A-Z") + r"(?<![A-Za-z0-9\-_])([A-Z]{1,4}[0-9]{1,3})(?![A-Za-z0-9\-_])"
    r"(?=\s*[(（]?\s*(?:到|至|截止|有效期?(?:至|到|截止)?|(?:只|仅|僅|还|還|仲)?(?:能|可以|可)?用到|"
    r"exp(?:ires?|iry|iring)?\.?|valid\s+(?:till|until|thru|through|to)|"
    r"good\s+(?:till|til|until|thru|through))"
    r"\s*(?:日期?|date)?\s*(?:是|为|為|:|：|on)?\s*[0-9０-９一二三四五六七八九十下本这這今明月])")
SHORT_CODE_CHARS = 5
#: Words that say a short code nearby is a coupon's, a voucher's or a gift card's ("我有 KK50 同
#: KK80 兩張券", "那張 FP30 上禮拜就到期了", "promo PT15 can't be combined"): within
#: :data:`CODE_CONTEXT_CHARS` of one, a short capitals-and-digits word is a code.
_CODE_CONTEXT = re.compile(
    r"券|优惠|優惠|折扣|兑换|兌換|礼品卡|禮品卡|到期|过期|過期|失效|作废|作廢|有效|"
    r"\b(?:coupons?|vouchers?|promo|discount|gift\s*cards?|codes?|expir\w*|exp|valid)\b", re.I)
CODE_CONTEXT_CHARS = 24
_SHORT_CODE = re.compile(_at("A-Z") + r"(?<![A-Za-z0-9\-_])[A-Z]{1,4}[0-9]{1,3}(?![A-Za-z0-9\-_])")


#: A month number written right after a code, before 月 ("MEMBER30UP3月29日"): the date's.
_MONTH_AFTER_CODE = re.compile(r"(?<=[A-Za-z])(?:1[0-2]|0?[1-9])$")


def _code_end(text: str, start: int, end: int) -> int:
    """The end of a code found at ``text[start:end]``, without the month number of a date
    written right after it ("VIP15PL4月11日到期" -> VIP15PL), when the code keeps a digit."""
    if text[end:end + 1] != "月":
        return end
    m = _MONTH_AFTER_CODE.search(text, start, end)
    if m is None or not _HAS_DIGIT.search(text, start, m.start()) or m.start() - start < 4:
        return end
    return m.start()


#: An order number said before its word ("唔該幫我查下0408330142呢張單", "W12345678 這筆訂單").
_ORDER_BEFORE_WORD = re.compile(
    _at("0-9A-Z") + r"(?<![0-9A-Za-z\-_])(\d{6,20}|[A-Z]{1,4}-?\d{5,20})(?![0-9A-Za-z\-_])"
    r"(?=" + _ORDER_WORD_AFTER.pattern + ")")


def _ids(text: str) -> list[Entity]:
    out: list[Entity] = []
    # A label is looked for only in the few characters before a code that holds a digit: the
    # label alternation is long, and scanning the whole text with it is the slow part.
    for body in _ID_BODY.finditer(text):
        end = body.end()
        if end - body.start() < _MIN_CODE_CHARS:
            continue  # the code of a label is a part of one body, so never longer than it
        m = _ID_CONTEXT.search(text, max(0, body.start() - ID_LABEL_WINDOW_CHARS), end)
        while m is not None and m.end() != end:
            m = _ID_CONTEXT.search(text, m.start() + 1, end)
        if m is None:
            continue
        code = m.group(m.lastindex or 0)
        if not any(ch.isdigit() for ch in code):
            continue
        kind = next(ID_KIND[cat] for cat in ID_LABELS if m.group(cat))
        s, e = m.span(m.lastindex or 0)
        e = _code_end(text, s, e)
        code = text[s:e]
        out.append(Entity(kind=kind, text=code, value=code.upper(), start=s, end=e))
    if "單" in text or "单" in text:
        out += [_ent("order_id", m, m.group(1).upper(), 1)
                for m in _ORDER_BEFORE_WORD.finditer(text)]
    out += [_ent("tracking_no", m, m.group(0).upper()) for m in _TRACKING_PREFIX.finditer(text)]
    for m in _ERROR_CONTEXT.finditer(text):
        out.append(_ent("error_code", m, m.group(1).upper(), 1))
    for m in _ERROR_BARE.finditer(text):
        out.append(_ent("error_code", m, re.sub(r"(?i)http\s?", "", m.group(0)).upper()))
    for m in _TOKEN.finditer(text):
        tok = m.group(0).rstrip("-_")
        tok = tok[:_code_end(text, m.start(), m.start() + len(tok)) - m.start()]
        if len(tok) < 5 or not _HAS_DIGIT.search(tok) or not _HAS_ALPHA.search(tok) \
                or _ORDINAL.fullmatch(tok):
            continue
        out.append(Entity(kind="code", text=tok, value=tok.upper(), start=m.start(),
                          end=m.start() + len(tok)))
    for m in _SHORT_CODE_DATED.finditer(text):
        if _MIN_CODE_CHARS <= len(m.group(1)) < SHORT_CODE_CHARS:
            out.append(_ent("code", m, m.group(1), 1))
    dated = {e.start for e in out}
    for m in _SHORT_CODE.finditer(text):
        if m.start() not in dated and _MIN_CODE_CHARS <= len(m.group(0)) < SHORT_CODE_CHARS \
                and _CODE_CONTEXT.search(text, max(0, m.start() - CODE_CONTEXT_CHARS),
                                         m.end() + CODE_CONTEXT_CHARS):
            out.append(_ent("code", m, m.group(0)))
    return out


def _amounts(text: str) -> list[Entity]:
    out: list[Entity] = []
    for m in _AMOUNT_PRE.finditer(text):
        cur = _CURRENCY_PREFIX[m.group(1)]
        out.append(_ent("amount", m, _amount_value(m.group(2), m.group(3), m.group(4), cur)))
    for m in _AMOUNT_SUF.finditer(text):
        cur = _CURRENCY_SUFFIX.get(m.group(4), _CURRENCY_SUFFIX.get(m.group(4).lower(), "CNY"))
        out.append(_ent("amount", m, _amount_value(m.group(1), m.group(2), m.group(3), cur)))
    return out


def _trim_zh_name(name: str) -> str:
    multi = next((s for s in SURNAMES_MULTI if name.startswith(s)), None)
    head = len(multi) if multi else 1
    given = ""
    rest = name[head:]
    for i, ch in enumerate(rest):
        # 家 ends a name only when nothing follows it ("张伟家住…"), not in "張家豪"; no name
        # holds 我 ("收件人改成我先生…" names no 成我先)
        if (ch in NAME_STOP and not (ch == "家" and i + 1 < len(rest))) or ch == "我":
            break
        given += ch
    return name[:head] + given


#: Capitalised words that end no name: a look-alike said after "I'm" / "this is" ("I'm
#: Canadian", "this is Ridiculous") or a word after the name ("my name is Tom Hart Thanks").
_NOT_A_NAME_WORD = frozenset({
    "American", "Canadian", "British", "English", "Scottish", "Welsh", "Irish", "Australian",
    "Chinese", "Japanese", "Korean", "Vietnamese", "Thai", "Filipino", "Indian", "Pakistani",
    "Mexican", "Brazilian", "French", "German", "Italian", "Spanish", "Portuguese", "Dutch",
    "Swedish", "Norwegian", "Danish", "Finnish", "Polish", "Russian", "Greek", "Turkish",
    "Nigerian", "Kenyan", "Egyptian", "African", "Asian", "European", "Latino", "Latina",
    "Taiwanese", "Singaporean", "Malaysian", "Indonesian", "Local", "New", "Calling", "Writing",
    "Messaging", "Texting", "Emailing", "Asking", "Following", "Checking", "Wondering",
    "Please", "Pls", "Thx", "Btw", "Again", "Speaking", "Today", "Tomorrow", "Yesterday",
    # the words of a record a name is put on ("Name on the account is …": no one named Name)
    "Name", "Names", "Account", "Order", "Parcel", "Package", "Label", "Receipt", "Invoice",
    "Recipient", "Billing", "Shipping", "Contact", "Booking", "Reservation"})
#: A level's name ("I'm SkyPlus Silver", "I'm Marriott Gold"): a run ending in one is a
#: programme and its tier, no person.
_LEVEL_WORD_EN = frozenset(w.capitalize() for w in sw.LEVEL_NAMES_EN) | {"VIP", "SVIP"}
#: Endings of English adjectives ("Ridiculous", "Thankful", "Unbelievable", "Clueless"): a single
#: capitalised word with one is a remark, not a name.
_ADJ_ENDING = re.compile(r"(?:ous|ful|able|ible|less|ing)$")


def _en_person(name: str) -> str:
    """The name in a capitalised run after an introduction, without the words after it that end
    no name; "" when its first word is a common word, a level, a city or a nationality."""
    words = name.split(" ")
    if len(words) > 1 and words[-1] in _LEVEL_WORD_EN:
        return ""  # "I'm SkyPlus Silver": a tier
    while len(words) > 1 and (words[-1] in NOT_NAMES_EN or words[-1] in _NOT_A_NAME_WORD):
        words.pop()
    first = words[0].split("-")[0]
    if first in NOT_NAMES_EN or first in CITIES_EN or first in _NOT_A_NAME_WORD \
            or words[-1].split("-")[-1] in _NOT_SURNAME or " ".join(words) in CITIES_EN \
            or (len(words) == 1 and "-" not in first and len(first) > 5
                and _ADJ_ENDING.search(first)):
        return ""
    return " ".join(words)


def _people(text: str, cjk: bool = True, latin: bool = True) -> list[Entity]:
    """People; ``cjk`` / ``latin``: whether the text has any Chinese / Latin letters at all."""
    out: list[Entity] = []
    for m in _ZH_INTRO.finditer(text) if cjk else ():
        name = _trim_zh_name(m.group(1))
        s = m.start(1)
        if len(name) >= 2 and not _ROLE_NOUN.search(text, s + 1, s + len(name) + 2) \
                and not _SURNAME_LIKE_WORD.match(name) and "我" not in name:
            out.append(Entity(kind="person", text=name, value=to_simplified(name), start=s,
                              end=s + len(name)))
    for rx in (_ZH_NAME_FOR, _ZH_THIS_SIDE) if cjk else ():
        for m in rx.finditer(text):
            name = _trim_zh_name(m.group(1))
            if len(name) >= 2 and not _ROLE_NOUN.search(name) \
                    and not _LEVEL_LIKE.search(text, m.start(1), m.start(1) + len(name) + 2):
                out.append(Entity(kind="person", text=name, value=to_simplified(name),
                                  start=m.start(1), end=m.start(1) + len(name)))
    for rx in (_ZH_ANSWER, _ZH_CALL_ME) if cjk else ():
        for m in rx.finditer(text):
            name = _trim_zh_name(m.group(1)) if rx is _ZH_ANSWER else m.group(1)
            if len(name) >= 2 and not _ROLE_NOUN.search(name) \
                    and not _SURNAME_LIKE_WORD.match(name):
                out.append(Entity(kind="person", text=name, value=to_simplified(name),
                                  start=m.start(1), end=m.start(1) + len(name)))
    for m in _ZH_ROLE_NAME.finditer(text) if cjk else ():
        g = next(i for i in (1, 2, 3) if m.group(i))
        name = _trim_zh_name(m.group(g))
        if len(name) >= 2 and not _ROLE_NOUN.search(name) and not _SURNAME_LIKE_WORD.match(name):
            out.append(Entity(kind="person", text=name, value=to_simplified(name),
                              start=m.start(g), end=m.start(g) + len(name)))
    for m in _ZH_TITLE_THEN_NAME.finditer(text) if cjk else ():
        g = 2 if m.group(2) else 4
        name = _trim_zh_name(m.group(g))
        if len(name) >= 2:
            out.append(Entity(kind="person", text=name, value=to_simplified(name),
                              start=m.start(g), end=m.start(g) + len(name)))
    for m in _ZH_NAME_SET.finditer(text) if cjk else ():
        g = next(i for i in (1, 2, 3) if m.group(i))
        name = _trim_zh_name(m.group(g))
        if len(name) >= 2 and not _ROLE_NOUN.search(name) and not _SURNAME_LIKE_WORD.match(name) \
                and name[-1] not in _ZH_NOT_NAME_LAST and name not in CITIES_ZH:
            out.append(Entity(kind="person", text=name, value=to_simplified(name),
                              start=m.start(g), end=m.start(g) + len(name)))
    for m in _ZH_ROLE_APPOSED.finditer(text) if cjk else ():
        name = _trim_zh_name(m.group(1))
        if len(name) >= 2 and not _ROLE_NOUN.search(name) and not _SURNAME_LIKE_WORD.match(name) \
                and name[-1] not in _ZH_NOT_NAME_LAST:
            out.append(Entity(kind="person", text=name, value=to_simplified(name),
                              start=m.start(1), end=m.start(1) + len(name)))
    for m in _ZH_SET_EN_NAME.finditer(text) if cjk and _ZH_NAME_WORD.search(text) else ():
        name = m.group(1)
        if name.split()[-1] not in _NOT_SURNAME:
            out.append(Entity(kind="person", text=name, value=name, start=m.start(1),
                              end=m.end(1)))
    for m in _ZH_THIRD_CALLED.finditer(text) if cjk else ():
        name = _trim_zh_name(m.group(1))
        if len(name) >= 2 and not _ROLE_NOUN.search(name) and not _SURNAME_LIKE_WORD.match(name):
            out.append(Entity(kind="person", text=name, value=to_simplified(name),
                              start=m.start(1), end=m.start(1) + len(name)))
    for m in _ZH_SURNAME_SAID.finditer(text) if cjk else ():
        # the surname alone only when no fuller name with it is given ("我姓欧阳，叫欧阳明")
        if not any(e.text.startswith(m.group(1)) and len(e.text) > len(m.group(1))
                   for e in out):
            out.append(_ent("person", m, to_simplified(m.group(1)), 1))
    for m in _ZH_ADDRESSED_AS.finditer(text) if cjk else ():
        g = 1 if m.group(1) else 2
        name = _trim_zh_name(m.group(1)) if g == 1 else _en_person(m.group(2))
        if len(name) >= 2 and name[-1] not in "名称稱字号號":  # "用全名": no one named 全名
            out.append(Entity(kind="person", text=name, value=to_simplified(name),
                              start=m.start(g), end=m.start(g) + len(name)))
    for m in _ZH_LABEL_NAME.finditer(text) if cjk else ():
        name = m.group(1)
        if not _ROLE_NOUN.search(name) and not _SURNAME_LIKE_WORD.match(name) \
                and name[-1] not in _ZH_NOT_NAME_LAST:
            out.append(_ent("person", m, to_simplified(name), 1))
    for m in _ZH_SPELLED_NAME.finditer(text) if cjk else ():
        name = m.group(1)
        if spelled_beside(text[:m.start(1)], text[m.end(1):]) and not _ROLE_NOUN.search(name) \
                and not _SURNAME_LIKE_WORD.match(name):
            out.append(_ent("person", m, to_simplified(name), 1))
    for m in _ZH_HONORIFIC.finditer(text) if cjk else ():
        name = m.group(1)
        if "我" in name:
            continue  # "改成我先生": the user's husband, no 成 named
        out.append(_ent("person", m, to_simplified(name), 1))
    if not latin or not _EN_SMALL.search(text):
        return out  # every Latin name below has a small letter ("DD12345678" gives none)
    for m in _ZH_INTRO_LATIN.finditer(text) if cjk else ():
        g = 1 if m.group(1) else 2
        name = _en_person(m.group(g))
        if name:
            out.append(Entity(kind="person", text=name, value=name, start=m.start(g),
                              end=m.start(g) + len(name)))
    for rx in (_EN_INTRO, _EN_ANSWER, _EN_IS_ME, _EN_SPELLED, _EN_GREETED):
        for m in rx.finditer(text):
            name = _en_person(m.group(1))
            if name:  # "I'm Two Star": a level, not a name
                out.append(Entity(kind="person", text=name, value=name, start=m.start(1),
                                  end=m.start(1) + len(name)))
    for m in _EN_RELATION_NAME.finditer(text):
        name = _en_person(m.group(1))
        if name:
            out.append(Entity(kind="person", text=name, value=name, start=m.start(1),
                              end=m.start(1) + len(name)))
    for m in _EN_NAME_SET.finditer(text):
        g = 1 if m.group(1) else 2
        name = _en_person(m.group(g))
        if name and (g == 2 or " " in name) \
                and name.split(" ")[-1] not in _NOT_A_NAME_LAST_EN:
            out.append(Entity(kind="person", text=name, value=name, start=m.start(g),
                              end=m.start(g) + len(name)))
    for m in _EN_ON_DOCUMENT.finditer(text):
        name = _en_person(m.group(1))
        if name and " " in name:
            out.append(Entity(kind="person", text=name, value=name, start=m.start(1),
                              end=m.start(1) + len(name)))
    for m in _EN_LABEL_NAME.finditer(text):
        name = _en_person(m.group(1))
        if name and " " in name:
            out.append(Entity(kind="person", text=name, value=name, start=m.start(1),
                              end=m.start(1) + len(name)))
    for m in _EN_DOCUMENT_SAYS.finditer(text):
        g = next(i for i in range(1, (m.re.groups or 0) + 1) if m.group(i))
        name = _en_person(m.group(g))
        if name and " " in name:
            out.append(Entity(kind="person", text=name, value=name, start=m.start(g),
                              end=m.start(g) + len(name)))
    for m in _EN_NAME_CHANGED.finditer(text):
        head = m.group(1)[:m.start(2) - m.start(1)]  # an abbreviated given name ("Ma. ")
        name = _en_person(m.group(2))
        if name:
            out.append(Entity(kind="person", text=head + name, value=head + name,
                              start=m.start(1), end=m.start(2) + len(name)))
    for m in _EN_SPEAKING.finditer(text) if ("speaking" in text or "here" in text
                                            or "this side" in text) else ():
        if m.group(1).split()[0] not in NOT_NAMES_EN:
            out.append(_ent("person", m, m.group(1), 1))
    for m in _EN_TITLE.finditer(text):
        out.append(_ent("person", m, m.group(1), 1))
    for m in _EN_INTRO_LOWER.finditer(text):
        if not set(m.group(1).split()) & _LOWER_NOT_NAME:
            out.append(_ent("person", m, m.group(1).title(), 1))
    for rx in (_EN_ITS, _EN_AS_NAME):
        for m in rx.finditer(text):
            words = m.group(1).replace("-", " ").split()
            if words[0] not in NOT_NAMES_EN and words[0] not in CITIES_EN \
                    and words[0] not in _NOT_A_NAME_WORD \
                    and m.group(1) not in CITIES_EN and words[-1] not in _NOT_SURNAME:
                out.append(_ent("person", m, m.group(1), 1))
    return out


def _places(text: str, cjk: bool = True, latin: bool = True) -> list[Entity]:
    """Cities, addresses and products; ``cjk`` / ``latin`` as for :func:`_people`."""
    out = [_ent("city", m, to_simplified(m.group(0))) for m in _CITY_ZH.finditer(text)] \
        if cjk else []
    for m in _CITY_EN.finditer(text) if latin else ():
        out.append(_ent("city", m, m.group(0)))
    for m in _CITY_MOVE_EN.finditer(text) if latin else ():
        if m.group(1).split()[0] not in NOT_NAMES_EN:
            out.append(_ent("city", m, m.group(1), 1))
    out += find_addresses(text, cjk, latin)
    out += [_ent("product", m, " ".join(to_simplified(m.group(0)).split()))
            for m in _PRODUCT.finditer(text)]
    return out


def _times(text: str, times: list[TimeMatch]) -> list[Entity]:
    out = [Entity(kind="date", text=t.text, value=t.value, start=t.start, end=t.end)
           for t in times]
    out += [Entity(kind="time", text=c.text, value=c.value, start=c.start, end=c.end)
            for c in find_clocks(text)]
    return out


def _resolve(cands: list[Entity], blocked: list[tuple[int, int]], size: int) -> list[Entity]:
    rank = {k: i for i, k in enumerate(KIND_PRIORITY)}
    cands.sort(key=lambda e: (rank.get(e.kind, 99), -(e.end - e.start), e.start))
    taken = bytearray(size + 1)
    for a, b in blocked:
        taken[a:b] = b"\x01" * (b - a)
    chosen: list[Entity] = []
    for e in cands:
        if e.end <= e.start or taken.find(1, e.start, e.end) >= 0:
            continue
        taken[e.start:e.end] = b"\x01" * (e.end - e.start)
        chosen.append(e)
    chosen.sort(key=lambda e: e.start)
    return chosen


def _bare_ids(text: str) -> list[Entity]:
    out: list[Entity] = []
    for m in _BARE_CODE.finditer(text):
        end = _code_end(text, m.start(), m.end())
        out.append(Entity(kind="code", text=text[m.start():end], value=text[m.start():end].upper(),
                          start=m.start(), end=end))
    for m in _BARE_NUMBER.finditer(text):
        raw = m.group(0)
        digits = re.sub(r"\D", "", raw)
        spaced = any(ch in " -" for ch in raw)
        if len(digits) >= (BARE_SPACED_DIGITS if spaced else BARE_DIGITS):
            out.append(_ent("number", m, ("+" if raw.startswith("+") else "") + digits))
    return out


def extract_entities(text: str, at: datetime, reading: Reading = WRITE) -> list[Entity]:
    """Every rule entity of ``text`` that ``reading`` keeps, non-overlapping, in text order."""
    return extract_entities_and_times(text, at, reading)[0]


def extract_entities_and_times(
    text: str, at: datetime, reading: Reading = WRITE,
) -> tuple[list[Entity], list[TimeMatch]]:
    """:func:`extract_entities` plus the date expressions behind the ``date`` entities."""
    given = text
    if _FULL_WIDTH.search(text):
        text = text.translate(_HALF_WIDTH)
    times = find_times(text, at)
    if times:  # "寄到7-11台中文心門市": a store's name, not 11 July
        stores = store_pickups(text)
        times = [t for t in times if not any(a <= t.start and t.end <= b for a, b in stores)]
    # each family of patterns runs only when the characters it needs are there at all
    links = [_ent("url", m, m.group(0)) for m in URL_RE.finditer(text)] \
        if "://" in text or "www." in text.lower() else []
    mails = [_ent("email", m, m.group(0).lower()) for m in EMAIL_RE.finditer(text)] \
        if "@" in text else []
    placeholders = [(m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)] \
        if "[" in text else []
    cands = links + mails
    cands += _times(text, times)
    if _HAS_DIGIT.search(text):
        cands += _phones(text) + _ids(text) + _amounts(text)
    cjk, latin = has_cjk(text), _HAS_ALPHA.search(text) is not None
    cands += _people(text, cjk, latin) + _places(text, cjk, latin)
    if reading.bare_ids and _HAS_DIGIT.search(text):
        cands += _bare_ids(text)
    by_span = {(t.start, t.end): t for t in times}
    chosen = [e for e in _resolve(cands, placeholders, len(text))
              if reading.keeps(e, by_span.get((e.start, e.end)))]
    kept = {(e.start, e.end) for e in chosen if e.kind == "date"}
    dates = [t for t in times if (t.start, t.end) in kept]
    if given is not text:  # spans and text as given, values read from the half-width form
        chosen = [e.model_copy(update={"text": given[e.start:e.end]}) for e in chosen]
        dates = [replace(t, text=given[t.start:t.end]) for t in dates]
    return chosen, dates


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
