"""One time grammar, two readers: every phrase of the corpus means the same period when a fact is
written (jiyi.write.timeparse) and when a query is recalled (jiyi.recall.timewin)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from jiyi.recall.timewin import time_window
from jiyi.write.timeparse import find_times

AS_OF = datetime(2026, 5, 20, 10, 0, tzinfo=UTC)  # a Wednesday


def d(y: int, m: int, day: int) -> date:
    return date(y, m, day)


# (phrase, first day, first day after the period); Simplified, Traditional and English together.
CORPUS: list[tuple[str, date, date]] = [
    ("三天前", d(2026, 5, 17), d(2026, 5, 18)),
    ("three days ago", d(2026, 5, 17), d(2026, 5, 18)),
    ("3 days ago", d(2026, 5, 17), d(2026, 5, 18)),
    ("大前天", d(2026, 5, 17), d(2026, 5, 18)),  # three days before today
    ("前天", d(2026, 5, 18), d(2026, 5, 19)),
    ("the day before yesterday", d(2026, 5, 18), d(2026, 5, 19)),
    ("day before yesterday", d(2026, 5, 18), d(2026, 5, 19)),
    ("昨天", d(2026, 5, 19), d(2026, 5, 20)),
    ("yesterday", d(2026, 5, 19), d(2026, 5, 20)),
    ("今天", d(2026, 5, 20), d(2026, 5, 21)),
    ("today", d(2026, 5, 20), d(2026, 5, 21)),
    ("明天", d(2026, 5, 21), d(2026, 5, 22)),
    ("tomorrow", d(2026, 5, 21), d(2026, 5, 22)),
    ("大后天", d(2026, 5, 23), d(2026, 5, 24)),
    ("大後天", d(2026, 5, 23), d(2026, 5, 24)),
    ("上个月", d(2026, 4, 1), d(2026, 5, 1)),
    ("上個月", d(2026, 4, 1), d(2026, 5, 1)),
    ("last month", d(2026, 4, 1), d(2026, 5, 1)),
    ("这个月", d(2026, 5, 1), d(2026, 6, 1)),
    ("這個月", d(2026, 5, 1), d(2026, 6, 1)),
    ("this month", d(2026, 5, 1), d(2026, 6, 1)),
    ("下个月", d(2026, 6, 1), d(2026, 7, 1)),
    ("下個月", d(2026, 6, 1), d(2026, 7, 1)),
    ("next month", d(2026, 6, 1), d(2026, 7, 1)),
    ("去年五月", d(2025, 5, 1), d(2025, 6, 1)),
    ("去年5月份", d(2025, 5, 1), d(2025, 6, 1)),
    ("last May", d(2025, 5, 1), d(2025, 6, 1)),
    ("last may", d(2025, 5, 1), d(2025, 6, 1)),
    ("去年十二月", d(2025, 12, 1), d(2026, 1, 1)),
    ("last December", d(2025, 12, 1), d(2026, 1, 1)),
    ("去年", d(2025, 1, 1), d(2026, 1, 1)),
    ("last year", d(2025, 1, 1), d(2026, 1, 1)),
    ("上周三", d(2026, 5, 13), d(2026, 5, 14)),
    ("上週三", d(2026, 5, 13), d(2026, 5, 14)),
    ("上星期三", d(2026, 5, 13), d(2026, 5, 14)),
    ("last Wednesday", d(2026, 5, 13), d(2026, 5, 14)),
    ("上周", d(2026, 5, 11), d(2026, 5, 18)),
    ("上週", d(2026, 5, 11), d(2026, 5, 18)),
    ("上个礼拜", d(2026, 5, 11), d(2026, 5, 18)),
    ("last week", d(2026, 5, 11), d(2026, 5, 18)),
    ("这周", d(2026, 5, 18), d(2026, 5, 25)),
    ("這週", d(2026, 5, 18), d(2026, 5, 25)),
    ("this week", d(2026, 5, 18), d(2026, 5, 25)),
    ("下周五", d(2026, 5, 29), d(2026, 5, 30)),
    ("下週五", d(2026, 5, 29), d(2026, 5, 30)),
    ("两周后", d(2026, 6, 3), d(2026, 6, 4)),
    ("兩週後", d(2026, 6, 3), d(2026, 6, 4)),
    ("in two weeks", d(2026, 6, 3), d(2026, 6, 4)),
    ("two weeks later", d(2026, 6, 3), d(2026, 6, 4)),
    ("三个月前", d(2026, 2, 1), d(2026, 3, 1)),
    ("三個月前", d(2026, 2, 1), d(2026, 3, 1)),
    ("3 months ago", d(2026, 2, 1), d(2026, 3, 1)),
    ("2025年3月", d(2025, 3, 1), d(2025, 4, 1)),
    ("March 2025", d(2025, 3, 1), d(2025, 4, 1)),
    ("2026年5月3日", d(2026, 5, 3), d(2026, 5, 4)),
    ("5月3日", d(2026, 5, 3), d(2026, 5, 4)),
    ("五月三號", d(2026, 5, 3), d(2026, 5, 4)),
    ("May 3", d(2026, 5, 3), d(2026, 5, 4)),
    ("3 May 2026", d(2026, 5, 3), d(2026, 5, 4)),
    ("2026-05-03", d(2026, 5, 3), d(2026, 5, 4)),
    ("三月", d(2026, 3, 1), d(2026, 4, 1)),
    ("in March", d(2026, 3, 1), d(2026, 4, 1)),
    ("2024年", d(2024, 1, 1), d(2025, 1, 1)),
    ("in 2024", d(2024, 1, 1), d(2025, 1, 1)),
    # inside sentences
    ("我三天前买的耳机到了吗", d(2026, 5, 17), d(2026, 5, 18)),
    ("我大前天說的那家餐廳", d(2026, 5, 17), d(2026, 5, 18)),
    ("what did I order last Wednesday?", d(2026, 5, 13), d(2026, 5, 14)),
    ("上個月我買了什麼", d(2026, 4, 1), d(2026, 5, 1)),
]


@pytest.mark.parametrize(("phrase", "first", "after"), CORPUS)
def test_write_side_dates_the_phrase(phrase: str, first: date, after: date) -> None:
    found = find_times(phrase, AS_OF)
    assert len(found) == 1, [t.text for t in found]
    assert (found[0].day, found[0].period_end()) == (first, after)


@pytest.mark.parametrize(("phrase", "first", "after"), CORPUS)
def test_recall_side_window_is_the_same_period(phrase: str, first: date, after: date) -> None:
    w = time_window(phrase, AS_OF)
    assert w is not None, phrase
    assert (w.since.date(), w.until.date()) == (first, after)
    assert w.since.tzinfo is UTC and w.until.tzinfo is UTC


@pytest.mark.parametrize(("phrase", "written", "recalled"), [
    ("12月25日", d(2026, 12, 25), d(2025, 12, 25)),
    ("十二月", d(2026, 12, 1), d(2025, 12, 1)),
    ("in December", d(2026, 12, 1), d(2025, 12, 1)),
    ("December 25", d(2026, 12, 25), d(2025, 12, 25)),
])
def test_a_yearless_date_after_as_of_is_last_years_when_recalled(
        phrase: str, written: date, recalled: date) -> None:
    """A statement may speak of the future ("到12月25日有效"), a question about memory looks
    back: the one grammar says the year was assumed, and recall takes the year before."""
    found = find_times(phrase, AS_OF)
    assert [t.day for t in found] == [written] and found[0].year_implied
    w = time_window(phrase, AS_OF)
    assert w is not None and w.since.date() == recalled


@pytest.mark.parametrize("phrase", [
    "This may be wrong", "this may take a while", "I may 5 times a day", "may I change it?",
    "三个月", "每月一次", "一月两次", "我的订单号是多少", "2000年前的事", "they march 5 miles",
])
def test_not_dates_on_either_side(phrase: str) -> None:
    assert find_times(phrase, AS_OF) == []
    assert time_window(phrase, AS_OF) is None


def test_lately_is_a_recall_window_only() -> None:
    assert find_times("最近买了什么", AS_OF) == []
    w = time_window("最近买了什么", AS_OF)
    assert w is not None and (w.since.date(), w.until.date()) == (d(2026, 5, 13), d(2026, 5, 21))


@pytest.mark.parametrize(("query", "since"), [
    ("What was the issue last week, as mentioned on November 6, 2025?", d(2025, 11, 6)),
    ("上周说的，就是5月3日那次", d(2026, 5, 3)),
    ("上週說的，就是5月3日那次", d(2026, 5, 3)),
])
def test_a_named_date_anchors_the_window(query: str, since: date) -> None:
    """Both dates are read the same on both sides; the window is the one the query names."""
    assert len(find_times(query, AS_OF)) == 2
    w = time_window(query, AS_OF)
    assert w is not None and w.since.date() == since
