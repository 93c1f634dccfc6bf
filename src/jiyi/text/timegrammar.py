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
"good till Sunday", "3天内", "valid for 7 days"): :mod:`jiyi.text.timeloose`, read here with the
strict forms. :class:`TimeMatch`, the calendar helpers and :func:`render` are in
:mod:`jiyi.text.timebase`. A reader of an
expiry asks :meth:`TimeMatch.expiry_instant`, which takes the reading ahead of the day it was
said when the day as read is already past ("3/5" read day first, next month's "5号", next year's
"1月15日" said in December).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from .fastre import gate_all
from .timebase import (
    EN_DMY,
    EN_MDY,
    EN_MONTH,
    NOT_IN_NUMBER,
    WORD_END,
    WORD_START,
    ZH_MONTH_NUM,
    TimeMatch,
    add_months,
    is_year,
    match_of,
    month_of,
    normal_value,
    safe_date,
    span_match,
    week_start,
    year_month,
)
from .timeclock import clock_after
from .timeloose import loose_times
from .timewords import (
    CN_NUM,
    EN_DAY_OFFSETS,
    EN_NUMBERS,
    EN_SHIFTS,
    WEEKDAYS_EN,
    WEEKDAYS_ZH,
    ZH_DAY_OFFSETS,
    ZH_DAY_PARTS,
    ZH_SHIFTS,
    ZH_WEEKDAY_WORD,
    ZH_YEAR_OFFSETS,
    cn_int,
)

# ------------------------------------------------------------------------------------ Chinese
_ZH_WEEKDAY_WORD = ZH_WEEKDAY_WORD
_ZH_YMD = re.compile(rf"(\d{{4}})\s*年\s*({CN_NUM}{{1,3}})\s*月\s*({CN_NUM}{{1,3}})\s*[日号號]?")
#: A full date ("3月29日") may follow a code with no space ("优惠码MEMBER30UP3月29日之前能用"): a
#: letter before its month number is no part of it.
_ZH_MD = re.compile(rf"(?:(?<![\d年])(?=\d)|(?<![年零〇一二两兩三四五六七八九十])(?!\d))(\d{{1,3}}|[零〇一二两兩三四五六七八九十]{{1,3}})\s*月\s*({CN_NUM}{{1,3}})\s*[日号號]")
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
_ZH_YEAR_MONTH = re.compile(rf"({'|'.join(ZH_YEAR_OFFSETS)})\s*({ZH_MONTH_NUM})\s*月(?:份)?")
_ZH_BARE_MONTH = re.compile(
    rf"{NOT_IN_NUMBER}(?<![个個第每几幾])({ZH_MONTH_NUM})\s*月(?:份)?"
    rf"(?!\s*{CN_NUM}{{1,3}}\s*[日号號次回趟遍])")  # not 一月两次 (twice a month)
_ZH_SPAN = re.compile(rf"(?<!\d)({CN_NUM}{{1,3}})\s*(?:个|個)?(天|周|週|星期|个月|個月|年)(后|後|之后|之後|以后|以後|前|之前|以前)")


def _zh_absolute(text: str, at: date) -> list[TimeMatch]:
    """Dates that name their day or month: 2026年5月3日, 2026-05-03, 5月3日, 2026年5月, 五月."""
    out: list[TimeMatch] = []
    for m in _ZH_YMD.finditer(text):
        day = safe_date(int(m.group(1)), cn_int(m.group(2)) or 0, cn_int(m.group(3)) or 0)
        if day:
            out.append(match_of(m, day, "day", False))
    for m in _NUM_DATE.finditer(text):
        day = safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if day:
            out.append(match_of(m, day, "day", False))
    for m in _ZH_MD.finditer(text):
        day = safe_date(at.year, cn_int(m.group(1)) or 0, cn_int(m.group(2)) or 0)
        if day:
            out.append(match_of(m, day, "day", False, year_implied=True))
    for m in _ZH_YM.finditer(text):
        first = year_month(int(m.group(1)), cn_int(m.group(2)) or 0)
        if first:
            out.append(match_of(m, first, "month", False))
    for m in _ZH_YEAR_MONTH.finditer(text):
        first = year_month(at.year + ZH_YEAR_OFFSETS[m.group(1)], cn_int(m.group(2)) or 0)
        if first:
            out.append(match_of(m, first, "month", True))
    for m in _ZH_BARE_MONTH.finditer(text):
        first = year_month(at.year, cn_int(m.group(1)) or 0)
        if first:
            out.append(match_of(m, first, "month", False, year_implied=True))
    for m in _ZH_YEAR_ABS.finditer(text):
        if is_year(int(m.group(1))):
            out.append(match_of(m, date(int(m.group(1)), 1, 1), "year", False))
    return out


