"""Replaced values and history in the prompt, as pure functions.

When a slot changes (a new phone number, a new address, a new membership level) the store keeps
the old unit, invalidated and linked to its successor. The old value still lives in the raw turns
("我的手机号是13800000000"), in the summary made from them, and in units that mention it. The
model must never read it as current, yet it must still be able to answer "what was my old
number?". So the old value is not deleted but *annotated* wherever it appears:
``13800000000（已更换）`` / ``13800000000 (replaced)``. A recalled unit that is history (expired or
superseded) is shown with its date: ``（2025-03-02，较早）`` / ``(2025-03-02, earlier)``.

Everything here is pure: :func:`stale_values` reads units (no store), :func:`annotate_stale`
rewrites one text, :func:`history_note` renders one hit's note. The builder feeds them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal

from ..clock import iso
from ..text.segment import detect_language, is_cjk, to_simplified
from ..units import Hit, MemoryType, MemoryUnit, unit_status

Locale = Literal["zh-Hans", "zh-Hant", "en"]
LOCALES: tuple[str, ...] = ("zh-Hans", "zh-Hant", "en")

#: Appended right after a replaced value wherever it appears.
REPLACED: dict[str, str] = {"zh-Hans": "（已更换）", "zh-Hant": "（已更換）", "en": " (replaced)"}
_EARLIER = {"zh-Hans": "较早", "zh-Hant": "較早", "en": "earlier"}
_REPLACED_ON = {"zh-Hans": "{day}已更换", "zh-Hant": "{day}已更換", "en": "replaced {day}"}
_ALREADY = re.compile(r"\s*[（(]\s*(?:已更换|已更換|replaced)", re.IGNORECASE)

#: How much of a text decides its script (OpenCC over a 1 MB input would cost real time).
_LOCALE_SAMPLE = 2000
#: Share of CJK characters that must change under Traditional->Simplified to call a text
#: Traditional (a Simplified text may hold the odd character OpenCC would still map).
_HANT_SHARE = 0.05
#: A value with this many digits is a number (phone, id) and is found in any spacing or dashes
#: (138-0000-0000); a shorter one ("12", "2024") would also match amounts and dates.
MIN_NUMBER_DIGITS = 5


def detect_locale(text: str) -> Locale:
    """``en``, ``zh-Hans`` or ``zh-Hant`` for a text (the user's input decides the prompt's)."""
    sample = text[:_LOCALE_SAMPLE]
    if detect_language(sample) != "zh":
        return "en"
    cjk = [ch for ch in sample if is_cjk(ch)]
    simplified = to_simplified("".join(cjk))
    changed = sum(1 for a, b in zip(cjk, simplified, strict=False) if a != b)
    return "zh-Hant" if changed and changed >= _HANT_SHARE * len(cjk) else "zh-Hans"


@dataclass(frozen=True)
class StaleValues:
    """Values replaced by a newer value of the same slot (``old``), and the values that are
    current (``current``): an old value inside a current one ("金卡" in "白金卡") stays as is."""

    old: tuple[str, ...] = ()
    current: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.old)


def _meaningful(value: str) -> bool:
    """Long enough to be annotated without hitting unrelated text: two CJK characters, or three
    Latin letters/digits (a lone "5" or "北" would match everywhere)."""
    cjk = sum(1 for ch in value if is_cjk(ch))
    latin = sum(1 for ch in value if ch.isascii() and ch.isalnum())
    return cjk >= 2 or latin >= 3 or (cjk >= 1 and latin >= 1)


def _entity_values(unit: MemoryUnit) -> list[str]:
    out: list[str] = []
    for entity in unit.entities:
        for value in (entity.text, entity.value):
            value = value.strip()
            if value and value not in out:
                out.append(value)
    return out


_TEMPLATE_CUT = "是在为為：: "


def changed_value(old: str, new: str) -> str | None:
    """What ``old`` says that ``new`` does not, for two wordings of the same slot
    ("用户住在北京" vs "用户住在北海" -> "北京"): the text after their common prefix, the cut moved
    back so that it never splits a word or a number. None when nothing sensible is left."""
    cut = 0
    while cut < min(len(old), len(new)) and old[cut] == new[cut]:
        cut += 1
    if cut >= len(old):
        return None
    if cut and old[cut - 1].isalnum() and old[cut].isalnum():
        if is_cjk(old[cut]) and is_cjk(old[cut - 1]):
            # no word boundaries in Chinese: back off to the template's own cut ("是", "在" ...)
            cut = max(old.rfind(ch, 0, cut) for ch in _TEMPLATE_CUT) + 1
            if cut == 0:
                return None
        else:
            while cut and old[cut - 1].isalnum() and not is_cjk(old[cut - 1]):
                cut -= 1
    value = old[cut:].strip(" 。.，,；;")
    return value if value and _meaningful(value) else None


def _pair_values(unit: MemoryUnit, other: MemoryUnit | None) -> list[str]:
    """The values of ``unit`` that ``other`` (its predecessor or successor) does not share."""
    mine = _entity_values(unit)
    if mine:
        theirs = {_key(v) for v in _entity_values(other)} if other is not None else set()
        return [v for v in mine if _key(v) not in theirs and _meaningful(v)]
    if other is None or unit.type is not MemoryType.USER_PROFILE:
        return []  # only a profile slot is worded by a template a prefix diff can read
    value = changed_value(unit.content, other.content)
    return [value] if value else []


def _key(value: str) -> str:
    digits = re.sub(r"\D", "", value)
    if len(digits) >= MIN_NUMBER_DIGITS and len(digits) * 2 >= len(re.sub(r"\s", "", value)):
        return digits
    return to_simplified(value.casefold())


def stale_values(units: Iterable[MemoryUnit], as_of: datetime) -> StaleValues:
    """The replaced and the current slot values among ``units`` at ``as_of``.

    A unit is replaced when :func:`unit_status` calls it ``superseded``. Its old values are its
    entities the successor does not carry (a phone number, an e-mail, a city), or, for a profile
    slot without entities (a membership level), the part of its wording that differs from the
    successor's. A value that is current again (A -> B -> A) is not stale."""
    pool = {u.id: u for u in units}
    old: list[str] = []
    current: list[str] = []
    for unit in pool.values():
        status = unit_status(unit, as_of)
        if status == "superseded":
            successor = pool.get(unit.superseded_by or "")
            old.extend(_pair_values(unit, successor))
        elif status == "current" and unit.slot:
            predecessor = pool.get(unit.supersedes or "")
            current.extend(_entity_values(unit) or _pair_values(unit, predecessor))
    now = {_key(v) for v in current}
    kept = tuple(dict.fromkeys(v for v in old if _key(v) not in now))
    return StaleValues(old=kept, current=tuple(dict.fromkeys(current)))


