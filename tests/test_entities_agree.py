"""One entity recogniser (:mod:`jiyi.text.entities`): a phone the write path finds is the phone
the rule stage of recall looks up and the summary channel weighs, in zh-Hans, zh-Hant, English
and with full-width digits; and no second copy of the patterns comes back elsewhere."""

from __future__ import annotations

import ast
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

import jiyi.text.entities as recogniser
from jiyi import Memory
from jiyi.context.summary import find_entities
from jiyi.recall import RecallTrace
from jiyi.recall.rules import lookup_values, query_entities
from jiyi.text.entities import QUERY, SUMMARY
from jiyi.units import Entity
from jiyi.write.pipeline import TurnInput, extract_turn

AT = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
SRC = Path(__file__).resolve().parents[1] / "src" / "jiyi"

#: (text, the (kind, value) pairs every caller must agree on).
TEXTS: list[tuple[str, set[tuple[str, str]]]] = [
    ("我的手机号是13812345678，邮箱是zhang.wei@example.com",
     {("phone", "13812345678"), ("email", "zhang.wei@example.com")}),
    ("我的手機號碼改成１３９１２３４５６７８了", {("phone", "13912345678")}),
    ("my new number is +44 20 7946 0958, email Alice.Smith@Example.org",
     {("phone", "+442079460958"), ("email", "alice.smith@example.org")}),
    ("我的订单号是ORD-20260503-77，运单号SF1234567890",
     {("order_id", "ORD-20260503-77"), ("tracking_no", "SF1234567890")}),
    ("訂單編號是ＡＢ１２３４５６，優惠碼SPRING25", {("order_id", "AB123456"), ("code", "SPRING25")}),
    ("My order number is AB123456 and the coupon code is SAVE20",
     {("order_id", "AB123456"), ("code", "SAVE20")}),
    ("优惠券码VIP2026OFF，2026年5月3日到期", {("code", "VIP2026OFF"), ("date", "2026-05-03")}),
    ("2026年５月１０日下單的，付了299元", {("date", "2026-05-10"), ("amount", "299 CNY")}),
    ("I paid $45.90 on May 3, 2026", {("amount", "45.90 USD"), ("date", "2026-05-03")}),
    ("你好，我叫张伟", {("person", "张伟")}),
    ("您好，我叫張偉", {("person", "张伟")}),
    ("Hi, my name is Alice Smith", {("person", "Alice Smith")}),
]


def _written(text: str) -> list[Entity]:
    turn = TurnInput(text=text, role="user", at=AT, session_id="s1", user_id="u1", turn_id="t1")
    return extract_turn(turn).entities


@pytest.mark.parametrize(("text", "expected"), TEXTS)
def test_write_rules_and_summary_read_the_same_entities(
        text: str, expected: set[tuple[str, str]]) -> None:
    written = _written(text)
    assert expected <= {(e.kind, e.value) for e in written}
    # the rule stage looks up exactly what the write path stored, kind, value and span, for the
    # kinds it looks up (not amounts or names: those are the keyword stage's)
    looked_up = [e for e in written if e.kind in (QUERY.kinds or ())]
    queried = query_entities(text, AT)
    assert [(e.kind, e.value, e.start, e.end) for e in queried] \
        == [(e.kind, e.value, e.start, e.end) for e in looked_up]
    assert {e.value for e in looked_up} <= {e.value for e in lookup_values(queried)}
    # the summary weighs the spans the write path found (people, ids, amounts, dates)
    weighed = find_entities(text)
    assert [e.text for e in written if e.kind in (SUMMARY.kinds or ())] \
        == [w for w in weighed if w in {e.text for e in written}]
    assert {e.text for e in written if e.kind in (SUMMARY.kinds or ())} <= set(weighed)


def test_full_width_digits_read_as_ascii_with_the_span_as_given() -> None:
    text = "我的手機是１３８１２３４５６７８"
    for found in (_written(text), query_entities(text, AT)):
        assert [(e.kind, e.value, e.text) for e in found] \
            == [("phone", "13812345678", "１３８１２３４５６７８")]
        assert text[found[0].start:found[0].end] == "１３８１２３４５６７８"
    assert find_entities(text) == ["１３８１２３４５６７８"]


@pytest.mark.parametrize(("said", "asked", "value"), [
    ("我的手機是１３８１２３４５６７８", "13812345678是谁的号码", "13812345678"),
    ("我的手机号是13812345678", "１３８１２３４５６７８ 这个号码是我的吗", "13812345678"),
    ("My order number is AB123456", "where is order ab123456", "AB123456"),
    ("訂單編號是ＡＢ１２３４５６", "AB123456到哪了", "AB123456"),
])
def test_the_rule_stage_finds_what_the_write_path_stored(
        mem: Memory, said: str, asked: str, value: str) -> None:
    mem.ingest(said, role="user", session_id="s1", user_id="u1", at=AT)
    trace = RecallTrace()
    mem.recall(asked, session_id="s2", user_id="u1", k=5, as_of=AT, log=False, trace=trace)
    found = mem.store.get_units(trace.rule_ids)
    assert any(e.value == value for u in found for e in u.entities), asked