def _zh_relative(text: str, at: date) -> list[TimeMatch]:
    """Dates named from today: 大前天, 下週三, 上个月, 去年, 三天前, 两周后."""
    out: list[TimeMatch] = []
    for m in _ZH_DAY.finditer(text):
        word = m.group(0)
        day = at + timedelta(days=ZH_DAY_OFFSETS[word])
        part = ZH_DAY_PARTS.get(word)
        out.append(TimeMatch(m.start(), m.end(), word, normal_value(day, "day", None, part), "day",
                             day, True, None, part))
    for m in _ZH_WEEKDAY.finditer(text):
        shift = ZH_SHIFTS.get(m.group(1) or "", 0)
        day = week_start(at) + timedelta(weeks=shift, days=WEEKDAYS_ZH[m.group(2)])
        # "周五前" said on a Saturday: this week's Friday, or next week's as an expiry
        alt = day + timedelta(weeks=1) if m.group(1) is None and day < at else None
        out.append(replace(match_of(m, day, "day", True), alt=alt))
    for m in _ZH_WEEK.finditer(text):
        out.append(match_of(m, week_start(at) + timedelta(weeks=ZH_SHIFTS[m.group(1)]), "week", True))
    for m in _ZH_MONTH.finditer(text):
        out.append(match_of(m, add_months(at, ZH_SHIFTS[m.group(1)]), "month", True))
    for m in _ZH_YEAR.finditer(text):
        out.append(match_of(m, date(at.year + ZH_YEAR_OFFSETS[m.group(0)], 1, 1), "year", True))
    for m in _ZH_SPAN.finditer(text):
        n = cn_int(m.group(1))
        if n is None:
            continue
        sign = -1 if m.group(3).endswith("前") else 1
        unit = m.group(2)
        out.append(span_match(m, at, n * sign, "day" if unit == "天" else
                         "week" if unit in ("周", "週", "星期") else
                         "month" if unit.endswith("月") else "year"))
    return out



