"""The shared parts of the time grammar: :class:`TimeMatch` (one date expression found in a
text), the calendar helpers, the regular-expression pieces both the strict forms
(:mod:`jiyi.text.timegrammar`) and the loose ones (:mod:`jiyi.text.timeloose`) are built of, and
:func:`render` (an absolute wording of a match). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from .fastre import gate_all
from .timewords import (
    MONTH_NAMES,
    MONTHS_EN,
    PART_ZH,
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


def week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def normal_value(day: date, grain: Grain, clock: str | None = None, part: str | None = None) -> str:
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


def match_of(m: re.Match[str], day: date, grain: Grain, relative: bool, group: int = 0,
        year_implied: bool = False) -> TimeMatch:
    start, end = m.span(group)
    return TimeMatch(start, end, m.group(group), normal_value(day, grain), grain, day, relative,
                     year_implied=year_implied)


def year_month(year: int, month: int) -> date | None:
    return date(year, month, 1) if 1 <= month <= 12 and 1 <= year <= 9999 else None


def span_match(m: re.Match[str], at: date, n: int, unit: str) -> TimeMatch:
    """``n`` units from ``at`` ("三天前" is -3 days; "3 months ago" is a month, -3)."""
    if unit == "day":
        return match_of(m, at + timedelta(days=n), "day", True)
    if unit == "week":
        return match_of(m, at + timedelta(weeks=n), "day", True)
    if unit == "month":
        return match_of(m, add_months(at, n), "month", True)
    return match_of(m, date(at.year + n, 1, 1), "year", True)


def is_year(year: int) -> bool:
    return 1900 < year < 2200



# ---------------------------------------------------------------- shared pattern pieces
ZH_MONTH_NUM = "(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
#: Before a month number: no digit of the same kind ("15月" is no month; "QQ66五月三号" is 五月三号).
NOT_IN_NUMBER = r"(?:(?<![\dA-Za-z年])(?=\d)|(?<![年零〇一二两兩三四五六七八九十])(?![\d]))"
#: A number written in one kind of digit ("12两周" is the code's 12 and 两周).
ONE_KIND_NUM = r"\d{1,3}|[零〇一二两兩三四五六七八九十]{1,3}"
EN_MONTH = r"(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
WORD_START = r"(?<![A-Za-z0-9])"  # a word starts here
WORD_END = r"(?![A-Za-z0-9])"  # a word ends here
EN_DMY = re.compile(rf"{WORD_START}(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{EN_MONTH}(?:,?\s+(\d{{4}}))?{WORD_END}", re.I)
EN_MDY = re.compile(rf"{WORD_START}{EN_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?{WORD_END}(?:,?\s+(\d{{4}}){WORD_END})?", re.I)


def month_of(name: str) -> int:
    return MONTHS_EN[name.lower().rstrip(".")]


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


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
