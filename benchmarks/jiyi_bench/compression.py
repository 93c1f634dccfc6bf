"""How much the write path's units shorten long turns: ``jiyi bench write --compression``.

For every turn longer than ``min_chars`` characters (after redaction, the text the units are cut
from), the ratio is the sum of the characters of the units ``extract_turn`` drafts from it
(every unit, whatever its type) over the characters of the turn. A ratio above 1 means the
units repeat the turn instead of compressing it. Reported per source and language, as the sum
of unit characters over the sum of turn characters (long turns weigh more) and as the median
of the per-turn ratios.

Sources, each read at run time (nothing is copied into the repository):

* ``locomo``: the turns of LoCoMo (``locomo10.json``), as ``jiyi eval locomo`` ingests them
  (``"Speaker: text"`` with the speaker's name kept as ``speaker``);
* ``madial``: the speech lines of the MADial-Bench dialogues (``*-dialogue.json``, zh and en),
  speaker markers stripped, and the memory events (``*-memory.json``);
* ``project``: the repository's own corpora: the write-quality corpus, the scenario files and
  the long turns of ``jiyi bench write``'s generated conversation.

Chinese packs about three times the content of English into a character, so few Chinese turns
pass 150 characters; the zh rows of a second threshold (``zh_min_chars``, default 60) are
reported beside them so Chinese is measured at all.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jiyi.text.segment import detect_language, to_simplified
from jiyi.write import TurnInput, extract_turn

from .paths import repo_file

START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
LOCOMO_FILE = Path("/work/shared/data/locomo/locomo10.json")  # the default; --locomo names another
MADIAL_DIR = Path("/work/shared/data/madial")
MIN_CHARS = 150
ZH_MIN_CHARS = 60


@dataclass(frozen=True)
class SourceTurn:
    source: str
    text: str
    role: str = "user"
    speaker: str | None = None
    at: datetime = START


def language_of(text: str) -> str:
    """``zh-Hans``, ``zh-Hant`` or ``en``."""
    if detect_language(text) != "zh":
        return "en"
    return "zh-Hant" if to_simplified(text) != text else "zh-Hans"


def locomo_turns(path: Path) -> Iterator[SourceTurn]:
    from .locomo_data import load

    for conv in load(path):
        for t in conv.turns:
            yield SourceTurn("locomo", t.text, "user", t.speaker or None, t.at)


def madial_turns(folder: Path) -> Iterator[SourceTurn]:
    from .madial_data import is_frame, load_dialogues, load_memories, strip_speaker

    for lang in ("zh", "en"):
        if not (folder / f"MADial-Bench-{lang}-dialogue.json").is_file():
            continue
        for d in load_dialogues(folder, lang):
            for line in d.lines:
                if not is_frame(line) and strip_speaker(line):
                    yield SourceTurn("madial-dialogue", strip_speaker(line))
        memories, _ = load_memories(folder, lang)
        for m in memories:
            yield SourceTurn("madial-memory", m.event)


def project_turns() -> Iterator[SourceTurn]:
    from .write_workload import generate

    quality = repo_file("tests", "data", "write", "quality_corpus.jsonl")
    if quality.is_file():
        for line in quality.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                yield SourceTurn("project-quality", str(row["text"]), str(row["role"]))
    eval_dir = repo_file("tests", "data", "eval")
    for path in sorted(eval_dir.glob("*.json")) if eval_dir.is_dir() else []:
        data = json.loads(path.read_text("utf-8"))
        for session in data.get("sessions", []):
            for turn in session.get("turns", []):
                yield SourceTurn("project-scenarios", str(turn["text"]), str(turn["role"]))
    for t in generate(2000, seed=11):
        yield SourceTurn("project-bench", t.text, t.role, t.speaker, t.at)


def turns_of(sources: list[str], locomo: Path, madial: Path) -> Iterator[SourceTurn]:
    for name in sources:
        if name == "locomo":
            if locomo.is_file():
                yield from locomo_turns(locomo)
        elif name == "madial":
            if madial.is_dir():
                yield from madial_turns(madial)
        elif name == "project":
            yield from project_turns()
        else:
            raise ValueError(f"unknown source {name!r}: locomo, madial or project")


def measure(turns: Iterator[SourceTurn], min_chars: int = MIN_CHARS,
            zh_min_chars: int = ZH_MIN_CHARS, examples: int = 0) -> dict[str, Any]:
    """Per (source, language, threshold): turns, source and unit characters, the ratio."""
    rows: dict[tuple[str, str, int], list[tuple[int, int]]] = defaultdict(list)
    worst: list[tuple[float, str, list[str]]] = []
    for i, t in enumerate(turns):
        ex = extract_turn(TurnInput(t.text, t.role, t.at, "ratio", "u", f"t{i}", t.speaker))
        n = len(ex.redacted_text)
        lang = language_of(ex.redacted_text)
        thresholds = [min_chars] + ([zh_min_chars] if lang != "en" else [])
        units = [d.content for d in ex.drafts]
        size = sum(len(u) for u in units)
        for th in thresholds:
            if n > th:
                rows[(t.source, lang, th)].append((n, size))
        if examples and n > (min_chars if lang == "en" else zh_min_chars):
            worst.append((size / n, ex.redacted_text, units))
    table = []
    for (source, lang, th), pairs in sorted(rows.items()):
        src = sum(a for a, _ in pairs)
        out = sum(b for _, b in pairs)
        table.append({"source": source, "language": lang, "min_chars": th, "turns": len(pairs),
                      "source_chars": src, "unit_chars": out,
                      "ratio": round(out / src, 3) if src else None,
                      "median_ratio": round(statistics.median(b / a for a, b in pairs), 3)})
    result: dict[str, Any] = {"rows": table}
    if examples:
        worst.sort(key=lambda w: -w[0])
        result["worst"] = [{"ratio": round(r, 3), "text": text, "units": units}
                           for r, text, units in worst[:examples]]
    return result


def overall(table: list[dict[str, Any]], min_chars: int = MIN_CHARS) -> dict[str, Any]:
    """All sources and languages together, at ``min_chars``."""
    picked = [r for r in table if r["min_chars"] == min_chars]
    src = sum(r["source_chars"] for r in picked)
    out = sum(r["unit_chars"] for r in picked)
    return {"turns": sum(r["turns"] for r in picked), "source_chars": src, "unit_chars": out,
            "ratio": round(out / src, 3) if src else None}


def render_md(result: dict[str, Any]) -> str:
    lines = ["| source | language | turns longer than | turns | source chars | unit chars | "
             "ratio | median per turn |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in result["rows"]:
        lines.append(f"| {r['source']} | {r['language']} | {r['min_chars']} | {r['turns']} | "
                     f"{r['source_chars']} | {r['unit_chars']} | {r['ratio']} | "
                     f"{r['median_ratio']} |")
    o = result["overall"]
    lines += ["", f"All sources, turns longer than {result['min_chars']} characters: "
              f"{o['turns']} turns, ratio **{o['ratio']}** (target <= 0.85)."]
    return "\n".join(lines) + "\n"
