"""Time expressions in a query -> a window ``[since, until)`` on ``valid_at``/``created_at``.

Pure functions of ``(query, as_of)``. The dates come from the one time grammar
(:mod:`jiyi.text.timegrammar`), the same the write path dates facts with, so "三天前" or
"大前天" is the same day on both sides. The window is the whole period (UTC) one expression
names: a day ("5月2日那天", "May 2", "2023-05-02", "大前天"), a calendar week ("上周" /
"last week": weeks start on Monday), a month ("上个月", "last May" = the most recent May before
``as_of``'s month), a year. It is the first date the query names outright ("May 2", "2023年")
when it names one, else its first relative one. A question about memory looks back: a day or
month named without its year that would lie after ``as_of`` ("12月25日" asked in May) is last
year's. "Lately" words (最近, recently) are the last
:data:`~jiyi.text.timewords.RECENT_DAYS` days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from ..text import fold
from ..text.timebase import TimeMatch, safe_date
from ..text.timegrammar import find_times
from ..text.timewords import RECENT_DAYS, RECENT_WORDS


@dataclass(frozen=True)
class TimeWindow:
    since: datetime
    until: datetime
    text: str  # the expression that produced it


def _midnight(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def window_of(tm: TimeMatch, as_of: datetime) -> TimeWindow:
    """The period ``tm`` names as a window; a yearless date after ``as_of`` moves a year back."""
    since, until = _midnight(tm.day), _midnight(tm.period_end())
    if tm.year_implied and since > as_of:
        earlier = safe_date(tm.day.year - 1, tm.day.month, tm.day.day)
        if earlier is not None:
            shifted = TimeMatch(tm.start, tm.end, tm.text, tm.value, tm.grain, earlier,
                                tm.relative, tm.clock, tm.part, tm.year_implied)
            since, until = _midnight(earlier), _midnight(shifted.period_end())
    return TimeWindow(since, until, tm.text)


_RECENT = re.compile("|".join(RECENT_WORDS))


def time_window(query: str, as_of: datetime) -> TimeWindow | None:
    """The time window a query talks about, or ``None``."""
    times = find_times(query, as_of)
    if times:
        # a date the query names anchors it: "last week, as mentioned on November 6, 2023"
        # asks about November, not about the week before as_of
        return window_of(next((t for t in times if not t.relative), times[0]), as_of)
    m = _RECENT.search(fold(query))
    if m:
        today = _midnight(as_of.astimezone(UTC).date() if as_of.tzinfo else as_of.date())
        return TimeWindow(today - timedelta(days=RECENT_DAYS), today + timedelta(days=1),
                          m.group(0))
    return None
