"""Second hop, replies after a question, and result diversity (stage 3, after the first ranking).

A question about several things the user said at different times rarely finds every piece with
its own words: the first ranked list holds the pieces that share the question's words, and the
others are connected to *those*. Three general mechanisms, all about the user's own
conversation and none about any benchmark:

* **replies** (:func:`neighbours`, on by default): when one of the best hits is a question
  ("where did you go hiking?"), the answer is usually the next turn of the same session, which
  need not share a word with the query ("we drove up to Yosemite"). The units of that turn
  join the candidates just below their question;
* **diversity** (:func:`diversify`, on by default): several units cut from one source turn
  carry the same evidence; a unit whose source turns are all covered by a better hit is
  down-weighted, so the ``k`` slots cover more distinct turns;
* **second hop** (:func:`hop_terms`, :func:`hop_ranks`, off by default: no gain measured on
  LoCoMo, see ``docs/benchmarks``): the salient words of the best hits (entities, then longer
  content words, not the query's and not the speakers' names) are searched again with the
  query's terms; units found only this way join with a discounted keyword rank.

Extra candidates are scored by the same stage 3 model as every other candidate (coverage of the
query, speaker, freshness, scope and ``as_of``), so they never outrank a direct match of the
same strength. Pure functions, except :func:`second_hop` and :func:`neighbours`, which query the
store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from ..config import RecallWeights
from ..keyfacts.schema import base_name, spec
from ..store.base import Scope, Store, TurnRecord
from ..text import content_words, fold
from ..units import Hit
from .fusion import reciprocal_ranks
from .query import EnhancedQuery
from .rerank import is_question

#: Entity kinds too generic to lead anywhere on their own.
_SKIP_KINDS = frozenset({"date", "time", "money", "amount"})


def hop_terms(
    query_terms: Sequence[str],
    seeds: Sequence[Hit],
    exclude: Iterable[str] = (),
    limit: int = 6,
) -> list[str]:
    """The words that lead from the best hits to what they are connected with.

    Seed by seed (best first): its entities, then its content words, longer ones first (a
    name or a compound says more than a short common word). Words already in the query and the
    ``exclude`` words (e.g. speaker names, which match half of a conversation) are left out.
    Folded, de-duplicated, at most ``limit``."""
    skip = {fold(t) for t in query_terms} | {fold(w) for x in exclude for w in content_words(x)}
    picked: list[str] = []
    for hit in seeds:
        words = [w for ent in hit.unit.entities if ent.kind not in _SKIP_KINDS
                 for w in content_words(ent.text)]
        words += sorted(content_words(hit.unit.content), key=lambda w: -len(w))
        for word in words:
            w = fold(word).strip()
            if w and not w.isdigit() and w not in skip and w not in picked:
                picked.append(w)
                if len(picked) >= limit:
                    return picked
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
    history: bool = False,
    source_turns: Mapping[str, Sequence[TurnRecord]] | None = None,
) -> dict[str, float]:
    """Search again with the query's terms plus the salient words of the best hits; returns
    discounted keyword ranks of the newly found units (empty when there is nothing to add).
    The names of the people who said the seeds' turns are not salient: they lead everywhere.
    ``source_turns`` (unit id -> its source turns) saves reading again what the caller has
    read; a seed not in it is read."""
    best = hits[0].score if hits else 0.0
    seeds = [h for h in hits[: weights.hop_seeds] if h.score >= weights.hop_seed_ratio * best]
    known = source_turns or {}
    turns: dict[str, Sequence[TurnRecord]] = {
        h.unit.id: known[h.unit.id] for h in seeds if h.unit.id in known}
    missing = [h.unit.id for h in seeds if h.unit.id not in known]
    if missing:
        turns.update(store.source_turns(missing))
    speakers = {t.speaker for ts in turns.values() for t in ts if t.speaker}
    extra = hop_terms(q.terms, seeds, speakers, weights.hop_terms)
    if not extra:
        return {}
    found = store.keyword_search(scope, as_of, [*q.terms, *extra], weights.hop_pool or pool,
                                 history=history)
    return hop_ranks(first_keyword, [uid for uid, _ in found], weights.hop_discount,
                     weights.rrf_k)


def neighbours(
    store: Store,
    ranked: Sequence[tuple[Hit, float]],
    weights: RecallWeights,
    source_turns: Mapping[str, Sequence[TurnRecord]] | None = None,
) -> dict[str, float]:
    """Units of the turn right after each question among the best hits (the reply that holds
    the answer; a hit is a question when its unit or its last source turn asks one), each with
    a floor on its match z: its question's z minus
    ``neighbour_discount``. Only a question scoring at least ``neighbour_seed_ratio`` of the
    best hit is followed: a weak question that merely resembles the query leads to an unrelated
    answer. "The next turn" is the next one the session *ingested* (``TurnRecord.seq``), never
    read from timestamps: many imports give every turn of a session the same time.
    ``source_turns`` (unit id -> its source turns, as :meth:`~jiyi.store.base.Store.source_turns`
    gives them) saves reading again what the caller has read; a unit not in it is read."""
    out: dict[str, float] = {}
    if not ranked:
        return out
    floor = weights.neighbour_seed_ratio * ranked[0][0].score
    asking: dict[str, float] = {}  # a turn that asked, found through a unit that does not ask
    seeds: dict[str, float] = {}  # the question's last source turn -> its z (before a repeated
    # question's penalty: the reply inherits how well the question matched)
    for hit, z in ranked[: weights.neighbour_seeds]:
        if hit.score < floor or not hit.unit.source_turn_ids:
            continue
        if source_turns is not None and hit.unit.id in source_turns:
            turns = list(source_turns[hit.unit.id])
        else:
            keys = store.unit_turn_keys(hit.unit.id)
            turns = store.get_turns(keys) if keys else []
        if not turns:
            continue
        last = max(turns, key=lambda t: t.seq)
        if is_question(hit.unit.content):
            seeds[last.key] = max(seeds.get(last.key, float("-inf")), z)
        elif hit.stage != "rule" and is_question(last.text):
            # found by the turn's words or meaning (the question's among them), not by a rule
            # on the value it holds: its z says how well the question matched
            asking[last.key] = max(asking.get(last.key, float("-inf")), z)
    if asking:
        # the question may be in the turn and in none of its units: the write path keeps no
        # unit of an open question said among other sentences ("I ran today. What got you
        # into it?"); a unit of that turn stands for it
        of_turn = store.turn_units(list(asking))
        asked = {u.id for u in store.get_units([i for ids in of_turn.values() for i in ids])
                 if is_question(u.content)}
        for key, z in asking.items():
            if not asked.intersection(of_turn.get(key, [])):
                seeds[key] = max(seeds.get(key, float("-inf")), z)
    if not seeds:
        return out
    following = store.next_turns(list(seeds))
    units = store.turn_units(list(following.values()))
    for key, nxt in following.items():
        value = seeds[key] - weights.neighbour_discount
        for uid in units.get(nxt, []):
            out[uid] = max(out.get(uid, float("-inf")), value)
    return out


def diversify(hits: Sequence[Hit], repeat_factor: float, limit: int | None = None
              ) -> list[Hit]:
    """Hits re-ordered so that the first ones cover more distinct source turns; the first
    ``limit`` of them (None: all).

    Greedy, best first: a hit whose source turns are all covered by better hits gets its score
    multiplied by ``repeat_factor`` (once); the list is then sorted by score again. A factor of
    1 changes nothing. Hits without provenance are never treated as repeats. Only the hits
    returned are copied with their new score (a recall ranks ~50 candidates for 10 hits)."""
    if repeat_factor >= 1.0 or not hits:
        return list(hits)[:limit]
    covered: set[str] = set()
    scored: list[tuple[float, str, Hit, bool]] = []
    for hit in sorted(hits, key=lambda h: (-h.score, h.unit.content, h.unit.id)):
        turns = set(hit.unit.source_turn_ids)
        repeat = bool(turns) and turns <= covered
        scored.append((hit.score * repeat_factor if repeat else hit.score, hit.unit.id, hit,
                       repeat))
        covered |= turns
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [hit.model_copy(update={"score": score}) if repeat else hit
            for score, _, hit, repeat in scored[:limit]]


#: The entity kinds a typed value carries that the words around it may not ("The user's email
#: is X" beside "the mail address for the invoice is now my company's").
VALUE_KINDS = frozenset({"phone", "email", "address", "person"})


def _speaks_of_slot(slot: str, text: str) -> bool:
    """The clause speaks of the typed unit's slot (its question's words: "the mail address for
    the invoice" of an e-mail); "订单号是 ABC123" does not speak of the name said beside it."""
    row = spec(base_name(slot))
    return row is not None and row.spoken_of(text)


