"""The health state's contract (amnesia streaks, counters), below every store and the health path:
the :class:`HealthState` a store with the :class:`~.capabilities.HealthStateStore` capability
returns, the persisted counters and the pure streak rule. The SQL backends' implementation is
:class:`~.sql.health.SqlHealthState`; the process-local fallback is
:class:`jiyi.health.state.LocalHealthState`. Both apply :func:`next_streak`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

#: The persisted counters (names are also the Prometheus counters without ``jiyi_``/``_total``).
COUNTERS = ("amnesia_alerts", "cleanup_runs", "cleanup_purged_units")


@dataclass(frozen=True)
class StreakUpdate:
    streak: int
    alerting: bool
    raised: bool


def next_streak(streak: int, alerting: bool, forgetful: bool, threshold: int) -> StreakUpdate:
    """Pure amnesia transition: a forgetful turn extends the streak, any other turn ends it (and
    clears the alert); the alert is raised once, when the streak reaches ``threshold``."""
    if not forgetful:
        return StreakUpdate(0, False, False)
    new = streak + 1
    now_alerting = new >= threshold
    return StreakUpdate(new, now_alerting, now_alerting and not alerting)


class HealthState(Protocol):
    def note_recall(self, user_id: str, session_id: str, empty: bool, at: datetime) -> None: ...
    def last_recall_empty(self, user_id: str, session_id: str) -> bool: ...
    def record_reply(self, user_id: str, session_id: str, forgetful: bool, threshold: int,
                     at: datetime) -> StreakUpdate: ...
    def alerting_sessions(self, session_id: str | None, limit: int) -> tuple[list[str], int]: ...
    def counters(self) -> dict[str, int]: ...
    def bump(self, name: str, by: int = 1) -> None: ...
    def claim_cleanup(self, at: datetime, interval_seconds: float) -> bool: ...
    def unit_counts(self, at: datetime) -> dict[str, dict[str, int]]: ...
