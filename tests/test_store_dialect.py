"""The store's SQL is written once: the dialect turns the neutral form into each
driver's, and spells list membership each engine's way (pure functions, no database)."""

from __future__ import annotations

import pytest

from jiyi.store.base import Scope
from jiyi.store.sql.dialect import POSTGRES, SQLITE
from jiyi.store.sql.filters import scope_sql, types_sql
from jiyi.units import MemoryType


def test_sqlite_keeps_the_neutral_placeholders() -> None:
    query = "SELECT id FROM units WHERE user_id = :user AND id = ?"
    assert SQLITE.sql(query) is query


def test_postgres_gets_pyformat_placeholders_and_keeps_casts() -> None:
    assert POSTGRES.sql("SELECT v.vec::vector(3) FROM t WHERE a = :user_1 AND b = ? AND"
                        " c = %(q)s") == (
        "SELECT v.vec::vector(3) FROM t WHERE a = %(user_1)s AND b = %s AND c = %(q)s")


def test_a_literal_percent_in_neutral_sql_is_refused() -> None:
    with pytest.raises(ValueError, match="%"):
        POSTGRES.sql("SELECT 1 WHERE body LIKE '%订单%'")


def test_list_membership_in_each_dialect() -> None:
    params: dict[str, object] = {}
    assert SQLITE.any_of("u.type", "t", ["fact", "偏好"], params) == "u.type IN (:t0, :t1)"
    assert params == {"t0": "fact", "t1": "偏好"}
    params = {}
    assert POSTGRES.any_of("u.type", "t", ["fact", "偏好"], params) == "u.type = ANY(:t)"
    assert params == {"t": ["fact", "偏好"]}


def test_chunks_stay_under_sqlite_variable_limit_and_postgres_binds_once() -> None:
    ids = [f"u{i}" for i in range(1201)]
    assert [len(c) for c in SQLITE.chunks(ids)] == [500, 500, 201]
    assert [len(c) for c in POSTGRES.chunks(ids)] == [1201]
    assert list(SQLITE.chunks([])) == [] and list(POSTGRES.chunks([])) == []


def test_one_scope_and_type_filter_for_both_backends() -> None:
    scope = Scope("用户", "會話")
    lite: dict[str, object] = {}
    pg: dict[str, object] = {}
    lite_sql = scope_sql(SQLITE, scope, lite) + types_sql(SQLITE, [MemoryType.TOOL_RESULT], lite)
    pg_sql = scope_sql(POSTGRES, scope, pg) + types_sql(POSTGRES, [MemoryType.TOOL_RESULT], pg)
    assert lite_sql.replace("IN (:ult0, :ult1)", "= ANY(:ult)").replace(
        "IN (:vt0)", "= ANY(:vt)") == pg_sql
    assert lite["scope_user"] == pg["scope_user"] == "用户"
    assert pg["vt"] == [MemoryType.TOOL_RESULT.value]
