"""Replaced values out of every prompt channel (issue 14 item 5) and history with its date
(issue 13 item 1): the pure functions, then ``build_prompt`` on a real SQLite store in zh-Hans,
zh-Hant and en."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.context.builder import choose_anchor
from jiyi.context.prompt import assemble_prompt
from jiyi.context.stale import (
    REPLACED,
    StaleValues,
    annotate_stale,
    changed_value,
    detect_locale,
    history_note,
    stale_values,
)
from jiyi.context.tokens import CharEstimateCounter
from jiyi.units import Entity, Hit, Lifespan, MemoryType, MemoryUnit

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
MIN = timedelta(minutes=1)


def unit(uid: str, content: str, *, at: datetime = T0, slot: str | None = None,
         kind: MemoryType = MemoryType.USER_PROFILE, entity: tuple[str, str] | None = None,
         supersedes: str | None = None, superseded_by: str | None = None,
         invalidated_at: datetime | None = None) -> MemoryUnit:
    ents = [Entity(kind=entity[0], text=entity[1], value=re.sub(r"[\s-]", "", entity[1]))] \
        if entity else []
    return MemoryUnit(id=uid, content=content, type=kind, session_id="s", user_id="u",
                      lifespan=Lifespan(created_at=at, expires_in=86400 * 365), slot=slot,
                      entities=ents, supersedes=supersedes, superseded_by=superseded_by,
                      invalidated_at=invalidated_at)


def phone_chain(old: str, new: str, content: str = "用户的手机号是{}") -> list[MemoryUnit]:
    return [
        unit("a", content.format(old), slot="phone", entity=("phone", old), superseded_by="b",
             invalidated_at=T0 + DAY),
        unit("b", content.format(new), at=T0 + DAY, slot="phone", entity=("phone", new),
             supersedes="a"),
    ]


# ---------------------------------------------------------------- pure functions

def test_detect_locale_three_scripts() -> None:
    assert detect_locale("我的手机号是多少？") == "zh-Hans"
    assert detect_locale("我的手機號碼是多少？") == "zh-Hant"
    assert detect_locale("What is my phone number?") == "en"
    assert detect_locale("帮我查一下 order ABC123") == "zh-Hans"


def test_stale_values_from_a_superseded_phone() -> None:
    stale = stale_values(phone_chain("13800000000", "13911112222"), T0 + 2 * DAY)
    assert "13800000000" in stale.old and "13911112222" not in stale.old
    assert "13911112222" in stale.current
    # before the change nothing is stale yet; a unit not yet known does not count either
    assert not stale_values(phone_chain("13800000000", "13911112222"), T0 + MIN)


def test_a_value_that_came_back_is_not_stale() -> None:
    units = [
        unit("a", "用户的手机号是13800000000", slot="phone", entity=("phone", "13800000000"),
             superseded_by="b", invalidated_at=T0 + DAY),
        unit("b", "用户的手机号是13911112222", at=T0 + DAY, slot="phone",
             entity=("phone", "13911112222"), supersedes="a", superseded_by="c",
             invalidated_at=T0 + 2 * DAY),
        unit("c", "用户的手机号是138-0000-0000", at=T0 + 2 * DAY, slot="phone",
             entity=("phone", "138-0000-0000"), supersedes="b"),
    ]
    stale = stale_values(units, T0 + 3 * DAY)
    assert stale.old == ("13911112222",)


@pytest.mark.parametrize(("old", "new", "value"), [
    ("用户住在北京", "用户住在北海", "北京"),
    ("用户的会员等级是金卡", "用户的会员等级是白金", "金卡"),
    ("The user's membership level is gold", "The user's membership level is platinum", "gold"),
    ("The user's membership level is VIP1", "The user's membership level is VIP2", "VIP1"),
    ("用户的会员等级是金卡", "用户的会员等级是金卡PLUS", None),
])
def test_changed_value_reads_the_slot_value(old: str, new: str, value: str | None) -> None:
    assert changed_value(old, new) == value


def test_membership_without_entity_and_a_current_value_that_contains_the_old_one() -> None:
    units = [
        unit("a", "用户的会员等级是金卡", slot="membership", superseded_by="b",
             invalidated_at=T0 + DAY),
        unit("b", "用户的会员等级是白金卡", at=T0 + DAY, slot="membership", supersedes="a"),
    ]
    stale = stale_values(units, T0 + 2 * DAY)
    assert stale.old == ("金卡",)
    text = "我之前是金卡会员，现在升到白金卡了"
    assert annotate_stale(text, stale, "zh-Hans") == "我之前是金卡（已更换）会员，现在升到白金卡了"


def test_fact_reference_status_changes_label_nothing() -> None:
    units = [
        unit("a", "订单PO-1001已发货", kind=MemoryType.FACT_REFERENCE, slot="order:PO-1001",
             entity=("order_id", "PO-1001"), superseded_by="b", invalidated_at=T0 + DAY),
        unit("b", "订单PO-1001已签收", kind=MemoryType.FACT_REFERENCE, at=T0 + DAY,
             slot="order:PO-1001", entity=("order_id", "PO-1001"), supersedes="a"),
    ]
    assert not stale_values(units, T0 + 2 * DAY)  # the id is still current; a status is no value


@pytest.mark.parametrize(("locale", "text", "expected"), [
    ("zh-Hans", "您登记的手机号是138-0000-0000，对吗？", "您登记的手机号是138-0000-0000（已更换），对吗？"),
    ("zh-Hant", "您登記的手機號是138 0000 0000，對嗎？", "您登記的手機號是138 0000 0000（已更換），對嗎？"),
    ("en", "We have 13800000000 on file.", "We have 13800000000 (replaced) on file."),
])
def test_annotate_any_number_format_three_scripts(locale: str, text: str, expected: str) -> None:
    stale = StaleValues(old=("13800000000",), current=("13911112222",))
    assert annotate_stale(text, stale, locale) == expected
    assert annotate_stale(expected, stale, locale) == expected  # idempotent


def test_annotate_leaves_longer_numbers_words_and_current_values_alone() -> None:
    stale = StaleValues(old=("13800000000", "bob@old.com", "Paris", "台北"),
                        current=("13911112222",))
    text = "单号213800000000，13911112222，Parisian café，BOB@OLD.COM，臺北"
    assert annotate_stale(text, stale, "zh-Hans") == (
        "单号213800000000，13911112222，Parisian café，BOB@OLD.COM（已更换），臺北（已更换）")
    assert annotate_stale("I moved from Paris.", stale, "en") == "I moved from Paris (replaced)."
    assert annotate_stale("nothing here", StaleValues(), "en") == "nothing here"


def test_a_label_written_in_another_script_is_not_doubled() -> None:
    stale = StaleValues(old=("13800000000",))
    assert annotate_stale("旧号13800000000 (replaced)", stale, "zh-Hans") == "旧号13800000000 (replaced)"


def _hit(u: MemoryUnit, status: str = "current", *, stage: str = "rule",
         confidence: float = 0.95) -> Hit:
    return Hit(unit=u, score=1.0, stage=stage, confidence=confidence, status=status)  # type: ignore[arg-type]


def test_history_note_three_scripts() -> None:
    expired = _hit(unit("e", "用户在杭州出差", at=datetime(2025, 3, 2, 8, tzinfo=UTC)), "expired")
    assert history_note(expired, "zh-Hans") == "（2025-03-02，较早）"
    assert history_note(expired, "zh-Hant") == "（2025-03-02，較早）"
    assert history_note(expired, "en") == "(2025-03-02, earlier)"
    old = phone_chain("13800000000", "13911112222")[0]
    superseded = _hit(old, "superseded")
    assert history_note(superseded, "zh-Hans") == "（2026-05-01，较早；2026-05-02已更换）"
    assert history_note(superseded, "zh-Hant") == "（2026-05-01，較早；2026-05-02已更換）"
    assert history_note(superseded, "en") == "(2026-05-01, earlier; replaced 2026-05-02)"
    assert history_note(_hit(old), "en") is None
    dated = unit("v", "Caroline went to Paris", at=T0)
    dated = dated.model_copy(update={"valid_at": datetime(2024, 7, 14, tzinfo=UTC)})
    assert history_note(_hit(dated, "expired"), "en") == "(2024-07-14, earlier)"


def test_choose_anchor_never_picks_history() -> None:
    old = _hit(phone_chain("13800000000", "13911112222")[0], "expired", confidence=0.99)
    low = _hit(unit("p", "用户喜欢寿司"), stage="vector", confidence=0.2)
    assert choose_anchor([old, low], 0.7) is low
    assert choose_anchor([old], 0.7) is None


def test_assemble_prompt_never_anchors_history_and_labels_every_channel() -> None:
    old, new = phone_chain("13800000000", "13911112222")
    stale = stale_values([old, new], T0 + 2 * DAY)
    expired = _hit(old, "superseded", confidence=0.99)
    prompt = assemble_prompt(
        user_input="我以前的手机号是多少？", hits=[expired, _hit(new)], anchor=expired,
        execution=None, summary="【对话摘要】以下为本次会话的关键事实提炼：旧号13800000000停用了",
        recent_turns=[("user", "旧号13800000000停用了"), ("assistant", "好的")],
        topic_reset=False, num_ctx=4096, counter=CharEstimateCounter(), language="zh",
        now=T0 + 2 * DAY, stale=stale, locale="zh-Hans")
    system = prompt.messages[0]["content"]
    anchor_block = system.split("<|memory_anchor|>\n", 1)[1].split("\n\n", 1)[0]
    assert anchor_block == "（暂无）"
    assert "- 用户的手机号是13800000000（2026-05-01，较早；2026-05-02已更换） [user_profile" in system
    assert "旧号13800000000（已更换）停用了" in system  # the summary
    assert prompt.messages[1]["content"] == "旧号13800000000（已更换）停用了"
    assert prompt.messages[-1]["content"] == "我以前的手机号是多少？"  # the input is never changed


def test_budget_still_holds_with_labels() -> None:
    stale = StaleValues(old=("13800000000",))
    turns = [("user", f"第{i}次说旧号13800000000") for i in range(30)]
    full = assemble_prompt(user_input="号码？", hits=[], anchor=None, execution=None,
                           summary=None, recent_turns=turns, topic_reset=False, num_ctx=8192,
                           counter=CharEstimateCounter(), language="zh", now=T0, stale=stale)
    small = assemble_prompt(user_input="号码？", hits=[], anchor=None, execution=None,
                            summary=None, recent_turns=turns, topic_reset=False,
                            num_ctx=full.tokens + 512 - 60, counter=CharEstimateCounter(),
                            language="zh", now=T0, stale=stale)
    assert small.tokens <= small.budget and small.trimmed[0] == "turn:0"
    assert all(m["content"].endswith("（已更换）") for m in small.messages[1:-1])


# ---------------------------------------------------------------- build_prompt on SQLite

SCRIPTS = {
    "zh-Hans": dict(
        old="13800000000", new="13911112222",
        first="我的手机号是13800000000", change="我的手机号换成13911112222了",
        echo="您好，您之前登记的手机号是138-0000-0000，对吗？",
        reply="不对，那个号停了，现在用13911112222", question="快递员会打哪个号码？",
        label=REPLACED["zh-Hans"]),
    "zh-Hant": dict(
        old="13800000000", new="13911112222",
        first="我的手機號是13800000000", change="我的手機號換成13911112222了",
        echo="您好，您之前登記的手機號是138 0000 0000，對嗎？",
        reply="不對，那個號停了，現在用13911112222", question="快遞員會打哪個號碼？",
        label=REPLACED["zh-Hant"]),
    "en": dict(
        old="5551112222", new="5553334444",
        first="My phone number is 555-111-2222",
        change="I changed my number, my new phone number is 555-333-4444",
        echo="Hi, we have 555-111-2222 on file for you, right?",
        reply="No, that one is dead, use 555-333-4444", question="Which number will the courier call?",
        label=REPLACED["en"]),
}


def _occurrences(text: str, digits: str) -> list[re.Match[str]]:
    return list(re.finditer(r"(?<!\d)" + r"[\s\-]?".join(digits) + r"(?!\d)", text))


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_old_phone_is_labelled_in_every_channel(mem: Memory, script: str) -> None:
    case = SCRIPTS[script]
    mem.ingest(case["first"], session_id="s1", user_id="u", at=T0)
    mem.ingest(case["change"], session_id="s2", user_id="u", at=T0 + 2 * DAY)
    # a later session: an agent (or a stale CRM) still speaks of the old number
    mem.ingest(case["echo"], session_id="s3", user_id="u", role="assistant", at=T0 + 5 * DAY)
    mem.ingest(case["reply"], session_id="s3", user_id="u", at=T0 + 5 * DAY + MIN)
    prompt = mem.build_prompt(case["question"], session_id="s3", user_id="u",
                              as_of=T0 + 5 * DAY + 2 * MIN)
    system = prompt.messages[0]["content"]
    anchor = system.split("<|memory_anchor|>\n", 1)[1].split("\n\n", 1)[0]
    assert _occurrences(anchor, case["new"]) and not _occurrences(anchor, case["old"])
    everything = "\n".join(m["content"] for m in prompt.messages)
    seen = _occurrences(everything, case["old"])
    assert len(seen) >= 2  # the raw turn and the summary (and a recalled unit) all carry it
    for match in seen:
        assert everything[match.end():].startswith(case["label"]), everything
    for match in _occurrences(everything, case["new"]):
        assert not everything[match.end():].startswith(case["label"])
    assert prompt.messages[-1]["content"] == case["question"]


@pytest.mark.parametrize(("script", "question", "note"), [
    ("zh-Hans", "我上次出差去了哪里？", "（2026-01-10，较早）"),
    ("zh-Hant", "我上次出差去了哪裡？", "（2026-01-10，較早）"),
    ("en", "Where did I travel last time?", "(2026-01-10, earlier)"),
])
def test_history_hits_show_their_date_and_are_never_anchored(
        mem: Memory, script: str, question: str, note: str) -> None:
    at = datetime(2026, 1, 10, 8, tzinfo=UTC)
    text = {"zh-Hans": "我下周去杭州出差", "zh-Hant": "我下週去杭州出差",
            "en": "I am travelling to Hangzhou for work next week"}[script]
    written = mem.ingest(text, session_id="old", user_id="u", at=at)
    profile = mem.ingest("我叫王芳" if script != "en" else "My name is Wang Fang",
                         session_id="old", user_id="u", at=at)
    hits = [_hit(written[0], "expired", confidence=0.99), _hit(profile[0], stage="vector",
                                                               confidence=0.5)]
    prompt = mem.build_prompt(question, session_id="new", user_id="u", hits=hits,
                              as_of=at + 120 * DAY)
    system = prompt.messages[0]["content"]
    anchor = system.split("<|memory_anchor|>\n", 1)[1].split("\n\n", 1)[0]
    assert anchor == profile[0].content
    line = next(x for x in system.splitlines() if x.startswith("- "))
    assert line.startswith("- " + written[0].content) and note in line
