"""Dates and times in Chinese (Simplified and Traditional) and English, resolved against ``at``.

Pure functions of ``(text, at)``: "明天早上", "下週三", "5月3日", "last Friday", "3 days ago"
become :class:`TimeMatch` values with a normalised value (``2026-05-02 morning``, ``2026-W19``,
``2026-06``, ``2027``) and an absolute rendering used to rewrite relative expressions inside a
unit's content. Days are calendar days in UTC (the timezone of ``at``). Impossible dates such as
``2月30日`` are not dates: they yield nothing rather than a wrong day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

Grain = Literal["day", "week", "month", "year"]

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_CN_NUM = "[0-9零〇一二两兩三四五六七八九十]"
_MONTHS_EN = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December")
_WEEKDAYS_EN = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
                "saturday": 5, "sunday": 6}
_WEEKDAY_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6,
               "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6}
_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
               "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2}
_PARTS = {  # part of day -> (canonical, zh, en, hour offset for "下午3点")
    "早上": "morning", "早晨": "morning", "上午": "morning", "清晨": "morning", "中午": "noon",
    "下午": "afternoon", "傍晚": "evening", "晚上": "evening", "夜里": "night", "夜裡": "night",
    "凌晨": "night", "morning": "morning", "afternoon": "afternoon", "evening": "evening",
    "night": "night", "noon": "noon",
}
_PM_PARTS = {"afternoon", "evening", "night"}


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

    def end_instant(self) -> datetime:
        """The first instant after the period the expression denotes (for ``valid_until``)."""
        if self.clock:
            hh, mm = (int(x) for x in self.clock.split(":"))
            base = datetime(self.day.year, self.day.month, self.day.day, hh, mm,
                            tzinfo=UTC)
            return base + timedelta(minutes=1)
        if self.grain == "day":
            nxt = self.day + timedelta(days=1)
        elif self.grain == "week":
            nxt = self.day + timedelta(days=7)
        elif self.grain == "month":
            nxt = _add_months(self.day, 1)
        else:
            nxt = date(self.day.year + 1, 1, 1)
        return datetime(nxt.year, nxt.month, nxt.day, tzinfo=UTC)

    def render(self, lang: str) -> str:
        """An absolute wording of the expression, e.g. ``2026年5月2日早上`` / ``2 May 2026``."""
        return render(self, lang)


def cn_int(text: str) -> int | None:
    """``"12"``, ``"十二"``, ``"二十三"``, ``"三十一"`` -> int; None when not a number."""
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _CN_DIGITS and ch != "十" for ch in text):
        return None
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = _CN_DIGITS.get(tens) if tens else 1
        o = _CN_DIGITS.get(ones) if ones else 0
        if t is None or o is None:
            return None
        return t * 10 + o
    value = 0
    for ch in text:
        value = value * 10 + _CN_DIGITS[ch]
    return value


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _add_months(d: date, months: int) -> date:
    idx = d.year * 12 + (d.month - 1) + months
    year, month = divmod(idx, 12)
    return date(year, month + 1, 1)


def _week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _iso_week(d: date) -> str:
    year, week, _ = d.isocalendar()
    return f"{year}-W{week:02d}"


def _value(day: date, grain: Grain, clock: str | None = None, part: str | None = None) -> str:
    if grain == "year":
        return f"{day.year}"
    if grain == "month":
        return f"{day.year}-{day.month:02d}"
    if grain == "week":
        return _iso_week(day)
    if clock:
        return f"{day.isoformat()}T{clock}"
    if part:
        return f"{day.isoformat()} {part}"
    return day.isoformat()


def _mk(m: re.Match[str], day: date, grain: Grain, relative: bool) -> TimeMatch:
    return TimeMatch(m.start(), m.end(), m.group(0), _value(day, grain), grain, day, relative)


# ------------------------------------------------------------------------------------ Chinese
_ZH_YMD = re.compile(rf"(\d{{4}})\s*年\s*({_CN_NUM}{{1,3}})\s*月\s*({_CN_NUM}{{1,3}})\s*[日号號]?")
_ZH_MD = re.compile(rf"(?<![\d年])({_CN_NUM}{{1,3}})\s*月\s*({_CN_NUM}{{1,3}})\s*[日号號]")
_ZH_YM = re.compile(rf"(\d{{4}})\s*年\s*({_CN_NUM}{{1,3}})\s*月(?!\s*{_CN_NUM})")
_NUM_DATE = re.compile(r"(?<![\d.])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d])")
_ZH_DAY = re.compile(r"大后天|大後天|大前天|今天|今日|今晚|今早|明天|明日|明早|明晚|后天|後天|昨天|昨日|昨晚|前天")
_ZH_DAY_OFFSETS = {"大后天": 3, "大後天": 3, "大前天": -3, "今天": 0, "今日": 0, "今晚": 0, "今早": 0,
                   "明天": 1, "明日": 1, "明早": 1, "明晚": 1, "后天": 2, "後天": 2, "昨天": -1,
                   "昨日": -1, "昨晚": -1, "前天": -2}
_ZH_DAY_PARTS = {"今晚": "evening", "今早": "morning", "明早": "morning", "明晚": "evening",
                 "昨晚": "evening"}
_ZH_WEEKDAY = re.compile(r"(上上|下下|上|下|这|這|本)?(?:个|個)?(?:周|週|星期|礼拜|禮拜)([一二三四五六日天1-7])")
_ZH_WEEK = re.compile(r"(上|下|这|這|本)(?:个|個)?(?:周|週|星期|礼拜|禮拜)(?![一二三四五六日天1-7末])")
_ZH_MONTH = re.compile(r"(上|下|这|這|本)(?:个|個)?月(?![0-9一二三四五六七八九十底初])|本月")
_ZH_YEAR = re.compile(r"去年|今年|明年|前年|后年|後年")
_ZH_YEAR_OFFSETS = {"去年": -1, "今年": 0, "明年": 1, "前年": -2, "后年": 2, "後年": 2}
_ZH_SPAN = re.compile(rf"({_CN_NUM}{{1,3}})\s*(?:个|個)?(天|周|週|星期|个月|個月|年)(后|後|之后|之後|以后|以後|前|之前|以前)")
_ZH_PART = re.compile("|".join(sorted((k for k in _PARTS if not k.isascii()), key=len, reverse=True)))
_ZH_CLOCK = re.compile(rf"({_CN_NUM}{{1,3}})\s*[点點时時](?:\s*(半|一刻|三刻|({_CN_NUM}{{1,3}})\s*分?))?|(?<!\d)(\d{{1,2}}):(\d{{2}})(?!\d)")


def _zh_dates(text: str, at: date) -> list[TimeMatch]:
    out: list[TimeMatch] = []
    for m in _ZH_YMD.finditer(text):
        y, mo, d = int(m.group(1)), cn_int(m.group(2)), cn_int(m.group(3))
        day = _safe_date(y, mo or 0, d or 0)
        if day:
            out.append(_mk(m, day, "day", False))
    for m in _NUM_DATE.finditer(text):
        day = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if day:
            out.append(_mk(m, day, "day", False))
    for m in _ZH_MD.finditer(text):
        mo, d = cn_int(m.group(1)), cn_int(m.group(2))
        day = _safe_date(at.year, mo or 0, d or 0)
        if day:
            out.append(_mk(m, day, "day", False))
    for m in _ZH_YM.finditer(text):
        mo = cn_int(m.group(2)) or 0
        if 1 <= mo <= 12:
            out.append(_mk(m, date(int(m.group(1)), mo, 1), "month", False))
    for m in _ZH_DAY.finditer(text):
        word = m.group(0)
        day = at + timedelta(days=_ZH_DAY_OFFSETS[word])
        part = _ZH_DAY_PARTS.get(word)
        out.append(TimeMatch(m.start(), m.end(), word, _value(day, "day", None, part), "day",
                             day, True, None, part))
    for m in _ZH_WEEKDAY.finditer(text):
        shift = {"上上": -2, "上": -1, "下": 1, "下下": 2}.get(m.group(1) or "", 0)
        day = _week_start(at) + timedelta(weeks=shift, days=_WEEKDAY_ZH[m.group(2)])
        out.append(_mk(m, day, "day", True))
    for m in _ZH_WEEK.finditer(text):
        shift = {"上": -1, "下": 1}.get(m.group(1), 0)
        out.append(_mk(m, _week_start(at) + timedelta(weeks=shift), "week", True))
    for m in _ZH_MONTH.finditer(text):
        shift = {"上": -1, "下": 1}.get(m.group(1) or "", 0)
        out.append(_mk(m, _add_months(at, shift), "month", True))
    for m in _ZH_YEAR.finditer(text):
        out.append(_mk(m, date(at.year + _ZH_YEAR_OFFSETS[m.group(0)], 1, 1), "year", True))
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
_EN_DMY = re.compile(rf"(?<![A-Za-z0-9])(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON}(?:,?\s+(\d{{4}}))?(?![A-Za-z0-9])")
_EN_MDY = re.compile(rf"(?<![A-Za-z0-9]){_MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![A-Za-z0-9])(?:,?\s+(\d{{4}})(?![A-Za-z0-9]))?")
_EN_MY = re.compile(rf"(?<![A-Za-z0-9]){_MON}\s+(?:of\s+)?(\d{{4}})(?![A-Za-z0-9])")
_EN_DAY = re.compile(r"(?<![A-Za-z0-9])(?:the\s+day\s+(?:before\s+yesterday|after\s+tomorrow)|today|tonight|tomorrow|yesterday|this\s+(?:morning|afternoon|evening)|last\s+night)(?![A-Za-z0-9])", re.I)
_EN_REL = re.compile(r"(?<![A-Za-z0-9])(last|next|this|coming|past)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|week|month|year)(?![A-Za-z0-9])", re.I)
_EN_SPAN = re.compile(r"(?<![A-Za-z0-9])(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+couple\s+of|couple\s+of)\s+(days?|weeks?|months?|years?)\s+(ago|later|from\s+now)(?![A-Za-z0-9])|(?<![A-Za-z0-9])in\s+(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?|months?|years?)(?![A-Za-z0-9])", re.I)
_EN_CLOCK = re.compile(r"(?<![0-9A-Za-z:])(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?![A-Za-z])|(?<![0-9:])(\d{1,2}):(\d{2})(?![0-9:])", re.I)
_EN_PART = re.compile(r"(?<![A-Za-z0-9])(?:in\s+the\s+|this\s+|tomorrow\s+|yesterday\s+)?(morning|afternoon|evening|night)(?![A-Za-z0-9])", re.I)


def _span(m: re.Match[str], at: date, n: int, unit: str) -> TimeMatch:
    if unit == "day":
        return _mk(m, at + timedelta(days=n), "day", True)
    if unit == "week":
        return _mk(m, at + timedelta(weeks=n), "day", True)
    if unit == "month":
        return _mk(m, _add_months(at, n), "month", True)
    return _mk(m, date(at.year + n, 1, 1), "year", True)


def _en_dates(text: str, at: date) -> list[TimeMatch]:
    out: list[TimeMatch] = []
    for rx, order in ((_EN_DMY, "dmy"), (_EN_MDY, "mdy")):
        for m in rx.finditer(text):
            if order == "dmy":
                d, mon, y = m.group(1), m.group(2), m.group(3)
            else:
                mon, d, y = m.group(1), m.group(2), m.group(3)
            if order == "mdy" and mon.lower() == "may" and not y and m.start() > 0 \
                    and text[max(0, m.start() - 2):m.start()].strip().lower() in ("i", "we", "it"):
                continue
            day = _safe_date(int(y) if y else at.year, _MONTHS_EN[mon.lower().rstrip(".")], int(d))
            if day:
                out.append(_mk(m, day, "day", False))
    for m in _EN_MY.finditer(text):
        out.append(_mk(m, date(int(m.group(2)), _MONTHS_EN[m.group(1).lower().rstrip(".")], 1),
                       "month", False))
    for m in _EN_DAY.finditer(text):
        word = " ".join(m.group(0).lower().split())
        offset = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1, "last night": -1,
                  "the day before yesterday": -2, "the day after tomorrow": 2}.get(word, 0)
        day = at + timedelta(days=offset)
        part = ("evening" if word == "tonight" else "night" if word == "last night"
                else word[5:] if word.startswith("this ") else None)
        out.append(TimeMatch(m.start(), m.end(), m.group(0), _value(day, "day", None, part),
                             "day", day, True, None, part))
    for m in _EN_REL.finditer(text):
        which, what = m.group(1).lower(), m.group(2).lower()
        shift = {"last": -1, "past": -1, "next": 1, "coming": 1}.get(which, 0)
        if what in _WEEKDAYS_EN:
            wd = _WEEKDAYS_EN[what]
            if which in ("last", "past"):
                back = (at.weekday() - wd) % 7 or 7
                day = at - timedelta(days=back)
            elif which == "this":
                day = _week_start(at) + timedelta(days=wd)
            else:
                ahead = (wd - at.weekday()) % 7 or 7
                day = at + timedelta(days=ahead)
            out.append(_mk(m, day, "day", True))
        elif what == "weekend":
            sat = _week_start(at) + timedelta(weeks=shift, days=5)
            out.append(_mk(m, sat, "day", True))
        elif what == "week":
            out.append(_mk(m, _week_start(at) + timedelta(weeks=shift), "week", True))
        elif what == "month":
            out.append(_mk(m, _add_months(at, shift), "month", True))
        else:
            out.append(_mk(m, date(at.year + shift, 1, 1), "year", True))
    for m in _EN_SPAN.finditer(text):
        raw_n = (m.group(1) or m.group(4) or "").lower()
        raw_n = " ".join(raw_n.split())
        n = int(raw_n) if raw_n.isdigit() else _EN_NUMBERS.get(raw_n.replace("a couple of", "couple of"), 1)
        unit = (m.group(2) or m.group(5) or "").lower().rstrip("s")
        sign = -1 if (m.group(3) or "").lower() == "ago" else 1
        out.append(_span(m, at, n * sign, unit))
    return out


# ------------------------------------------------------------------------------------ merging
def _attach_clock(text: str, tm: TimeMatch, lang: str) -> TimeMatch:
    """Extend a day match with a following part of day and/or clock time."""
    pos, part, clock = tm.end, tm.part, None
    rest = text[pos:pos + 24]
    if lang == "zh":
        pm = _ZH_PART.match(rest.lstrip())
        if pm:
            skip = len(rest) - len(rest.lstrip())
            part = _PARTS[pm.group(0)]
            pos += skip + pm.end()
            rest = text[pos:pos + 16]
        cm = _ZH_CLOCK.match(rest.lstrip())
        if cm:
            skip = len(rest) - len(rest.lstrip())
            if cm.group(4):
                hh, mm = int(cm.group(4)), int(cm.group(5))
            else:
                hh = cn_int(cm.group(1)) or 0
                half = cm.group(2) or ""
                mm = 30 if half == "半" else 15 if half == "一刻" else 45 if half == "三刻" else (
                    cn_int(cm.group(3)) or 0 if cm.group(3) else 0)
            if part in _PM_PARTS and hh < 12:
                hh += 12
            if hh <= 24 and mm < 60:
                clock = f"{hh % 24:02d}:{mm:02d}"
                pos += skip + cm.end()
    else:
        cm = re.match(r"\s*(?:at\s+|,\s*)?", rest)
        after = pos + (cm.end() if cm else 0)
        em = _EN_CLOCK.match(text, after)
        if em:
            hh = int(em.group(1) or em.group(4))
            mm = int(em.group(2) or em.group(5) or 0)
            ampm = (em.group(3) or "").lower().replace(".", "")
            if ampm == "pm" and hh < 12:
                hh += 12
            if ampm == "am" and hh == 12:
                hh = 0
            if hh < 24 and mm < 60:
                clock = f"{hh:02d}:{mm:02d}"
                pos = em.end()
        else:
            pm2 = re.match(r"\s+(morning|afternoon|evening|night)\b", text[pos:pos + 16], re.I)
            if pm2 and tm.grain == "day":
                part = pm2.group(1).lower()
                pos += pm2.end()
    if pos == tm.end and part == tm.part:
        return tm
    return TimeMatch(tm.start, pos, text[tm.start:pos], _value(tm.day, tm.grain, clock, part),
                     tm.grain, tm.day, tm.relative, clock, part)


_ZH_GATE = re.compile(r"[天日号號周週星期拜月年后後前晚早]|\d[-/.]\d")
_EN_GATE = re.compile(r"(?i)day|night|tomorrow|morning|afternoon|evening|week|month|year|ago|"
                      r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d[-/.]\d")


def find_times(text: str, at: datetime) -> list[TimeMatch]:
    """Every date expression in ``text``, resolved against ``at``; longest match wins."""
    today = at.astimezone(UTC).date() if at.tzinfo else at.date()
    found: list[TimeMatch] = []
    if _ZH_GATE.search(text):
        found += _zh_dates(text, today)
    if _EN_GATE.search(text):
        found += _en_dates(text, today)
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
        out.append(_attach_clock(text, tm, lang) if tm.grain == "day" else tm)
    return out


# ------------------------------------------------------------------------------------ rendering
_PART_ZH = {"morning": "早上", "noon": "中午", "afternoon": "下午", "evening": "晚上", "night": "夜里"}


def render(tm: TimeMatch, lang: str) -> str:
    d = tm.day
    if lang == "zh":
        if tm.grain == "year":
            return f"{d.year}年"
        if tm.grain == "month":
            return f"{d.year}年{d.month}月"
        if tm.grain == "week":
            return f"{d.year}年{d.month}月{d.day}日那周"
        s = f"{d.year}年{d.month}月{d.day}日"
        if tm.part:
            s += _PART_ZH.get(tm.part, "")
        if tm.clock:
            s += tm.clock
        return s
    if tm.grain == "year":
        return f"in {d.year}"
    if tm.grain == "month":
        return f"in {_MONTH_NAMES[d.month - 1]} {d.year}"
    if tm.grain == "week":
        return f"the week of {d.day} {_MONTH_NAMES[d.month - 1]} {d.year}"
    s = f"{d.day} {_MONTH_NAMES[d.month - 1]} {d.year}"
    if tm.part and not tm.clock:
        return f"on the {tm.part} of {s}"
    return f"on {s}" + (f" at {tm.clock}" if tm.clock else "")


@dataclass(frozen=True)
class ClockMatch:
    start: int
    end: int
    text: str
    value: str  # "15:30"


def find_clocks(text: str) -> list[ClockMatch]:
    """Clock times on their own ("下午3点半", "9:30", "3pm"), normalised to ``HH:MM``."""
    out: list[ClockMatch] = []
    for m in re.finditer(rf"({_ZH_PART.pattern})?\s*({_ZH_CLOCK.pattern})", text):
        part = _PARTS.get(m.group(1) or "")
        if m.group(6):
            hh, mm = int(m.group(6)), int(m.group(7))
        else:
            hh = cn_int(m.group(3)) or 0
            half = m.group(4) or ""
            mm = 30 if half == "半" else 15 if half == "一刻" else 45 if half == "三刻" else (
                cn_int(m.group(5)) or 0 if m.group(5) else 0)
        if part in _PM_PARTS and hh < 12:
            hh += 12
        if hh < 24 and mm < 60:
            out.append(ClockMatch(m.start(), m.end(), m.group(0), f"{hh:02d}:{mm:02d}"))
    for m in _EN_CLOCK.finditer(text):
        if any(c.start <= m.start() < c.end for c in out):
            continue
        hh = int(m.group(1) or m.group(4))
        mm = int(m.group(2) or m.group(5) or 0)
        ampm = (m.group(3) or "").lower().replace(".", "")
        if ampm == "pm" and hh < 12:
            hh += 12
        if ampm == "am" and hh == 12:
            hh = 0
        if hh < 24 and mm < 60:
            out.append(ClockMatch(m.start(), m.end(), m.group(0), f"{hh:02d}:{mm:02d}"))
    return out
