"""Which slot a clause the rules left untyped states, by meaning (nearest prototypes), and
which slot a question asks for when no cue word says it. Shared by the write path
(``write/placement.py``), recall (``recall/funnel.py``) and the margin calibration."""

from __future__ import annotations

import re

from ..embed.base import Embedder, Matrix
from .prototypes import PrototypeIndex, Typed
from .schema import spec

#: A question states no value ("我现在的地址是哪里？", "where do you ship my stuff?").
QUESTION = re.compile(
    r"(?:[？?]|[吗嗎呢][。.！!]?)\s*$|^\s*(?:what|which|where|when|who|how|is|are|do|does|did|can|"
    r"could|will|would)\b|多少|什么(?![的事])|什麼(?![的事])|哪个|哪個|哪里|哪裡|哪儿|哪兒|几点|幾點|是不是|"
    r"有没有|有沒有|吗[？?。，,]|嗎[？?。，,]", re.I)
#: A clause this long is a paragraph, not a statement of one value.
MAX_TYPED_CHARS = 120
#: A question this long is a conversation excerpt, not a question about one fact.
MAX_QUESTION_CHARS = 80


def statement_slot(idx: PrototypeIndex, embedder: Embedder, content: str, vector: Matrix
                   ) -> Typed | None:
    """The slot a user's clause states, by its nearest statement prototypes; None for a
    question, a clause without a value of the slot (its row's ``value_hint``) or a clause no
    slot claims by its margin."""
    if len(content) > MAX_TYPED_CHARS or QUESTION.search(content):
        return None
    typed = idx.type_of(embedder, "statements", vector)
    if typed is None:
        return None
    row = spec(typed.slot)
    if row is None or (row.value_hint is not None and not row.value_hint.search(content)):
        return None
    return typed


def question_slot(idx: PrototypeIndex, embedder: Embedder, query: str, vector: Matrix
                  ) -> Typed | None:
    """The slot a short question asks for, by its nearest question prototypes."""
    if len(query) > MAX_QUESTION_CHARS:
        return None
    return idx.type_of(embedder, "questions", vector)