def values_lead(hits: Sequence[Hit]) -> list[Hit]:
    """Hits where a current typed value outranks the words its turn said around it: a clause
    that matched the question ("for the next orders, the mail address for the invoice is now the
    one of my company") but does not hold the value, cut from the same turn as a typed unit that
    does ("The user's email is c.moreau@…"), and speaks of its slot, lends the typed unit its
    score. The clause is then
    a repeat of a covered turn (:func:`diversify`). One typed unit per clause, the best; a
    value the clause already holds changes nothing."""
    best: dict[str, Hit] = {}  # turn id -> the best untyped hit cut from it
    out = list(hits)
    lent: set[str] = set()
    ordered = sorted(range(len(out)), key=lambda i: (-out[i].score, out[i].unit.content,
                                                    out[i].unit.id))
    for i in ordered:
        hit = out[i]
        unit = hit.unit
        if unit.slot is None:
            for t in unit.source_turn_ids:
                best.setdefault(t, hit)
            continue
        if not hit.current:
            continue
        values = [e.text for e in unit.entities if e.kind in VALUE_KINDS]
        if not values:
            continue
        lender = next((b for t in unit.source_turn_ids if (b := best.get(t)) is not None
                       and b.unit.id not in lent and b.score > hit.score), None)
        if lender is None or any(v in lender.unit.content for v in values) \
                or not _speaks_of_slot(unit.slot, lender.unit.content):
            continue
        lent.add(lender.unit.id)
        out[i] = hit.model_copy(update={"score": lender.score + 1e-6})
    return out


def merge_max(base: Mapping[str, float], extra: Mapping[str, float]) -> dict[str, float]:
    """``base`` with every id of ``extra`` raised to the larger of the two values."""
    out = dict(base)
    for uid, v in extra.items():
        if v > out.get(uid, 0.0):
            out[uid] = v
    return out
