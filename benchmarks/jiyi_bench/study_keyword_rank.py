"""What ranking a common word's rows costs on PostgreSQL (issue 21, item 2, the keyword side).

``python -m jiyi_bench.study_keyword_rank URL --units 40000``: one user with ``--units`` units
(bilingual bodies; one word in every unit, one in 1 of 8, one in 1 of 500) loaded by ``COPY``,
then, per word: the keyword search as recall runs it (``ts_rank_cd`` of every matching row, a
top-N sort), the same match without ranking (only a count of the matching rows), and the count
of units the BM25 scale reads. Prints a markdown table and each search's plan.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import timedelta
from typing import Any

from jiyi.clock import to_micros, utc_now
from jiyi.store import Scope, open_store
from jiyi.store.sql.keywords import fts_body
from jiyi.store.sql.rows import UNIT_INSERT_COLUMNS, unit_params
from jiyi.units import Lifespan, MemoryType, MemoryUnit

WORDS = ["订单", "快递", "耳机", "咖啡机", "退款", "发票", "会员", "地址", "库存", "价格",
         "order", "delivery", "coffee", "refund", "invoice", "member", "coupon", "hotel"]


def _units(n: int, user: str) -> list[MemoryUnit]:
    rng = random.Random(3)
    now = utc_now()
    out = []
    for i in range(n):
        words = [*rng.sample(WORDS, 4), "手机"]  # 手机 in every unit
        if i % 8 == 0:
            words.append("amber")
        if i % 500 == 0:
            words.append("zephyr")
        out.append(MemoryUnit(
            id=f"k{i}", content="我说过" + "，".join(words) + f" #{i}",
            type=MemoryType.FACT_REFERENCE,
            lifespan=Lifespan(created_at=now - timedelta(minutes=n - i), expires_in=10**8),
            session_id="s", user_id=user, source_turn_ids=[f"t{i}"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--units", type=int, default=40_000)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    store = open_store(args.url)
    units = _units(args.units, "big")
    now = to_micros(utc_now())
    store.bulk_insert({  # type: ignore[attr-defined]
        "units": (list(UNIT_INSERT_COLUMNS),
                  [tuple(unit_params(u, now)[c] for c in UNIT_INSERT_COLUMNS) for u in units]),
        "units_fts": (["unit_id", "body"], [(u.id, fts_body(u.content, u.content))
                                            for u in units])})
    with store.connection() as conn:  # type: ignore[attr-defined]
        conn.execute("ANALYZE units")
        conn.execute("ANALYZE units_fts")
    scope = Scope("big", None)
    print(f"PostgreSQL, one user with {args.units} units; {args.repeat} searches per row,"
          " k=10, busy shared machine")
    print()
    print("| word | rows matched | search (ts_rank_cd + top 10) p50 ms | match only, counted,"
          " p50 ms | keyword_scored (+ the scale's unit count) p50 ms |")
    print("|---|---:|---:|---:|---:|")
    plans: list[str] = []
    for word in ("手机", "amber", "zephyr"):
        ranked, counted, scored = [], [], []
        matched = 0
        for _ in range(args.repeat):
            t = time.perf_counter()
            store.keyword_search(scope, utc_now(), [word], 10)
            ranked.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            with store.connection() as conn:  # type: ignore[attr-defined]
                matched = conn.execute(
                    "SELECT count(*) FROM to_tsquery('simple', %s) q(q), units_fts f"
                    " WHERE f.user_id = 'big' AND f.tsv @@ q.q", (word,)).fetchone()[0]
            counted.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            store.keyword_scored(scope, utc_now(), [word], 10)
            scored.append((time.perf_counter() - t) * 1000)
        print(f"| {word} | {matched} | {statistics.median(ranked):.1f} |"
              f" {statistics.median(counted):.1f} | {statistics.median(scored):.1f} |")
        with store.connection() as conn:  # type: ignore[attr-defined]
            rows: list[Any] = conn.execute(
                "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT f.unit_id,"
                " ts_rank_cd(f.tsv, q.q) AS rank FROM to_tsquery('simple', %s) AS q(q),"
                " units_fts f JOIN units u ON u.id = f.unit_id WHERE f.user_id = 'big'"
                " AND f.tsv @@ q.q ORDER BY rank DESC, f.unit_id LIMIT 10", (word,)).fetchall()
        plans.append(f"{word}:\n" + "\n".join(r[0] for r in rows))
    store.close()
    print()
    print("```")
    print("\n\n".join(plans))
    print("```")


if __name__ == "__main__":
    main()
