"""The one time grammar: dates in Chinese (Simplified and Traditional) and English, resolved against
a reference time.

Pure functions of ``(text, at)``: "明天早上", "下週三", "5月3日", "去年五月", "last Friday",
"3 days ago" become :class:`TimeMatch` values (the first day, a grain, a normalised value such as
``2026-05-02 morning``, ``2026-W19``, ``2026-06``, ``2027``). Both the write path
(:mod:`jiyi.write.timeparse`, which dates facts and rewrites relative expressions) and the read
path (:mod:`jiyi.recall.timewin`, which turns a query into a time window) read this grammar, so a
phrase can never mean one day when written and another when recalled. The words themselves are
in :mod:`jiyi.text.timewords`.

Days are calendar days in UTC (the timezone of ``at``). Impossible dates such as ``2月30日`` are
not dates: they yield nothing rather than a wrong day. A day or month named without its year
("5月3日", "in May") takes the year of ``at`` and says so (``year_implied``), so a reader that
looks back in time (recall) can move it to the year before.

Expiries and due days are also said the loose way ("5/3", "the 15th", "月底前", "到下個月10號",
"good till Sunday", "3天内", "valid for 7 days"): see the loose-dates section. A reader of an
expiry asks :meth:`TimeMatch.expiry_instant`, which takes the reading ahead of the day it was
said when the day as read is already past ("3/5" read day first, next month's "5号", next year's
"1月15日" said in December).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from .timeclock import clock_after
from .timewords import (
    CN_NUM,
    DAY_FIRST_HINTS,
    EN_DAY_OFFSETS,
    EN_FORWARD,
    EN_NUMBERS,
    EN_SHIFTS,
    HOLIDAYS_EN,
    HOLIDAYS_ZH,
    MONTH_NAMES,
    MONTHS_EN,
    PART_ZH,
    WEEKDAYS_EN,
    WEEKDAYS_ZH,
    ZH_DAY_OFFSETS,
    ZH_DAY_PARTS,
    ZH_MONTH_PARTS,
    ZH_SHIFTS,
    ZH_YEAR_OFFSETS,
    cn_int,
)

Grain = Literal["day", "week", "month", "year"]


@dataclass(frozen=True)
class TimeMatch:
    """One date/time expression found in a text."""

    start: int
    end: int
    text: str
    value: str  # normalised: 2026-05-03, 2026-05-03T08:30, 2026-05-03 morning, 2026-W19, ...
    grain: Grain
    day: date  # the (first) day the expression denotes
    relative: bool  # True when it was resolved against ``at`` (明天, last Friday)
    clock: str | None = None  # "08:30" when a clock time was given
    part: str | None = None  # morning / afternoon / evening / night / noon
    year_implied: bool = False  # "5月3日", "in May": the year of ``at`` was assumed
    #: The other reading of the day, for an expiry: "3/5" read day first, "the 15th" or "5号"
    #: of next month, "周五" of next week.
    alt: date | None = None
    said: date | None = None  # the day of ``at`` (set by :func:`find_times` where alt or year_implied)

    def period_end(self) -> date:
        """The first day after the period (day, week, month or year) the expression denotes."""
        if self.grain == "day":
            return self.day + timedelta(days=1)
        if self.grain == "week":
            return self.day + timedelta(days=7)
        if self.grain == "month":
            return add_months(self.day, 1)
        return date(self.day.year + 1, 1, 1)

    def end_instant(self) -> datetime:
        """The first instant after the period the expression denotes (for ``valid_until``)."""
        if self.clock:
            hh, mm = (int(x) for x in self.clock.split(":"))
            base = datetime(self.day.year, self.day.month, self.day.day, hh, mm, tzinfo=UTC)
            return base + timedelta(minutes=1)
        nxt = self.period_end()
        return datetime(nxt.year, nxt.month, nxt.day, tzinfo=UTC)

    def expiry_instant(self) -> datetime:
        """:meth:`end_instant` of the expression read as an expiry said on :attr:`said`: an
        expiry said today is normally in the future: the day itself unless its period ended before
        :attr:`said`; then the nearest of the other readings (:attr:`alt`, and for a day or month
        named without its year more than :data:`YEAR_ROLL_DAYS` days before :attr:`said` the
        same day a year later) that has not; the day itself when none has."""
        if self.said is None:
            return self.end_instant()
        readings = [self.day] + ([self.alt] if self.alt else [])
        if self.year_implied:
            readings += [later for later in map(_a_year_later, readings)
                         if 0 <= (later - self.said).days <= YEAR_ROLL_DAYS]
        ahead = [r for r in readings if replace(self, day=r).period_end() > self.said]
        pick = self.day if self.day in ahead or not ahead else min(ahead)
        return replace(self, day=pick).end_instant()

    def render(self, lang: str) -> str:
        """An absolute wording of the expression, e.g. ``2026年5月2日早上`` / ``2 May 2026``."""
        return render(self, lang)


#: A day named without its year that is past when said is, as an expiry, next year's when that
#: is at most this many days ahead ("到1月15日有效" said on 20 December); otherwise it is a date
#: passed ("到3月22日有效" said in June is an expired coupon, not one valid for nine months).
YEAR_ROLL_DAYS = 92


def _a_year_later(d: date) -> date:
    return safe_date(d.year + 1, d.month, d.day) or date(d.year + 1, d.month, 28)


def safe_date(year: int, month: int, day: int) -> date | None:
    """``date(year, month, day)``, or None when there is no such day (2月30日)."""
    try:
        return date(year, month, day)
    except ValueError:
        return None


def add_months(d: date, months: int) -> date:
    """The first day of the month ``months`` after ``d``'s month."""
    idx = d.year * 12 + (d.month - 1) + months
    year, month = divmod(idx, 12)
    return date(year, month + 1, 1)


