"""Dates in a turn, for the write path: the time grammar of :mod:`jiyi.text.timegrammar`.

The write path dates facts (``valid_at``, ``valid_until``, ``date`` and ``time`` entities) and
rewrites a relative expression inside a unit's content into an absolute one ("明天早上" ->
"2026年5月2日早上"). It reads the same grammar as recall (:mod:`jiyi.recall.timewin`), so a phrase
means the same day on both sides; this module only names what the write path uses.
"""

from __future__ import annotations

from ..text.timebase import Grain, TimeMatch, render
from ..text.timeclock import ClockMatch, find_clocks
from ..text.timegrammar import find_times
from ..text.timewords import cn_int

__all__ = ["ClockMatch", "Grain", "TimeMatch", "cn_int", "find_clocks", "find_times", "render"]