# ---------------------------------------------------------------- matching a value in a text

_s2t: Any = None
_s2t_lock = threading.Lock()


def _to_traditional(text: str) -> str:
    global _s2t
    if _s2t is None:
        with _s2t_lock:
            if _s2t is None:
                import opencc

                _s2t = opencc.OpenCC("s2t")
    return str(_s2t.convert(text))


_SEP = r"[\s\-\u2013.()]{0,2}"


@lru_cache(maxsize=1024)
def value_pattern(value: str) -> re.Pattern[str]:
    """A pattern that finds ``value`` as written in a turn: a number with any spacing or dashes
    (138-0000-0000 for 13800000000), Latin text in any case and not inside a longer word,
    Chinese in Simplified or Traditional (台北/臺北)."""
    digits = re.sub(r"\D", "", value)
    if len(digits) >= MIN_NUMBER_DIGITS and re.fullmatch(r"[\d\s\-\u2013.()+]+", value):
        return re.compile(r"(?<!\d)" + _SEP.join(digits) + r"(?!\d)")
    parts: list[str] = []
    for ch in value:
        if ch.isspace():
            if not parts or parts[-1] != r"\s+":
                parts.append(r"\s+")
        elif is_cjk(ch):
            variants = sorted({ch, to_simplified(ch), _to_traditional(ch)})
            parts.append("[" + "".join(re.escape(v) for v in variants if len(v) == 1) + "]")
        else:
            parts.append(re.escape(ch))
    body = "".join(parts)
    if value[:1].isascii() and value[:1].isalnum():
        body = r"(?<![A-Za-z0-9])" + body
    if value[-1:].isascii() and value[-1:].isalnum():
        body += r"(?![A-Za-z0-9])"
    return re.compile(body, re.IGNORECASE)


