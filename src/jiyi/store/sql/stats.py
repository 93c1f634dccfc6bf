"""The status of every unit at an instant, as SQL shared by both backends (``Store.stats``).

Four disjoint states, so that ``valid + expired + superseded + forgotten = total``:

* **forgotten**: invalidated at or before the instant, and not replaced by another unit;
* **superseded**: invalidated at or before the instant by a newer unit (``superseded_by``);
* **expired**: not invalidated at the instant, and past its lifespan (``expires_at``) or its
  ``valid_until``;
* **valid**: everything else. That includes a unit not yet in its window at the instant (learned
  later, or ``valid_at`` in the future): it is neither expired nor invalidated, so it counts as
  valid rather than as a fifth state.
"""

from __future__ import annotations


def status_counts_sql(as_of: str) -> str:
    """Three ``SUM`` columns (expired, superseded, forgotten) over ``units u``; ``as_of`` is the
    backend's placeholder of the instant (``:as_of`` or ``%(as_of)s``). Valid is the rest."""
    invalidated = f"(u.invalidated_at IS NOT NULL AND u.invalidated_at <= {as_of})"
    past = f"(u.expires_at <= {as_of} OR (u.valid_until IS NOT NULL AND u.valid_until <= {as_of}))"
    return (
        f"COALESCE(SUM(CASE WHEN NOT {invalidated} AND {past} THEN 1 ELSE 0 END), 0),"
        f" COALESCE(SUM(CASE WHEN {invalidated} AND u.superseded_by IS NOT NULL"
        " THEN 1 ELSE 0 END), 0),"
        f" COALESCE(SUM(CASE WHEN {invalidated} AND u.superseded_by IS NULL"
        " THEN 1 ELSE 0 END), 0)"
    )
