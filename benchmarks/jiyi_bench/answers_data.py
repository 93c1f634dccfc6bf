"""The questions of ``jiyi eval answers``: LoCoMo, MADial-Bench and the scenarios in one shape.

Every data set becomes users with a chronological history (the turns ingested into jiyi and,
for plan A, sent raw) and cases (a question asked in a new session of one user, at ``as_of``,
with a gold answer and, where the data set has them, the gold evidence turn ids):

- LoCoMo (categories 1-4): one user per conversation, one jiyi session per LoCoMo session, every
  turn at its session's ``date_time`` (the dataset's own timestamps), the text
  ``"Speaker: what was said"``; asked one day after the last session; gold = the answer.
- MADial-Bench: one user per (language, user id), each memory one turn at its day; the case is
  the dialogue before its first test turn (the last :data:`MADIAL_CONTEXT_LINES` speech lines,
  speakers kept), asked one day after the user's last memory; gold = the assistant line at the
  test turn (what the reference assistant said when it brought the memory back).
- scenarios (``tests/data/eval``): as in ``jiyi eval scenarios``; the files name gold turns,
  not answer strings, so gold = the text of the gold turns (F1 against a whole turn is low by
  construction; entity containment and the judge read it better).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from jiyi.errors import ValidationError

from .locomo_data import load as load_locomo
from .madial_data import LANGS as MADIAL_LANGS
from .madial_data import is_frame, load_madial, strip_speaker
from .scenarios import load_scenarios

Kind = Literal["qa", "reply"]
DATASETS = ("locomo", "madial", "scenarios")
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MADIAL_CONTEXT_LINES = 4
_SPEAKER = "Speaker"


@dataclass(frozen=True)
class HistoryTurn:
    turn_id: str
    session_id: str
    role: str
    text: str
    at: datetime
    speaker: str | None = None


@dataclass(frozen=True)
class Case:
    """One question: ``case_id`` is unique across data sets and stable between runs."""

    case_id: str
    dataset: str
    language: str  # en, zh-Hans, zh-Hant
    category: str
    kind: Kind
    user_id: str
    question: str
    gold: str
    as_of: datetime
    evidence: tuple[str, ...] = ()


@dataclass
class Corpus:
    histories: dict[str, list[HistoryTurn]] = field(default_factory=dict)
    cases: list[Case] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def extend(self, other: Corpus) -> None:
        clash = set(self.histories) & set(other.histories)
        if clash:
            raise ValidationError(f"two data sets share users: {sorted(clash)[:3]}")
        self.histories.update(other.histories)
        self.cases.extend(other.cases)
        self.notes.extend(other.notes)


def from_locomo(path: Path, conversations: int | None = None) -> Corpus:
    out = Corpus()
    convs = load_locomo(path, speaker_prefix=True, session_time=True)[:conversations]
    for idx, conv in enumerate(convs):
        uid = f"locomo-{idx}-{conv.sample_id}"
        out.histories[uid] = [
            HistoryTurn(t.dia_id, f"{uid}-s{t.session}", "user", t.text, t.at,
                        t.speaker or None) for t in conv.turns]
        as_of = conv.end + timedelta(days=1)
        for qn, q in enumerate(conv.questions):
            if q.category not in LOCOMO_CATEGORIES or not q.answer.strip():
                continue
            out.cases.append(Case(
                case_id=f"locomo-{idx}-q{qn}", dataset="locomo", language="en",
                category=f"{q.category} {LOCOMO_CATEGORIES[q.category]}", kind="qa",
                user_id=uid, question=q.question, gold=q.answer, as_of=as_of,
                evidence=q.evidence))
    out.notes.append(f"locomo: {len(convs)} conversations, categories 1-4 "
                     f"({len(out.cases)} questions)")
    return out


def madial_context(lines: Sequence[str], test_turn: int, n: int = MADIAL_CONTEXT_LINES) -> str:
    """The last ``n`` speech lines before ``test_turn``, one per line as ``Name: text``."""
    out = []
    for raw in lines[:test_turn]:
        if is_frame(raw):
            continue
        name = raw.strip().split(">", 1)[0].lstrip("<").strip() if raw.strip().startswith(
            "<") else _SPEAKER
        out.append(f"{name}: {strip_speaker(raw)}")
    return "\n".join(out[-n:])


def from_madial(data_dir: Path, langs: Sequence[str] = MADIAL_LANGS) -> Corpus:
    out = Corpus()
    for lang in langs:
        data = load_madial(data_dir, lang)
        language = "zh-Hans" if lang == "zh" else "en"
        for m in data.memories:
            uid = f"madial-{lang}-u{m.user}"
            at = datetime(m.day.year, m.day.month, m.day.day, tzinfo=UTC)
            out.histories.setdefault(uid, []).append(HistoryTurn(
                m.id, f"{uid}-{m.day.isoformat()}", "user", m.event, at))
        for d in data.dialogues:
            uid = f"madial-{lang}-u{d.user}"
            if uid not in out.histories:
                continue
            last = max(t.at for t in out.histories[uid])
            gold = strip_speaker(d.lines[d.test_turns[0]])
            out.cases.append(Case(
                case_id=f"madial-{lang}-{d.id}", dataset="madial", language=language,
                category="memory reply", kind="reply", user_id=uid,
                question=madial_context(d.lines, d.test_turns[0]), gold=gold,
                as_of=last + timedelta(days=1), evidence=d.relevant))
        out.notes.extend(data.notes)
    for turns in out.histories.values():
        turns.sort(key=lambda t: t.at)
    return out


def from_scenarios(data_dir: Path) -> Corpus:
    out = Corpus()
    for s in load_scenarios(data_dir):
        text = {t.turn_id: t.text for t in s.turns}
        for t in s.turns:
            out.histories.setdefault(t.user_id, []).append(HistoryTurn(
                t.turn_id, t.session_id, t.role, t.text, t.at))
        for c in s.cases:
            out.cases.append(Case(
                case_id=f"scn-{c.case_id}", dataset="scenarios", language=s.language,
                category=s.kind, kind="qa", user_id=c.user_id, question=c.query,
                gold=" ".join(text[g] for g in c.gold), as_of=c.as_of, evidence=c.gold))
    out.notes.append("scenarios: gold = the text of the gold turns (the files hold no answer "
                     "strings)")
    return out


def select(cases: Sequence[Case], sample: int | None, seed: int, limit: int | None
           ) -> list[Case]:
    """``sample``: that many cases drawn with ``random.Random(seed)`` (kept in data order);
    then ``limit``: the first that many."""
    chosen = list(cases)
    if sample is not None and sample < len(chosen):
        keep = set(random.Random(seed).sample(range(len(chosen)), sample))
        chosen = [c for i, c in enumerate(chosen) if i in keep]
    return chosen[:limit] if limit is not None else chosen


def digest(parts: Sequence[str]) -> str:
    """A short stable digest (run and task names)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\x1f")
    return h.hexdigest()[:12]