@lru_cache(maxsize=1024)
def _needles(value: str) -> tuple[bool, tuple[str, ...]]:
    """What must occur in a text for ``value`` to be there at all: its digits (in the text's
    digits) or its case-folded Simplified/Traditional spellings (in the folded text)."""
    digits = re.sub(r"\D", "", value)
    if len(digits) >= MIN_NUMBER_DIGITS and re.fullmatch(r"[\d\s\-\u2013.()+]+", value):
        return True, (digits,)
    low = re.sub(r"\s+", " ", value.casefold())
    return False, tuple({low, to_simplified(low), _to_traditional(low)})


def _spans(text: str, values: Sequence[str]) -> list[tuple[int, int]]:
    """Where ``values`` occur in ``text``. A cheap substring test first: with hundreds of
    replaced values only the few that can be there run their pattern."""
    if not values:
        return []
    digits = re.sub(r"\D", "", text)
    folded = re.sub(r"\s+", " ", text.casefold())
    spans: list[tuple[int, int]] = []
    for value in values:
        numeric, needles = _needles(value)
        haystack = digits if numeric else folded
        if any(n in haystack for n in needles):
            spans.extend(m.span() for m in value_pattern(value).finditer(text))
    return spans


def annotate_stale(text: str, stale: StaleValues, locale: str) -> str:
    """``text`` with every replaced value followed by the ``locale``'s "replaced" label.

    Idempotent (a value already labelled in any script is left alone); an occurrence inside a
    current value is not a replaced value; nothing else in the text changes."""
    if not stale.old or not text:
        return text
    protected = _spans(text, stale.current)
    found = sorted(_spans(text, stale.old), key=lambda s: (s[0], -s[1]))
    ends: list[int] = []
    reach = -1
    for start, end in found:
        if end <= reach:
            continue  # inside a longer replaced value already labelled
        if any(start < p_end and p_start < end for p_start, p_end in protected):
            continue
        if _ALREADY.match(text, end):
            reach = end
            continue
        ends.append(end)
        reach = end
    if not ends:
        return text
    label = REPLACED.get(locale, REPLACED["en"])
    pieces: list[str] = []
    last = 0
    for end in ends:
        pieces.append(text[last:end])
        pieces.append(label)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def history_note(hit: Hit, locale: str) -> str | None:
    """The note after a recalled unit that is not current: its date and "earlier" (expired), plus
    when it was replaced (superseded). None for a current hit."""
    if hit.current:
        return None
    loc = locale if locale in LOCALES else "en"
    parts = [iso(hit.date)[:10], _EARLIER[loc]]
    replaced = hit.unit.invalidated_at
    if hit.status == "superseded" and replaced is not None:
        parts.append(_REPLACED_ON[loc].format(day=iso(replaced)[:10]))
    if loc == "en":
        return "(" + ", ".join(parts[:2]) + "".join("; " + p for p in parts[2:]) + ")"
    return "（" + "，".join(parts[:2]) + "".join("；" + p for p in parts[2:]) + "）"