def _week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _value(day: date, grain: Grain, clock: str | None = None, part: str | None = None) -> str:
    if grain == "year":
        return f"{day.year}"
    if grain == "month":
        return f"{day.year}-{day.month:02d}"
    if grain == "week":
        year, week, _ = day.isocalendar()
        return f"{year}-W{week:02d}"
    if clock:
        return f"{day.isoformat()}T{clock}"
    if part:
        return f"{day.isoformat()} {part}"
    return day.isoformat()


def _mk(m: re.Match[str], day: date, grain: Grain, relative: bool, group: int = 0,
        year_implied: bool = False) -> TimeMatch:
    start, end = m.span(group)
    return TimeMatch(start, end, m.group(group), _value(day, grain), grain, day, relative,
                     year_implied=year_implied)


def _year_month(year: int, month: int) -> date | None:
    return date(year, month, 1) if 1 <= month <= 12 and 1 <= year <= 9999 else None


def _span(m: re.Match[str], at: date, n: int, unit: str) -> TimeMatch:
    """``n`` units from ``at`` ("三天前" is -3 days; "3 months ago" is a month, -3)."""
    if unit == "day":
        return _mk(m, at + timedelta(days=n), "day", True)
    if unit == "week":
        return _mk(m, at + timedelta(weeks=n), "day", True)
    if unit == "month":
        return _mk(m, add_months(at, n), "month", True)
    return _mk(m, date(at.year + n, 1, 1), "year", True)


def _year_word(year: int) -> bool:
    return 1900 < year < 2200


# ------------------------------------------------------------------------------------ Chinese
_ZH_MONTH_NUM = "(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
_ZH_WEEKDAY_WORD = "(?:周|週|星期|礼拜|禮拜)"
_ZH_YMD = re.compile(rf"(\d{{4}})\s*年\s*({CN_NUM}{{1,3}})\s*月\s*({CN_NUM}{{1,3}})\s*[日号號]?")
#: Before a month number: no digit of the same kind ("15月" is no month; "QQ66五月三号" is 五月三号).
_NOT_IN_NUMBER = r"(?:(?<![\dA-Za-z年])(?=\d)|(?<![年零〇一二两兩三四五六七八九十])(?![\d]))"
#: A number written in one kind of digit ("12两周" is the code's 12 and 两周).
_ONE_KIND_NUM = r"\d{1,3}|[零〇一二两兩三四五六七八九十]{1,3}"
_ZH_MD = re.compile(rf"{_NOT_IN_NUMBER}(\d{{1,3}}|[零〇一二两兩三四五六七八九十]{{1,3}})\s*月\s*({CN_NUM}{{1,3}})\s*[日号號]")
_ZH_YM = re.compile(rf"(\d{{4}})\s*年\s*({CN_NUM}{{1,3}})\s*月(?!\s*{CN_NUM})")
_NUM_DATE = re.compile(r"(?<![\d.])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d])")
_ZH_DAY = re.compile("|".join(sorted(ZH_DAY_OFFSETS, key=len, reverse=True)))
_ZH_WEEKDAY = re.compile(rf"(上上|下下|上|下|这|這|本)?(?:个|個)?{_ZH_WEEKDAY_WORD}([一二三四五六日天1-7])")
_ZH_WEEK = re.compile(rf"(上|下|这|這|本)(?:个|個)?{_ZH_WEEKDAY_WORD}(?![一二三四五六日天1-7末])")
_ZH_MONTH = re.compile(r"(上|下|这|這|本)(?:个|個)?月(?![0-9一二三四五六七八九十底初])")
_ZH_YEAR = re.compile("|".join(ZH_YEAR_OFFSETS))
# a year on its own: not "2000年前" (ago), not the year of an impossible date ("2026年2月30日")
_ZH_YEAR_ABS = re.compile(rf"(?<!\d)(\d{{4}})\s*年(?!前|以前|之前|\s*{CN_NUM}{{1,3}}\s*月)")
# 去年五月, 今年3月份; and a month on its own: 五月, 3月份 (not 三个月, 每月, 5月3日)
_ZH_YEAR_MONTH = re.compile(rf"({'|'.join(ZH_YEAR_OFFSETS)})\s*({_ZH_MONTH_NUM})\s*月(?:份)?")
_ZH_BARE_MONTH = re.compile(
    rf"{_NOT_IN_NUMBER}(?<![个個第每几幾])({_ZH_MONTH_NUM})\s*月(?:份)?"
    rf"(?!\s*{CN_NUM}{{1,3}}\s*[日号號次回趟遍])")  # not 一月两次 (twice a month)
