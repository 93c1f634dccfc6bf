"""Reading MADial-Bench (hejunqing/MADial-Bench, MIT; never shipped, read from a data folder).

``MADial-Bench-{lang}-memory.json``: one JSON object per line, ``{id: {"time": "YYYY-MM-DD",
"event": ..., "user-id"?: ...}}``. The en file has no ``user-id``: the user of the same id in
the zh file is used (the two files list the same events under the same ids).

``MADial-Bench-{lang}-dialogue.json``: one JSON object per line with ``dialogue`` (lines like
``<Bart>:"..."``, framed by ``<BOD>`` / ``<EOD>``), ``test-turn`` (indexes into ``dialogue``
where the assistant should bring back a memory), ``relevant-id`` (gold memory ids),
``user-id`` and, in zh only, ``id`` (the line number otherwise; the two files align).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from jiyi.errors import ValidationError

LANGS = ("zh", "en")
_SPEAKER_RE = re.compile(r"^\s*<[^<>]{1,40}>\s*[:：]\s*")
_QUOTES = '"“”'
QUERY_LINES = 3


@dataclass(frozen=True)
class MadialMemory:
    id: str
    user: str
    day: date
    event: str


@dataclass(frozen=True)
class MadialDialogue:
    id: int
    user: str
    lines: tuple[str, ...]
    test_turns: tuple[int, ...]
    relevant: tuple[str, ...]


@dataclass
class MadialSet:
    lang: str
    memories: list[MadialMemory]
    dialogues: list[MadialDialogue]
    notes: list[str] = field(default_factory=list)


def _json_lines(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError(f"cannot read MADial file {path}: {exc}") from exc
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValidationError(f"{path.name} line {n} is not JSON: {exc}") from exc
    return out


def _memory_rows(data_dir: Path, lang: str) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for obj in _json_lines(data_dir / f"MADial-Bench-{lang}-memory.json"):
        if not isinstance(obj, dict) or len(obj) != 1:
            raise ValidationError(f"a MADial {lang} memory line holds one {{id: memory}} object")
        ((key, value),) = obj.items()
        if not isinstance(value, dict) or not value.get("event") or not value.get("time"):
            raise ValidationError(f"MADial {lang} memory {key} has no event or time")
        rows[str(key)] = value
    return rows


def load_memories(data_dir: Path, lang: str) -> tuple[list[MadialMemory], list[str]]:
    """The memories of ``lang`` in time order, and notes on how users were assigned."""
    rows = _memory_rows(data_dir, lang)
    notes: list[str] = []
    missing = [k for k, v in rows.items() if v.get("user-id") is None]
    fallback: dict[str, dict[str, Any]] = {}
    if missing and lang != "zh":
        fallback = _memory_rows(data_dir, "zh")
        notes.append(f"{lang}: {len(missing)} of {len(rows)} memories have no user-id; "
                     "each takes the user-id of the same memory id in the zh file")
    out = []
    for key, value in rows.items():
        user = value.get("user-id")
        if user is None:
            user = fallback.get(key, {}).get("user-id")
        if user is None:
            raise ValidationError(f"MADial {lang} memory {key} has no user-id (nor in zh)")
        try:
            day = date.fromisoformat(str(value["time"])[:10])
        except ValueError as exc:
            raise ValidationError(f"MADial {lang} memory {key}: bad time {value['time']!r}") \
                from exc
        out.append(MadialMemory(key, str(user), day, str(value["event"]).strip()))
    out.sort(key=lambda m: (m.day, int(m.id) if m.id.isdigit() else 0, m.id))
    return out, notes


def load_dialogues(data_dir: Path, lang: str) -> list[MadialDialogue]:
    out = []
    for n, obj in enumerate(_json_lines(data_dir / f"MADial-Bench-{lang}-dialogue.json")):
        try:
            lines = tuple(str(x) for x in obj["dialogue"])
            tests = tuple(int(x) for x in obj["test-turn"])
            gold = tuple(str(x) for x in obj["relevant-id"])
            user = str(obj["user-id"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValidationError(f"MADial {lang} dialogue line {n + 1} is malformed: {exc}") \
                from exc
        if not tests or not all(0 < t <= len(lines) for t in tests):
            raise ValidationError(f"MADial {lang} dialogue line {n + 1}: bad test-turn {tests}")
        out.append(MadialDialogue(int(obj.get("id", n)), user, lines, tests, gold))
    return out


def load_madial(data_dir: str | Path, lang: str) -> MadialSet:
    """Memories and dialogues of one language; raises :class:`ValidationError` when the
    folder does not hold them."""
    if lang not in LANGS:
        raise ValidationError(f"MADial language must be one of {', '.join(LANGS)}, not {lang!r}")
    folder = Path(data_dir)
    if not folder.is_dir():
        raise ValidationError(f"no MADial folder at {folder}")
    memories, notes = load_memories(folder, lang)
    dialogues = load_dialogues(folder, lang)
    owner = {m.id: m.user for m in memories}
    unknown = sorted({g for d in dialogues for g in d.relevant if g not in owner})
    if unknown:
        raise ValidationError(f"MADial {lang}: relevant ids with no memory: {unknown[:5]}")
    foreign = sum(1 for d in dialogues for g in d.relevant if owner[g] != d.user)
    if foreign:
        notes.append(f"{lang}: {foreign} relevant ids belong to another user than the "
                     "dialogue's (unreachable for every system)")
    return MadialSet(lang, memories, dialogues, notes)


def strip_speaker(line: str) -> str:
    """``<Bart>:"嘿，你知道吗？"`` -> ``嘿，你知道吗？``: the speaker marker and the quotes
    around the utterance go, for every system alike."""
    text = _SPEAKER_RE.sub("", line.strip(), count=1).strip()
    return text.strip(_QUOTES).strip()


def is_frame(line: str) -> bool:
    """``<BOD>`` / ``<EOD>``: dialogue frame markers, not speech."""
    return bool(re.fullmatch(r"\s*<(BOD|EOD)>\s*", line))


def query_of(dialogue: MadialDialogue, n_lines: int = QUERY_LINES) -> str:
    """The query: the last ``n_lines`` speech lines before the dialogue's FIRST test turn,
    speaker markers stripped, joined by spaces. Later test turns come after the assistant
    already brought a memory back, so their context would quote the answer."""
    before = [strip_speaker(x) for x in dialogue.lines[: dialogue.test_turns[0]]
              if not is_frame(x)]
    return " ".join(x for x in before[-n_lines:] if x)
