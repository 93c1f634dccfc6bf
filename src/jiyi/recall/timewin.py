"""Time expressions in a query -> a window ``[since, until)`` on ``valid_at``/``created_at``.

Pure functions of ``(query, as_of)``. Chinese (Simplified and Traditional, folded first) and
English. "上周" / "last week" is the calendar week before the week of ``as_of`` (weeks start on
Monday); "last May" / "去年五月" the most recent May strictly before ``as_of``'s month; a day
("5月2日那天", "May 2", "2023-05-02") is that whole day (UTC). Only the first expression counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..text import fold

MONTHS_EN = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"])}
MONTHS_EN.update({m[:3]: i for m, i in list(MONTHS_EN.items())})
MONTHS_EN["sept"] = 9
_ZH_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
           "十": 10, "十一": 11, "十二": 12}


@dataclass(frozen=True)
class TimeWindow:
    since: datetime
    until: datetime
    text: str  # the expression that produced it


def _day(t: datetime) -> datetime:
    return datetime(t.year, t.month, t.day, tzinfo=UTC)


def _month(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _safe_day(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _month_before(as_of: datetime, month: int, allow_current: bool) -> int:
    """The year of the most recent ``month`` not after ``as_of`` (strictly before for "last")."""
    if month < as_of.month or (allow_current and month == as_of.month):
        return as_of.year
    return as_of.year - 1


_MONTH_ALT = "|".join(sorted(MONTHS_EN, key=len, reverse=True))
_RX_ISO = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
_RX_ZH_DAY = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号]")
_RX_ZH_MONTH = re.compile(r"(去年|今年|(\d{4})年)?([一二三四五六七八九十]{1,2}|\d{1,2})月(?:份)?")
_RX_EN_DAY = re.compile(
    rf"\b(?:({_MONTH_ALT})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_ALT}))\b(?:,?\s*(\d{{4}}))?")
_RX_EN_MONTH = re.compile(rf"\b(last\s+|this\s+)?({_MONTH_ALT})\b(?:\s+(?:of\s+)?(\d{{4}}))?")
_RX_AGO = re.compile(r"(\d+)\s*(?:天前|days?\s+ago)")
_RX_YEAR = re.compile(r"(?:\bin\s+(\d{4})\b|(\d{4})年(?!\d{0,2}月))")


def time_window(query: str, as_of: datetime) -> TimeWindow | None:
    """The time window a query talks about, or ``None``."""
    text = fold(query)
    today = _day(as_of)
    week_start = today - timedelta(days=today.weekday())

    relative: list[tuple[re.Pattern[str], tuple[datetime, datetime]]] = [
        (re.compile(r"前天|day before yesterday"), (today - timedelta(2), today - timedelta(1))),
        (re.compile(r"昨天|昨日|yesterday"), (today - timedelta(1), today)),
        (re.compile(r"今天|今日|today"), (today, today + timedelta(1))),
        (re.compile(r"上周|上星期|上个星期|上礼拜|last week"),
         (week_start - timedelta(7), week_start)),
        (re.compile(r"这周|本周|这个星期|this week"), (week_start, week_start + timedelta(7))),
        (re.compile(r"上个月|上月|last month"),
         _month(*((as_of.year - 1, 12) if as_of.month == 1 else (as_of.year, as_of.month - 1)))),
        (re.compile(r"这个月|本月|this month"), _month(as_of.year, as_of.month)),
        (re.compile(r"去年|last year"), (datetime(as_of.year - 1, 1, 1, tzinfo=UTC),
                                        datetime(as_of.year, 1, 1, tzinfo=UTC))),
        (re.compile(r"最近|近来|recently|lately"), (today - timedelta(7), today + timedelta(1))),
    ]

    m = _RX_ISO.search(text)
    if m:
        d = _safe_day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if d:
            return TimeWindow(d, d + timedelta(1), m.group(0))
    m = _RX_ZH_DAY.search(text)
    if m:
        month, day = int(m.group(2)), int(m.group(3))
        year = int(m.group(1)) if m.group(1) else _month_before(as_of, month, True)
        d = _safe_day(year, month, day)
        if d:
            if d > as_of and not m.group(1):
                d = _safe_day(year - 1, month, day) or d
            return TimeWindow(d, d + timedelta(1), m.group(0))
    m = _RX_EN_DAY.search(text)
    if m:
        mon = MONTHS_EN[m.group(1) or m.group(4)]
        day = int(m.group(2) or m.group(3))
        year = int(m.group(5)) if m.group(5) else _month_before(as_of, mon, True)
        d = _safe_day(year, mon, day)
        if d:
            return TimeWindow(d, d + timedelta(1), m.group(0))
    m = _RX_AGO.search(text)
    if m:
        d = today - timedelta(days=int(m.group(1)))
        return TimeWindow(d, d + timedelta(1), m.group(0))
    m = _RX_ZH_MONTH.search(text)
    if m:
        raw = m.group(3)
        month = _ZH_NUM.get(raw) or (int(raw) if raw.isdigit() else 0)
        if 1 <= month <= 12:
            if m.group(2):
                year = int(m.group(2))
            elif m.group(1) == "去年":
                year = as_of.year - 1
            elif m.group(1) == "今年":
                year = as_of.year
            else:
                year = _month_before(as_of, month, True)
            return TimeWindow(*_month(year, month), m.group(0))
    for m in _RX_EN_MONTH.finditer(text):
        # a bare month name counts only when marked ("last May", "May 2023", "in May"), so the
        # modal verb "may" is never a month
        marked = m.group(1) or m.group(3) or re.search(
            rf"\b(?:in|during|since|of)\s+{m.group(2)}\b", text)
        if not marked:
            continue
        mon = MONTHS_EN[m.group(2)]
        if m.group(3):
            year = int(m.group(3))
        else:
            last = (m.group(1) or "").startswith("last")
            year = _month_before(as_of, mon, allow_current=not last)
        return TimeWindow(*_month(year, mon), m.group(0))
    for rx, (since, until) in relative:
        rm = rx.search(text)
        if rm:
            return TimeWindow(since, until, rm.group(0))
    m = _RX_YEAR.search(text)
    if m:
        year = int(m.group(1) or m.group(2))
        if 1900 < year < 2200:
            return TimeWindow(datetime(year, 1, 1, tzinfo=UTC),
                              datetime(year + 1, 1, 1, tzinfo=UTC), m.group(0))
    return None
