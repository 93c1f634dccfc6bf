"""Turn -> drafts. The interface :class:`jiyi.memory.Memory` relies on; internals may grow.

FIRST VERSION: sentence split + greedy packing into <=150-character units, a keyword typer.
The write-path issue replaces the internals (entities, compression, typing, redaction).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from ..units import MAX_CONTENT_CHARS, Entity, MemoryType


@dataclass(frozen=True)
class TurnInput:
    text: str
    role: str
    at: datetime
    session_id: str
    user_id: str
    turn_id: str
    speaker: str | None = None


@dataclass
class UnitDraft:
    """A unit before it has an id, a lifespan or a store: what the write path decided."""

    content: str
    type: MemoryType
    entities: list[Entity] = field(default_factory=list)
    slot: str | None = None  # a single-valued fact of the user ("phone", "city"): supersedes
    valid_at: datetime | None = None
    valid_until: datetime | None = None
    expires_in: int | None = None  # override of the type's default lifespan
    topic: str | None = None


@dataclass
class Extraction:
    redacted_text: str
    drafts: list[UnitDraft]
    entities: list[Entity] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)  # placeholder -> secret (never stored)
    is_confirmation: bool = False
    language: str = "en"


_SENT_RE = re.compile(r"[^。！？!?；;\n]+[。！？!?；;]?|[^.]+(?:\.(?!\d)|$)")


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[。！？!?；;\n])|(?<=[.])\s+", text)]
    return [p for p in parts if p]


def _pack(sentences: list[str]) -> list[str]:
    out: list[str] = []
    current = ""
    for sent in sentences:
        while len(sent) > MAX_CONTENT_CHARS:
            cut = sent.rfind(" ", 0, MAX_CONTENT_CHARS)
            cut = cut if cut > 20 else MAX_CONTENT_CHARS
            out.append(sent[:cut].strip())
            sent = sent[cut:].strip()
        if current and len(current) + 1 + len(sent) > MAX_CONTENT_CHARS:
            out.append(current)
            current = sent
        else:
            current = f"{current} {sent}".strip() if current else sent
    if current:
        out.append(current)
    return [o for o in out if o]


def extract_turn(turn: TurnInput) -> Extraction:
    text = turn.text.strip()
    if turn.role == "tool":
        unit_type = MemoryType.TOOL_RESULT
    elif turn.role == "user":
        unit_type = MemoryType.FACT_REFERENCE
    else:
        unit_type = MemoryType.SESSION_STATE
    drafts = [UnitDraft(content=c, type=unit_type) for c in _pack(_sentences(text))]
    return Extraction(redacted_text=text, drafts=drafts)
