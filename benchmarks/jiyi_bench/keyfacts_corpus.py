"""A seeded multi-session customer-service corpus for the key-facts evaluation.

Each user is given one phrasing bank and one language (assigned round-robin, so every
bank x language cell gets the same number of users, within one), 3-5 sessions some days
apart, and a random subset of the slots. A slot's statement comes in an early session, its
change (phone, email, address, membership upgrade, delivery time, contact channel) in a later
one; a liked food may be negated later; coupons carry an expiry date written in the language,
some before the question time and some after; an order id comes with a tool turn (an order
lookup) about it. Noise lies between the facts: the bank's noise turns (chit-chat, other
topics), assistant replies and tool calls; some facts are buried in a compound turn with noise
around them. The questions (the bank's ``ask`` / ``ask_past``) come in a new session after the
last, at the question time. Everything is a function of (seed, users, the banks' contents).

The round-robin covers the banks present except the appended ones
(:data:`~jiyi_bench.keyfacts_bank.APPENDED`, banks d, e, f and g): each of those gets a block
of its own after the round-robin users (d's, then e's, f's and g's), as many users as the most any
round-robin bank gets (all ``users`` when no round-robin bank runs), languages in turn, each
user drawn from the bank's own random stream and named by the bank's own fingerprint. So adding bank d, e, f or g leaves
every user, turn and question of the other banks as it was (same ids, same fingerprint for the
round-robin part), and an appended bank's user ``j`` is the same whichever other banks run.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from .keyfacts_bank import APPENDED, LANGS, Bank, LanguageBank
from .keyfacts_values import coupon_code, discount, email, match_key, order_id, phone, render_date
from .ranking import RawTurn

VERSION = 2  # bump when the generator changes what it writes
START = datetime(2026, 3, 2, tzinfo=UTC)
SLOTS = ("name", "phone", "email", "address", "membership", "food", "delivery_time",
         "contact_channel", "coupon", "order")
CHANGE_P = {"phone": 0.7, "email": 0.5, "address": 0.7, "membership": 0.7,
            "delivery_time": 0.5, "contact_channel": 0.5}
NEGATE_P = 0.6
SLOT_P = 0.65
COMPOUND_P = 0.3
COMPOUND_CHARS = (60, 280)
ASSISTANT_P = 0.5
TOOL_P = 0.15


@dataclass(frozen=True)
class Question:
    """One question and what a right answer contains.

    ``current``: the values a top-5 hit should contain (single-valued slots: one; food: every
    item still liked; coupons: the codes valid at ``as_of``; a past question: the replaced
    value). ``old``: values replaced since (a past question: the current value). ``expired``:
    coupon codes expired at ``as_of``. ``exempt``: turns whose text may carry an old value
    rightly (the negation turn itself). ``match``: "phone" compares national digits, "level" a membership level (its name beside a
    word for membership, or the whole value)."""

    qid: str
    user_id: str
    session_id: str
    bank: str
    split: str
    lang: str
    kind: str  # a slot, or "phone_past" / "address_past"
    text: str
    as_of: datetime
    current: tuple[str, ...]
    old: tuple[str, ...] = ()
    expired: tuple[str, ...] = ()
    exempt: tuple[str, ...] = ()
    match: str = "text"
    changed: bool = False
    past: bool = False


@dataclass(frozen=True)
class Corpus:
    fingerprint: str
    seed: int
    users: int
    banks: tuple[str, ...]
    turns: tuple[RawTurn, ...]
    questions: tuple[Question, ...]
    profiles: dict[str, tuple[str, str]]  # user id -> (bank, language)
    blocks: tuple[tuple[str, int], ...] = ()  # appended banks' own blocks: (bank, users)


@dataclass
class _Fact:
    session: int
    text: str
    kind: str
    tool: str | None = None  # a tool turn that follows (order lookup)
    turn_id: str = ""


def fingerprint(seed: int, users: int, banks: list[Bank]) -> str:
    blob = json.dumps([VERSION, seed, users, sorted((b.name, b.digest) for b in banks)])
    return hashlib.sha256(blob.encode()).hexdigest()


def block_fingerprint(seed: int, bank: Bank) -> str:
    """The fingerprint naming an appended bank's own users: its seed and contents only."""
    blob = json.dumps([VERSION, seed, "appended", bank.name, bank.digest])
    return hashlib.sha256(blob.encode()).hexdigest()