def test_every_caller_reads_through_the_one_recogniser(monkeypatch: pytest.MonkeyPatch) -> None:
    """A phone rule added to the one recogniser reaches the write path, the rule stage and the
    summary: none of them reads with patterns of its own."""
    text = "第2次说了，请记下 ZQX-PHONE 这个号"
    start = text.index("ZQX-PHONE")
    probe = Entity(kind="phone", text="ZQX-PHONE", value="ZQX-PHONE", start=start,
                   end=start + len("ZQX-PHONE"))
    monkeypatch.setattr(recogniser, "_phones", lambda _text: [probe])
    assert ("phone", "ZQX-PHONE") in {(e.kind, e.value) for e in _written(text)}
    assert ("phone", "ZQX-PHONE") in {(e.kind, e.value) for e in query_entities(text, AT)}
    assert "ZQX-PHONE" in find_entities(text)


# ---------------------------------------------------------------- no second copy of the patterns
#: Modules that may hold patterns of entity shapes: the recogniser and the grammar it reads
#: dates and clock times with; the secret detector (a card number is not an entity).
OWNERS = {"text/entities.py", "text/timegrammar.py", "text/timeclock.py", "text/secrets.py"}
#: Patterns of entity shapes still elsewhere, each to be routed through the recogniser (the list
#: only shrinks): a coupon code's shape as a cue that a clause speaks of validity.
KNOWN = {("write/slots.py", "_VALIDITY_CONTEXT")}
#: Entity shapes (a pattern matching one of them whole is a recogniser of it) and ordinary
#: strings (a pattern matching one of those too is a general one: words, digit runs, clauses).
SHAPES = ["13812345678", "139 1234 5678", "+44 20 7946 0958", "zhang.wei@example.com",
          "ABC-12345", "ABC123", "SF1234567890", "¥299.5", "299元", "$45.90", "2026-05-03",
          "5月3日", "2026年5月3日", "May 3", "123456", "SAVE20"]
ORDINARY = ["hello", "你好", "12", "ok"]
_RE_CALLS = {"compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "split"}


def _literal(node: ast.expr) -> str | None:
    """A string the source spells out (constants joined with ``+`` included)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return left + right if left is not None and right is not None else None
    return None


def _entity_patterns(root: Path = SRC) -> set[tuple[str, str]]:
    """(module, name) of each pattern of an entity shape outside :data:`OWNERS`."""
    found: set[tuple[str, str]] = set()
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel in OWNERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {id(n.value): t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
                 for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr in _RE_CALLS and node.args):
                continue
            pattern = _literal(node.args[0])
            if pattern is None:
                continue
            try:
                rx = re.compile(pattern, re.IGNORECASE)
            except re.error:
                continue
            if any(rx.fullmatch(s) for s in SHAPES) and not any(rx.fullmatch(s) for s in ORDINARY):
                found.add((rel, names.get(id(node), f"line {node.lineno}")))
    return found


def test_no_second_copy_of_the_entity_patterns() -> None:
    new = _entity_patterns() - KNOWN
    assert not new, f"entity patterns outside jiyi.text.entities: {sorted(new)}"
    assert _entity_patterns() >= KNOWN, "gone: take it off KNOWN"


def test_the_check_catches_a_copy(tmp_path: Path) -> None:
    """The old copies (the summary's phone and digit-run patterns, the rule stage's code and
    e-mail patterns) are what the check flags; a general pattern is not."""
    (tmp_path / "recall").mkdir()
    (tmp_path / "recall" / "rules.py").write_text(
        "import re\n"
        "_EMAIL_RE = re.compile(r\"[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+\")\n"
        "_CODE_RE = re.compile(\n"
        "    r\"(?<![A-Za-z0-9])(?=[A-Za-z0-9_-]*\\d)(?=[A-Za-z0-9_-]*[A-Za-z])\"\n"
        "    r\"[A-Za-z0-9][A-Za-z0-9_-]{3,}\")\n"
        "_WORD_RE = re.compile(r\"\\w+\")\n", encoding="utf-8")
    (tmp_path / "context").mkdir()
    (tmp_path / "context" / "summary.py").write_text(
        "import re\n"
        "PATTERNS = (re.compile(r\"(?<!\\d)\\d{6,}(?!\\d)\"),\n"
        "            re.compile(r\"(?<!\\d)(?:\\+?\\d{1,3}[ -]?)?1[3-9]\\d[ -]?\\d{4}[ -]?\\d{4}\" + r\"(?!\\d)\"))\n",
        encoding="utf-8")
    assert _entity_patterns(tmp_path) == {
        ("recall/rules.py", "_EMAIL_RE"), ("recall/rules.py", "_CODE_RE"),
        ("context/summary.py", "line 2"), ("context/summary.py", "line 3")}