# ------------------------------------------------------------------------------------ English
_EN_MY = re.compile(rf"{WORD_START}{EN_MONTH}\s+(?:of\s+)?(\d{{4}}){WORD_END}", re.I)
# a month without a number counts only when marked ("last May", "in May"): "may" is also a verb
_EN_REL_MONTH = re.compile(rf"{WORD_START}(last|this|next|coming|past)\s+{EN_MONTH}{WORD_END}(?!\s*\d)", re.I)
_EN_IN_MONTH = re.compile(rf"{WORD_START}(?:in|during|since|of|by|until|before|after)\s+{EN_MONTH}{WORD_END}(?!\s*\d)", re.I)
_EN_IN_YEAR = re.compile(rf"{WORD_START}(?:in|during|since)\s+(\d{{4}}){WORD_END}(?![.,:]\d)", re.I)
_EN_DAY = re.compile(rf"{WORD_START}(?:(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)|today|tonight|tomorrow|yesterday|this\s+(?:morning|afternoon|evening)|last\s+night){WORD_END}", re.I)
_EN_REL = re.compile(rf"{WORD_START}(last|next|this|coming|past)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|week|month|year){WORD_END}", re.I)
_EN_SPAN = re.compile(rf"{WORD_START}(\d{{1,3}}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+couple\s+of|couple\s+of)\s+(days?|weeks?|fortnights?|months?|years?)\s+(ago|later|from\s+(?:now|today)){WORD_END}|{WORD_START}in\s+(\d{{1,3}}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?|fortnights?|months?|years?){WORD_END}", re.I)
_MODAL_SUBJECTS = ("i", "we", "it", "you", "they", "he", "she")


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
            if is_year(int(m.group(1))):
                out.append(match_of(m, date(int(m.group(1)), 1, 1), "year", False, group=1))
        return out
    for rx, day_group, mon_group in ((EN_DMY, 1, 2), (EN_MDY, 2, 1)):
        for m in rx.finditer(text):
            if not m.group(3) and _verb_month(text, m, mon_group):
                continue
            year = int(m.group(3)) if m.group(3) else at.year
            day = safe_date(year, month_of(m.group(mon_group)), int(m.group(day_group)))
            if day:
                out.append(match_of(m, day, "day", False, year_implied=not m.group(3)))
    for m in _EN_MY.finditer(text):
        first = year_month(int(m.group(2)), month_of(m.group(1)))
        if first:
            out.append(match_of(m, first, "month", False))
    for m in _EN_IN_MONTH.finditer(text):
        first = date(at.year, month_of(m.group(1)), 1)
        out.append(match_of(m, first, "month", False, group=1, year_implied=True))
    for m in _EN_IN_YEAR.finditer(text):
        if is_year(int(m.group(1))):
            out.append(match_of(m, date(int(m.group(1)), 1, 1), "year", False, group=1))
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
        out.append(TimeMatch(m.start(), m.end(), m.group(0), normal_value(day, "day", None, part),
                             "day", day, True, None, part))
    for m in _EN_REL.finditer(text):
        which, what = m.group(1).lower(), m.group(2).lower()
        shift = EN_SHIFTS[which]
        if what in WEEKDAYS_EN:
            wd = WEEKDAYS_EN[what]
            if shift < 0:  # the most recent one before today
                day = at - timedelta(days=(at.weekday() - wd) % 7 or 7)
            elif shift == 0:
                day = week_start(at) + timedelta(days=wd)
            else:  # the first one after today
                day = at + timedelta(days=(wd - at.weekday()) % 7 or 7)
            out.append(match_of(m, day, "day", True))
        elif what == "weekend":
            out.append(match_of(m, week_start(at) + timedelta(weeks=shift, days=5), "day", True))
        elif what == "week":
            out.append(match_of(m, week_start(at) + timedelta(weeks=shift), "week", True))
        elif what == "month":
            out.append(match_of(m, add_months(at, shift), "month", True))
        else:
            out.append(match_of(m, date(at.year + shift, 1, 1), "year", True))
    for m in _EN_REL_MONTH.finditer(text) if has_month else ():
        shift, month = EN_SHIFTS[m.group(1).lower()], month_of(m.group(2))
        if shift == 0 and m.group(2) != "May" and month == 5:
            continue  # "this may be": the verb; only a capital "this May" is the month
        year = at.year
        if shift < 0 and month >= at.month:  # last May: the most recent May before this month
            year -= 1
        elif shift > 0 and month <= at.month:  # next May: the first May after this month
            year += 1
        out.append(match_of(m, date(year, month, 1), "month", True))
    for m in _EN_SPAN.finditer(text):
        raw_n = " ".join((m.group(1) or m.group(4) or "").lower().split())
        n = int(raw_n) if raw_n.isdigit() else EN_NUMBERS.get(raw_n.replace("a couple of", "couple of"), 1)
        unit = (m.group(2) or m.group(5) or "").lower().rstrip("s")
        if unit == "fortnight":  # two weeks
            n, unit = n * 2, "week"
        sign = -1 if (m.group(3) or "").lower() == "ago" else 1
        out.append(span_match(m, at, n * sign, unit))
    return out


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
_EN_REL_GATE = re.compile(r"(?i)day|week|fortnight|month|year|tonight|tomorrow|morning|afternoon|evening|night")


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
    found += loose_times(text, today)
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
    return replace(tm, end=end, text=text[tm.start:end], value=normal_value(tm.day, tm.grain, clock, part),
                   clock=clock, part=part)


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
