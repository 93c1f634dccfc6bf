"""The roles of a thing a name is given for: the recipient of a parcel, the guest of a room,
the person a booking is under, the holder of an account (the words in
:mod:`jiyi.text.slotwords`, ``NAME_ROLES``).

Each role has its own current name, the name slot qualified by the role (``name:recipient``,
superseded only by a newer name for the same role); the user's own name stays ``name``. The
write path reads the role a name is given for from the words before it (:func:`name_role`);
recall reads the role a question asks about (:func:`asked_role`): the role's newest name is the
answer, the user's own name only while no name was ever given for the role.
"""

from __future__ import annotations

import re

from ..text import slotwords as sw

#: The words of each role: the role's own noun ("收件人", "account holder").
_ROLE_PERSON = {role: re.compile(sw.alternation(sw.ROLE_PERSON_ZH[role]) + "|"
                                 + sw.en_words(sw.ROLE_PERSON_EN[role]), re.I)
                for role in sw.NAME_ROLES}
#: The thing each role belongs to ("订位", "parcel").
_ROLE_THING = {role: re.compile(sw.alternation(sw.ROLE_THING_ZH[role]) + "|"
                                + sw.en_words(sw.ROLE_THING_EN[role]), re.I)
               for role in sw.NAME_ROLES}
#: Who the person named is to the user ("我先生", "my flatmate").
_RELATION = re.compile(sw.alternation(sw.RELATION_ZH) + "|" + sw.en_words(sw.RELATION_EN), re.I)
#: A name asked for ("姓名", "名字", "name", "who").
_NAME_WORD = re.compile(r"名字|姓名|名|谁|誰|边个|邊個|\b(?:name|names|who|whose|under)\b", re.I)


def _last(patterns: dict[str, re.Pattern[str]], text: str) -> tuple[int, str] | None:
    found = [(m.end(), role) for role, rx in patterns.items() for m in rx.finditer(text)]
    return max(found) if found else None


def name_role(lead: str) -> str | None:
    """The role of a thing a name said after ``lead`` is given for, None when it is the
    speaker's own name: the role's noun said last before it ("收件人改成我先生X", "the
    recipient is Y"), or the thing's word with someone else than the user named after it
    ("訂位改我同事的名字，X", "the account is under my mom's name, Y"; "correct the name on the
    booking, it's X as per my ID" is the user's own)."""
    person = _last(_ROLE_PERSON, lead)
    if person is not None:
        return person[1]
    thing = _last(_ROLE_THING, lead)
    if thing is not None and _RELATION.search(lead, thing[0]):
        return thing[1]
    return None


def asks_name(question: str) -> bool:
    """The question asks for a name or a person ("姓名", "谁", "who", "name", a role's noun:
    "帳號持有人", "the recipient")."""
    return _NAME_WORD.search(question) is not None or _PERSON_NOUN.search(question) is not None


#: A role's noun that names a person ("持有人", "收件者", "recipient"), not a verb of sending.
_PERSON_NOUN = re.compile(
    r"(?:持有|收件|收货|收貨|签收|簽收|入住|订位|訂位|订房|訂房|预订|預訂|预定|預定|预约|預約|订票|訂票|开户|開戶|"
    r"持卡)(?:人|者)|户名|戶名|住客|房客|\b(?:recipients?|addressee|consignee|guests?|(?:account|card) ?holder|"
    r"booker)\b", re.I)


def asked_role(question: str) -> str | None:
    """The role a name question asks about: its noun ("收件人姓名", "入住人是谁", "who's the
    account holder?"), or a name asked for with the thing's word ("訂位姓名", "name for the
    parcel?", "what name is the table under?"); None for the user's own name."""
    person = _last(_ROLE_PERSON, question)
    if person is not None:
        return person[1]
    thing = _last(_ROLE_THING, question)
    if thing is not None and _NAME_WORD.search(question):
        return thing[1]
    return None


#: A unit saying what the user's own name is or has become ("I now use the name X", "my names
#: are X", "我的名字改成X", "我而家叫X"): beside a name other than the current one, it contests it.
OWN_NAME_SAID = re.compile(
    sw.alternation(sw.NAME_CHANGED_ZH) + "|我叫|叫我|我的名字|我嘅名|我個名|我个名|我(?:现在|現在|而家)叫|"
    + sw.en_words(sw.NAME_CHANGED_EN) + "|"
    + sw.en_words((r"my (?:full |real |legal |new |first |last )?names?",
                   r"call me(?!\s+(?:back|later|again|at|on|in|when|if|before|after|tomorrow|"
                   r"today|tonight|asap|anytime|now|first|directly|instead|pls|please|to|about|"
                   r"up|once|whenever|soon|via|by|or|and|la|lah|ah)\b)", "go by",
                   r"i'?m going by", r"use the name", r"name(?:'s| is) now", r"under the name",
                   r"in the name of", r"put my name")),
    re.I)


def names_someone_else(text: str) -> bool:
    """The text names someone by what they are to the user ("我同事", "my flatmate")."""
    return _RELATION.search(text) is not None
