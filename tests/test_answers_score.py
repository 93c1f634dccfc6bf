"""The pure parts of ``jiyi eval answers``: scoring, the judge's label, the plans' prompts (plan A
cut at the window, oldest turns first), the seeded selection."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi.context.tokens import QwenTokenCounter
from jiyi_bench.answers_data import Case, HistoryTurn, madial_context, select
from jiyi_bench.answers_prompt import (
    fit_newest,
    instruction,
    instruction_tokens,
    plan_a,
    plan_c,
    with_instruction,
)
from jiyi_bench.answers_report import aggregate, summarise
from jiyi_bench.answers_score import (
    bleu1,
    entity_containment,
    evidence_share,
    judge_messages,
    parse_label,
    token_f1,
)

QWEN = QwenTokenCounter()
T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def test_token_f1_english_drops_case_punctuation_and_articles() -> None:
    assert token_f1("The Pepper.", "pepper") == 1.0
    assert token_f1("a grey cat", "the grey cat named Pepper") == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert token_f1("Lisbon", "Edinburgh") == 0.0
    assert token_f1("", "Pepper") == 0.0


def test_token_f1_and_bleu1_segment_chinese_and_fold_traditional() -> None:
    # jieba segmentation, not characters: 杭州 is one token; Traditional folds to Simplified
    assert token_f1("杭州", "杭州") == 1.0
    assert token_f1("他下週去杭州", "他下周去杭州") == 1.0
    assert 0.0 < token_f1("下周去杭州出差", "杭州") < 1.0
    assert token_f1("北京", "杭州") == 0.0
    assert bleu1("我的訂單號是 ABC123", "我的订单号是 ABC123") == pytest.approx(1.0)


def test_bleu1_clips_and_penalises_short_answers() -> None:
    assert bleu1("cat cat cat", "cat") == pytest.approx(1 / 3)  # clipped
    short = bleu1("Pepper", "a grey cat named Pepper")  # precision 1, brevity penalty
    assert short == pytest.approx(2.718281828 ** (1 - 4))
    assert bleu1("", "x") == 0.0


def test_entity_containment_in_three_languages() -> None:
    assert entity_containment("It was in Lisbon in October.", "Lisbon, October") == 1.0
    assert entity_containment("Lisbon", "Lisbon, October") == 0.5
    assert entity_containment("你住在上海张江路", "上海") == 1.0
    assert entity_containment("您的電話是 13998765432", "电话 13998765432") == 1.0
    assert entity_containment("anything", "the") is None  # no key entity in the gold


def test_judge_label_parsing() -> None:
    assert parse_label("CORRECT") == "CORRECT"
    assert parse_label("Label: wrong.") == "WRONG"
    assert parse_label("INCORRECT, the gold says Lisbon") == "WRONG"
    assert parse_label("I think it is correct") == "CORRECT"
    assert parse_label("不知道") is None
    assert parse_label("CORRECT or WRONG: the name") is None  # an echo of the prompt
    assert parse_label("correct. Not wrong.") is None
    msgs = judge_messages("猫叫什么？", "Pepper", "它叫 Pepper")
    assert msgs[0]["role"] == "system" and "CORRECT or WRONG" in msgs[0]["content"]
    assert "Gold answer: Pepper" in msgs[1]["content"] and "猫叫什么？" in msgs[1]["content"]


def test_evidence_share() -> None:
    assert evidence_share(("a", "b"), {"a"}) == 0.5
    assert evidence_share((), {"a"}) is None


def test_fit_newest_keeps_a_suffix() -> None:
    assert fit_newest([5, 5, 5, 5], 12) == 2
    assert fit_newest([1, 100, 1, 1], 50) == 2  # the big one stops the fill: no gaps
    assert fit_newest([5], 4) == 0
    assert fit_newest([], 10) == 0


def _history(n: int) -> list[HistoryTurn]:
    texts = ["I adopted a grey cat named Pepper.", "我下周去杭州出差。", "我換號了，新號是 13998765432"]
    return [HistoryTurn(f"t{i}", "s1", "user" if i % 2 else "assistant", texts[i % 3],
                        T0 + timedelta(minutes=i)) for i in range(n)]


@pytest.mark.parametrize("num_ctx", [300, 600, 1200])
def test_plan_a_is_cut_at_the_window_oldest_first(num_ctx: int) -> None:
    history = _history(120)
    reserve = 64
    pa = plan_a(history, "What is my cat called?", T0 + timedelta(days=1), "en", "qa",
                num_ctx, reserve, QWEN)
    assert pa.total == 120 and 0 < pa.kept < 120
    assert pa.kept_turn_ids == tuple(t.turn_id for t in history[-pa.kept:])  # the newest ones
    assert pa.tokens == QWEN.count_messages(pa.messages)
    assert pa.tokens <= num_ctx - reserve
    # one more (older) turn would not fit
    bigger = plan_a(history, "What is my cat called?", T0 + timedelta(days=1), "en", "qa",
                    10**6, reserve, QWEN)
    one_more = [bigger.messages[0], *bigger.messages[-pa.kept - 2:]]
    assert QWEN.count_messages(one_more) > num_ctx - reserve
    assert pa.messages[-1] == {"role": "user", "content": "What is my cat called?"}
    assert pa.messages[1]["content"].startswith("[2024-05-01 ")


def test_plan_a_keeps_everything_when_it_fits_and_nothing_when_nothing_fits() -> None:
    history = _history(5)
    full = plan_a(history, "问题？", T0, "zh-Hans", "qa", 32768, 512, QWEN)
    assert (full.kept, full.total) == (5, 5)
    assert full.messages[0]["content"].startswith(instruction("zh-Hant", "qa"))
    none = plan_a(history, "问题？", T0, "zh-Hant", "qa", 256, 250, QWEN)
    assert none.kept == 0 and len(none.messages) == 2


def test_plan_c_and_plan_b_instruction() -> None:
    msgs = plan_c([("用户的猫叫 Pepper", T0, True), ("old phone 138", T0, False)], "猫叫什么？",
                  T0, "zh-Hans", "qa")
    assert "- 用户的猫叫 Pepper [2024-05-01]" in msgs[0]["content"]
    assert "[2024-05-01, earlier]" in msgs[0]["content"]
    assert msgs[-1] == {"role": "user", "content": "猫叫什么？"}
    assert "（无）" in plan_c([], "猫叫什么？", T0, "zh-Hans", "qa")[0]["content"]
    b = with_instruction([{"role": "system", "content": "jiyi"}, {"role": "user", "content": "q"}],
                         "en", "reply")
    assert b[0]["content"] == "jiyi\n\n" + instruction("en", "reply") and len(b) == 2
    grown = QWEN.count_messages(b) - QWEN.count_messages(
        [{"role": "system", "content": "jiyi"}, {"role": "user", "content": "q"}])
    assert abs(grown - instruction_tokens("en", "reply", QWEN)) <= 1


def _case(i: int) -> Case:
    return Case(f"c{i}", "scenarios", "en", "x", "qa", "u", "q", "g", T0)


def test_select_is_seeded_and_keeps_data_order() -> None:
    cases = [_case(i) for i in range(50)]
    a, b = select(cases, 10, 7, None), select(cases, 10, 7, None)
    assert [c.case_id for c in a] == [c.case_id for c in b]
    assert [c.case_id for c in a] != [c.case_id for c in select(cases, 10, 8, None)]
    assert [int(c.case_id[1:]) for c in a] == sorted(int(c.case_id[1:]) for c in a)
    assert [c.case_id for c in select(cases, None, 0, 3)] == ["c0", "c1", "c2"]
    assert len(select(cases, 10, 7, 4)) == 4


def test_madial_context_keeps_speakers() -> None:
    lines = ["<BOD>\n", '<Bart>:"嘿，你知道吗？"\n', '<Assistant>:"怎么了？"\n',
             '<Bart>:"我要表演魔术！"\n', '<Assistant>:"你记得去年吗？"\n']
    assert madial_context(lines, 4) == "Bart: 嘿，你知道吗？\nAssistant: 怎么了？\nBart: 我要表演魔术！"


def test_aggregate_counts_failures_as_wrong() -> None:
    rows = [
        {"plan": "A", "dataset": "d", "category": "c", "language": "en", "error": None,
         "f1": 1.0, "bleu1": 1.0, "entities": 1.0, "judge": "CORRECT", "qwen_tokens": 100,
         "server_tokens": 120, "first_token_s": 0.1, "total_s": 0.5, "turns_kept": 5,
         "turns_total": 10, "evidence_in_prompt": 1.0},
        {"plan": "A", "dataset": "d", "category": "c", "language": "zh-Hans",
         "error": "HTTP 400 context", "f1": 0.0, "bleu1": 0.0, "entities": 0.0, "judge": None,
         "qwen_tokens": 900, "evidence_in_prompt": 0.0},
    ]
    a = aggregate(rows)
    assert (a["questions"], a["answered"], a["errors"]) == (2, 1, 1)
    assert a["f1"] == 0.5 and a["judge_accuracy"] == 0.5 and a["entities"] == 0.5
    assert a["first_token_s_p50"] == 0.1 and a["qwen_tokens_mean"] == 500.0
    assert a["history_share_shown"] == 0.5
    s = summarise(rows, ["A"])
    assert set(s["by_language"]) == {"en", "zh-Hans"}
    assert s["by_language"]["en"]["A"]["f1"] == 1.0
    assert "d c" in s["by_category"]
