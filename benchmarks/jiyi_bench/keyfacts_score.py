"""Scoring one key-facts question on its top-k results, as pure functions.

Texts are compared folded: NFKC, case-folded, Traditional -> Simplified (``jiyi.text.fold``),
then every space, punctuation mark and symbol removed, so "138-1234-5678" and
"上海市 浦东新区" match their plain forms. A phone is compared by its national digits: a
result holds it when a run of digits (spaces, hyphens, dots, parentheses and "+" inside a run
are dropped) contains them, so "+86 138 1234 5678" holds 13812345678. A membership level is
held whole ("钻石会员") or by its name beside a word for membership ("会员等级是钻石", "Gold
tier"). A leading English article of a bank value is not required ("a phone call").

Per question (``k`` results, best first; jiyi results carry ``hit.current``, a baseline's raw
turns carry ``None``):

- ``found``: share of the wanted values (:attr:`Question.current`) that some result contains
  (single-valued slots: 0 or 1; food: every item still liked; coupons: every code valid at
  ``as_of``; a past question: the replaced value);
- ``replaced``: 1 when some result contains a replaced value (:attr:`Question.old`: an old
  phone / email / address / level / time / channel, or the negated food item) and none of the
  current values, leaving out the turns that carry the old value rightly (the negation turn);
  ``None`` when nothing was replaced;
- ``as_current``: 1 when such a result is marked current, or when an expired coupon code is in
  a current result; jiyi only;
- ``found_current``: share of the wanted values some result *marked current* contains (the
  counterpart of ``as_current``: a system that never commits to a current value would score 0
  on ``as_current`` and 0 here too); jiyi only, questions about a current value;
- coupons: ``expired_listed`` (share of expired codes in any result), ``expired_as_current``
  (share in a current result), ``valid_as_current`` (share of valid codes in a current result);
- past questions: ``past_labelled``: 1 when a result holding the old value and not the new one
  is marked not current (history), given the old value was found; jiyi only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from jiyi.text import fold

from .keyfacts_corpus import Question
from .keyfacts_values import LEVEL_WORDS, level_core

Score = dict[str, float | None]


@dataclass(frozen=True)
class Seen:
    """One result as the scorer sees it: its text, whether it is current (None for a raw turn
    of a baseline) and the turn ids it came from."""

    content: str
    current: bool | None
    sources: tuple[str, ...] = ()


def key(text: str) -> str:
    """Folded, without spaces, punctuation or symbols."""
    return "".join(ch for ch in fold(text)
                   if not unicodedata.category(ch).startswith(("P", "Z", "S", "C")))


_PHONE_RUN = re.compile(r"\+?\d[\d\s().\-]*\d|\d")


def digit_runs(text: str) -> list[str]:
    """The digit runs of ``text``, separators inside a run removed."""
    norm = unicodedata.normalize("NFKC", text)
    return [re.sub(r"\D", "", m.group(0)) for m in _PHONE_RUN.finditer(norm)]


def holds(content: str, value: str, match: str = "text") -> bool:
    """True when ``content`` contains ``value`` (folded; a phone by its national digits; a
    membership level whole, or its name beside a word for membership)."""
    if match == "phone":
        return any(value in run for run in digit_runs(content))
    want, got = key(value), key(content)
    if want and want in got:
        return True
    if match == "level":
        core = key(level_core(value))
        return bool(core) and core in got and any(key(w) in got for w in LEVEL_WORDS)
    return False


def _share(values: Sequence[str], results: Sequence[Seen], match: str) -> float | None:
    if not values:
        return None
    return sum(1 for v in values if any(holds(r.content, v, match) for r in results)) / len(
        values)


def score(q: Question, results: Sequence[Seen], k: int = 5, *, marks: bool = True) -> Score:
    """The question's measures over the first ``k`` results (see the module docstring).
    ``marks``: the results say whether they are current (jiyi); False for raw-turn baselines,
    whose current-marking measures are ``None``."""
    top = list(results[:k])
    jiyi = marks
    out: Score = {"found": _share(q.current, top, q.match)}
    if q.past:
        found = bool(out["found"])
        old_only = [r for r in top if any(holds(r.content, v, q.match) for v in q.current)
                    and not any(holds(r.content, v, q.match) for v in q.old)]
        out["past_labelled"] = (None if not found or not jiyi or not old_only else
                                float(any(r.current is False for r in old_only)))
        return out
    wrong = [r for r in top
             if any(holds(r.content, v, q.match) for v in q.old)
             and not any(holds(r.content, v, q.match) for v in q.current)
             and not set(r.sources) & set(q.exempt)]
    out["replaced"] = float(bool(wrong)) if q.old else None
    if jiyi:
        out["found_current"] = _share(q.current, [r for r in top if r.current], q.match)
    as_current: float | None = None
    if jiyi and q.old:
        as_current = float(any(r.current for r in wrong))
    if q.kind == "coupon":
        current = [r for r in top if r.current]
        out["expired_listed"] = _share(q.expired, top, q.match)
        if jiyi:
            out["valid_as_current"] = _share(q.current, current, q.match)
            out["expired_as_current"] = _share(q.expired, current, q.match)
            if q.expired:
                as_current = float(bool(out["expired_as_current"]))
    out["as_current"] = as_current
    return out
