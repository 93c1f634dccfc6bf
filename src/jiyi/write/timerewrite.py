"""Relative times in a unit's words rewritten as absolute ones ("明天下午" -> "2026年5月2日下午"),
resolved against the turn's time; a weekday said as a habit ("以后周六上午送") is left as said.
"""

from __future__ import annotations

import re

from ..keyfacts.schema import schema
from ..text import fold
from ..text.fastre import gate_all
from ..text.timeofday import EN_PART, EN_WEEKDAY, ZH_PART, ZH_WEEKDAY
from ..text.timewords import ZH_WEEKDAY_WORD
from .timeparse import TimeMatch

#: A weekday said as a habit or a preference ("以后周六上午送", "I'm home Saturday mornings")
#: names every such day, not the next one: it is not rewritten as a date. Habit words, and the
#: cue words of the schema's standing-time rows ("上门", "宅配", "courier": a weekday said of a
#: delivery is its window).
_HABIT = re.compile(
    r"以后|以後|之后|之後|往后|往後|每|平时|平時|一般|通常|都|最好|方便|时间|時間|时段|時段|"
    r"全天|整天|成日|全日|尽量|盡量|只有|就得|固定|逢|"
    r"改成|改到|改为|改為|换成|換成|改做|改(?=\s*(?:周|星期|礼拜)[一二三四五六日天末])|"
    # one weekday moved to another ("周六→周日 上午10点左右"): the schedule, every week
    rf"{ZH_WEEKDAY_WORD}[一二三四五六日天末1-7]\s*(?:→|->|=>)|\b{EN_WEEKDAY}s?\s*(?:→|->|=>)|"
    # a range of weekdays ("周一到周五", "週一至週五", "Monday to Friday") is every week's
    rf"(?:到|至|-|~|～|—)\s*{ZH_WEEKDAY_WORD}|\b(?:to|through|thru|till|until|-)\s+{EN_WEEKDAY}|"
    r"\b(?:usually|always|every|prefer\w*|best|from now on|going forward|"
    r"all day|pls|please)\b|"
    + "|".join(f"(?:{row.statement_cue.pattern})" for row in schema()
               if row.recurring and row.statement_cue is not None),
    re.I)
_WEEKDAY = re.compile(
    rf"{ZH_WEEKDAY}{ZH_PART}?"
    r"(?:[0-9一二三四五六七八九十两兩]{1,3}\s*[点點:：](?:[0-9一二三四五六七八九十半]{1,3}分?)?)?|"
    rf"{EN_WEEKDAY}(?:\s+{EN_PART})?",
    re.I)
#: A weekday opening a time with a time of day of its own ("星期日下晝 2 點後", "禮拜四晚上 7 點"),
#: and the words of a calendar date that make it no weekday ("周五 5月3日").
_WEEKDAY_LED = re.compile(rf"{ZH_WEEKDAY}|{EN_WEEKDAY}", re.I)
_CALENDAR = re.compile(r"[月号號/]|\d{4}|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)


def _is_weekday(text: str) -> bool:
    """The time is a weekday, perhaps with its time of day: nothing of a calendar date."""
    if _WEEKDAY.fullmatch(text):
        return True
    m = _WEEKDAY_LED.match(text)
    return m is not None and _CALENDAR.search(text, m.end()) is None


#: "Every" right before a time ("每月月底", "每个月初", "every month end"): each such time.
_EVERY_BEFORE = re.compile(r"(?:每|每一|每个|每個)(?:个|個)?(?:月|周|週|星期|礼拜|禮拜|年)\s*$|"
                           r"\b(?:every|each)\s*$", re.I)
#: "一週五天", "每周三次": a weekday word that is a count of days a week, not a day.
_COUNT_BEFORE = re.compile(r"(?:一|每|几|幾)\s*$")
_COUNT_AFTER = re.compile(r"\s*(?:天|日|次|餐|晚)")
#: An arrow right before a time: what a schedule moves to ("周三→周五 上午十点").
_ARROW_BEFORE = re.compile(r"(?:→|->|=>)\s*$")
_PREPOSITION = re.compile(r"\b(?:on|in|since|until|till|by|from|before|after|during|of|at|for)\s*$", re.I)
#: "valid for a fortnight from today", "good for 10 days from now": a span made a date is an
#: end, said "until 23 March 2026" (not "valid for 23 March 2026").
_FOR_BEFORE = re.compile(r"\bfor(?:\s+(?:another|the\s+next|up\s+to))?\s*$", re.I)
_SPAN_WORD = re.compile(r"\b(?:days?|weeks?|fortnights?|months?)\b", re.I)


def rewrite_times(sentence: str, offset: int, times: list[TimeMatch], lang: str,
                  context: str | None = None) -> tuple[str, list[str]]:
    """Replace relative time expressions by absolute ones; return the text and the renderings.
    ``context``: the whole sentence a clause of it is read in ("我周一到周五下午四点后才有空，
    送货时间帮我调一下": the habit word is in another clause)."""
    shown: list[str] = []
    out = sentence
    if not any(tm.relative for tm in times):
        return out, shown  # nothing to rewrite (most sentences): the habit test is not needed
    habit: bool | None = None  # the habit test, read only for a weekday (most times are none)
    for tm in sorted(times, key=lambda t: t.start, reverse=True):
        if not tm.relative:
            continue
        if _is_weekday(tm.text.strip()):
            if habit is None:  # read folded: the schema's cue words are Simplified
                habit = _HABIT.search(fold(sentence if context is None else context)) is not None
            if habit:
                continue  # "周六上午送", "Saturday mornings work": a recurring time, not a date
        s, e = tm.start - offset, tm.end - offset
        if s < 0 or e > len(out):
            continue
        if _COUNT_BEFORE.search(out[:s]) and _COUNT_AFTER.match(out, e):
            continue  # "一週五天午餐": five days a week, no Friday
        if _EVERY_BEFORE.search(out[:s]):
            continue  # "每月月底送到吧", "every month end": a recurring time, not a date
        if _ARROW_BEFORE.search(out[:s]) and habit is not False:
            continue  # "周三→周五 上午十点": the weekday a schedule moves to, every week
        text = tm.render(lang)
        span_end = lang == "en" and _SPAN_WORD.search(tm.text) is not None \
            and _FOR_BEFORE.search(out[:s]) is not None
        if lang == "en" and _PREPOSITION.search(out[:s]) and text.startswith(("on ", "in ")):
            text = text[3:]
        if span_end:
            cut = _FOR_BEFORE.search(out[:s])
            assert cut is not None
            out, e, s = out[:cut.start()] + out[s:], e - (s - cut.start()), cut.start()
            text = "until " + text
        shown.append(text)
        if e < len(out) and out[e].isascii() and out[e].isalnum() and text[-1:].isalnum():
            text += " "
        if s > 0 and out[s - 1].isascii() and out[s - 1].isalnum() and text[:1].isalnum():
            text = " " + text
        out = out[:s] + text + out[e:]
    return out, shown


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
