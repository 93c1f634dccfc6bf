from jiyi import Memory


def test_ingest_then_recall_finds_the_order(mem: Memory) -> None:
    mem.ingest("我叫张伟，订单号是 ABC123", session_id="s1", user_id="u1")
    hits = mem.recall("我的订单号是多少？", session_id="s1", user_id="u1")
    assert hits and "ABC123" in hits[0].unit.content
