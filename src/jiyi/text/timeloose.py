"""Dates said the way an expiry or a due day is (the loose forms of the time grammar): "5/3",
"3/5/2026", "05-03", "5号前", "the 15th", "月底", "四月中", "mid-April", "end of next week",
"到下個月10號", "good till Sunday", "3天内", "valid for 7 days". :func:`loose_times` is read by
:func:`jiyi.text.timegrammar.find_times` with the strict forms. Pure."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta

from .fastre import gate_all
from .timebase import (
    EN_DMY,
    EN_MDY,
    EN_MONTH,
    NOT_IN_NUMBER,
    ONE_KIND_NUM,
    WORD_END,
    WORD_START,
    ZH_MONTH_NUM,
    TimeMatch,
    add_months,
    match_of,
    month_of,
    safe_date,
    week_start,
    year_month,
)
from .timewords import (
    CN_NUM,
    DAY_FIRST_HINTS,
    EN_FORWARD,
    EN_NUMBERS,
    HOLIDAYS_EN,
    HOLIDAYS_ZH,
    WEEKDAYS_EN,
    ZH_MONTH_PARTS,
    ZH_SHIFTS,
    ZH_YEAR_OFFSETS,
    cn_int,
)

# ------------------------------------------------------------------------ loose dates (expiries)
# Dates said the way an expiry or a due day is: "5/3", "3/5/2026", "05-03", "5号前", "the 15th",
# "月底", "四月中", "mid-April", "end of next week", "到下個月10號", "good till Sunday", "3天内",
# "valid for 7 days". A numeric date without its year and a day of the month alone count only
# beside a word that makes them a date ("到5/3", "5号前有效", "exp 05-03"): "3/4 of it", "3号楼"
# and "a 3-2 win" are no dates.
_CUE_BEFORE = re.compile(
    r"(?:到|至|截止|截至|期限|日期|有效期|(?:到期|截止)日|\b(?:until|till|til|thru|through|by|before|on|"
    r"due|expires?|expiring|exp|valid|good|ends?|deadline|dated?))\.?\s*(?:是|为|為)?\s*[:：]?\s*$",
    re.I)
_CUE_AFTER = re.compile(r"\s*(?:(?:前|之前|以前|为止|為止|止)|(?:都|就|才)?\s*(?:已经|已經|已)?\s*(?:到期|过期|過期|截止|有效|"
                        r"失效|作废|作廢|可用|能用|可以用))")
_DAY_CUE_BEFORE = re.compile(r"(?:到|至|截止|截至|截止到)\s*$")
#: A number unit right after "3-5" / "1/2": a range or a fraction, not a date.
_NUM_UNIT_AFTER = re.compile(r"\s*(?:days?|weeks?|months?|years?|hours?|hrs?|mins?|times|people|"
                             r"pcs|kg|cups?|[%个個天人件元块塊次折分点點岁歲号號楼樓])", re.I)
CUE_CHARS = 12
_NUM_DMY = re.compile(r"(?<![\d/.:-])(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/:-]|\.\d)"
                      r"|(?<![\d/.:-])(\d{1,2})\.(\d{1,2})\.(\d{4})(?![\d/:-]|\.\d)")
_NUM_DM = re.compile(r"(?<![\d/.:-])(\d{1,2})[/-](\d{1,2})(?![\d/:-]|\.\d)")
#: "5.31" is a date only after a word of ending ("截止日期 5.31", "valid till 5.31") or before
#: one ("5.31前有效"): after "是" or "on" it is a number.
_NUM_DOT = re.compile(r"(?<![\d/.:-])(\d{1,2})\.(\d{1,2})(?![\d/:.-])")
_DOT_CUE_BEFORE = re.compile(
    r"(?:到|至|截止|截至|期限|日期|有效期|\b(?:until|till|til|thru|through|by|before|expires?|"
    r"expiring|exp|valid|good|deadline))\.?\s*[:：]?\s*$", re.I)
_ZH_HOLIDAY = re.compile(r"(?<![一二三四五六七八九十\d])(" + "|".join(
    sorted(HOLIDAYS_ZH, key=len, reverse=True)) + r")(?:节|節|假期|当天|當天)?(?![一二三四五六七八九十\d个個老])")
_EN_HOLIDAY = re.compile(rf"{WORD_START}{EN_FORWARD}\s+(" + "|".join(
    sorted(HOLIDAYS_EN, key=len, reverse=True)) + rf"){WORD_END}", re.I)
_ZH_LEFT = re.compile(
    rf"(?:还剩|還剩|剩下|只剩|仅剩|僅剩|还有|還有)\s*(({CN_NUM}{{1,3}})\s*(?:个|個)?(天|日|周|週|星期|个月|個月))"
    r"(?=\s*(?:就|便)?\s*(?:到期|过期|過期|失效|截止|有效|可用|能用|$|[，,。.!！]))")
_ZH_DAY_NO = re.compile(rf"(?<![\d月年/.:第-])({CN_NUM}{{1,3}})\s*[号號](?![码碼楼樓线線店房位机機车車])")
_ZH_MONTH_DAY_REL = re.compile(rf"(上|下|这|這|本)(?:个|個)?月\s*({CN_NUM}{{1,3}})\s*[号號日]")
_ZH_MONTH_PART = re.compile(
    rf"(?:{NOT_IN_NUMBER}(?<![个個第每几幾])({ZH_MONTH_NUM})\s*月份?"
    r"|(上|下|这|這|本)?(?:个|個)?(?<![岁歲日年每\d零〇一二两兩三四五六七八九十])月)(上旬|中旬|下旬|底|末|尾|中(?![国國文心午间間])|初(?![一二三四五六七八九十]))")
#: "这周末", "下個週末", or "周末前(有效)": a bare 周末 is any weekend ("周末经常在家").
_ZH_WEEKEND = re.compile(r"(上|下|这|這|本)(?:个|個)?(?:周末|週末)|(?:周末|週末)(?=\s*(?:前|之前|以前|到期|截止))")
_ZH_YEAR_END = re.compile(r"(?:(\d{4})\s*年|([今明去])年年?|(?<![每新过過拜跨\d])年)(底|末)")
_ZH_WITHIN = re.compile(
    rf"{NOT_IN_NUMBER}(?<![近去这這最])(({ONE_KIND_NUM})\s*(?:个|個)?(天|日|周|週|星期|礼拜|禮拜|个月|個月|小时|小時|钟头|鐘頭))"
    r"(?=\s*(?:之内|之內|以内|以內|内|內))"
    rf"|有效期\s*(?:为|為|是|:|：)?\s*(({ONE_KIND_NUM})\s*(?:个|個)?(天|日|周|週|星期|个月|個月|小时|小時))")
#: Half a month ("半个月内有效", "有效期半個月"): fifteen days.
_ZH_HALF_MONTH = re.compile(r"半\s*(?:个|個)\s*月(?=\s*(?:之内|之內|以内|以內|内|內|有效|到期|过期|過期))"
                            r"|(?<=有效期)\s*(?:为|為|是|:|：)?\s*半\s*(?:个|個)\s*月")
#: Days in half a month, in a fortnight.
HALF_MONTH_DAYS = 15
FORTNIGHT_DAYS = 14
_EN_NUMBER_WORD = r"\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten"
_EN_NTH = re.compile(
    rf"{WORD_START}(?:until|till|til|thru|through|by|before|on|expires?|expiring|due|ends?|from|starting)"
    rf"\s+(the\s+(\d{{1,2}})(?:st|nd|rd|th)(?:\s+of\s+(this|next|the)\s+month)?)"
    r"(?=\s*(?:$|[^\w\s]|(?:and|or|but|so|at|then|is|please|too|only|because|if|when|right|"
    r"ok|okay|I|it|we|you)\b))", re.I)
_EN_END_OF = re.compile(
    rf"{WORD_START}(?:the\s+)?end\s+of\s+(?:(the|this|next|the\s+following)\s+)?(week|month|year){WORD_END}"
    rf"|{WORD_START}(?:the\s+)?end\s+of\s+{EN_MONTH}{WORD_END}(?!\s*\d)|{WORD_START}(month|year)[-\s]end{WORD_END}", re.I)
_EN_MID = re.compile(
    rf"{WORD_START}(?:mid[-\s]?|(?:the\s+)?middle\s+of\s+){EN_MONTH}{WORD_END}(?!\s*\d)"
    rf"|{WORD_START}(?:mid[-\s]?|(?:the\s+)?middle\s+of\s+)(?:(this|next|the)\s+)?month{WORD_END}", re.I)
_WEEKDAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_EN_FWD_DAY = re.compile(
    rf"{WORD_START}{EN_FORWARD}\s+(?:on\s+)?((?:{_WEEKDAY_NAMES})(?!s)|the\s+weekend){WORD_END}", re.I)
_EN_FOR_SPAN = re.compile(
    rf"{WORD_START}(?:valid|good|usable|active|lasts|works?|last(?=\s+for))\s+(?:for\s+)?((?:another\s+|the\s+next\s+|"
    rf"up\s+to\s+)?({_EN_NUMBER_WORD})\s+(?:more\s+)?(days?|weeks?|fortnights?|months?|hours?)){WORD_END}"
    rf"|{WORD_START}within\s+((?:the\s+next\s+)?({_EN_NUMBER_WORD})\s+(days?|weeks?|fortnights?|months?|hours?)){WORD_END}", re.I)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_DAY_FIRST_HINT = re.compile(DAY_FIRST_HINTS, re.I)


def _last_day(d: date) -> date:
    return add_months(d, 1) - timedelta(days=1)


def _months_later(d: date, n: int) -> date:
    """The same day ``n`` months after ``d`` (the month's last day when it has no such day)."""
    first = add_months(d, n)
    return safe_date(first.year, first.month, d.day) or _last_day(first)


def _units_later(at: date, n: int, unit: str) -> date:
    """The day ``n`` units after ``at`` (hours rounded up to whole days)."""
    unit = unit.lower()
    if unit.endswith(("月", "month", "months")):
        return _months_later(at, n)
    if unit.startswith(("小", "钟", "鐘", "hour")):
        return at + timedelta(days=-(-n // 24))
    if unit.startswith("fortnight"):
        return at + timedelta(days=n * FORTNIGHT_DAYS)
    return at + timedelta(days=n * (7 if unit.startswith(("周", "週", "星", "礼", "禮", "week"))
                                    else 1))


def _cued(text: str, start: int, end: int) -> bool:
    return bool(_CUE_BEFORE.search(text[max(0, start - CUE_CHARS):start])
                or _CUE_AFTER.match(text, end))


def _day_first(text: str) -> bool:
    """Does the turn write its dates day first (British)? Its evidence, in order: a numeric date
    that can only be read one way ("25/12"), a date in words ("3 May" vs "May 3"), a currency or
    spelling of a day-first place ("£", "colour"); without any, month first (US)."""
    pairs = [(m.start(), int(m.group(1) or m.group(5)), int(m.group(3) or m.group(6)))
             for m in _NUM_DMY.finditer(text)]  # with a year too: "20/03/2026"
    pairs += [(m.start(), int(m.group(1)), int(m.group(2))) for m in _NUM_DM.finditer(text)]
    for _, a, b in sorted(pairs):
        if a > 12 >= b:
            return True
        if b > 12 >= a:
            return False
    dmy, mdy = EN_DMY.search(text), EN_MDY.search(text)
    if dmy or mdy:
        return dmy is not None and (mdy is None or dmy.start() < mdy.start())
    return _DAY_FIRST_HINT.search(text) is not None


def _numeric(m: re.Match[str], a: int, b: int, year: int, zh: bool, text: str,
             year_implied: bool) -> TimeMatch | None:
    """A numeric date "a/b": month first in Chinese; in English month first (US) unless a number
    over 12 or the turn's evidence (:func:`_day_first`) says day first, with the other reading as
    :attr:`TimeMatch.alt` when both are days."""
    month_first = safe_date(year, a, b)
    day_first = safe_date(year, b, a)
    if zh or month_first is None or day_first is None or a == b:
        day, alt = month_first or day_first, None
    elif _day_first(text):
        day, alt = day_first, month_first
    else:
        day, alt = month_first, day_first
    if day is None:
        return None
    return replace(match_of(m, day, "day", False, year_implied=year_implied), alt=alt)


def _day_of_month(m: re.Match[str], at: date, n: int, group: int = 0) -> TimeMatch | None:
    """A day of the month alone ("5号", "the 15th"): this month's, next month's as the other
    reading (this month's when it has no such day: next month's)."""
    this = safe_date(at.year, at.month, n)
    nxt_first = add_months(at, 1)
    nxt = safe_date(nxt_first.year, nxt_first.month, n)
    day = this or nxt
    if day is None:
        return None
    return replace(match_of(m, day, "day", False, group=group, year_implied=True),
                   alt=nxt if this else None)


def _loose_zh(text: str, at: date) -> list[TimeMatch]:
    out: list[TimeMatch] = []
    hao = "号" in text or "號" in text
    for m in _ZH_DAY_NO.finditer(text) if hao else ():
        n = cn_int(m.group(1))
        if n and (_DAY_CUE_BEFORE.search(text[max(0, m.start() - 4):m.start()])
                  or _CUE_AFTER.match(text, m.end())):
            tm = _day_of_month(m, at, n)
            out += [tm] if tm else []
    for m in _ZH_MONTH_DAY_REL.finditer(text) if hao or "日" in text else ():
        first = add_months(at, ZH_SHIFTS[m.group(1)])
        day = safe_date(first.year, first.month, cn_int(m.group(2)) or 0)
        out += [match_of(m, day, "day", True)] if day else []
    for m in _ZH_MONTH_PART.finditer(text) if _ZH_PART_GATE.search(text) else ():
        part = ZH_MONTH_PARTS[m.group(3)]
        named = year_month(at.year, cn_int(m.group(1)) or 0) if m.group(1) else None
        if m.group(1) and named is None:
            continue
        first = named or add_months(at, ZH_SHIFTS.get(m.group(2) or "", 0))
        day = first.replace(day=part) if part else _last_day(first)
        out.append(match_of(m, day, "day", not m.group(1), year_implied=bool(m.group(1))))
    for m in _ZH_YEAR_END.finditer(text) if "年底" in text or "年末" in text else ():
        year = int(m.group(1)) if m.group(1) else at.year + ZH_YEAR_OFFSETS.get(
            (m.group(2) or "今") + "年", 0)
        if 1 <= year <= 9999:
            out.append(match_of(m, date(year, 12, 31), "day", not m.group(1)))
    for m in _ZH_WEEKEND.finditer(text) if "周末" in text or "週末" in text else ():
        day = week_start(at) + timedelta(weeks=ZH_SHIFTS.get(m.group(1) or "", 0), days=5)
        alt = day + timedelta(weeks=1) if m.group(1) is None and day < at else None
        out.append(replace(match_of(m, day, "day", True), alt=alt))
    for m in _ZH_HOLIDAY.finditer(text) if _ZH_HOLIDAY_GATE.search(text) else ():
        if _DAY_CUE_BEFORE.search(text[max(0, m.start() - 4):m.start()]) \
                or _CUE_AFTER.match(text, m.end()):
            month, dom = HOLIDAYS_ZH[m.group(1)]
            out.append(match_of(m, date(at.year, month, dom), "day", False, year_implied=True))
    for m in _ZH_LEFT.finditer(text) if "剩" in text or "还有" in text or "還有" in text else ():
        n = cn_int(m.group(2))
        if n is not None:
            unit = m.group(3)
            day = (_months_later(at, n) if unit.endswith("月") else
                   at + timedelta(days=n * (1 if unit in ("天", "日") else 7)))
            out.append(match_of(m, day, "day", True, group=1))
    for m in _ZH_WITHIN.finditer(text) if "内" in text or "內" in text or "有效期" in text else ():
        g = 1 if m.group(1) else 4
        n = cn_int(m.group(g + 1))
        if n is None:
            continue
        unit = m.group(g + 2)  # "24小时内" stays as said: a day would blur it
        out.append(match_of(m, _units_later(at, n, unit), "day", not unit.startswith(("小", "钟", "鐘")),
                       group=g))
    for m in _ZH_HALF_MONTH.finditer(text) if "半" in text else ():
        out.append(match_of(m, at + timedelta(days=HALF_MONTH_DAYS), "day", True))
    return out


def _loose_en(text: str, at: date) -> list[TimeMatch]:
    out: list[TimeMatch] = []
    low = text.lower()
    ahead = _FORWARD_GATE.search(low) is not None
    for m in _EN_HOLIDAY.finditer(text) if ahead and _HOLIDAY_GATE.search(low) else ():
        month, dom = HOLIDAYS_EN[" ".join(m.group(1).lower().split())]
        out.append(match_of(m, date(at.year, month, dom), "day", False, group=1, year_implied=True))
    for m in _EN_NTH.finditer(text) if _ORDINAL.search(text) else ():
        which = (m.group(3) or "").lower()
        if which:
            first = add_months(at, 1 if which == "next" else 0)
            day = safe_date(first.year, first.month, int(m.group(2)))
            out += [match_of(m, day, "day", True, group=1)] if day else []
            continue
        tm = _day_of_month(m, at, int(m.group(2)), group=1)
        out += [tm] if tm else []
    for m in _EN_END_OF.finditer(text) if "end" in low and _END_GATE.search(low) else ():
        if m.group(3):  # end of May
            out.append(match_of(m, _last_day(date(at.year, month_of(m.group(3)), 1)), "day", False,
                           year_implied=True))
            continue
        unit = (m.group(2) or m.group(4)).lower()
        shift = 1 if (m.group(1) or "").lower().split()[-1:] in (["next"], ["following"]) else 0
        if unit == "week":
            day = week_start(at) + timedelta(weeks=shift, days=6)
        elif unit == "month":
            day = _last_day(add_months(at, shift))
        else:
            day = date(at.year + shift, 12, 31)
        out.append(match_of(m, day, "day", True))
    for m in _EN_MID.finditer(text) if "mid" in low and _MID_GATE.search(low) else ():
        if m.group(1):
            out.append(match_of(m, date(at.year, month_of(m.group(1)), 15), "day", False,
                           year_implied=True))
        else:
            first = add_months(at, 1 if (m.group(2) or "").lower() == "next" else 0)
            out.append(match_of(m, first.replace(day=15), "day", True))
    for m in _EN_FWD_DAY.finditer(text) if ahead and _DAY_GATE.search(low) else ():
        what = m.group(1).lower()
        wd = 5 if what.endswith("weekend") else WEEKDAYS_EN[what]
        out.append(match_of(m, at + timedelta(days=(wd - at.weekday()) % 7), "day", True, group=1))
    for m in _EN_FOR_SPAN.finditer(text) if _SPAN_GATE.search(low) \
            and _UNIT_GATE.search(low) else ():
        g = 1 if m.group(1) else 4
        raw = m.group(g + 1).lower()
        n = int(raw) if raw.isdigit() else EN_NUMBERS.get(raw, 1)
        out.append(match_of(m, _units_later(at, n, m.group(g + 2)), "day", False, group=g))
    return out


def loose_times(text: str, at: date) -> list[TimeMatch]:
    """Dates said the loose way (see above)."""
    out: list[TimeMatch] = []
    zh = _CJK.search(text) is not None
    if _NUM_GATE.search(text):
        for m in _NUM_DMY.finditer(text):
            a, b, y = (m.group(1), m.group(3), m.group(4)) if m.group(1) else m.group(5, 6, 7)
            if len(y) == 2 and not _cued(text, m.start(), m.end()):
                continue
            tm = _numeric(m, int(a), int(b), int(y) if len(y) == 4 else 2000 + int(y), zh, text,
                          False)
            out += [tm] if tm else []
        for m in _NUM_DM.finditer(text):
            if _cued(text, m.start(), m.end()) and not _NUM_UNIT_AFTER.match(text, m.end()):
                tm = _numeric(m, int(m.group(1)), int(m.group(2)), at.year, zh, text, True)
                out += [tm] if tm else []
        for m in _NUM_DOT.finditer(text):
            if (_DOT_CUE_BEFORE.search(text[max(0, m.start() - CUE_CHARS):m.start()])
                    or _CUE_AFTER.match(text, m.end())) and not _NUM_UNIT_AFTER.match(text, m.end()):
                tm = _numeric(m, int(m.group(1)), int(m.group(2)), at.year, zh, text, True)
                out += [tm] if tm else []
    if zh:
        out += _loose_zh(text, at)
    if _LATIN.search(text):
        out += _loose_en(text, at)
    return out


# Gates of the loose patterns: each a necessary condition of its family (cheap substring tests).
_NUM_GATE = re.compile(r"\d[/.-]\d")
_LATIN = re.compile(r"[A-Za-z]")
_ZH_PART_GATE = re.compile(r"月份?(?:[上中下]旬|[底末尾中初])")
_END_GATE = re.compile(r"end\s+of|(?:month|year)[-\s]end")
_MID_GATE = re.compile(r"mid(?:dle\s+of)?[-\s]?(?:[a-z]{3}|(?:this|next|the)\s)")
_ORDINAL = re.compile(r"\d(?:st|nd|rd|th)")
#: Every :data:`EN_FORWARD` wording holds one of these.
_FORWARD_GATE = re.compile("until|til|thru|through|by|before|expir|valid|good|usable|end|last|run")
_DAY_GATE = re.compile("(?:mon|tues|wednes|thurs|fri|satur|sun|week)(?:day|end)")
_HOLIDAY_GATE = re.compile("christmas|halloween|new year|valentine")
_SPAN_GATE = re.compile("valid|good|usable|active|last|work|within")
_UNIT_GATE = re.compile("day|week|fortnight|month|hour")
_ZH_HOLIDAY_GATE = re.compile("[元情五劳勞国國双雙平圣聖](?:" + "|".join(
    h[1:] for h in sorted(HOLIDAYS_ZH, key=len, reverse=True)) + ")")


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