_ZH_SPAN = re.compile(rf"(?<!\d)({CN_NUM}{{1,3}})\s*(?:个|個)?(天|周|週|星期|个月|個月|年)(后|後|之后|之後|以后|以後|前|之前|以前)")


def _zh_absolute(text: str, at: date) -> list[TimeMatch]:
    """Dates that name their day or month: 2026年5月3日, 2026-05-03, 5月3日, 2026年5月, 五月."""
    out: list[TimeMatch] = []
    for m in _ZH_YMD.finditer(text):
        day = safe_date(int(m.group(1)), cn_int(m.group(2)) or 0, cn_int(m.group(3)) or 0)
        if day:
            out.append(_mk(m, day, "day", False))
    for m in _NUM_DATE.finditer(text):
        day = safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if day:
            out.append(_mk(m, day, "day", False))
    for m in _ZH_MD.finditer(text):
        day = safe_date(at.year, cn_int(m.group(1)) or 0, cn_int(m.group(2)) or 0)
        if day:
            out.append(_mk(m, day, "day", False, year_implied=True))
    for m in _ZH_YM.finditer(text):
        first = _year_month(int(m.group(1)), cn_int(m.group(2)) or 0)
        if first:
            out.append(_mk(m, first, "month", False))
    for m in _ZH_YEAR_MONTH.finditer(text):
        first = _year_month(at.year + ZH_YEAR_OFFSETS[m.group(1)], cn_int(m.group(2)) or 0)
        if first:
            out.append(_mk(m, first, "month", True))
    for m in _ZH_BARE_MONTH.finditer(text):
        first = _year_month(at.year, cn_int(m.group(1)) or 0)
        if first:
            out.append(_mk(m, first, "month", False, year_implied=True))
    for m in _ZH_YEAR_ABS.finditer(text):
        if _year_word(int(m.group(1))):
            out.append(_mk(m, date(int(m.group(1)), 1, 1), "year", False))
    return out


def _zh_relative(text: str, at: date) -> list[TimeMatch]:
    """Dates named from today: 大前天, 下週三, 上个月, 去年, 三天前, 两周后."""
    out: list[TimeMatch] = []
    for m in _ZH_DAY.finditer(text):
        word = m.group(0)
        day = at + timedelta(days=ZH_DAY_OFFSETS[word])
        part = ZH_DAY_PARTS.get(word)
        out.append(TimeMatch(m.start(), m.end(), word, _value(day, "day", None, part), "day",
                             day, True, None, part))
    for m in _ZH_WEEKDAY.finditer(text):
        shift = ZH_SHIFTS.get(m.group(1) or "", 0)
        day = _week_start(at) + timedelta(weeks=shift, days=WEEKDAYS_ZH[m.group(2)])
        # "周五前" said on a Saturday: this week's Friday, or next week's as an expiry
        alt = day + timedelta(weeks=1) if m.group(1) is None and day < at else None
        out.append(replace(_mk(m, day, "day", True), alt=alt))
    for m in _ZH_WEEK.finditer(text):
        out.append(_mk(m, _week_start(at) + timedelta(weeks=ZH_SHIFTS[m.group(1)]), "week", True))
    for m in _ZH_MONTH.finditer(text):
        out.append(_mk(m, add_months(at, ZH_SHIFTS[m.group(1)]), "month", True))
    for m in _ZH_YEAR.finditer(text):
        out.append(_mk(m, date(at.year + ZH_YEAR_OFFSETS[m.group(0)], 1, 1), "year", True))
    for m in _ZH_SPAN.finditer(text):
        n = cn_int(m.group(1))
        if n is None:
            continue
        sign = -1 if m.group(3).endswith("前") else 1
        unit = m.group(2)
        out.append(_span(m, at, n * sign, "day" if unit == "天" else
                         "week" if unit in ("周", "週", "星期") else
                         "month" if unit.endswith("月") else "year"))
    return out


