"""The write path's data: a turn in (:class:`TurnInput`), the pieces a sentence is cut into
(:class:`Piece`), the drafts packed from them (:class:`UnitDraft`) and a turn's answer
(:class:`Extraction`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..units import Entity, MemoryType, MemoryUnit

#: A turn's language is judged on its opening: a long paste does not change the answer.
LANGUAGE_SNIFF_CHARS = 4000


@dataclass(frozen=True)
class TurnInput:
    text: str
    role: str
    at: datetime
    session_id: str
    user_id: str
    turn_id: str
    speaker: str | None = None


#: Entity kinds of a thing with a date of its own (a coupon, voucher or gift-card code): an
#: expiry said beside it is its ``valid_until``.
DATED_KINDS = frozenset({"code"})


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
    about_id: str | None = None  # an identifier fact: the id it is about ("PO-10023")
    # earlier units this draft supersedes though no slot holds them, found by the user's
    # history at placement ("先辦洗澡月卡好了" for "直接換成美容半年卡": write/adopt_values.py)
    replaces: list[MemoryUnit] = field(default_factory=list)
    once: bool = False  # said for one order only ("这次改周日送吧 就这一次"): no standing value


@dataclass
class Extraction:
    redacted_text: str
    drafts: list[UnitDraft]
    entities: list[Entity] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)  # placeholder -> secret (never stored)
    is_confirmation: bool = False
    language: str = "en"
    extractor: str = "rules"  # "rules" or "llm:<model>"


@dataclass
class Piece:
    content: str
    type: MemoryType
    entities: list[Entity]
    slot: str | None = None
    valid_until: datetime | None = None
    keep: list[str] = field(default_factory=list)  # strings a split must not cut
    standalone: bool = False  # an identifier fact: never packed with other pieces
    about_id: str | None = None
    once: bool = False  # said for one order only (see :attr:`UnitDraft.once`)
