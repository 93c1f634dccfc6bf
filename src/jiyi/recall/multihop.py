"""Second hop and result diversity for the recall funnel (stage 3, after the first ranking).

A question about several things the user said at different times ("what does she do to relax,
and where did she go after the trip?") rarely finds every piece with its own words: the first
ranked list holds the pieces that share the question's words, and the others share words with
*those*. Two general mechanisms close the gap, both about the user's own conversation, neither
about any benchmark:

* **second hop** (:func:`hop_terms`, :func:`hop_ranks`): the salient words of the best first
  hits (their entities and content words that the query does not already have) are searched
  again, together with the query's own terms; units found only this way join the candidates
  with a discounted keyword rank, so they are scored by the same model as every other
  candidate (coverage of the query, speaker, freshness) and never outrank a direct match of
  the same strength;
* **diversity** (:func:`diversify`): several units cut from one source turn carry the same
  evidence; each further unit whose source turns are all already covered by a better hit is
  down-weighted, so the ``k`` slots cover more distinct turns.

Pure functions, except :func:`second_hop`, which runs one keyword search through the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from ..config import RecallWeights
from ..store.base import Scope, Store, Vector
from ..text import content_words, fold
from ..units import Hit
from .fusion import reciprocal_ranks
from .query import EnhancedQuery

#: Entity kinds too generic to lead anywhere on their own.
_SKIP_KINDS = frozenset({"date", "time", "money", "amount"})


def hop_terms(
    query_terms: Sequence[str],
    seeds: Sequence[Hit],
    exclude: Iterable[str] = (),
    limit: int = 6,
) -> list[str]:
    """The words that lead from the best hits to what they are connected with.

    Entities of the seeds first (in seed order), then content words of the seeds' contents,
    the ones shared by more seeds first (a topic, not a detail), then longer ones. Words
    already in the query and the ``exclude`` words (e.g. speaker names, which match half of a
    conversation) are left out. Folded, de-duplicated, at most ``limit``."""
    skip = {fold(t) for t in query_terms} | {fold(w) for x in exclude for w in content_words(x)}
    picked: list[str] = []

    def take(word: str) -> None:
        w = fold(word).strip()
        if w and w not in skip and w not in picked and len(picked) < limit:
            picked.append(w)

    for hit in seeds:
        for ent in hit.unit.entities:
            if ent.kind not in _SKIP_KINDS:
                for w in content_words(ent.text):
                    take(w)
    counts: dict[str, int] = {}
    first_seen: dict[str, int] = {}
    for hit in seeds:
        for w in content_words(hit.unit.content):
            if w in skip or w.isdigit():
                continue
            counts[w] = counts.get(w, 0) + 1
            first_seen.setdefault(w, len(first_seen))
    for w in sorted(counts, key=lambda w: (-counts[w], -len(w), first_seen[w])):
        take(w)
    return picked


def hop_ranks(first: Sequence[str], hop: Sequence[str], discount: float,
              rrf_k: int = 60) -> dict[str, float]:
    """Keyword ranks for the units the second hop found and the first pass did not:
    ``discount * (k+1)/(k+rank)`` by their rank in the hop list. Units of the first list keep
    their own rank (the caller merges with ``max``)."""
    seen = set(first)
    fresh = [uid for uid in hop if uid not in seen]
    return {uid: discount * rr for uid, rr in reciprocal_ranks(fresh, rrf_k).items()}


def second_hop(
    store: Store,
    scope: Scope,
    as_of: datetime,
    q: EnhancedQuery,
    hits: Sequence[Hit],
    first_keyword: Sequence[str],
    weights: RecallWeights,
    pool: int,
) -> dict[str, float]:
    """Search again with the query's terms plus the salient words of the best hits; returns
    discounted keyword ranks of the newly found units (empty when there is nothing to add).
    The names of the people who said the seeds' turns are not salient: they lead everywhere."""
    seeds = list(hits[: weights.hop_seeds])
    turns = store.source_turns([h.unit.id for h in seeds])
    speakers = {t.speaker for ts in turns.values() for t in ts if t.speaker}
    extra = hop_terms(q.terms, seeds, speakers, weights.hop_terms)
    if not extra:
        return {}
    found = store.keyword_search(scope, as_of, [*q.terms, *extra], weights.hop_pool or pool)
    return hop_ranks(first_keyword, [uid for uid, _ in found], weights.hop_discount,
                     weights.rrf_k)


def is_question(text: str) -> bool:
    """True when a unit asks something (its answer is usually in the next turn)."""
    return "?" in text or "？" in text


def next_turn(seed: Hit, after: Sequence[tuple[str, datetime, str, Sequence[str]]]
              ) -> list[str]:
    """Of ``after`` = (unit id, time, session, source turn ids) found just after ``seed``, the
    units of the first later turn of the seed's session. Pure."""
    own = set(seed.unit.source_turn_ids)
    later = [a for a in after if a[2] == seed.unit.session_id and a[1] > seed.unit.created_at
             and not set(a[3]) <= own]
    if not later:
        return []
    first = min(a[1] for a in later)
    return [a[0] for a in later if a[1] == first]


def neighbours(
    store: Store,
    scope: Scope,
    as_of: datetime,
    embedder: str,
    query_vector: Vector,
    hits: Sequence[Hit],
    weights: RecallWeights,
) -> dict[str, float]:
    """Units of the turn right after each question among the best hits (the reply that holds
    the answer), with a discounted keyword rank: ``discount * (k+1)/(k+rank of the seed)``."""
    out: dict[str, float] = {}
    gap = timedelta(seconds=weights.neighbour_gap_s)
    for rank, seed in enumerate(hits[: weights.neighbour_seeds], start=1):
        if not is_question(seed.unit.content):
            continue
        t = seed.unit.created_at
        found = store.vector_search(scope, as_of, embedder, query_vector, 20,
                                    since=t + timedelta(microseconds=1), until=t + gap)
        units = store.get_units([uid for uid, _ in found])
        after = [(u.id, u.created_at, u.session_id, u.source_turn_ids) for u in units]
        value = weights.neighbour_discount * (weights.rrf_k + 1) / (weights.rrf_k + rank)
        for uid in next_turn(seed, after):
            out[uid] = max(out.get(uid, 0.0), value)
    return out


def diversify(hits: Sequence[Hit], repeat_factor: float) -> list[Hit]:
    """Hits re-ordered so that the first ones cover more distinct source turns.

    Greedy, best first: a hit whose source turns are all covered by better hits gets its score
    multiplied by ``repeat_factor`` (once); the list is then sorted by score again. A factor of
    1 changes nothing. Hits without provenance are never treated as repeats."""
    if repeat_factor >= 1.0 or not hits:
        return list(hits)
    covered: set[str] = set()
    out: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (-h.score, h.unit.id)):
        turns = set(hit.unit.source_turn_ids)
        if turns and turns <= covered:
            hit = hit.model_copy(update={"score": hit.score * repeat_factor})
        covered |= turns
        out.append(hit)
    out.sort(key=lambda h: (-h.score, h.unit.id))
    return out


def merge_max(base: Mapping[str, float], extra: Mapping[str, float]) -> dict[str, float]:
    """``base`` with every id of ``extra`` raised to the larger of the two values."""
    out = dict(base)
    for uid, v in extra.items():
        if v > out.get(uid, 0.0):
            out[uid] = v
    return out