# ------------------------------------------------------------------------------------ English
_MON = r"(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
_B = r"(?<![A-Za-z0-9])"  # a word starts here
_E = r"(?![A-Za-z0-9])"  # a word ends here
_EN_DMY = re.compile(rf"{_B}(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON}(?:,?\s+(\d{{4}}))?{_E}", re.I)
_EN_MDY = re.compile(rf"{_B}{_MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?{_E}(?:,?\s+(\d{{4}}){_E})?", re.I)
_EN_MY = re.compile(rf"{_B}{_MON}\s+(?:of\s+)?(\d{{4}}){_E}", re.I)
# a month without a number counts only when marked ("last May", "in May"): "may" is also a verb
_EN_REL_MONTH = re.compile(rf"{_B}(last|this|next|coming|past)\s+{_MON}{_E}(?!\s*\d)", re.I)
_EN_IN_MONTH = re.compile(rf"{_B}(?:in|during|since|of|by|until|before|after)\s+{_MON}{_E}(?!\s*\d)", re.I)
_EN_IN_YEAR = re.compile(rf"{_B}(?:in|during|since)\s+(\d{{4}}){_E}(?![.,:]\d)", re.I)
_EN_DAY = re.compile(rf"{_B}(?:(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)|today|tonight|tomorrow|yesterday|this\s+(?:morning|afternoon|evening)|last\s+night){_E}", re.I)
_EN_REL = re.compile(rf"{_B}(last|next|this|coming|past)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|week|month|year){_E}", re.I)
_EN_SPAN = re.compile(rf"{_B}(\d{{1,3}}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+couple\s+of|couple\s+of)\s+(days?|weeks?|months?|years?)\s+(ago|later|from\s+(?:now|today)){_E}|{_B}in\s+(\d{{1,3}}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?|months?|years?){_E}", re.I)
_MODAL_SUBJECTS = ("i", "we", "it", "you", "they", "he", "she")


def _month_of(name: str) -> int:
    return MONTHS_EN[name.lower().rstrip(".")]


def _verb_month(text: str, m: re.Match[str], group: int) -> bool:
    """"I may 5 ..." / "they march 3 miles": the verb after its subject, not the month."""
    if m.group(group).lower() not in ("may", "march"):
        return False
    start = m.start(group)
    # the word before, from a window (the whole text only when the window is blank): splitting
    # all the text before every match was quadratic on a long paste
    before = text[max(0, start - 80):start].split() or text[:start].split()
    return bool(before) and before[-1].lower() in _MODAL_SUBJECTS


def _en_absolute(text: str, at: date, has_month: bool = True) -> list[TimeMatch]:
    """Dates that name their day or month: 3 May 2026, May 3, May 2026, in May, in 2024.
    ``has_month``: a month word is in the text (without one only "in 2024" can match)."""
    out: list[TimeMatch] = []
    if not has_month:
        for m in _EN_IN_YEAR.finditer(text):
            if _year_word(int(m.group(1))):
                out.append(_mk(m, date(int(m.group(1)), 1, 1), "year", False, group=1))
        return out
    for rx, day_group, mon_group in ((_EN_DMY, 1, 2), (_EN_MDY, 2, 1)):
        for m in rx.finditer(text):
            if not m.group(3) and _verb_month(text, m, mon_group):
                continue
            year = int(m.group(3)) if m.group(3) else at.year
            day = safe_date(year, _month_of(m.group(mon_group)), int(m.group(day_group)))
            if day:
                out.append(_mk(m, day, "day", False, year_implied=not m.group(3)))
    for m in _EN_MY.finditer(text):
        first = _year_month(int(m.group(2)), _month_of(m.group(1)))
        if first:
            out.append(_mk(m, first, "month", False))
    for m in _EN_IN_MONTH.finditer(text):
        first = date(at.year, _month_of(m.group(1)), 1)
        out.append(_mk(m, first, "month", False, group=1, year_implied=True))
    for m in _EN_IN_YEAR.finditer(text):
        if _year_word(int(m.group(1))):
            out.append(_mk(m, date(int(m.group(1)), 1, 1), "year", False, group=1))
    return out


