"""Query enhancement: time windows and vague references, Chinese (简/繁) and English."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from jiyi.recall.query import enhance, is_vague
from jiyi.recall.timewin import time_window

AS_OF = datetime(2026, 5, 13, 15, 0, tzinfo=timezone.utc)  # a Wednesday


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=timezone.utc)


@pytest.mark.parametrize(("query", "since", "until"), [
    ("上周我买了什么", d(2026, 5, 4), d(2026, 5, 11)),
    ("上週我買了什麼", d(2026, 5, 4), d(2026, 5, 11)),
    ("what did I order last week", d(2026, 5, 4), d(2026, 5, 11)),
    ("昨天说的那个", d(2026, 5, 12), d(2026, 5, 13)),
    ("5月2日那天的订单", d(2026, 5, 2), d(2026, 5, 3)),
    ("what happened on May 2", d(2026, 5, 2), d(2026, 5, 3)),
    ("what did we discuss last May", d(2025, 5, 1), d(2025, 6, 1)),
    ("in March 2024 I moved", d(2024, 3, 1), d(2024, 4, 1)),
    ("去年五月的发票", d(2025, 5, 1), d(2025, 6, 1)),
    ("3 days ago", d(2026, 5, 10), d(2026, 5, 11)),
    ("2026-01-15 的记录", d(2026, 1, 15), d(2026, 1, 16)),
])
def test_time_windows(query: str, since: datetime, until: datetime) -> None:
    w = time_window(query, AS_OF)
    assert w is not None, query
    assert (w.since, w.until) == (since, until)


@pytest.mark.parametrize("query", ["may I change my order?", "我的订单号是多少", "what's my phone"])
def test_no_window(query: str) -> None:
    assert time_window(query, AS_OF) is None


def test_future_day_without_year_means_last_year() -> None:
    w = time_window("12月25日那天", AS_OF)
    assert w is not None and w.since == d(2025, 12, 25)


def test_vague_expansion_zh_en() -> None:
    q = enhance("那个产品还有货吗", AS_OF, ["X1 Pro", "ABC123"])
    assert q.vague and q.expansion[:1] == ["X1 Pro"]
    assert "x1" in q.terms and q.search_text == "那个产品还有货吗"  # keyword evidence only
    q = enhance("is the thing I mentioned in stock?", AS_OF, ["AirPods Max"])
    assert q.vague and "airpods" in q.terms
    q = enhance("那個產品", AS_OF, ["藍牙耳機"])
    assert q.vague and q.expansion == ["藍牙耳機"]


def test_named_query_not_expanded() -> None:
    assert not is_vague("What did Caroline research about adoption agencies last year?")
    q = enhance("我的订单号是多少", AS_OF, ["X1 Pro"])
    assert not q.vague and q.expansion == []
    assert enhance("那个", AS_OF + timedelta(0), []).expansion == []
