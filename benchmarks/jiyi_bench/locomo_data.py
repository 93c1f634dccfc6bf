"""Reading a LoCoMo-shaped JSON file (never shipped: the dataset is CC BY-NC, evaluation only).

A file is a list of samples ``{"sample_id", "conversation": {"speaker_a", "speaker_b",
"session_N_date_time", "session_N": [{"speaker", "dia_id", "text", "blip_caption"?}...]},
"qa": [{"question", "answer"?, "evidence": [dia_id...], "category"}...]}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from jiyi.errors import ValidationError

_DATE_RE = re.compile(
    r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", re.IGNORECASE)
_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"])}


def parse_session_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> 2023-05-08T13:56Z (LoCoMo dates carry no zone: UTC)."""
    m = _DATE_RE.search(text or "")
    if not m:
        raise ValidationError(f"not a LoCoMo session date: {text!r}")
    hour, minute, ampm, day, month, year = m.groups()
    mon = _MONTHS.get(month.lower()) or _MONTHS.get(
        next((k for k in _MONTHS if k.startswith(month.lower()[:3])), ""), 0)
    if not mon:
        raise ValidationError(f"unknown month in {text!r}")
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    return datetime(int(year), mon, int(day), h, int(minute), tzinfo=UTC)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    at: datetime
    session: int


@dataclass(frozen=True)
class Question:
    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def end(self) -> datetime:
        return max(t.at for t in self.turns)


def turn_text(raw: dict[str, Any], speaker_prefix: bool = True) -> str:
    """The text of a turn as ingested: ``"Speaker: what was said"`` (a transcript line, the
    same for jiyi and the baselines), plus the caption of a shared photo."""
    text = str(raw.get("text") or "").strip()
    speaker = str(raw.get("speaker") or "").strip()
    if speaker_prefix and speaker:
        text = f"{speaker}: {text}"
    caption = str(raw.get("blip_caption") or "").strip()
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def _evidence(raw: Any, known: set[str]) -> tuple[str, ...]:
    out: list[str] = []
    for item in raw or []:
        for part in re.split(r"[;,]", str(item)):
            part = part.strip()
            if part in known and part not in out:
                out.append(part)
    return tuple(out)


def load(path: str | Path, speaker_prefix: bool = True,
         session_time: bool = False) -> list[Conversation]:
    """Parse the file; raises :class:`ValidationError` on a file that is not LoCoMo-shaped.

    ``session_time``: every turn of a session carries the session's ``date_time`` exactly, as
    in the dataset (and as many real imports do); otherwise turn ``i`` gets ``+i`` seconds."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValidationError(f"cannot read LoCoMo file {path}: {exc}") from exc
    if not isinstance(data, list):
        raise ValidationError("a LoCoMo file holds a JSON list of samples")
    out: list[Conversation] = []
    for n, sample in enumerate(data):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise ValidationError(f"sample {n} has no 'conversation' object")
        conv = sample["conversation"]
        c = Conversation(sample_id=str(sample.get("sample_id", n)),
                         speakers=(str(conv.get("speaker_a", "")), str(conv.get("speaker_b", ""))))
        sessions = sorted(
            int(k.split("_")[1]) for k in conv
            if re.fullmatch(r"session_\d+", k) and isinstance(conv[k], list))
        for s in sessions:
            start = parse_session_date(str(conv.get(f"session_{s}_date_time", "")))
            for i, raw in enumerate(conv[f"session_{s}"]):
                text = turn_text(raw, speaker_prefix)
                if not text or not raw.get("dia_id"):
                    continue
                # turns of a session share its date; seconds keep their order, unless the
                # dataset's own timestamps are asked for
                at = start if session_time else start + timedelta(seconds=i)
                c.turns.append(Turn(str(raw["dia_id"]), str(raw.get("speaker") or ""), text,
                                    at, s))
        known = {t.dia_id for t in c.turns}
        for qa in sample.get("qa") or []:
            c.questions.append(Question(
                question=str(qa.get("question", "")),
                answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
                evidence=_evidence(qa.get("evidence"), known),
                category=int(qa.get("category", 0)),
            ))
        if not c.turns:
            raise ValidationError(f"sample {c.sample_id} has no turns")
        out.append(c)
    return out