def _en_relative(text: str, at: date, has_month: bool = True) -> list[TimeMatch]:
    """Dates named from today: yesterday, last Friday, next week, last May, 3 days ago.
    ``has_month``: a month word is in the text (without one "last May" cannot match)."""
    out: list[TimeMatch] = []
    for m in _EN_DAY.finditer(text):
        word = " ".join(m.group(0).lower().split())
        day = at + timedelta(days=EN_DAY_OFFSETS.get(word, 0))
        part = ("evening" if word == "tonight" else "night" if word == "last night"
                else word[5:] if word.startswith("this ") else None)
        out.append(TimeMatch(m.start(), m.end(), m.group(0), _value(day, "day", None, part),
                             "day", day, True, None, part))
    for m in _EN_REL.finditer(text):
        which, what = m.group(1).lower(), m.group(2).lower()
        shift = EN_SHIFTS[which]
        if what in WEEKDAYS_EN:
            wd = WEEKDAYS_EN[what]
            if shift < 0:  # the most recent one before today
                day = at - timedelta(days=(at.weekday() - wd) % 7 or 7)
            elif shift == 0:
                day = _week_start(at) + timedelta(days=wd)
            else:  # the first one after today
                day = at + timedelta(days=(wd - at.weekday()) % 7 or 7)
            out.append(_mk(m, day, "day", True))
        elif what == "weekend":
            out.append(_mk(m, _week_start(at) + timedelta(weeks=shift, days=5), "day", True))
        elif what == "week":
            out.append(_mk(m, _week_start(at) + timedelta(weeks=shift), "week", True))
        elif what == "month":
            out.append(_mk(m, add_months(at, shift), "month", True))
        else:
            out.append(_mk(m, date(at.year + shift, 1, 1), "year", True))
    for m in _EN_REL_MONTH.finditer(text) if has_month else ():
        shift, month = EN_SHIFTS[m.group(1).lower()], _month_of(m.group(2))
        if shift == 0 and m.group(2) != "May" and month == 5:
            continue  # "this may be": the verb; only a capital "this May" is the month
        year = at.year
        if shift < 0 and month >= at.month:  # last May: the most recent May before this month
            year -= 1
        elif shift > 0 and month <= at.month:  # next May: the first May after this month
            year += 1
        out.append(_mk(m, date(year, month, 1), "month", True))
    for m in _EN_SPAN.finditer(text):
        raw_n = " ".join((m.group(1) or m.group(4) or "").lower().split())
        n = int(raw_n) if raw_n.isdigit() else EN_NUMBERS.get(raw_n.replace("a couple of", "couple of"), 1)
        unit = (m.group(2) or m.group(5) or "").lower().rstrip("s")
        sign = -1 if (m.group(3) or "").lower() == "ago" else 1
        out.append(_span(m, at, n * sign, unit))
    return out


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
_NUM_DMY = re.compile(r"(?<![\d/.:-])(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/.:-])"
                      r"|(?<![\d/.:-])(\d{1,2})\.(\d{1,2})\.(\d{4})(?![\d/.:-])")
_NUM_DM = re.compile(r"(?<![\d/.:-])(\d{1,2})[/-](\d{1,2})(?![\d/:-]|\.\d)")
#: "5.31" is a date only after a word of ending ("截止日期 5.31", "valid till 5.31") or before
#: one ("5.31前有效"): after "是" or "on" it is a number.
_NUM_DOT = re.compile(r"(?<![\d/.:-])(\d{1,2})\.(\d{1,2})(?![\d/:.-])")
_DOT_CUE_BEFORE = re.compile(
    r"(?:到|至|截止|截至|期限|日期|有效期|\b(?:until|till|til|thru|through|by|before|expires?|"
    r"expiring|exp|valid|good|deadline))\.?\s*[:：]?\s*$", re.I)
_ZH_HOLIDAY = re.compile(r"(?<![一二三四五六七八九十\d])(" + "|".join(
    sorted(HOLIDAYS_ZH, key=len, reverse=True)) + r")(?:节|節|假期|当天|當天)?(?![一二三四五六七八九十\d个個老])")
_EN_HOLIDAY = re.compile(rf"{_B}{EN_FORWARD}\s+(" + "|".join(
    sorted(HOLIDAYS_EN, key=len, reverse=True)) + rf"){_E}", re.I)
_ZH_LEFT = re.compile(
    rf"(?:还剩|還剩|剩下|只剩|仅剩|僅剩|还有|還有)\s*(({CN_NUM}{{1,3}})\s*(?:个|個)?(天|日|周|週|星期|个月|個月))"
    r"(?=\s*(?:就|便)?\s*(?:到期|过期|過期|失效|截止|有效|可用|能用|$|[，,。.!！]))")
_ZH_DAY_NO = re.compile(rf"(?<![\d月年/.:第-])({CN_NUM}{{1,3}})\s*[号號](?![码碼楼樓线線店房位机機车車])")
_ZH_MONTH_DAY_REL = re.compile(rf"(上|下|这|這|本)(?:个|個)?月\s*({CN_NUM}{{1,3}})\s*[号號日]")
_ZH_MONTH_PART = re.compile(
    rf"(?:{_NOT_IN_NUMBER}(?<![个個第每几幾])({_ZH_MONTH_NUM})\s*月份?"
    r"|(上|下|这|這|本)?(?:个|個)?(?<![岁歲日年每\d零〇一二两兩三四五六七八九十])月)(上旬|中旬|下旬|底|末|尾|中(?![国國文心午间間])|初(?![一二三四五六七八九十]))")
