"""Dates resolved against the turn's time: pure functions of (text, at)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from jiyi.write.timeparse import cn_int, find_clocks, find_times

AT = datetime(2026, 5, 1, 23, 30, tzinfo=UTC)  # Friday, late evening UTC


@pytest.mark.parametrize(("text", "value"), [
    ("明天早上8点", "2026-05-02T08:00"),
    ("明天早上", "2026-05-02 morning"),
    ("下周三", "2026-05-06"),
    ("下週三", "2026-05-06"),
    ("上星期天", "2026-04-26"),
    ("大后天", "2026-05-04"),
    ("5月3日", "2026-05-03"),
    ("十二月二十五号", "2026-12-25"),
    ("2027年1月", "2027-01"),
    ("last Friday", "2026-04-24"),
    ("next Friday", "2026-05-08"),
    ("this weekend", "2026-05-02"),
    ("the day before yesterday", "2026-04-29"),
    ("tomorrow at 9:15 pm", "2026-05-02T21:15"),
    ("3 months ago", "2026-02"),
    ("in 2 years", "2028"),
    ("Jan 5", "2026-01-05"),
])
def test_resolution(text: str, value: str) -> None:
    found = find_times(text, AT)
    assert [t.value for t in found] == [value]
    assert found[0].text == text


@pytest.mark.parametrize("text", ["2月30日", "2026年2月29日", "4月31号", "February 30", "13月1日",
                                  "May I help", "0月0日"])
def test_impossible_dates_yield_nothing(text: str) -> None:
    assert find_times(text, AT) == []


def test_leap_day_is_a_date() -> None:
    assert find_times("2028年2月29日", AT)[0].day == date(2028, 2, 29)


def test_end_instant_and_render() -> None:
    coupon = find_times("到5月3日有效", AT)[0]
    assert coupon.end_instant() == datetime(2026, 5, 4, tzinfo=UTC)
    month = find_times("下个月", AT)[0]
    assert month.end_instant() == datetime(2026, 7, 1, tzinfo=UTC)
    assert month.render("zh") == "2026年6月"
    assert find_times("yesterday", AT)[0].render("en") == "on 30 April 2026"
    assert find_times("last week", AT)[0].render("en") == "the week of 20 April 2026"


def test_cn_numbers_and_clocks() -> None:
    assert [cn_int(x) for x in ("五", "十", "十二", "二十", "三十一", "12", "十x")] == [
        5, 10, 12, 20, 31, 12, None]
    assert [c.value for c in find_clocks("晚上九点一刻, 7:05, 11pm, 12am")] == [
        "21:15", "07:05", "23:00", "00:00"]
    assert find_clocks("25点") == []
