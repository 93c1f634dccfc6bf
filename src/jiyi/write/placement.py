"""The write path behind :meth:`jiyi.Memory.ingest` and :meth:`jiyi.Memory.ingest_many`.

A turn is cut into drafts and embedded outside any lock (pure of the store), then decided under
the one write lock (:meth:`jiyi.Memory.placement_lock`): a known turn id gives its units back, and
each draft is a repeat (the unit is updated), a replacement (the older unit of its slot is
superseded) or new. The facade validates the turns and runs the opt-in retention afterwards;
everything between lives here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..embed.base import Embedder
from ..keyfacts.schema import is_single
from ..store.base import IngestBatch, Scope, TurnRecord, UnitEvent, Vector
from ..text.episode import episode_text
from ..turn_items import TurnItem
from ..units import USER_LEVEL_TYPES, Lifespan, MemoryUnit, content_hash, new_unit_id
from .adopt_values import adopt_entity_values, adopt_level_change
from .choices import keep_choice, replaced_choices
from .knownitems import take_back_known
from .lifts import keep_lift, lifted_restrictions
from .meaning import (
    ProfileRead,
    adopt_changes,
    adopt_negation,
    contradicted_items,
    keep_dated,
    retire_companions,
    type_by_meaning,
)
from .pipeline import TurnInput, UnitDraft, extract_turn
from .services import IngestServices

#: Stored units with the same content hash looked at to call a draft a repeat (one is enough;
#: a few more cover units of another type with the same text).
REPEAT_CANDIDATES = 5
#: Current values of a slot invalidated by a new value (normally one; more only after a race).
SLOT_VERSIONS_REPLACED = 20
#: A bare confirmation ("对，就是这个号") reinforces the facts of this many previous turns...
CONFIRMED_TURNS = 2
#: ... written within this window ...
CONFIRMATION_WINDOW = timedelta(days=1)
#: ... reading at most this many of the session's recent units.
CONFIRMATION_MAX_UNITS = 50


#: The session's topic state after a user turn, encoded for the store, from the turn and its
#: vector (the facade reads it with the read path's topic rules, :mod:`jiyi.recall.topics`).
TopicsAfter = Callable[[TurnRecord, Vector | None], str]


class WritePath:
    """Places turns for one facade (its store, configuration, embedders and write lock);
    ``topics_after`` keeps the session's topics from its user turns."""

    def __init__(self, mem: IngestServices, topics_after: TopicsAfter) -> None:
        self._mem = mem
        self._topics_after = topics_after

    def ingest(self, items: Sequence[TurnItem]) -> list[TurnOutcome]:
        """The write path of a batch (of one, for ``ingest``). Outside any lock: cut and embed
        the turns not already stored (a lookup that only saves work). Then per user, in one
        placement lock and one transaction, decide each turn in order: a known turn id gives
        its units; otherwise the drafts are placed against the store, which by then holds the
        batch's earlier turns, exactly as one-by-one ingests would have left it."""
        skip = self._already_stored(items)
        todo = [i for i in range(len(items)) if i not in skip]
        prepared = dict(zip(todo, self._prepare([items[i] for i in todo]), strict=True))
        outcomes: dict[int, TurnOutcome] = {}
        for uid, indices in _by_user(items):
            with self._mem.placement_lock(uid):
                for i in indices:
                    outcomes[i] = self._decide(items[i], prepared.get(i))
        return [outcomes[i] for i in range(len(items))]

    def _already_stored(self, items: Sequence[TurnItem]) -> set[int]:
        """Indices of turns whose id is stored, or repeats one earlier in ``items``: they need
        no extraction or embedding (the decision itself is taken again under the lock)."""
        wanted: dict[tuple[str, str], list[str]] = {}
        for item in items:
            if item.turn_id is not None:
                wanted.setdefault((item.user_id, item.session_id), []).append(item.turn_id)
        stored: set[tuple[str, str, str]] = set()
        for (uid, sid), tids in wanted.items():
            stored.update((uid, sid, t) for t in self._mem.store.find_turns(uid, sid, tids))
        skip: set[int] = set()
        for i, item in enumerate(items):
            ident = item.identity
            if ident is not None:
                if ident in stored:
                    skip.add(i)
                stored.add(ident)
        return skip

    def _prepare(self, items: Sequence[TurnItem]) -> list[_Prepared]:
        """Cut each turn into drafts (rules, or the model ``config.extract_llm`` names) and
        embed the batch. Pure of the store: nothing here depends on what is stored."""
        if not items:
            return []
        llm = self._mem.llm_extractor
        out: list[_Prepared] = []
        for item in items:
            key = "t_" + uuid.uuid4().hex
            tid = item.turn_id or key
            extraction = extract_turn(
                TurnInput(text=item.text, role=item.role, at=item.at, session_id=item.session_id,
                          user_id=item.user_id, turn_id=tid, speaker=item.speaker), llm=llm)
            turn = TurnRecord(key=key, turn_id=tid, session_id=item.session_id,
                              user_id=item.user_id, role=item.role,
                              text=extraction.redacted_text, at=item.at, speaker=item.speaker)
            drafts = _dedupe_drafts(extraction.drafts)
            if item.role == "user":
                keep_dated(drafts)
            out.append(_Prepared(turn, drafts, extraction.is_confirmation))
        embedded = self._embed_turns([(p.drafts, p.turn.text) for p in out])
        for prep, (vectors, turn_vector) in zip(out, embedded, strict=True):
            prep.vectors, prep.turn_vector = vectors, turn_vector
            if prep.turn.role == "user" and prep.turn.speaker is None:
                # a named speaker's turn (a transcript of several people) is typed by rule only:
                # a clause typed by meaning would supersede that person's earlier clause
                type_by_meaning(prep.drafts, prep.vectors, self._mem.embedder_routing,
                                prep.turn.speaker)
        return out

    def _decide(self, item: TurnItem, prepared: _Prepared | None) -> TurnOutcome:
        """Under the placement lock: a repeat of a stored turn id, or a new turn placed."""
        store = self._mem.store
        if item.turn_id is not None:
            key = store.find_turns(item.user_id, item.session_id, [item.turn_id]).get(item.turn_id)
            if key is not None:
                units = store.get_units(store.turn_units([key]).get(key, []))
                units.sort(key=lambda u: (u.created_at, u.type.value, u.content))
                return TurnOutcome(units, new=False)
        if prepared is None:  # stored when looked at outside the lock, erased since
            prepared = self._prepare([item])[0]
        return TurnOutcome(self._place_turn(prepared), new=True)

    def _place_turn(self, prepared: _Prepared) -> list[MemoryUnit]:
        """Decide each draft (repeat, replacement or new) against the store and write the turn
        with them (a user turn with its session's topic state); a confirmation then reinforces
        the previous turns' facts."""
        turn = prepared.turn
        batch = IngestBatch(turn=turn, embedder=self._mem.embedder_routing.default.name,
                            turn_vector=prepared.turn_vector)
        written: list[MemoryUnit] = []
        # the user's current units, read at most once for the turn's drafts: every draft is
        # placed against the same stored state (the turn is written after its last draft)
        profile = ProfileRead(self._mem.store, turn)
        adopt_changes(self._mem.store, turn, prepared.drafts)  # a change naming no slot word
        adopt_entity_values(self._mem.store, turn, prepared.drafts)  # a new value with no cue
        # "switch me onto Smile Plus"
        adopt_level_change(self._mem.store, turn, prepared.drafts, profile)
        for i, draft in enumerate(prepared.drafts):
            unit, is_new = self._place_draft(draft, turn, batch, profile)
            written.append(unit)
            if is_new:
                batch.add_vector(prepared.vectors[i][0], unit.id, prepared.vectors[i][1])
        retire_companions(self._mem.store, turn, batch)  # a replaced value's other units
        if turn.role == "user":
            batch.topic_state = self._topic_state(prepared)
        self._mem.store.commit_ingest(batch)
        if prepared.is_confirmation:
            written.extend(self._confirm_previous(turn))
        return written

    def _topic_state(self, prepared: _Prepared) -> str:
        """The session's topic state after this user turn (read and written under the
        placement lock, in the turn's transaction): topic switches follow the user's turns."""
        return self._topics_after(prepared.turn, prepared.turn_vector)

    def _embed_turns(self, turns: Sequence[tuple[list[UnitDraft], str]]
                     ) -> list[tuple[list[tuple[str, Vector]], Vector | None]]:
        """For each ``(drafts, turn text)``: the drafts' vectors (each in its type's space) and
        the raw turn's vector in the default space (the episodic layer; None for a blank
        episode). One ``embed_passages`` call per embedder space for the whole batch, each
        distinct text embedded once (a draft whose content is the whole turn shares the
        turn's vector)."""
        routing = self._mem.embedder_routing
        spaces: dict[str, tuple[Embedder, dict[str, int]]] = {}

        def ask(emb: Embedder, text: str) -> tuple[str, str]:
            rows = spaces.setdefault(emb.name, (emb, {}))[1]
            rows.setdefault(text, len(rows))
            return emb.name, text

        plan: list[tuple[list[tuple[str, str]], tuple[str, str] | None]] = []
        for drafts, text in turns:
            refs = [ask(routing.for_type(d.type), d.content) for d in drafts]
            episode = episode_text(text)
            plan.append((refs, ask(routing.default, episode) if episode else None))
        matrices = {name: emb.embed_passages(list(rows)) for name, (emb, rows) in spaces.items()}

        def vector(ref: tuple[str, str]) -> Vector:
            name, text = ref
            row: Vector = matrices[name][spaces[name][1][text]]
            return row

        return [([(ref[0], vector(ref)) for ref in refs],
                 vector(episode_ref) if episode_ref is not None else None)
                for refs, episode_ref in plan]

    def _place_draft(
        self, draft: UnitDraft, turn: TurnRecord, batch: IngestBatch,
        profile: ProfileRead | None = None,
    ) -> tuple[MemoryUnit, bool]:
        """Decide whether a draft is a repeat (update), a replacement (supersede) or new."""
        store = self._mem.store
        scope = Scope(user_id=turn.user_id, session_id=turn.session_id)
        adopt_negation(store, turn, draft, profile)  # an untyped clause negating a listed item
        taken = take_back_known(store, turn, draft, profile)  # a listed item taken back
        # a choice of food replacing an earlier one: another level of an attribute, or the
        # thing a switch leaves behind (write/choices.py), typed or not; a lasting fact
        chosen = replaced_choices(store, turn, draft, profile)
        keep_choice(turn, draft, chosen)
        # a diet or food restriction the user lifts ("not celiac after all", "我现在不吃素了";
        # write/lifts.py): history from this turn on, whatever question reaches it
        lifted = lifted_restrictions(store, turn, draft, profile)
        keep_lift(draft, lifted)
        chosen += [u for u in [*lifted, *draft.replaces] if u not in chosen]
        chash = content_hash(turn.user_id, draft.content)
        same = [
            u for u in store.find_units(scope, as_of=turn.at, content_hash=chash,
                                        limit=REPEAT_CANDIDATES)
            if u.type == draft.type
        ]
        if same:
            unit = same[0]
            ids = list(dict.fromkeys([*unit.source_turn_ids, turn.turn_id]))
            lifespan = self._lifespan_for(draft, turn.at)
            keep_until = max(unit.expires_at, lifespan.expires_at)
            updated = unit.model_copy(update={
                "source_turn_ids": ids,
                "lifespan": unit.lifespan.model_copy(update={
                    "expires_in": int((keep_until - unit.created_at).total_seconds())}),
            })
            batch.upserts.append(updated)
            batch.events.append(UnitEvent(unit.id, turn.at, "repeated", turn.turn_id))
            return updated, False

        unit = MemoryUnit(
            id=new_unit_id(), content=draft.content, type=draft.type,
            lifespan=self._lifespan_for(draft, turn.at),
            session_id=turn.session_id, user_id=turn.user_id,
            valid_at=draft.valid_at, valid_until=draft.valid_until,
            source_turn_ids=[turn.turn_id], entities=list(draft.entities),
            slot=draft.slot, topic=draft.topic, content_hash=chash,
        )
        if draft.slot:
            slot_scope = scope if draft.type not in USER_LEVEL_TYPES else Scope(turn.user_id, None)
            older = store.find_units(slot_scope, as_of=turn.at, slot=draft.slot,
                                    limit=SLOT_VERSIONS_REPLACED)
            replaced = [u for u in older if u.content_hash != chash]
            # a single-valued slot's value written earlier in this turn: the words put this one
            # after it ("X，不对，是Y"; "My number is X. Call Y from Monday."): this one replaces
            # it (a list item said twice in a turn, "之前说爱X，现在吃腻了", is the negation's work)
            if is_single(draft.slot):
                gone = {u.id for u in replaced} | {i for i, *_ in batch.invalidations}
                replaced += [u for u in batch.upserts if u.slot == draft.slot
                             and u.content_hash != chash and u.id not in gone]
            listed = contradicted_items(store, slot_scope, turn, draft, profile)
            replaced += [u for u in [*listed, *taken] if u not in replaced]
        else:
            replaced = []
        gone = {i for i, *_ in batch.invalidations}
        replaced += [u for u in chosen if u not in replaced and u.id not in gone]
        if replaced:
            unit = unit.model_copy(update={"supersedes": replaced[0].id})
            for old in replaced:
                batch.invalidations.append((old.id, turn.at, "superseded", unit.id))
                batch.events.append(UnitEvent(old.id, turn.at, "superseded", unit.id))
        batch.upserts.append(unit)
        batch.events.append(UnitEvent(unit.id, turn.at, "created", turn.turn_id, 1.0))
        return unit, True

    def _lifespan_for(self, draft: UnitDraft, at: datetime) -> Lifespan:
        seconds = draft.expires_in or self._mem.config.lifespan_of(draft.type)
        return Lifespan(created_at=at, expires_in=max(1, int(seconds)))

    def _confirm_previous(self, turn: TurnRecord) -> list[MemoryUnit]:
        """A pure confirmation ("对，就是这个号") reinforces the facts of the previous turns."""
        store = self._mem.store
        scope = Scope(user_id=turn.user_id, session_id=turn.session_id)
        recent = [t for t in store.recent_turns(scope, CONFIRMED_TURNS + 1)
                  if t.key != turn.key][-CONFIRMED_TURNS:]
        keys = {t.turn_id for t in recent}
        confirmed: list[MemoryUnit] = []
        for unit in store.find_units(scope, as_of=turn.at, since=turn.at - CONFIRMATION_WINDOW,
                                     limit=CONFIRMATION_MAX_UNITS):
            if keys & set(unit.source_turn_ids):
                confirmed.append(self._mem.feedback(unit.id, "confirmed"))
        return confirmed


@dataclass
class _Prepared:
    """A turn cut into drafts and embedded, waiting for its placement under the lock."""

    turn: TurnRecord
    drafts: list[UnitDraft]
    is_confirmation: bool
    vectors: list[tuple[str, Vector]] = field(default_factory=list)
    turn_vector: Vector | None = None


@dataclass(frozen=True)
class TurnOutcome:
    """What ingesting one turn did: its units, and whether the turn was new."""

    units: list[MemoryUnit]
    new: bool


def _by_user(items: Sequence[TurnItem]) -> list[tuple[str, list[int]]]:
    """Item indices grouped by user, users in order of first appearance (turns of different
    users never affect each other's placement, so each user's group keeps its own order)."""
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(item.user_id, []).append(i)
    return list(groups.items())


def _dedupe_drafts(drafts: list[UnitDraft]) -> list[UnitDraft]:
    """One turn never writes the same content twice."""
    seen: set[tuple[str, str]] = set()
    out: list[UnitDraft] = []
    for d in drafts:
        key = (d.type.value, d.content.casefold())
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
