"""A regex with a first-character gate: the same matches, found faster.

Python's ``re`` tries every alternative of a long alternation at every position of the text;
under ``re.IGNORECASE`` it cannot even skip an alternative by its first letter. When every match
of a pattern must start with one of a known set of characters (the first characters of its
alternatives, read from the parsed pattern), a lookahead of that set in front of it
(``(?=[…])(?:pattern)``) rejects most positions with one character test. The gate is a
necessary condition of every match, so ``search``, ``match``, ``finditer``, ``sub`` ... find
exactly what the pattern alone finds; a pattern whose first character cannot be bounded (one
that may match the empty string, starts with ``.``, a negated class, a category such as ``\\w``
or a back-reference, or is verbose) is returned unchanged. So is a pattern anchored at the start
(``^…`` without MULTILINE: ``re`` tries it at the start only) and one that opens with a
look-ahead of one class (gated by hand, or by an earlier ``gate_all`` of the module it was
imported from). A case-blind part of a case-sensitive pattern (``(?i:…)``) is gated case-blind.
"""

from __future__ import annotations

import re
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser as _p  # type: ignore[attr-defined]
from typing import Any

#: A first character: a range of code points, or a class escape (``\\d``) by its negative
#: code (see :data:`_CATEGORIES`).
Ranges = set[tuple[int, int]]
#: The class escapes a gate may hold, as they are written inside a character class; the
#: pattern's own flags give them the same meaning in the gate.
_ESCAPES = {-1: r"\d", -2: r"\D", -3: r"\s", -4: r"\S", -5: r"\w", -6: r"\W"}
_CATEGORIES = {
    _c.CATEGORY_DIGIT: (-1, -1), _c.CATEGORY_NOT_DIGIT: (-2, -2),
    _c.CATEGORY_SPACE: (-3, -3), _c.CATEGORY_NOT_SPACE: (-4, -4),
    _c.CATEGORY_WORD: (-5, -5), _c.CATEGORY_NOT_WORD: (-6, -6),
}
#: Global inline flags opening a pattern ("(?i)…"): they must stay first, and the compiled
#: pattern's flags hold them.
_GLOBAL_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")
#: A first-character set larger than this is no useful gate.
MAX_GATE_RANGES = 400
#: The mark of a first-character set read from a case-blind part of a case-sensitive pattern
#: (``(?i:…)``): the gate then matches its characters case-blind, a superset, so still a
#: necessary condition of every match.
_CASE_BLIND = (-100, -100)


def _first_item(op: Any, av: Any, flags: int) -> tuple[Ranges | None, bool]:
    """The first characters of one parsed item and whether it may match the empty string."""
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return set(), True  # zero-width: the next item's character comes first
    if op is _c.LITERAL:
        return {(av, av)}, False
    if op is _c.IN:
        out: Ranges = set()
        for iop, iav in av:
            if iop is _c.LITERAL:
                out.add((iav, iav))
            elif iop is _c.RANGE:
                out.add((iav[0], iav[1]))
            elif iop is _c.CATEGORY and iav in _CATEGORIES:
                out.add(_CATEGORIES[iav])
            else:  # NEGATE, another category
                return None, False
        return out, False
    if op is _c.BRANCH:
        acc: Ranges = set()
        nullable = False
        for alt in av[1]:
            f, n = _first_seq(alt, flags)
            if f is None:
                return None, False
            acc |= f
            nullable = nullable or n
        return acc, nullable
    if op is _c.SUBPATTERN:
        _group, add, _delete, sub = av
        if add & re.IGNORECASE and not flags & re.IGNORECASE:
            # a case-blind part in a case-sensitive pattern: its first characters, marked so
            # that the gate reads them case-blind too (every case of them may start a match)
            f, n = _first_seq(sub, flags | re.IGNORECASE)
            return (f | {_CASE_BLIND}, n) if f is not None else (None, False)
        return _first_seq(sub, flags)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        lo, _hi, sub = av
        f, n = _first_seq(sub, flags)
        return (f, lo == 0 or n) if f is not None else (None, False)
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _first_seq(av, flags)
    return None, False


def _first_seq(seq: Any, flags: int) -> tuple[Ranges | None, bool]:
    acc: Ranges = set()
    for op, av in seq:
        f, nullable = _first_item(op, av, flags)
        if f is None:
            return None, False
        acc |= f
        if not nullable:
            return acc, False
    return acc, True


def _char(code: int) -> str:
    return f"\\U{code:08x}"


def gated(rx: re.Pattern[str]) -> re.Pattern[str]:
    """``rx`` with a lookahead of its possible first characters in front (see the module
    docstring); ``rx`` itself when none can be given."""
    if not isinstance(rx.pattern, str) or rx.flags & re.VERBOSE:
        return rx
    try:
        parsed = _p.parse(rx.pattern, rx.flags & ~re.UNICODE)
        first, nullable = _first_seq(parsed, rx.flags)
    except Exception:  # a pattern this reader does not know stays as it is
        return rx
    if len(parsed) and parsed[0][0] in (_c.LITERAL, _c.IN) and not rx.flags & re.IGNORECASE:
        return rx  # re finds a leading literal or class by itself, faster than a gate
    if len(parsed) and parsed[0][0] is _c.AT and parsed[0][1] in (
            _c.AT_BEGINNING, _c.AT_BEGINNING_STRING) and not rx.flags & re.MULTILINE:
        return rx  # re's search tries a pattern anchored at the start at the start only
    if len(parsed) and parsed[0][0] is _c.ASSERT and parsed[0][1][0] == 1 \
            and len(parsed[0][1][1]) == 1 and parsed[0][1][1][0][0] is _c.IN:
        return rx  # gated by hand already ("(?=[…])…"): a second gate only costs
    if first is None or nullable or not first or len(first) > MAX_GATE_RANGES:
        return rx
    case_blind = _CASE_BLIND in first
    first = first - {_CASE_BLIND}
    if not first:
        return rx
    body = _GLOBAL_FLAGS.sub("", rx.pattern, count=1)  # rx.flags holds them
    cls = "".join(_ESCAPES[lo] if lo < 0 else _char(lo) if lo == hi
                  else f"{_char(lo)}-{_char(hi)}" for lo, hi in sorted(first))
    gate = f"(?i:[{cls}])" if case_blind and not rx.flags & re.IGNORECASE else f"[{cls}]"
    try:
        out = re.compile("(?=" + gate + f")(?:{body})", rx.flags)
    except re.error:  # a global inline flag ("(?i)…") must open the pattern
        return rx
    if out.groups != rx.groups or out.groupindex != rx.groupindex:
        return rx
    _SOURCES[out.pattern] = rx.pattern
    return out


#: Each gated pattern's own text (for the tests that compare the two).
_SOURCES: dict[str, str] = {}


def source_of(rx: re.Pattern[str]) -> str | None:
    """The pattern ``rx`` was gated from, or None when ``rx`` is no gated pattern."""
    return _SOURCES.get(rx.pattern)


def gate_all(namespace: dict[str, Any]) -> None:
    """Every compiled pattern of a module's namespace (``gate_all(globals())`` at its end),
    gated. Patterns other modules import by name are then the gated ones."""
    for name, value in list(namespace.items()):
        if isinstance(value, re.Pattern):
            namespace[name] = gated(value)
