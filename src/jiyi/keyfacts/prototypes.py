"""Typing by meaning: the nearest prototypes of a clause or a question, with calibrated margins.

``prototypes.json`` holds, per slot, clauses that state its value (``statements``) and questions
that ask for it (``questions``), written by hand in zh-Hans, zh-Hant and English, plus what is
*not* a key fact (``none``, ``none_questions``: chit-chat, product and order questions) so that a
clause nearest to those stays untyped. A text is typed to slot S when S's best prototype cosine
leads the best cosine of every other label (other slots and none) by at least S's margin.

Cosines of different embedders are not comparable, so margins are per embedder name
(``margins[embedder][kind][slot]``, calibrated on the development phrasing banks: see
docs/architecture.md); an embedder without calibrated margins types nothing by meaning (the
rules still run). The prototype matrices are embedded once per embedder per process.

Everything but :class:`PrototypeIndex`'s cache is a pure function of its arguments.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

import numpy as np

from ..embed.base import Embedder, Matrix
from ..embed.batching import QueryBatcher

Kind = Literal["statements", "questions"]
NONE = "none"
LOCALES = ("zh-Hans", "zh-Hant", "en")


@dataclass(frozen=True)
class PrototypeSet:
    """One kind of prototypes: ``texts[i]`` belongs to ``labels[i]`` (a slot or ``none``)."""

    labels: tuple[str, ...]
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Prototypes:
    statements: PrototypeSet
    questions: PrototypeSet
    margins: Mapping[str, Mapping[str, Mapping[str, float]]]  # embedder -> kind -> slot -> margin

    def margins_for(self, embedder: str, kind: Kind) -> Mapping[str, float] | None:
        return self.margins.get(embedder, {}).get(kind)


def _flatten(by_slot: Mapping[str, Mapping[str, Sequence[str]]],
             none: Mapping[str, Sequence[str]]) -> PrototypeSet:
    labels: list[str] = []
    texts: list[str] = []
    for slot, by_locale in by_slot.items():
        for locale in LOCALES:
            for text in by_locale.get(locale, ()):
                labels.append(slot)
                texts.append(text)
    for locale in LOCALES:
        for text in none.get(locale, ()):
            labels.append(NONE)
            texts.append(text)
    return PrototypeSet(tuple(labels), tuple(texts))


def load_prototypes(text: str) -> Prototypes:
    """Parse a prototype document (the format of ``prototypes.json``)."""
    data = json.loads(text)
    if not isinstance(data, dict) or "statements" not in data or "questions" not in data:
        raise ValueError("a prototype file has 'statements' and 'questions'")
    margins = {str(emb): {str(kind): {str(s): float(m) for s, m in dict(slots).items()}
                          for kind, slots in dict(per).items()}
               for emb, per in dict(data.get("margins", {})).items()}
    return Prototypes(_flatten(data["statements"], data.get("none", {})),
                      _flatten(data["questions"], data.get("none_questions", {})), margins)


@lru_cache(maxsize=1)
def shipped() -> Prototypes:
    text = resources.files("jiyi.keyfacts").joinpath("prototypes.json").read_text("utf-8")
    return load_prototypes(text)


@dataclass(frozen=True)
class Typed:
    """A text typed by meaning: its slot, the cosine lead over the next label, the margin."""

    slot: str
    lead: float
    margin: float


def best_labels(matrix: Matrix, labels: Sequence[str], vector: Matrix
                ) -> list[tuple[str, float]]:
    """Each label with its best prototype cosine to ``vector``, best first (pure)."""
    cos = matrix @ np.asarray(vector, dtype=np.float32)
    best: dict[str, float] = {}
    for label, c in zip(labels, cos.tolist(), strict=True):
        if c > best.get(label, -2.0):
            best[label] = float(c)
    return sorted(best.items(), key=lambda lc: -lc[1])


def nearest(matrix: Matrix, labels: Sequence[str], vector: Matrix,
            margins: Mapping[str, float], allowed: frozenset[str] | None = None
            ) -> Typed | None:
    """The slot whose prototypes lead every other label's by its margin, else None (pure).
    ``allowed``: slots that may win (others still compete, as ``none`` does)."""
    ranked = best_labels(matrix, labels, vector)
    if len(ranked) < 2:
        return None
    (top, c1), (_, c2) = ranked[0], ranked[1]
    if top == NONE or top not in margins or (allowed is not None and top not in allowed):
        return None
    lead = c1 - c2
    return Typed(top, lead, margins[top]) if lead >= margins[top] else None


class PrototypeIndex:
    """The prototype matrices of one prototype file, embedded once per embedder name (statements
    as passages, questions as queries, the way the texts they are compared with are embedded).

    One embedding per matrix however many threads ask at once: the first caller embeds, the
    others wait for its result (a server's concurrent first requests used to embed the ~250
    prototypes each, all at once, behind one model). A long-running process embeds them before
    its first request (:meth:`warm`), so no request pays for them."""

    def __init__(self, prototypes: Prototypes) -> None:
        self.prototypes = prototypes
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, Kind], Matrix] = {}
        self._building: dict[tuple[str, Kind], threading.Lock] = {}

    def matrix(self, embedder: Embedder, kind: Kind) -> Matrix:
        key = (embedder.name, kind)
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                return found
            building = self._building.setdefault(key, threading.Lock())
        with building:  # one thread embeds; the others find its matrix when they get the lock
            with self._lock:
                found = self._cache.get(key)
            if found is not None:
                return found
            mat = self._embed(embedder, kind)
            with self._lock:
                self._cache[key] = mat
                self._building.pop(key, None)
            return mat

    def _embed(self, embedder: Embedder, kind: Kind) -> Matrix:
        texts = (self.prototypes.statements if kind == "statements"
                 else self.prototypes.questions).texts
        if kind == "statements":
            return np.asarray(embedder.embed_passages(list(texts)), dtype=np.float32)
        if isinstance(embedder, QueryBatcher) and texts:  # one model call, not one per text
            return np.asarray(embedder.embed_queries(list(texts)), dtype=np.float32)
        return np.stack([np.asarray(embedder.embed_query(t), dtype=np.float32)
                         for t in texts]) if texts else np.zeros((0, embedder.dim),
                                                                dtype=np.float32)

    def warm(self, embedder: Embedder) -> int:
        """Embed now the matrices ``embedder`` types with (the kinds it has margins for), so
        no later call waits for them; the number of prototypes embedded (0 when cached)."""
        done = 0
        kinds: tuple[Kind, ...] = ("statements", "questions")
        for kind in kinds:
            if not self.prototypes.margins_for(embedder.name, kind):
                continue
            with self._lock:
                cached = (embedder.name, kind) in self._cache
            if not cached:
                done += self.matrix(embedder, kind).shape[0]
        return done

    def type_of(self, embedder: Embedder, kind: Kind, vector: Matrix,
                allowed: frozenset[str] | None = None) -> Typed | None:
        """The slot of a text whose vector (in ``embedder``'s space) is ``vector``; None when the
        embedder has no calibrated margins or no slot leads by its margin."""
        margins = self.prototypes.margins_for(embedder.name, kind)
        if not margins:
            return None
        sets = self.prototypes.statements if kind == "statements" else self.prototypes.questions
        return nearest(self.matrix(embedder, kind), sets.labels, vector, margins, allowed)


_INDEX: PrototypeIndex | None = None
_INDEX_LOCK = threading.Lock()


def index() -> PrototypeIndex:
    """The process-wide index of the shipped prototypes."""
    global _INDEX
    with _INDEX_LOCK:
        if _INDEX is None:
            _INDEX = PrototypeIndex(shipped())
        return _INDEX
