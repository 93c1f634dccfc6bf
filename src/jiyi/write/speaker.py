"""Who said it: "I"/"我" in a turn becomes the speaker's name when the speaker is known, so a
unit read on its own still says whose fact it is ("Caroline went to a support group...")."""

from __future__ import annotations

import re

from ..text.fastre import gate_all

_EN_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bI'm\b|\bI am\b"), "{n} is"),
    (re.compile(r"\bI've\b"), "{n} has"),
    (re.compile(r"\bI'll\b"), "{n} will"),
    (re.compile(r"\bI'd\b"), "{n} would"),
    (re.compile(r"\bI have\b"), "{n} has"),
    (re.compile(r"\bI was\b"), "{n} was"),
    (re.compile(r"\bI\b"), "{n}"),
    (re.compile(r"\b[Mm]y\b"), "{n}'s"),
    (re.compile(r"\b[Mm]yself\b"), "{n}"),
    (re.compile(r"(?<=\s)me\b"), "{n}"),
)
_ZH_ME = re.compile(r"我(?![们們])")
#: The rules as one pattern, for the first reference only: at the leftmost position where any
#: rule matches, the first rule (in order) that matches there wins, as with one search per rule.
_EN_FIRST = re.compile("|".join(f"(?P<r{i}>{rx.pattern})" for i, (rx, _) in enumerate(_EN_RULES)))


def attribute(content: str, speaker: str, lang: str) -> str:
    """``content`` with first-person references replaced by ``speaker``; when the speaker is
    still not named, the unit is prefixed ``Speaker: ``."""
    name = speaker.strip()
    if not name:
        return content
    if lang == "zh":
        out = _ZH_ME.sub(name, content)
    else:
        out = content
        for rx, repl in _EN_RULES:
            out = rx.sub(repl.format(n=name), out)
    if name not in out:
        out = f"{name}：{out}" if lang == "zh" else f"{name}: {out}"
    return out


def attribute_once(content: str, speaker: str, lang: str) -> str:
    """Like :func:`attribute`, but only the first first-person reference becomes the name
    ("I went there and I loved it" -> "Caroline went there and I loved it"): the unit says
    whose fact it is once, and stays as short as what was said."""
    name = speaker.strip()
    if not name:
        return content
    if lang == "zh":
        out = _ZH_ME.sub(name, content, count=1)
    else:
        m = _EN_FIRST.search(content)
        if m is None:
            out = content
        else:
            repl = _EN_RULES[int((m.lastgroup or "r0")[1:])][1]
            out = content[:m.start()] + repl.format(n=name) + content[m.end():]
    if name not in out:
        out = f"{name}：{out}" if lang == "zh" else f"{name}: {out}"
    return out


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