#: "这周末", "下個週末", or "周末前(有效)": a bare 周末 is any weekend ("周末经常在家").
_ZH_WEEKEND = re.compile(r"(上|下|这|這|本)(?:个|個)?(?:周末|週末)|(?:周末|週末)(?=\s*(?:前|之前|以前|到期|截止))")
_ZH_YEAR_END = re.compile(r"(?:(\d{4})\s*年|([今明去])年年?|(?<![每新过過拜跨\d])年)(底|末)")
_ZH_WITHIN = re.compile(
    rf"{_NOT_IN_NUMBER}(?<![近去这這最])(({_ONE_KIND_NUM})\s*(?:个|個)?(天|日|周|週|星期|礼拜|禮拜|个月|個月|小时|小時|钟头|鐘頭))"
    r"(?=\s*(?:之内|之內|以内|以內|内|內))"
    rf"|有效期\s*(?:为|為|是|:|：)?\s*(({_ONE_KIND_NUM})\s*(?:个|個)?(天|日|周|週|星期|个月|個月|小时|小時))")
_EN_NUMBER_WORD = r"\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten"
_EN_NTH = re.compile(
    rf"{_B}(?:until|till|til|thru|through|by|before|on|expires?|expiring|due|ends?|from|starting)"
    rf"\s+(the\s+(\d{{1,2}})(?:st|nd|rd|th)(?:\s+of\s+(this|next|the)\s+month)?)"
    r"(?=\s*(?:$|[^\w\s]|(?:and|or|but|so|at|then|is|please|too|only|because|if|when|right|"
    r"ok|okay|I|it|we|you)\b))", re.I)
_EN_END_OF = re.compile(
    rf"{_B}(?:the\s+)?end\s+of\s+(?:(the|this|next|the\s+following)\s+)?(week|month|year){_E}"
    rf"|{_B}(?:the\s+)?end\s+of\s+{_MON}{_E}(?!\s*\d)|{_B}(month|year)[-\s]end{_E}", re.I)
_EN_MID = re.compile(
    rf"{_B}(?:mid[-\s]?|(?:the\s+)?middle\s+of\s+){_MON}{_E}(?!\s*\d)"
    rf"|{_B}(?:mid[-\s]?|(?:the\s+)?middle\s+of\s+)(?:(this|next|the)\s+)?month{_E}", re.I)
_WEEKDAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_EN_FWD_DAY = re.compile(
    rf"{_B}{EN_FORWARD}\s+(?:on\s+)?((?:{_WEEKDAY_NAMES})(?!s)|the\s+weekend){_E}", re.I)
_EN_FOR_SPAN = re.compile(
    rf"{_B}(?:valid|good|usable|active|lasts|works?|last(?=\s+for))\s+(?:for\s+)?((?:another\s+|the\s+next\s+|"
    rf"up\s+to\s+)?({_EN_NUMBER_WORD})\s+(?:more\s+)?(days?|weeks?|months?|hours?)){_E}"
    rf"|{_B}within\s+((?:the\s+next\s+)?({_EN_NUMBER_WORD})\s+(days?|weeks?|months?|hours?)){_E}", re.I)
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
    return at + timedelta(days=n * (7 if unit.startswith(("周", "週", "星", "礼", "禮", "week"))
                                    else 1))


def _cued(text: str, start: int, end: int) -> bool:
    return bool(_CUE_BEFORE.search(text[max(0, start - CUE_CHARS):start])
                or _CUE_AFTER.match(text, end))


def _day_first(text: str) -> bool:
    """Does the turn write its dates day first (British)? Its evidence, in order: a numeric date
    that can only be read one way ("25/12"), a date in words ("3 May" vs "May 3"), a currency or
    spelling of a day-first place ("£", "colour"); without any, month first (US)."""
    for m in _NUM_DM.finditer(text):
        a, b = int(m.group(1)), int(m.group(2))
        if a > 12 >= b:
            return True
        if b > 12 >= a:
            return False
    dmy, mdy = _EN_DMY.search(text), _EN_MDY.search(text)
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
    return replace(_mk(m, day, "day", False, year_implied=year_implied), alt=alt)