def block_users(users: int, round_robin: int) -> int:
    """An appended bank's block: the most users a round-robin bank gets, or all ``users``
    when no round-robin bank runs."""
    return -(-users // round_robin) if round_robin else users


def assignment(index: int, banks: list[Bank]) -> tuple[Bank, str]:
    """User ``index``'s bank and language: round-robin over banks, then languages."""
    bank = banks[index % len(banks)]
    lang = LANGS[(index // len(banks)) % len(LANGS)]
    return bank, lang


def _fill(template: str, **values: str) -> str:
    out = template
    for key, val in values.items():
        out = out.replace("{" + key + "}", val)
    return out


def _joiner(lang: str) -> str:
    return " " if lang == "en" else ""


class _UserBuilder:
    """Writes one user's facts, sessions and questions."""

    def __init__(self, rng: random.Random, uid: str, bank: Bank, lang: str) -> None:
        self.rng, self.uid, self.bank, self.lang = rng, uid, bank, lang
        self.lb: LanguageBank = bank.languages[lang]
        n = rng.randint(3, 5)
        first = START + timedelta(days=rng.randint(0, 28), hours=rng.randint(9, 20),
                                  minutes=rng.randint(0, 59))
        self.dates = [first]
        for _ in range(n - 1):
            self.dates.append(self.dates[-1] + timedelta(days=rng.randint(2, 9),
                                                         hours=rng.randint(-3, 3)))
        self.ask_at = self.dates[-1] + timedelta(days=rng.randint(1, 6))
        self.facts: list[_Fact] = []
        self.questions: list[tuple[str, str, dict[str, Any]]] = []  # kind, ask text, fields

    # ------------------------------------------------------------- helpers
    def t(self, slot: str, key: str) -> str:
        return self.rng.choice(self.lb.slots[slot][key])

    def two_sessions(self) -> tuple[int, int]:
        """A statement session and a later change session."""
        n = len(self.dates)
        s = self.rng.randint(0, n - 2)
        return s, self.rng.randint(s + 1, n - 1)

    def add(self, session: int, text: str, kind: str, tool: str | None = None) -> _Fact:
        fact = _Fact(session, text, kind, tool)
        self.facts.append(fact)
        return fact

    def ask(self, kind: str, key: str, slot: str | None = None, **fields: Any) -> None:
        self.questions.append((kind, self.t(slot or kind, key), fields))

    # ------------------------------------------------------------- slots
    def single(self, slot: str, value: str, new: str | None, key: str,
               new_key: str | None, past: bool, match: str = "text") -> None:
        """A single-valued slot: stated, maybe changed, asked (and asked for the past);
        ``key`` / ``new_key``: what a right answer contains of the value / the new value."""
        if new is None:
            self.add(self.rng.randint(0, len(self.dates) - 1),
                     _fill(self.t(slot, "state"), value=value), slot)
            self.ask(slot, "ask", current=(key,), match=match)
            return
        s, c = self.two_sessions()
        self.add(s, _fill(self.t(slot, "state"), value=value), slot)
        self.add(c, _fill(self.t(slot, "change"), value=new, old=value), slot)
        assert new_key is not None
        self.ask(slot, "ask", current=(new_key,), old=(key,), changed=True, match=match)
        if past and "ask_past" in self.lb.slots[slot]:
            self.ask(f"{slot}_past", "ask_past", slot=slot, current=(key,),
                     old=(new_key,), changed=True, past=True, match=match)

    def pick(self, slot: str) -> list[str]:
        return list(self.lb.slots[slot]["values"])

    def other(self, values: list[str], not_this: str) -> str:
        return self.rng.choice([v for v in values if v != not_this])

    def slot(self, slot: str) -> None:
        rng, lang = self.rng, self.lang
        changes = rng.random() < CHANGE_P.get(slot, 0.0)
        if slot == "name":
            v = rng.choice(self.pick("name"))
            self.single("name", v, None, match_key(v), None, False)
        elif slot == "phone":
            p = phone(rng, lang)
            q = phone(rng, lang) if changes else None
            while q is not None and q.core == p.core:
                q = phone(rng, lang)
            self.single_phone(p.text, p.core, None if q is None else (q.text, q.core))
        elif slot == "email":
            v = email(rng, lang)
            w = email(rng, lang) if changes else None
            while w is not None and w == v:
                w = email(rng, lang)
            self.single("email", v, w, v, w, False)
        elif slot in ("address", "delivery_time", "contact_channel"):
            values = self.pick(slot)
            v = rng.choice(values)
            w = self.other(values, v) if changes else None
            self.single(slot, v, w, match_key(v),
                        None if w is None else match_key(w), slot == "address")
        elif slot == "membership":
            levels = self.pick("membership")
            i = rng.randint(0, len(levels) - 2)
            w = levels[rng.randint(i + 1, len(levels) - 1)] if changes else None
            self.single("membership", levels[i], w, levels[i], w, False, match="level")
        elif slot == "food":
            self.food()
        elif slot == "coupon":
            self.coupons()
        elif slot == "order":
            oid = order_id(rng, lang)
            status = rng.choice(("shipped", "in_transit", "delivered", "processing"))
            tool = json.dumps({"tool": "order_status", "order_id": oid, "status": status,
                               "carrier": rng.choice(("SF", "YTO", "UPS", "DHL", "T-CAT")),
                               "updated": (self.dates[0] + timedelta(hours=2)).date()
                               .isoformat()}, ensure_ascii=False)
            self.add(rng.randint(0, len(self.dates) - 1),
                     _fill(self.t("order", "state"), value=oid), "order", tool=tool)
            self.ask("order", "ask", current=(oid,))

    def single_phone(self, text: str, core: str, new: tuple[str, str] | None) -> None:
        if new is None:
            self.add(self.rng.randint(0, len(self.dates) - 1),
                     _fill(self.t("phone", "state"), value=text), "phone")
            self.ask("phone", "ask", current=(core,), match="phone")
            return
        s, c = self.two_sessions()
        self.add(s, _fill(self.t("phone", "state"), value=text), "phone")
        self.add(c, _fill(self.t("phone", "change"), value=new[0], old=text), "phone")
        self.ask("phone", "ask", current=(new[1],), old=(core,), changed=True, match="phone")
        self.ask("phone_past", "ask_past", slot="phone", current=(core,), old=(new[1],),
                 changed=True, past=True, match="phone")

    def food(self) -> None:
        rng = self.rng
        items = rng.sample(self.pick("food"), rng.randint(2, 3))
        negated = rng.choice(items) if rng.random() < NEGATE_P else None
        exempt: list[_Fact] = []
        n = len(self.dates)
        for item in items:
            s = rng.randint(0, n - 2) if item == negated else rng.randint(0, n - 1)
            self.add(s, _fill(self.t("food", "state"), value=item), "food")
            if item == negated:
                exempt.append(self.add(rng.randint(s + 1, n - 1),
                                       _fill(self.t("food", "negate"), value=item), "food"))
        current = tuple(match_key(i) for i in items if i != negated)
        self.ask("food", "ask", current=current,
                 old=() if negated is None else (match_key(negated),),
                 exempt_facts=exempt, changed=negated is not None)

    def coupons(self) -> None:
        rng, lang = self.rng, self.lang
        ask_day = self.ask_at.date()
        codes: set[str] = set()
        valid: list[str] = []
        expired: list[str] = []
        for i in range(rng.randint(2, 4)):
            code = coupon_code(rng)
            while code in codes:
                code = coupon_code(rng)
            codes.add(code)
            # an expired coupon needs a statement session at least three days before the ask
            early = [s for s, d in enumerate(self.dates) if (ask_day - d.date()).days >= 3]
            expire = i > 0 and bool(early) and rng.random() < 0.5
            s = rng.choice(early) if expire else rng.randint(0, len(self.dates) - 1)
            said = self.dates[s].date()
            if expire:
                day = said + timedelta(days=rng.randint(1, (ask_day - said).days - 2))
                expired.append(code)
            else:
                day = ask_day + timedelta(days=rng.randint(3, 60))
                valid.append(code)
            text = _fill(self.t("coupon", "state"), code=code,
                         expiry=render_date(day, lang, rng.random() < 0.4),
                         discount=discount(rng, lang))
            self.add(s, text, "coupon")
        self.ask("coupon", "ask", current=tuple(valid), expired=tuple(expired))

    # ------------------------------------------------------------- turns
    def noise_turn(self) -> str:
        return self.rng.choice(self.lb.noise)

    def tool_noise(self) -> str:
        rng = self.rng
        return json.dumps(rng.choice((
            {"tool": "stock_check", "sku": f"SKU-{rng.randint(10000, 99999)}",
             "in_stock": rng.randint(0, 40)},
            {"tool": "shipping_quote", "zone": rng.randint(1, 9),
             "fee": rng.choice((0, 6, 8, 12, 15))},
            {"tool": "faq_search", "hits": rng.randint(0, 5), "top": "returns-policy"},
        )), ensure_ascii=False)

    def compound(self, fact: str, join: str) -> str:
        """The fact inside one long turn: other noise sentences (no repeats) before and after
        it until the turn reaches a length drawn between 60 and 280 characters, so every
        language has turns above the compression measure's 150 characters."""
        rng = self.rng
        target = rng.randint(COMPOUND_CHARS[0], COMPOUND_CHARS[1])
        pool = rng.sample(self.lb.noise, len(self.lb.noise))
        before: list[str] = [pool.pop()]
        after: list[str] = []
        while pool and len(join.join([*before, fact, *after])) < target:
            (before if rng.random() < 0.5 else after).append(pool.pop())
        return join.join([*before, fact, *after])

    def sessions(self) -> list[RawTurn]:
        rng, join = self.rng, _joiner(self.lang)
        out: list[RawTurn] = []
        by_session: dict[int, list[_Fact]] = {}
        for f in self.facts:
            by_session.setdefault(f.session, []).append(f)
        for s, start in enumerate(self.dates):
            facts = by_session.get(s, [])
            rng.shuffle(facts)
            sid = f"{self.uid}-s{s + 1}"
            turns: list[tuple[str, str, _Fact | None]] = [("user", self.noise_turn(), None)]
            for f in facts:
                for _ in range(rng.choice((0, 1, 1, 2))):
                    turns.append(("user", self.noise_turn(), None))
                    if rng.random() < ASSISTANT_P:
                        turns.append(("assistant", rng.choice(self.lb.assistant), None))
                    if rng.random() < TOOL_P:
                        turns.append(("tool", self.tool_noise(), None))
                text = f.text
                if rng.random() < COMPOUND_P:  # the fact buried among other things
                    text = self.compound(text, join)
                turns.append(("user", text, f))
                if f.tool is not None:
                    turns.append(("tool", f.tool, None))
                if rng.random() < ASSISTANT_P:
                    turns.append(("assistant", rng.choice(self.lb.assistant), None))
            turns.append(("user", self.noise_turn(), None))
            for i, (role, text, fact) in enumerate(turns):
                tid = f"{sid}-t{i + 1}"
                if fact is not None:
                    fact.turn_id = tid
                out.append(RawTurn(self.uid, sid, tid, text,
                                   start + timedelta(minutes=2 * i, seconds=rng.randint(0, 59)),
                                   role))
        return out

    def build_questions(self) -> list[Question]:
        sid = f"{self.uid}-s{len(self.dates) + 1}"
        out = []
        order = list(range(len(self.questions)))
        self.rng.shuffle(order)
        for n, i in enumerate(order):
            kind, text, f = self.questions[i]
            fields = dict(f)
            exempt = tuple(x.turn_id for x in fields.pop("exempt_facts", []))
            out.append(Question(
                qid=f"{sid}-q{n + 1}", user_id=self.uid, session_id=sid, bank=self.bank.name,
                split=self.bank.split, lang=self.lang, kind=kind, text=text, as_of=self.ask_at,
                exempt=exempt, **fields))
        return out


def build_user(seed: int, index: int, uid: str, bank: Bank, lang: str, stream: str | None = None
               ) -> tuple[list[RawTurn], list[Question]]:
    """One user's turns and questions (a function of seed, index and the bank; ``stream``: the
    random stream's own name instead of "seed:index", for an appended bank's block)."""
    rng = random.Random(stream if stream is not None else f"{seed}:{index}")
    b = _UserBuilder(rng, uid, bank, lang)
    chosen = [s for s in SLOTS if rng.random() < SLOT_P]
    while len(chosen) < 4:
        extra = rng.choice([s for s in SLOTS if s not in chosen])
        chosen = [s for s in SLOTS if s in chosen or s == extra]
    for slot in chosen:
        b.slot(slot)
    turns = b.sessions()
    return turns, b.build_questions()


def generate(banks: list[Bank], users: int = 200, seed: int = 24) -> Corpus:
    """The corpus for ``users`` users over ``banks`` (see the module docstring)."""
    if users < 1:
        raise ValueError("users must be at least 1")
    robin = [b for b in banks if b.name not in APPENDED]
    late = [b for b in banks if b.name in APPENDED]
    fp = fingerprint(seed, users, robin)
    turns: list[RawTurn] = []
    questions: list[Question] = []
    profiles: dict[str, tuple[str, str]] = {}

    def add(uid: str, bank: Bank, lang: str, index: int, stream: str | None) -> None:
        profiles[uid] = (bank.name, lang)
        t, q = build_user(seed, index, uid, bank, lang, stream)
        turns.extend(t)
        questions.extend(q)

    for i in range(users if robin else 0):
        bank, lang = assignment(i, robin)
        add(f"kf{fp[:8]}-{i:04d}", bank, lang, i, None)
    blocks: list[tuple[str, int]] = []
    for bank in late:
        n = block_users(users, len(robin))
        own = block_fingerprint(seed, bank)
        for j in range(n):
            add(f"kf{own[:8]}-{bank.name}{j:04d}", bank, LANGS[j % len(LANGS)], j,
                f"{seed}:{bank.name}:{j}")
        blocks.append((bank.name, n))
    if blocks:  # the whole corpus: the round-robin part's fingerprint and each block's
        fp = hashlib.sha256(json.dumps(
            [fp if robin else "", *[(b.name, block_fingerprint(seed, b), n)
                                    for b, (_, n) in zip(late, blocks, strict=True)]]
        ).encode()).hexdigest()
    return Corpus(fp, seed, users, tuple(b.name for b in banks), tuple(turns), tuple(questions),
                  profiles, tuple(blocks))
