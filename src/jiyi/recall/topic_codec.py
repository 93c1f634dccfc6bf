"""A session's topic state as the JSON document the store keeps (``topic_states.state``).

Pure and exact both ways: instants as integer microseconds, the active topic's centroid as the
base64 of its little-endian float32 bytes (a float survives the round trip bit for bit), keywords
in their order. A document of an unknown version, or one that does not parse, reads as no state
(the next user turn starts afresh) rather than failing a recall.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from ..clock import from_micros, to_micros
from ..store.base import Store, Vector
from .topics import Topic, TopicState

#: The document's layout; a reader skips other versions.
VERSION = 1


#: The epoch of :func:`jiyi.clock.to_micros` (its inverse inlined: a long session's document
#: holds a hundred instants, read and written with every user turn).
_EPOCH = from_micros(0)


def _micros(at: datetime | None) -> int | None:
    return None if at is None else to_micros(at)


def _instant(value: Any) -> datetime | None:
    return None if value is None else _EPOCH + timedelta(microseconds=int(value))


def _encode_vector(vec: Vector | None) -> str | None:
    if vec is None:
        return None
    return base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode("ascii")


def _decode_vector(text: Any) -> Vector | None:
    if not isinstance(text, str):
        return None
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


def encode(state: TopicState) -> str:
    """The stored document of ``state`` (compact, keys sorted: equal states, equal text)."""
    doc = {
        "v": VERSION,
        "topics": [{"id": t.id, "label": t.label, "keywords": list(t.keywords),
                    "centroid": _encode_vector(t.centroid), "frozen": t.frozen,
                    "started_at": _micros(t.started_at), "last_seen": _micros(t.last_seen)}
                   for t in state.topics],
        "active": state.active_id,
        "boundaries": [[_micros(at), tid] for at, tid in state.boundaries],
        "switched": state.switched,
        "returned": state.returned,
        "previous": state.previous_id,
        "switches": state.switch_count,
        "last_at": _micros(state.last_at),
        "last_key": state.last_key,
    }
    return json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def decode(session_id: str, text: str) -> TopicState | None:
    """The state a stored document holds; None for a document this version cannot read."""
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict) or doc.get("v") != VERSION:
            return None
        topics = tuple(
            Topic(id=int(t["id"]), label=str(t["label"]),
                  keywords=tuple(str(k) for k in t["keywords"]),
                  centroid=_decode_vector(t.get("centroid")), frozen=bool(t["frozen"]),
                  started_at=_instant(t.get("started_at")),
                  last_seen=_instant(t.get("last_seen")))
            for t in doc["topics"])
        return TopicState(
            session_id=session_id, topics=topics,
            active_id=None if doc["active"] is None else int(doc["active"]),
            boundaries=tuple((_instant(at), int(tid)) for at, tid in doc["boundaries"]),
            switched=bool(doc["switched"]), returned=bool(doc["returned"]),
            previous_id=None if doc["previous"] is None else int(doc["previous"]),
            switch_count=int(doc["switches"]), last_at=_instant(doc.get("last_at")),
            last_key=doc.get("last_key"))
    except (ValueError, KeyError, TypeError):
        return None


def stored_state(store: Store, user_id: str, session_id: str) -> TopicState | None:
    """The session's stored topic state (None before its first user turn). A pure read."""
    doc = store.session_topics(user_id, session_id)
    return decode(session_id, doc) if doc is not None else None
