"""The write path's fast paths give what the slow paths give (zh-Hans, zh-Hant, en).

Kept answers (clause typing, filler, compression, slot facts, clause cuts, "says more"), the
early return of the time rewrite, the windowed look-back of the date grammar, the typing
rules' character gates and the one-pattern first-person rewrite are each checked against the
code they stand for: the undecorated function, or the plain computation, on the same inputs."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from jiyi.keyfacts import asking
from jiyi.keyfacts.schema import schema
from jiyi.text import entities, levels, secrets, timebase, timegrammar
from jiyi.text.entities import extract_entities_and_times
from jiyi.units import MemoryType
from jiyi.write import (
    TurnInput,
    classify,
    clauses,
    compress,
    extract_turn,
    filler,
    plan,
    slots,
    speaker,
    timerewrite,
)
from jiyi.write.slots import find_slots

AT = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)

CLAUSES = [
    # zh-Hans
    "我叫张伟", "我的手机号是13912345678", "帮我查一下订单DD12345678到哪了", "哈哈哈",
    "我觉得这家店还不错吧", "因为服务器故障错误码503导致订单创建失败", "明天下午三点前要送到",
    "这张券到5月3日有效", "我对花生过敏", "好的谢谢", "以后周六上午送", "我换号了，新号是13912345678",
    # zh-Hant
    "我叫張偉", "我的手機號碼是0912345678", "幫我查一下運單SF1234567890", "謝謝你", "我住在臺北市信義路五段7號",
    "這張券到6月1日前有效", "我對花生過敏", "下週三之前幫我把發票開好",
    # en
    "I'm allergic to peanuts", "My phone number is +1 415-555-0134", "Can you check ticket INC-12345?",
    "haha", "Thanks so much!", "I moved to Beijing last month", "I'm home Saturday mornings",
    "The coupon SAVE1234 is valid until June 3", "I may 5 times say so", "I went there yesterday",
]


def _clear() -> None:
    for f in (filler._content_left, filler._filler_kind, compress._is_filler, compress._compress,
              classify._classify, plan._slot_facts, plan._says_more_of,
              clauses._clause_spans_of, clauses._states_a_clause_slot, slots._level_mention,
              levels._level_mentions, asking._part_cuts_of):
        f.cache_clear()


@pytest.mark.parametrize("text", CLAUSES)
def test_kept_clause_answers_equal_fresh_ones(text: str) -> None:
    _clear()
    for _ in range(2):  # the first call computes, the second is answered from the cache
        assert filler.content_left(text) == filler._content_left.__wrapped__(text)
        for known in (False, True):
            assert filler.filler_kind(text, known_not_filler=known) == \
                filler._filler_kind.__wrapped__(text, known)
        assert compress.is_filler(text) == compress._is_filler.__wrapped__(text)
        for role in ("user", "assistant", "tool"):
            for slot in (None, "phone"):
                assert classify.classify(text, role, [], slot) == \
                    classify._classify.__wrapped__(text, role, slot is not None)
        ents, _ = extract_entities_and_times(text, AT)
        keep = [e.text for e in ents]
        assert compress.compress_sentence(text, keep) == \
            compress._compress.__wrapped__(text, tuple(keep))
        spans = tuple((e.start, e.end) for e in ents)
        assert clauses.clause_spans(text, ents) == \
            list(clauses._clause_spans_of.__wrapped__(text, spans))
        for consumed in ([], keep):
            assert plan._says_more(text, consumed) == \
                plan._says_more_of.__wrapped__(text, tuple(consumed))
        lang = "en" if text.isascii() else "zh"
        for who in (None, "Alice"):
            assert list(plan._slot_facts(text, tuple(ents), "user", lang, who, "")) == \
                find_slots(text, ents, "user", lang, who, before="")


def test_a_long_text_is_answered_but_not_kept() -> None:
    """Texts over ``CACHED_TEXT_CHARS`` are computed each time: a pasted document does not fill
    the caches (zh-Hans, zh-Hant, en)."""
    _clear()
    for chunk in ("我叫张伟，我对花生过敏。", "我叫張偉，我對花生過敏。", "I'm Alice, I love sushi. "):
        text = chunk * (compress.CACHED_TEXT_CHARS // len(chunk) + 1)
        assert len(text) > compress.CACHED_TEXT_CHARS
        assert filler.content_left(text) == filler._content_left.__wrapped__(text)
        assert filler.filler_kind(text) == filler._filler_kind.__wrapped__(text, False)
        assert compress.is_filler(text) == compress._is_filler.__wrapped__(text)
        assert compress.compress_sentence(text, ["张伟"]) == \
            compress._compress.__wrapped__(text, ("张伟",))
        assert plan._says_more(text, []) == plan._says_more_of.__wrapped__(text, ())
        assert clauses.clause_spans(text, []) == list(
            clauses._clause_spans_of.__wrapped__(text, ()))
    for f in (filler._content_left, filler._filler_kind, compress._is_filler, compress._compress,
              plan._says_more_of, clauses._clause_spans_of):
        assert f.cache_info().currsize == 0, f
    short = "我叫张伟"
    assert filler.content_left(short) == filler.content_left(short)
    assert filler._content_left.cache_info().currsize == 1  # a short one is kept


@pytest.mark.parametrize("text", CLAUSES)
def test_time_rewrite_without_a_relative_time_is_the_sentence(text: str) -> None:
    _, times = extract_entities_and_times(text, AT)
    absolute = [t for t in times if not t.relative]
    assert timerewrite.rewrite_times(text, 0, absolute, "zh") == (text, [])
    assert timerewrite.rewrite_times(text, 0, [], "en") == (text, [])


@pytest.mark.parametrize(("text", "month_is_verb"), [
    ("I may 5 times say it", True), ("They march 3 miles", True), ("We may 12 go", True),
    ("I" + " " * 100 + "may 5 go", True),  # the word before is beyond the window
    ("x" * 200 + " may 5", False), ("Due May 5", False), ("我 may 5", False),
    ("五月五号 I may 5", True),
])
def test_month_as_verb_reads_the_word_before(text: str, month_is_verb: bool) -> None:
    m = timebase.EN_MDY.search(text)
    assert m is not None
    before = text[:m.start(1)].split()
    slow = bool(before) and before[-1].lower() in timegrammar._MODAL_SUBJECTS
    assert timegrammar._verb_month(text, m, 1) is slow is month_is_verb


@pytest.mark.parametrize("text", [
    "我叫张伟，订单号是 DD12345678。我对花生过敏，我叫张伟，订单号是 DD12345678。",
    "我叫張偉，訂單編號是 TW12345678。我的手機號碼是0912345678，下週三前送到。",
    "Hi, I'm Alice. My order #A123456 hasn't arrived yet. I moved to Beijing last month.",
])
def test_a_turn_extracts_the_same_with_cold_and_warm_caches(text: str) -> None:
    turn = TurnInput(text, "user", AT, "s", "u", "t1", None)
    _clear()
    cold = extract_turn(turn)
    warm = extract_turn(turn)
    assert cold == warm
    assert cold.drafts


def test_date_grammar_on_a_long_paste() -> None:
    """A 90 KB paste of dated sentences: every date found, no verb "may" read as a month (the
    look-back window is what keeps this linear; it once split all the text before each match)."""
    text = "I may 5 times say order AB123 ships on May 3. " * 2000
    found = timegrammar.find_times(text, AT)
    assert len(found) == 2000
    assert {t.value for t in found} == {"2026-05-03"}
    assert all(text[t.start:t.end] == "May 3" for t in found)


def _attribute_once_per_rule(content: str, name: str) -> str:
    """The English first-reference rewrite as one search per rule (the slow path)."""
    first: tuple[int, int, str] | None = None
    for rx, repl in speaker._EN_RULES:
        m = rx.search(content)
        if m and (first is None or m.start() < first[0]):
            first = (m.start(), m.end(), repl.format(n=name))
    out = content if first is None else content[:first[0]] + first[2] + content[first[1]:]
    return out if name in out else f"{name}: {out}"


@pytest.mark.parametrize("text", [
    *CLAUSES, "I'm sure I am", "My dog and I", "I've got it, I'll go", "Tell me about myself",
    "I was there, I have it", "I'd say my mom", "nothing here", "me first", "Give it to me",
    "Imagine my surprise", "I", "我叫张伟，我们走吧", "我們", "I 我",
])
def test_first_person_rewrite_equals_one_search_per_rule(text: str) -> None:
    if text.isascii():
        assert speaker.attribute_once(text, "Caroline", "en") == \
            _attribute_once_per_rule(text, "Caroline")
    else:
        assert speaker.attribute_once(text, "小美", "zh") == \
            (out if "小美" in (out := speaker._ZH_ME.sub("小美", text, count=1))
             else f"小美：{out}")


def _classify_ungated(sentence: str, role: str) -> MemoryType:
    if role == "tool":
        return MemoryType.TOOL_RESULT
    if classify._BATCH.search(sentence) and classify.batch_progress(sentence):
        return MemoryType.BATCH_OPERATION
    if classify.ENDS_AS_QUESTION.search(sentence):
        return MemoryType.SESSION_STATE
    if role == "user" and (classify._PROFILE_ZH.search(sentence)
                           or classify._PROFILE_EN.search(sentence)):
        return MemoryType.USER_PROFILE
    if role != "user" or classify._SESSION_ZH.search(sentence) \
            or classify._SESSION_EN.search(sentence):
        return MemoryType.SESSION_STATE
    return MemoryType.FACT_REFERENCE


@pytest.mark.parametrize("text", [
    *CLAUSES, "已完成30/100", "批量任务T43进度：43/100", "processed 30 of 100", "task ٣/٤",
    "pleaſe help me", "I liKe it", "ı live here", "在吗？", "帮我", "ok?", "😀", "",
    "İ live in Paris", "my ſon is 3",
])
def test_classify_gates_change_nothing(text: str) -> None:
    for role in ("user", "assistant", "tool"):
        assert classify._classify.__wrapped__(text, role, False) == _classify_ungated(text, role)


#: Sentences of the kept slot and question answers: membership levels, delivery times, contact
#: channels and run-on questions, in zh-Hans, zh-Hant and en.
SLOT_SENTENCES = [
    *CLAUSES,
    "我刚从银卡升到金卡会员了", "以后周六上午送就行", "有事微信找我", "我的新号13912345678吗你们几点关门",
    "我現在是白金會員", "週末下午送貨比較方便", "有事LINE找我就好", "我係你哋嘅貴賓會員你哋幾點收工",
    "I'm a Gold member now", "moved from Royal Elite to Infinite", "Saturday mornings work best",
    "Text me on WhatsApp", "my number is 0412 555 111 also do you ship to Perth?",
    "Membership: Obsidian", "", "会员", "VIP",
]


@pytest.mark.parametrize("text", SLOT_SENTENCES)
def test_kept_slot_and_question_answers_equal_fresh_ones(text: str) -> None:
    """A sentence's clause-valued slot statement, a clause's level and levels, and the run-on
    parts a value is read in are kept per text: each equals the plain computation."""
    _clear()
    rows = [row for row in schema() if row.value == "clause"]
    for _ in range(2):  # the first call computes, the second is answered from the cache
        assert clauses.states_a_clause_slot(text) == any(row.states(text) for row in rows)
        assert slots.level_mention(text) == slots._level_mention.__wrapped__(text)
        assert levels.level_mentions(text) == list(levels._level_mentions.__wrapped__(text))
        assert levels.mentions_level(text) == bool(levels._level_mentions.__wrapped__(text))
        for start in range(0, len(text) + 1, 3):
            end = min(len(text), start + 4)
            lo, hi = 0, len(text)
            for m in asking._PART_BOUNDS.finditer(text):
                if m.start() <= start:
                    lo = m.end()
                elif m.start() >= end:
                    hi = m.start()
                    break
            assert asking._part_bounds(text, start, end) == (lo, hi)
    long = (text or "x") * (clauses.CACHED_TEXT_CHARS // max(1, len(text)) + 2)
    assert clauses.states_a_clause_slot(long) == any(row.states(long) for row in rows)
    assert slots.level_mention(long) == slots._level_mention.__wrapped__(long)
    assert levels.level_mentions(long) == list(levels._level_mentions.__wrapped__(long))


@pytest.mark.parametrize(("text", "kept"), [("以后周六上午送", "周六上午"), ("以後週六上午送", "週六上午")])
def test_a_weekday_said_as_a_habit_stays_and_other_times_are_rewritten(text: str,
                                                                       kept: str) -> None:
    """The habit test is read only for a weekday: a habit's weekday stays as said, a day
    that is no bare weekday is rewritten whatever habit word stands beside it."""
    _, times = extract_entities_and_times(text, AT)
    assert any(t.relative for t in times)
    assert timerewrite.rewrite_times(text, 0, times, "zh") == (text, [])
    for day in ("以后明天送", "以後明天送", "Usually fine, see you next Saturday"):
        _, times = extract_entities_and_times(day, AT)
        out, shown = timerewrite.rewrite_times(day, 0, times, "en" if day.isascii() else "zh")
        assert shown and out != day and "2026" in out


@pytest.mark.parametrize("key", [
    "password", "api_key", "apiKey", "API-KEY", "X-Auth-Token", "clientSecret", "client_secret",
    "session_token", "SessionToken", "pin", "PIN", "private_key", "accessKey", "otp", "Cookie",
    "user_pwd", "order_id", "status", "tracking_no", "passport", "pinyin", "author", "密码", "",
])
def test_the_json_pair_scan_is_skipped_only_where_no_key_names_a_secret(key: str) -> None:
    """A JSON text whose keys name no secret skips the pair scan of :func:`redact`; every key
    :func:`is_secret_key` takes is among the text's letters and digits, so its value is still
    redacted (zh-Hans, zh-Hant, en values)."""
    for value in ("Zq8wL2xPq9", "我的密碼123456", "秘密abc"):
        text = json.dumps({"order_id": "DD12345678", key: value, "note": "請盡快"},
                          ensure_ascii=False)
        if secrets.is_secret_key(key):
            assert secrets._may_name_a_secret_key(text)
            assert value not in secrets.redact(text).text
        if not secrets._may_name_a_secret_key(text):
            assert not any(secrets.is_secret_key(k) for k in (key, "order_id", "note"))
    plain = '{"order_id": "DD12345678", "status": "已發貨", "amount": 415}'
    assert not secrets._may_name_a_secret_key(plain)
    assert secrets.redact(plain).text == plain


#: The patterns of names in the Latin script that :func:`entities._people` runs only on a text
#: holding a small letter.
LATIN_NAME_PATTERNS = ["_ZH_INTRO_LATIN", "_EN_INTRO", "_EN_ANSWER", "_EN_IS_ME", "_EN_SPELLED",
                       "_EN_GREETED", "_EN_RELATION_NAME", "_EN_ON_DOCUMENT", "_EN_NAME_CHANGED",
                       "_EN_SPEAKING", "_EN_TITLE", "_EN_INTRO_LOWER", "_EN_ITS", "_EN_AS_NAME"]


@pytest.mark.parametrize(("text", "named"), [
    ("我叫张伟，订单号是 DD12345678", "张伟"), ("我叫張偉，訂單編號是 TW12345678", "張偉"),
    ("MY NAME IS SAM LEE, ORDER A123456", None), ("我係KEN，單號SF1234567890", None),
    ("HI, I'M BOB. CALL ME ON +1 415-555-0134", None), ("订单DD95967152已发货，运单SF0077615530", None),
])
def test_latin_names_need_a_small_letter(text: str, named: str | None) -> None:
    """A text whose Latin letters are all capitals (codes, shouting) names no one in the Latin
    script: every Latin-name pattern needs a small letter, so they are not run on it; the
    Chinese names of the text are still found (zh-Hans, zh-Hant, en)."""
    assert entities._HAS_ALPHA.search(text) and not entities._EN_SMALL.search(text)
    for name in LATIN_NAME_PATTERNS:
        rx = getattr(entities, name)
        assert rx.search(text) is None and rx.search(text.upper()) is None, name
    people = [e.text for e in entities._people(text)]
    assert people == ([named] if named else [])
    for said, who in (("My name is Sam Lee", "Sam Lee"), ("我係Ken", "Ken"),
                      ("Hi, I'm Bob. My order is A123456", "Bob")):
        assert who in [e.text for e in entities._people(said)]


def _needs_a_digit(seq: Any) -> bool:
    """Every match of the parsed pattern ``seq`` holds a digit (a digit item, or a branch,
    group, repeat of at least one or look-ahead that needs one)."""
    from re import _constants as c

    def item(op: Any, av: Any) -> bool:
        if op is c.LITERAL:
            return 48 <= av <= 57
        if op is c.IN:
            return all((iop is c.LITERAL and 48 <= iav <= 57)
                       or (iop is c.RANGE and iav[0] >= 48 and iav[1] <= 57)
                       or (iop is c.CATEGORY and iav is c.CATEGORY_DIGIT)
                       for iop, iav in av)
        if op is c.BRANCH:
            return all(_needs_a_digit(alt) for alt in av[1])
        if op is c.SUBPATTERN:
            return _needs_a_digit(av[3])
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            return av[0] >= 1 and _needs_a_digit(av[2])
        if op is c.ASSERT:
            return av[0] == 1 and _needs_a_digit(av[1])
        return False
    return any(item(op, av) for op, av in seq)


def test_a_latin_address_needs_a_digit() -> None:
    """Every Latin-script address pattern needs a digit (read from the parsed patterns), so a
    text without one skips them; addresses with their numbers are still found beside Chinese
    (zh-Hans, zh-Hant, en)."""
    from re import _parser as parser

    from jiyi.text import addresses
    from jiyi.text.fastre import source_of
    for rx in (addresses._ADDR_EN, addresses._ADDR_LABELLED):
        assert _needs_a_digit(parser.parse(source_of(rx) or rx.pattern, rx.flags & ~re.UNICODE))
    assert not _needs_a_digit(parser.parse(r"\d?[A-Z]+|Road \d", 0))  # the reader is no yes-man
    for text in ("The Old Bakery,  Rue Saint-Denis", "寄到 Rose Cottage, Church Lane 吧",
                 "寄到 Kestrel House, Station Road 就好", "Flat A, Kestrel House, London"):
        assert addresses.find_addresses(text) == []
    for text, street in (("寄到 12 Rose Street 吧", "12 Rose Street"),
                         ("寄到 Flat 9, 118 Church Lane 就好", "118 Church Lane"),
                         ("Send it to 3 Church Lane, London", "3 Church Lane")):
        assert any(street in e.text for e in addresses.find_addresses(text))