def _day_of_month(m: re.Match[str], at: date, n: int, group: int = 0) -> TimeMatch | None:
    """A day of the month alone ("5号", "the 15th"): this month's, next month's as the other
    reading (this month's when it has no such day: next month's)."""
    this = safe_date(at.year, at.month, n)
    nxt_first = add_months(at, 1)
    nxt = safe_date(nxt_first.year, nxt_first.month, n)
    day = this or nxt
    if day is None:
        return None
    return replace(_mk(m, day, "day", False, group=group, year_implied=True),
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
        out += [_mk(m, day, "day", True)] if day else []
    for m in _ZH_MONTH_PART.finditer(text) if _ZH_PART_GATE.search(text) else ():
        part = ZH_MONTH_PARTS[m.group(3)]
        named = _year_month(at.year, cn_int(m.group(1)) or 0) if m.group(1) else None
        if m.group(1) and named is None:
            continue
        first = named or add_months(at, ZH_SHIFTS.get(m.group(2) or "", 0))
        day = first.replace(day=part) if part else _last_day(first)
        out.append(_mk(m, day, "day", not m.group(1), year_implied=bool(m.group(1))))
    for m in _ZH_YEAR_END.finditer(text) if "年底" in text or "年末" in text else ():
        year = int(m.group(1)) if m.group(1) else at.year + ZH_YEAR_OFFSETS.get(
            (m.group(2) or "今") + "年", 0)
        if 1 <= year <= 9999:
            out.append(_mk(m, date(year, 12, 31), "day", not m.group(1)))
    for m in _ZH_WEEKEND.finditer(text) if "周末" in text or "週末" in text else ():
        day = _week_start(at) + timedelta(weeks=ZH_SHIFTS.get(m.group(1) or "", 0), days=5)
        alt = day + timedelta(weeks=1) if m.group(1) is None and day < at else None
        out.append(replace(_mk(m, day, "day", True), alt=alt))
    for m in _ZH_HOLIDAY.finditer(text) if _ZH_HOLIDAY_GATE.search(text) else ():
        if _DAY_CUE_BEFORE.search(text[max(0, m.start() - 4):m.start()]) \
                or _CUE_AFTER.match(text, m.end()):
            month, dom = HOLIDAYS_ZH[m.group(1)]
            out.append(_mk(m, date(at.year, month, dom), "day", False, year_implied=True))
    for m in _ZH_LEFT.finditer(text) if "剩" in text or "还有" in text or "還有" in text else ():
        n = cn_int(m.group(2))
        if n is not None:
            unit = m.group(3)
            day = (_months_later(at, n) if unit.endswith("月") else
                   at + timedelta(days=n * (1 if unit in ("天", "日") else 7)))
            out.append(_mk(m, day, "day", True, group=1))
    for m in _ZH_WITHIN.finditer(text) if "内" in text or "內" in text or "有效期" in text else ():
        g = 1 if m.group(1) else 4
        n = cn_int(m.group(g + 1))
        if n is None:
            continue
        unit = m.group(g + 2)  # "24小时内" stays as said: a day would blur it
        out.append(_mk(m, _units_later(at, n, unit), "day", not unit.startswith(("小", "钟", "鐘")),
                       group=g))
    return out


def _loose_en(text: str, at: date) -> list[TimeMatch]:
    out: list[TimeMatch] = []
    low = text.lower()
    ahead = _FORWARD_GATE.search(low) is not None
    for m in _EN_HOLIDAY.finditer(text) if ahead and _HOLIDAY_GATE.search(low) else ():
        month, dom = HOLIDAYS_EN[" ".join(m.group(1).lower().split())]
        out.append(_mk(m, date(at.year, month, dom), "day", False, group=1, year_implied=True))
    for m in _EN_NTH.finditer(text) if _ORDINAL.search(text) else ():
        which = (m.group(3) or "").lower()
        if which:
            first = add_months(at, 1 if which == "next" else 0)
            day = safe_date(first.year, first.month, int(m.group(2)))
            out += [_mk(m, day, "day", True, group=1)] if day else []
            continue
        tm = _day_of_month(m, at, int(m.group(2)), group=1)
        out += [tm] if tm else []
    for m in _EN_END_OF.finditer(text) if "end" in low and _END_GATE.search(low) else ():
        if m.group(3):  # end of May
            out.append(_mk(m, _last_day(date(at.year, _month_of(m.group(3)), 1)), "day", False,
                           year_implied=True))
            continue
        unit = (m.group(2) or m.group(4)).lower()
        shift = 1 if (m.group(1) or "").lower().split()[-1:] in (["next"], ["following"]) else 0
        if unit == "week":
            day = _week_start(at) + timedelta(weeks=shift, days=6)
        elif unit == "month":
            day = _last_day(add_months(at, shift))
        else:
            day = date(at.year + shift, 12, 31)
        out.append(_mk(m, day, "day", True))
    for m in _EN_MID.finditer(text) if "mid" in low and _MID_GATE.search(low) else ():
        if m.group(1):
            out.append(_mk(m, date(at.year, _month_of(m.group(1)), 15), "day", False,
                           year_implied=True))
        else:
            first = add_months(at, 1 if (m.group(2) or "").lower() == "next" else 0)
            out.append(_mk(m, first.replace(day=15), "day", True))
    for m in _EN_FWD_DAY.finditer(text) if ahead and _DAY_GATE.search(low) else ():
        what = m.group(1).lower()
        wd = 5 if what.endswith("weekend") else WEEKDAYS_EN[what]
        out.append(_mk(m, at + timedelta(days=(wd - at.weekday()) % 7), "day", True, group=1))
    for m in _EN_FOR_SPAN.finditer(text) if _SPAN_GATE.search(low) \
            and _UNIT_GATE.search(low) else ():
        g = 1 if m.group(1) else 4
        raw = m.group(g + 1).lower()
        n = int(raw) if raw.isdigit() else EN_NUMBERS.get(raw, 1)
        out.append(_mk(m, _units_later(at, n, m.group(g + 2)), "day", False, group=g))
    return out


def _loose(text: str, at: date) -> list[TimeMatch]:
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
_UNIT_GATE = re.compile("day|week|month|hour")
_ZH_HOLIDAY_GATE = re.compile("[元情五劳勞国國双雙平圣聖](?:" + "|".join(
    h[1:] for h in sorted(HOLIDAYS_ZH, key=len, reverse=True)) + ")")


# ------------------------------------------------------------------------------------ entry
# Gates: each is a necessary condition of every pattern of the family it guards (a turn
# without a number before 年/月, a day word, a week word ... cannot hold a match), so most
# turns skip the grammar after one cheap search and the output is the same as without them.
_CN_DIGIT = r"[\d零〇一二两兩三四五六七八九十]"
_ZH_ABS_GATE = re.compile(rf"{_CN_DIGIT}\s*[年月]|\d[-/.]\d")
_ZH_REL_GATE = re.compile(
    r"(?=[今明后後昨前大去周週星礼禮上下这這本听聽琴寻尋\d零〇一二两兩三四五六七八九十])(?:"
    + "|".join(sorted({*ZH_DAY_OFFSETS, *ZH_YEAR_OFFSETS}, key=len, reverse=True))
    + rf"|周|週|星期|礼拜|禮拜|[上下这這本](?:个|個)?月|{_CN_DIGIT}\s*(?:个|個)?(?:天|周|週|星期|月|年))")
_EN_MONTH_GATE = re.compile(r"(?i)(?<![A-Za-z0-9])(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)")
_EN_YEAR_GATE = re.compile(r"\d{4}")
_EN_REL_GATE = re.compile(r"(?i)day|week|month|year|tonight|tomorrow|morning|afternoon|evening|night")


def find_times(text: str, at: datetime) -> list[TimeMatch]:
    """Every date expression in ``text``, resolved against ``at``, in text order; where two
    overlap the one that starts first wins, then the longer one."""
    today = at.astimezone(UTC).date() if at.tzinfo else at.date()
    found: list[TimeMatch] = []
    if _ZH_ABS_GATE.search(text):
        found += _zh_absolute(text, today)
    if _ZH_REL_GATE.search(text):
        found += _zh_relative(text, today)
    month = _EN_MONTH_GATE.search(text) is not None
    if month or _EN_YEAR_GATE.search(text):
        found += _en_absolute(text, today, month)
    if month or _EN_REL_GATE.search(text):
        found += _en_relative(text, today, month)
    found += _loose(text, today)
    found.sort(key=lambda t: (t.start, -(t.end - t.start)))
    chosen: list[TimeMatch] = []
    reach = -1
    for tm in found:  # sorted by start: overlapping a chosen one means starting before its end
        if tm.start < reach:
            continue
        chosen.append(tm)
        reach = tm.end
    out = []
    for tm in chosen:
        lang = "en" if tm.text[:1].isascii() else "zh"
        if tm.alt or tm.year_implied:  # the only ones an expiry may read ahead
            tm = replace(tm, said=today)
        out.append(_with_clock(text, tm, lang) if tm.grain == "day" else tm)
    return out


def _with_clock(text: str, tm: TimeMatch, lang: str) -> TimeMatch:
    """A day match extended with the part of day and/or clock time that follows it."""
    end, clock, part = clock_after(text, tm.end, tm.part, lang)
    if end == tm.end and part == tm.part:
        return tm
    return replace(tm, end=end, text=text[tm.start:end], value=_value(tm.day, tm.grain, clock, part),
                   clock=clock, part=part)


# ------------------------------------------------------------------------------------ rendering
#: Absolute wordings per language and grain ({y} year, {m} month, {d} day, {M} month name).
_WORDINGS: dict[str, dict[Grain, str]] = {
    "zh": {"year": "{y}年", "month": "{y}年{m}月", "week": "{y}年{m}月{d}日那周",
           "day": "{y}年{m}月{d}日"},
    "en": {"year": "in {y}", "month": "in {M} {y}", "week": "the week of {d} {M} {y}",
           "day": "{d} {M} {y}"},
}


def render(tm: TimeMatch, lang: str) -> str:
    """An absolute wording of ``tm`` in Chinese (``lang == "zh"``) or English."""
    d = tm.day
    zh = lang == "zh"
    s = _WORDINGS["zh" if zh else "en"][tm.grain].format(
        y=d.year, m=d.month, d=d.day, M=MONTH_NAMES[d.month - 1])
    if tm.grain != "day":
        return s
    if zh:
        return s + (PART_ZH.get(tm.part, "") if tm.part else "") + (tm.clock or "")
    if tm.part and not tm.clock:
        return f"on the {tm.part} of {s}"
    return f"on {s}" + (f" at {tm.clock}" if tm.clock else "")
