"""Which slot a clause the rules left untyped states, by meaning (nearest prototypes), and
which slot a question asks for when no cue word says it. Shared by the write path
(``write/placement.py``), recall (``recall/funnel.py``) and the margin calibration."""

from __future__ import annotations

import re

from ..embed.base import Embedder, Matrix
from ..text import slotwords as sw
from .asking import ASKED, asks
from .prototypes import PrototypeIndex, Typed, best_labels
from .schema import SlotSpec, list_item, names_item, one_item, schema, spec, third_party

#: A question states no value ("我现在的地址是哪里？", "where do you ship my stuff?"): one
#: definition, :data:`jiyi.keyfacts.asking.ASKED`.
QUESTION = ASKED
#: A clause about someone else's fact ("我妈妈住在…", "my sister lives at…", "the courier called
#: me at 6pm") states none of the user's slots.
NOT_OWN = third_party()
COURIER = re.compile(r"快递员|快遞員|外卖员|外賣員|司机|司機|courier|driver", re.I)
#: Someone of the household at home ("晚上六点以后我儿子在家", "my son is home after 6 pm"): when
#: a delivery can be taken is the user's window, whoever takes it.
AT_HOME = re.compile(r"在家|喺屋企|在屋企|有人在|有人喺|\b(?:is|are|'s|will be|'ll be|gets?) "
                     r"(?:home|back home|in|around)\b|\bat home\b", re.I)
#: Support staff told how to reach the user ("客服回复用QQ吧") is the user's contact channel.
SUPPORT = re.compile(r"客服|\b(?:support|agent)\b", re.I)
#: A channel said as the way to reach the user is theirs even when someone else is named ("New
#: job, and they use Teams, so let's keep in touch that way", "公司只让用钉钉，就用钉钉找我").
REACH_ME = re.compile(
    r"(?:联系我|聯絡我|聯繫我|联络我|找我|通知我|告诉我|告訴我|跟我说|跟我說|回我)" + sw.NOT_MY_RELATION_ZH
    + r"|这样联系|這樣聯絡|"
    r"\b(?:contact me|reach me|get me|tell me|let me know|keep in touch|get in touch|notify me|"
    r"message me|text me|email me|call me|ping me|update me)\b", re.I)
#: A clause this long is a paragraph, not a statement of one value.
MAX_TYPED_CHARS = 120
#: A question this long is a conversation excerpt, not a question about one fact.
MAX_QUESTION_CHARS = 80


def statement_slot(idx: PrototypeIndex, embedder: Embedder, content: str, vector: Matrix
                   ) -> Typed | None:
    """The slot a user's clause states, by its nearest statement prototypes; None for a
    question (not a declarative typed with a question mark: :func:`asks`), a clause without a value of the slot (its row's ``value_hint``) or a clause no
    slot claims by its margin."""
    if len(content) > MAX_TYPED_CHARS or asks(content):
        return None
    typed = idx.type_of(embedder, "statements", vector)
    if typed is None:
        return None
    row = spec(typed.slot)
    if row is None or (row.value_hint is not None and not row.value_hint.search(content)):
        return None
    if row.statement_cue is not None and not row.statement_cue.search(content) \
            and not (row.negation is not None and row.negation.search(content)):
        return None  # a time without a delivery word ("我下午三点有个会") is no delivery time
    return typed if owns(row.name, content) else None


def cued_slot(idx: PrototypeIndex, embedder: Embedder, content: str, vector: Matrix
              ) -> Typed | None:
    """The slot a user's clause states by a strong cue of its row ("就是爱…", "I adore …")
    confirmed by meaning: the clause's nearest prototype is the slot's, whatever the lead (the
    cue alone is no evidence the thing is food, the nearest prototype alone not enough)."""
    if len(content) > MAX_TYPED_CHARS or asks(content):
        return None
    rows = [r for r in schema() if r.strong_cue is not None and r.strong_cue.search(content)]
    if not rows or not idx.prototypes.margins_for(embedder.name, "statements"):
        return None
    sets = idx.prototypes.statements
    ranked = best_labels(idx.matrix(embedder, "statements"), sets.labels, vector)
    if len(ranked) < 2:
        return None
    top = ranked[0][0]
    row = next((r for r in rows if r.name == top), None)
    if row is None:
        row = _plain_runner_up(rows, ranked, content)
    if row is None or not owns(row.name, content) or (
            row.value_hint is not None and not row.value_hint.search(content)):
        return None
    return Typed(row.name, ranked[0][1] - ranked[1][1], 0.0)


#: How close behind the nearest label a list row's prototypes may stand when the clause names
#: one plain item with a strong cue ("Big fan of falafel ngl" is a shade nearer the name
#: prototypes, "平日偏好煎饺" the delivery-time ones).
RUNNER_UP_WITHIN = 0.015


def _plain_runner_up(rows: list[SlotSpec], ranked: list[tuple[str, float]], content: str
                     ) -> SlotSpec | None:
    """A list row with a strong cue in ``content`` that is the second-nearest label, within
    :data:`RUNNER_UP_WITHIN` of the first, when the clause names one plain item of it."""
    second, cos = ranked[1]
    row = next((r for r in rows if r.name == second and r.value == "item"), None)
    if row is None or ranked[0][1] - cos > RUNNER_UP_WITHIN:
        return None
    return row if one_item(list_item(row, content)) and names_item(row, content) else None


def owns(slot: str, content: str) -> bool:
    """Whether a clause may state the user's own value of ``slot``: not someone else's
    ("我妈妈住在…"; a courier only for a delivery time: "让快递员晚上七点后送" is the user's wish),
    and no look-alike of the slot (its row's ``not_value``: a payment method is no contact
    channel)."""
    third = NOT_OWN.search(content)
    if third and not (slot == "delivery_time" and (COURIER.fullmatch(third.group(0))
                                                    or AT_HOME.search(content))) \
            and not (slot == "contact_channel" and (SUPPORT.fullmatch(third.group(0))
                                                    or REACH_ME.search(content))):
        return False
    row = spec(slot)
    return row is None or not (row.looks_alike(content) or _names_a_level(row, content))


#: A membership level's own name ("Silver", "鑽石"): no food or other list item by itself.
_LEVEL_NAME = re.compile(sw.en_words(sw.LEVEL_NAMES_EN) + "|" + sw.alternation(sw.LEVEL_NAMES_ZH),
                         re.I)


def _names_a_level(row: SlotSpec, content: str) -> bool:
    """A list clause whose item is nothing but a level's name ("Not Silver anymore", "金卡不要了")
    tells of a membership, not of a thing liked or given up."""
    return row.value == "item" and _LEVEL_NAME.fullmatch(list_item(row, content).strip()) is not None


def question_slot(idx: PrototypeIndex, embedder: Embedder, query: str, vector: Matrix
                  ) -> Typed | None:
    """The slot a short question asks for, by its nearest question prototypes."""
    if len(query) > MAX_QUESTION_CHARS:
        return None
    return idx.type_of(embedder, "questions", vector)
