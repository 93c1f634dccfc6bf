"""The key-facts evaluation: phrasing banks, the seeded corpus, the scorer, and a tiny run.

Only the development banks (a, b) are read here; the held-out bank is never loaded by a test."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi.cli.app import app
from jiyi.errors import ValidationError
from jiyi_bench.keyfacts import run_keyfacts
from jiyi_bench.keyfacts_bank import BANK_DIR, LANGS, load_banks, parse_bank
from jiyi_bench.keyfacts_corpus import Question, generate
from jiyi_bench.keyfacts_report import cells, write_outputs
from jiyi_bench.keyfacts_score import Seen, digit_runs, holds, key, score
from jiyi_bench.keyfacts_values import render_date

AS_OF = datetime(2026, 4, 20, 10, tzinfo=UTC)


@pytest.fixture(scope="module")
def dev_banks():  # type: ignore[no-untyped-def]
    return load_banks(BANK_DIR, ("a", "b"))


def _q(kind: str = "phone", current: tuple[str, ...] = ("13812345678",),
       old: tuple[str, ...] = ("13900001111",), match: str = "phone", **kw: object) -> Question:
    fields: dict[str, object] = {"qid": "q1", "user_id": "u", "session_id": "s9", "bank": "a",
                                 "split": "dev", "lang": "zh-Hans", "kind": kind,
                                 "text": "我的手机号是多少", "as_of": AS_OF, "current": current,
                                 "old": old, "match": match, **kw}
    return Question(**fields)  # type: ignore[arg-type]


# ------------------------------------------------------------------ banks


def test_dev_banks_follow_the_format(dev_banks) -> None:  # type: ignore[no-untyped-def]
    assert [b.name for b in dev_banks] == ["a", "b"]
    assert all(b.split == "dev" for b in dev_banks)
    for bank in dev_banks:
        for lang in LANGS:
            lb = bank.languages[lang]
            assert len(lb.noise) >= 30 and len(lb.assistant) >= 15
            for slot, lists in lb.slots.items():
                assert all(len(v) >= 8 for k, v in lists.items() if k != "values"), slot
                if "values" in lists:
                    assert len(set(lists["values"])) >= 12, (bank.name, lang, slot)
    # the two banks are written separately: no statement template is shared
    a, b = dev_banks
    for lang in LANGS:
        for slot in a.languages[lang].slots:
            assert not set(a.languages[lang].slots[slot]["state"]) & set(
                b.languages[lang].slots[slot]["state"])


def test_bad_bank_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="languages"):
        parse_bank({"bank": "x"}, "x")
    good = json.loads((BANK_DIR / "bank_a.json").read_text(encoding="utf-8"))
    good["languages"]["zh-Hant"]["slots"]["phone"]["change"] = ["我換號碼了"]  # no {value}
    with pytest.raises(ValidationError, match=r"zh-Hant phone.change"):
        parse_bank(good, "x")
    good = json.loads((BANK_DIR / "bank_a.json").read_text(encoding="utf-8"))
    del good["languages"]["en"]
    with pytest.raises(ValidationError, match="language en"):
        parse_bank(good, "x")
    (tmp_path / "bank_a.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValidationError, match="cannot read"):
        load_banks(tmp_path)
    with pytest.raises(ValidationError, match="no phrasing banks"):
        load_banks(tmp_path / "empty")
    shutil.copy(BANK_DIR / "bank_b.json", tmp_path / "bank_b.json")
    with pytest.raises(ValidationError, match="c not found"):
        load_banks(tmp_path, ("b", "c"))
    assert [b.name for b in load_banks(tmp_path, ("b",))] == ["b"]  # c absent: fine


# ------------------------------------------------------------------ corpus


def test_corpus_is_deterministic_and_balanced(dev_banks) -> None:  # type: ignore[no-untyped-def]
    one, two = generate(dev_banks, users=24, seed=7), generate(dev_banks, users=24, seed=7)
    assert one == two
    other = generate(dev_banks, users=24, seed=8)
    assert other.fingerprint != one.fingerprint and other.turns != one.turns
    cells_ = Counter(one.profiles.values())
    assert set(cells_) == {(b, lang) for b in ("a", "b") for lang in LANGS}
    assert set(cells_.values()) == {4}  # 24 users over 2 banks x 3 languages
    uneven = Counter(generate(dev_banks, users=25, seed=7).profiles.values())
    assert max(uneven.values()) - min(uneven.values()) <= 1
    # a larger corpus starts with the same users
    bigger = generate(dev_banks, users=30, seed=7)
    first = [t for t in bigger.turns if t.user_id.endswith("-0000")]
    assert [t.text for t in first] == [t.text for t in one.turns if t.user_id.endswith("-0000")]


def test_corpus_shape(dev_banks) -> None:  # type: ignore[no-untyped-def]
    corpus = generate(dev_banks, users=30, seed=3)
    roles = Counter(t.role for t in corpus.turns)
    assert {"user", "assistant", "tool"} <= set(roles)
    ids = [t.turn_id for t in corpus.turns]
    assert len(set(ids)) == len(ids)
    by_user: dict[str, list[datetime]] = {}
    for t in corpus.turns:
        assert t.text and t.session_id.startswith(t.user_id) and t.at.tzinfo is not None
        by_user.setdefault(t.user_id, []).append(t.at)
    for uid, times in by_user.items():
        sessions = {t.session_id for t in corpus.turns if t.user_id == uid}
        assert 3 <= len(sessions) <= 5
        assert times == sorted(times)
    kinds = Counter(q.kind for q in corpus.questions)
    assert {"phone", "address", "coupon", "food", "phone_past"} <= set(kinds)
    for q in corpus.questions:
        own = [t for t in corpus.turns if t.user_id == q.user_id]
        assert q.session_id not in {t.session_id for t in own}  # a new session
        assert q.as_of > max(t.at for t in own)
        assert q.current or q.kind == "food" or q.kind == "coupon"
        if q.kind == "coupon":
            assert q.current  # at least one valid coupon
            assert not set(q.current) & set(q.expired)
        if q.past:
            assert q.changed and q.old
        for tid in q.exempt:
            negation = next(t for t in own if t.turn_id == tid)
            assert any(holds(negation.text, v) for v in q.old)
    changed = [q for q in corpus.questions if q.changed and not q.past and q.kind != "food"]
    assert changed and all(q.old for q in changed)
    assert any(q.expired for q in corpus.questions if q.kind == "coupon")
    long = Counter(corpus.profiles[t.user_id][1] for t in corpus.turns if len(t.text) > 150)
    assert set(long) == set(LANGS)  # compound turns: the compression measure in every language


def test_coupon_dates_in_the_language() -> None:
    day = datetime(2026, 5, 3).date()
    assert render_date(day, "zh-Hans", False) == "5月3日"
    assert render_date(day, "zh-Hant", True) == "2026年5月3日"
    assert render_date(day, "en", False) == "May 3"
    assert render_date(day, "en", True) == "May 3, 2026"


# ------------------------------------------------------------------ scorer


def test_folding_and_phone_digits() -> None:
    assert key("臺北市 大安區，復興南路") == key("台北市大安区复兴南路")
    assert holds("用戶的地址是台北市大安區復興南路一段390號5樓", "台北市大安区复兴南路一段390号5楼")
    assert holds("The user's email is Lily.Max12@Gmail.com.", "lily.max12@gmail.com")
    assert not holds("寄到上海市浦东新区", "上海市浦东新区张杨路1208号")
    assert digit_runs("call +86 138-1234-5678 now, or (415) 555-0137") == [
        "8613812345678", "4155550137"]
    assert holds("手机 +86 138 1234 5678", "13812345678", "phone")
    assert holds("電話 0912-345-678", "912345678", "phone")
    assert not holds("手机 138 1234 5679", "13812345678", "phone")
    assert holds("用户的会员等级是钻石", "钻石会员", "level")
    assert holds("You're on the Gold tier now", "Gold VIP", "level")
    assert not holds("一般幾天會到？", "一般會員", "level")  # a level name alone is not enough


def test_found_replaced_and_presented_as_current() -> None:
    q = _q()
    new = Seen("用户的手机号是138-1234-5678", True, ("t5",))
    old_current = Seen("我的电话是139 0000 1111", True, ("t1",))
    old_history = Seen("我的电话是139 0000 1111", False, ("t1",))
    both = Seen("旧号码13900001111停用了，新的是13812345678", True, ("t5",))
    assert score(q, [new]) == {"found": 1.0, "found_current": 1.0, "replaced": 0.0,
                               "as_current": 0.0}
    assert score(q, [new, old_current]) == {"found": 1.0, "found_current": 1.0,
                                            "replaced": 1.0, "as_current": 1.0}
    assert score(q, [new, old_history]) == {"found": 1.0, "found_current": 1.0,
                                            "replaced": 1.0, "as_current": 0.0}
    # the current value shown but not marked current: found, not found as current
    unsure = Seen("用户的手机号是138-1234-5678", False, ("t5",))
    assert score(q, [unsure, old_history]) == {"found": 1.0, "found_current": 0.0,
                                               "replaced": 1.0, "as_current": 0.0}
    assert score(q, [both])["replaced"] == 0.0  # the change turn names both: not a wrong answer
    assert score(q, [old_current])["found"] == 0.0
    # only the first k count
    pad = [Seen("你好", True)] * 5
    assert score(q, [*pad, new])["found"] == 0.0
    # a raw-turn baseline has no current marking
    assert score(q, [new, old_current], marks=False) == {
        "found": 1.0, "replaced": 1.0, "as_current": None}
    # nothing replaced: replaced is not defined
    assert score(_q(old=()), [new])["replaced"] is None


def test_food_negation_counts_only_the_liking() -> None:
    q = _q(kind="food", current=("海鲜", "芒果"), old=("香菜",), match="text", exempt=("t9",))
    liked = Seen("我喜欢吃海鲜。", True, ("t2",))
    negation = Seen("我现在不吃香菜了。", True, ("t9",))
    stale = Seen("我爱吃香菜。", True, ("t3",))
    assert score(q, [liked, negation]) == {"found": 0.5, "found_current": 0.5, "replaced": 0.0,
                                           "as_current": 0.0}
    assert score(q, [liked, stale])["as_current"] == 1.0


def test_coupons_valid_and_expired() -> None:
    q = _q(kind="coupon", current=("SAVE20AB", "VIP8QX"), old=(), expired=("GIFT5ZZ",),
           match="text")
    hits = [Seen("优惠券 SAVE20AB 到5月3日有效", True), Seen("gift5zz，4月1日到期", False),
            Seen("VIP8QX", False)]
    s = score(q, hits)
    assert s["found"] == 1.0 and s["valid_as_current"] == 0.5
    assert s["expired_listed"] == 1.0 and s["expired_as_current"] == 0.0
    assert s["as_current"] == 0.0
    wrong = score(q, [Seen("我有 SAVE20AB 和 GIFT5ZZ 两张券", True)])
    assert wrong["expired_as_current"] == 1.0 and wrong["as_current"] == 1.0
    assert wrong["found"] == 0.5
    base = score(q, hits, marks=False)
    assert "expired_as_current" not in base and "valid_as_current" not in base


def test_past_question_wants_the_old_value_labelled() -> None:
    q = _q(kind="phone_past", current=("13900001111",), old=("13812345678",), past=True)
    assert score(q, [Seen("我的电话是13900001111", False)]) == {
        "found": 1.0, "past_labelled": 1.0}
    assert score(q, [Seen("我的电话是13900001111", True)])["past_labelled"] == 0.0
    assert score(q, [Seen("你好", True)]) == {"found": 0.0, "past_labelled": None}


def test_cells_pool_within_a_split_only() -> None:
    from jiyi_bench.keyfacts import Row

    dev = _q()
    held = _q(bank="c", split="held-out", lang="en")
    rows = [Row(dev, "jiyi", {"found": 1.0, "replaced": 0.0}),
            Row(held, "jiyi", {"found": 0.0, "replaced": 1.0})]
    got = {(c["split"], c["bank"], c["lang"], c["kind"]): c for c in cells(rows)}
    assert got[("dev", "all", "all", "all")]["found"] == 1.0
    assert got[("held-out c", "all", "all", "all")]["found"] == 0.0
    assert not any(k[0] == "all" for k in got)


# ------------------------------------------------------------------ end to end


def test_tiny_run_writes_the_report(dev_banks, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = generate(dev_banks, users=6, seed=5)
    store = tmp_path / "kf.db"
    run = run_keyfacts(corpus, dev_banks, store_path=store, embedder="fake")
    assert run.ingest["ingested"] == len(corpus.turns) and store.is_file()
    assert {r.system for r in run.rows} == {"jiyi", "dense", "bm25"}
    assert len(run.rows) == 3 * len(corpus.questions)
    assert len(run.recall_ms) == len(corpus.questions)
    comp = run.compression
    assert comp["turns"] >= 1 and comp["ratio"] is not None and comp["limit_chars"] == 150
    report = write_outputs(run, tmp_path / "out")
    for ext in ("md", "json", "png"):
        assert (tmp_path / "out" / f"keyfacts.{ext}").stat().st_size > 200
    saved = json.loads((tmp_path / "out" / "keyfacts.json").read_text(encoding="utf-8"))
    assert saved["held_out"] == [] and saved["held_out_missing"] == ["c", "g"]
    assert saved["corpus"]["fingerprint"] == corpus.fingerprint
    assert {"p50_ms", "p95_ms"} <= set(saved["recall_latency"])
    assert report["cells"] and all(c["split"] == "dev" for c in report["cells"])
    md = (tmp_path / "out" / "keyfacts.md").read_text(encoding="utf-8")
    assert "Held-out bank c, g **absent**" in md and "## Protocol" in md
    assert "| **all key facts** | all |" in md and "## Overview" in md
    # the same corpus on the same store: reused, nothing ingested again, same answers
    again = run_keyfacts(corpus, dev_banks, store_path=store, embedder="fake", baselines=False)
    assert again.ingest["ingested"] == 0 and again.ingest["reused"] == len(corpus.turns)
    assert again.compression == run.compression
    assert [r.score for r in again.rows] == [r.score for r in run.rows if r.system == "jiyi"]


def test_cli(tmp_path: Path) -> None:
    banks = tmp_path / "banks"
    banks.mkdir()
    for name in ("bank_a.json", "bank_b.json"):
        shutil.copy(BANK_DIR / name, banks / name)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "keyfacts", "--users", "3", "--embedder", "fake",
                                      "--bank-dir", str(banks), "--out-dir", str(out),
                                      "--no-baselines", "--dump", str(tmp_path / "q.jsonl")])
    assert result.exit_code == 0, result.output
    assert "held-out bank c, g absent" in result.output and (out / "keyfacts.md").is_file()
    lines = [json.loads(x) for x in (tmp_path / "q.jsonl").read_text(encoding="utf-8").splitlines()]
    saved = json.loads((out / "keyfacts.json").read_text(encoding="utf-8"))
    assert lines and {x["bank"] for x in lines} <= {"a", "b"}
    assert sum(1 for c in saved["cells"] if c["system"] == "jiyi") >= 1
    for line in lines:
        assert {"question", "current", "old", "score", "hits"} <= set(line)
        assert all({"content", "current", "status", "slot"} <= set(h) for h in line["hits"])
    for bad in (["--users", "0"], ["--banks", "z"]):
        res = CliRunner().invoke(app, ["eval", "keyfacts", *bad, "--bank-dir", str(banks),
                                       "--out-dir", str(out), "--embedder", "fake"])
        assert res.exit_code != 0 and "Traceback" not in res.output


def test_baseline_vectors_are_kept_between_runs(dev_banks, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The raw turns' passage vectors depend on the embedder and the text only: a second run
    with the same cache embeds no passage and ranks exactly as the first."""
    from jiyi.embed import get_embedder
    from jiyi_bench.keyfacts import ask_baselines

    corpus = generate(dev_banks, users=4, seed=11)
    embedder = get_embedder("fake")
    calls: list[int] = []
    real = embedder.embed_passages

    def counting(texts: list[str]):  # type: ignore[no-untyped-def]
        calls.append(len(texts))
        return real(texts)

    embedder.embed_passages = counting  # type: ignore[method-assign]
    cache = tmp_path / "vectors.npz"
    first = ask_baselines(corpus.turns, corpus.questions, embedder, 5, vector_cache=cache)
    embedded = sum(calls)
    assert cache.exists() and embedded > 0
    second = ask_baselines(corpus.turns, corpus.questions, embedder, 5, vector_cache=cache)
    assert sum(calls) == embedded  # nothing embedded the second time
    assert [(r.system, r.question, r.score) for r in first] == \
        [(r.system, r.question, r.score) for r in second]
