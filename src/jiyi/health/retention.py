"""``JiyiConfig.auto_gc``: the opt-in retention policy, run from the write path.

Reading health or metrics never deletes anything (nothing is forgotten by reading: a scrape of ``/metrics`` must not
purge a freshly imported history). Units are purged only by ``jiyi gc`` / ``Memory.gc()`` with a
retention the user chose, or, when the user opted in with ``auto_gc``, after an ingest commit:
at most once per ``HealthConfig.cleanup_interval_seconds`` across every process using the store
(the claim is :meth:`HealthState.claim_cleanup`), logged and counted in the ``cleanup_runs`` /
``cleanup_purged_units`` counters (``jiyi_cleanup_*_total``).
"""

from __future__ import annotations

import logging
import threading
import weakref
from datetime import datetime

from ..errors import JiyiError
from ..store.base import Store
from .compute import config_of
from .model import CleanupReport
from .services import HealthServices
from .state import health_state_for

log = logging.getLogger("jiyi.health")

# The last claim attempt of this process per store: within the interval an ingest skips the
# cross-process claim (a write transaction) altogether.
_last_attempt: weakref.WeakKeyDictionary[Store, datetime] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _due_locally(store: Store, now: datetime, interval_seconds: float) -> bool:
    with _lock:
        last = _last_attempt.get(store)
        if last is not None and 0 <= (now - last).total_seconds() < interval_seconds:
            return False
        _last_attempt[store] = now
        return True


def auto_gc_after_ingest(mem: HealthServices) -> CleanupReport | None:
    """Run :meth:`Memory.gc` with the configured retention when ``mem.config.auto_gc`` is on and
    no process of this store ran it within the interval. Returns what it did (None: not run).
    A failure is logged, not raised: the turn that triggered it is already committed."""
    if not mem.config.auto_gc:
        return None
    interval = config_of(mem).cleanup_interval_seconds
    now = mem.clock()
    if not _due_locally(mem.store, now, interval):
        return None
    state = health_state_for(mem.store)
    try:
        if not state.claim_cleanup(now, interval):
            return None
        purged = mem.gc()
        state.bump("cleanup_runs", 1)
        if purged:
            state.bump("cleanup_purged_units", purged)
    except JiyiError as exc:
        log.error("auto_gc failed (the ingest itself succeeded): %s", exc)
        return None
    days = mem.config.retention_days
    if purged:
        log.warning("auto_gc purged %d units expired or invalidated more than %s days ago",
                    purged, days)
    else:
        log.info("auto_gc ran: nothing expired or invalidated more than %s days ago", days)
    return CleanupReport(at=now, purged_units=purged, retention_days=days)
