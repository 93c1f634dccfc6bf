"""A standing time of the day or the week, the way a delivery window is said ("周六上午",
"禮拜天早晨", "下晝三點後", "Saturday mornings", "Sunday evening"): the time grammar's own words
(:mod:`jiyi.text.timewords`: the parts of the day and the weekdays) in one pattern, so a word the
grammar learns is a word of the schema's time-valued slots too (``value_grammar`` in
``keyfacts/slots.json``). Clock times are in the slot's own ``value_words`` (a bare "一点" is "a
little", not one o'clock). Pure data.
"""

from __future__ import annotations

import re

from .fastre import gate_all
from .timewords import PARTS_OF_DAY, WEEKDAYS_EN, WEEKDAYS_ZH, ZH_WEEKDAY_WORD


def _longest_first(words: list[str]) -> str:
    return "|".join(sorted(dict.fromkeys(words), key=len, reverse=True))


#: A Chinese part of the day ("上午", "早晨", "下晝").
ZH_PART = "(?:" + _longest_first([w for w in PARTS_OF_DAY if not w.isascii()]) + ")"
#: An English part of the day, one or every ("morning", "evenings").
EN_PART = r"\b(?:" + _longest_first([w for w in PARTS_OF_DAY if w.isascii()]) + r")s?\b"
#: A Chinese weekday ("周六", "星期天", "禮拜三").
ZH_WEEKDAY = ZH_WEEKDAY_WORD + "[" + "".join(dict.fromkeys(WEEKDAYS_ZH)) + "](?![0-9])"
#: A weekday written short, in chat ("thurs", "tues"), where no other word is spelt so ("sat",
#: "sun", "wed", "mon" and "thu", "thus", are: never read).
WEEKDAYS_EN_SHORT = ("tues", "tue", "weds", "thurs", "thur", "fri")
#: An English weekday, one or every ("Saturday", "Sundays", "thurs").
EN_WEEKDAY = r"\b(?:" + _longest_first([*WEEKDAYS_EN, *WEEKDAYS_EN_SHORT]) + r")s?\b"

#: A part of the day or a weekday, in Chinese (Simplified, Traditional, Cantonese) or English
#: ("上午", "下晝", "礼拜六", "週日", "mornings", "Saturday", "Sundays").
TIME_OF_DAY = f"{ZH_PART}|{ZH_WEEKDAY}|{EN_PART}|{EN_WEEKDAY}"
TIME_OF_DAY_RE = re.compile(TIME_OF_DAY, re.I)

#: A day of the calendar, as the write path writes it ("2026年3月20日", "13 March 2026", "May 3")
#: or as said ("昨天", "last night"): a time on such a day is an event, not a standing wish.
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b")
CALENDAR_DAY = re.compile(
    r"\d{1,2}\s*月\s*\d{1,2}\s*[日号號]|昨天|昨晚|前天|前晚|上次|那天|"
    r"\b(?:\d{1,2}\s+" + _MONTH + r"|" + _MONTH + r"\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|"
    r"yesterday|last (?:night|time|week)|the other day)\b", re.I)

gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
