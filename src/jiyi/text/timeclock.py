"""Clock times of the time grammar: "下午3点半", "九点一刻", "9:30", "3pm", "at 9:15 pm".

Pure functions of the text. :func:`find_clocks` finds clock times on their own (``time``
entities); :func:`clock_after` reads the part of day and clock time that follow a day
("明天早上8点", "tomorrow at 9:15 pm") for :func:`jiyi.text.timegrammar.find_times`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .fastre import gate_all
from .timewords import CN_NUM, PARTS_OF_DAY, PM_PARTS, cn_int

_ZH_PART = re.compile("|".join(sorted((k for k in PARTS_OF_DAY if not k.isascii()), key=len, reverse=True)))
_ZH_CLOCK = re.compile(rf"({CN_NUM}{{1,3}})\s*[点點时時](?:\s*(半|一刻|三刻|({CN_NUM}{{1,3}})\s*分?))?|(?<!\d)(\d{{1,2}}):(\d{{2}})(?!\d)")
_ZH_PART_CLOCK = re.compile(rf"({_ZH_PART.pattern})?\s*({_ZH_CLOCK.pattern})")
_EN_CLOCK = re.compile(r"(?<![0-9A-Za-z:])(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?![A-Za-z])|(?<![0-9:])(\d{1,2}):(\d{2})(?![0-9:])", re.I)
_EN_LEAD = re.compile(r"\s*(?:at\s+|,\s*)?")
_EN_PART = re.compile(r"\s+(morning|afternoon|evening|night)\b", re.I)


@dataclass(frozen=True)
class ClockMatch:
    start: int
    end: int
    text: str
    value: str  # "15:30"


def _pm(hh: int, part: str | None) -> int:
    """"下午3点" is 15:00: an hour before noon said with an afternoon/evening/night part."""
    return hh + 12 if part in PM_PARTS and hh < 12 else hh


def _zh_clock(m: re.Match[str], first: int) -> tuple[int, int]:
    """Hour and minute of a :data:`_ZH_CLOCK` match whose groups start at ``first``."""
    hh_cn, extra, minute_cn, hh, mm = (m.group(first + i) for i in range(5))
    if hh:
        return int(hh), int(mm)
    half = extra or ""
    minute = (30 if half == "半" else 15 if half == "一刻" else 45 if half == "三刻"
              else cn_int(minute_cn) or 0 if minute_cn else 0)
    return cn_int(hh_cn) or 0, minute


def _en_clock(m: re.Match[str]) -> tuple[int, int]:
    """Hour (0-23 after am/pm) and minute of an :data:`_EN_CLOCK` match."""
    hh = int(m.group(1) or m.group(4))
    mm = int(m.group(2) or m.group(5) or 0)
    ampm = (m.group(3) or "").lower().replace(".", "")
    if ampm == "pm" and hh < 12:
        hh += 12
    if ampm == "am" and hh == 12:
        hh = 0
    return hh, mm


def clock_after(text: str, pos: int, part: str | None, lang: str) -> tuple[int, str | None, str | None]:
    """The part of day and clock time right after ``pos`` (the end of a day expression):
    ``(new end, "HH:MM" or None, part of day or the given one)``."""
    clock = None
    rest = text[pos:pos + 24]
    if lang == "zh":
        pm = _ZH_PART.match(rest.lstrip())
        if pm:
            skip = len(rest) - len(rest.lstrip())
            part = PARTS_OF_DAY[pm.group(0)]
            pos += skip + pm.end()
            rest = text[pos:pos + 16]
        cm = _ZH_CLOCK.match(rest.lstrip())
        if cm:
            skip = len(rest) - len(rest.lstrip())
            hh, mm = _zh_clock(cm, 1)
            hh = _pm(hh, part)
            if hh <= 24 and mm < 60:
                clock = f"{hh % 24:02d}:{mm:02d}"
                pos += skip + cm.end()
        return pos, clock, part
    lead = _EN_LEAD.match(rest)
    em = _EN_CLOCK.match(text, pos + (lead.end() if lead else 0))
    if em:
        hh, mm = _en_clock(em)
        if hh < 24 and mm < 60:
            return em.end(), f"{hh:02d}:{mm:02d}", part
        return pos, None, part
    pm2 = _EN_PART.match(text[pos:pos + 16])
    if pm2:
        return pos + pm2.end(), None, pm2.group(1).lower()
    return pos, None, part


#: Every clock pattern needs a digit, or a Chinese numeral before 点/時: without one, no match.
_CLOCK_GATE = re.compile(rf"\d|{CN_NUM}\s*[点點时時]")


def find_clocks(text: str) -> list[ClockMatch]:
    """Clock times on their own ("下午3点半", "9:30", "3pm"), normalised to ``HH:MM``."""
    out: list[ClockMatch] = []
    if not _CLOCK_GATE.search(text):
        return out
    for m in _ZH_PART_CLOCK.finditer(text):
        hh, mm = _zh_clock(m, 3)
        hh = _pm(hh, PARTS_OF_DAY.get(m.group(1) or ""))
        if hh < 24 and mm < 60:
            out.append(ClockMatch(m.start(), m.end(), m.group(0), f"{hh:02d}:{mm:02d}"))
    for m in _EN_CLOCK.finditer(text):
        if any(c.start <= m.start() < c.end for c in out):
            continue
        hh, mm = _en_clock(m)
        if hh < 24 and mm < 60:
            out.append(ClockMatch(m.start(), m.end(), m.group(0), f"{hh:02d}:{mm:02d}"))
    return out


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
