"""A unit read back from a row is the unit that was written: :func:`unit_from_row` builds it
without pydantic's validation (the read path's hot loop), so it must equal, field for field and
in pydantic's own bookkeeping, the unit the validating constructor gives, in every script."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi.store.sql.rows import UNIT_COLUMNS, UNIT_INSERT_COLUMNS, unit_from_row, unit_params
from jiyi.units import Entity, Lifespan, MemoryType, MemoryUnit

T0 = datetime(2026, 5, 1, 9, 0, 0, 123456, tzinfo=UTC)


def _units() -> list[MemoryUnit]:
    phone = Entity(kind="phone", text="13912345678", value="13912345678", start=6, end=17)
    return [
        MemoryUnit(content="我的手机号是13912345678", type=MemoryType.USER_PROFILE,
                   lifespan=Lifespan(created_at=T0, expires_in=86400), session_id="s",
                   user_id="u", entities=[phone], source_turn_ids=["k1"],
                   slot="phone"),
        MemoryUnit(content="訂單 AB12345 已發貨", type=MemoryType.TOOL_RESULT,
                   lifespan=Lifespan(created_at=T0, expires_in=3600, relevance_score=1.0),
                   session_id="s", user_id="u", valid_at=T0, valid_until=T0 + timedelta(days=1),
                   invalidated_at=T0 + timedelta(hours=2), invalidation_reason="replaced",
                   superseded_by="m_new", supersedes="m_old", source_turn_ids=["k2", "k3"],
                   topic="訂單"),
        MemoryUnit(content="Caroline moved to Sweden", type=MemoryType.FACT_REFERENCE,
                   lifespan=Lifespan(created_at=T0, expires_in=7 * 86400, relevance_score=0.25),
                   session_id="s2", user_id="v", source_turn_ids=["k4"],
                   entities=[Entity(kind="name", text="Caroline", value="caroline")]),
    ]


def _row(unit: MemoryUnit) -> tuple[object, ...]:
    """The row a store returns for ``unit`` (:data:`UNIT_COLUMNS` from what was inserted)."""
    params = unit_params(unit, 0)
    assert set(c.strip()[2:] for c in UNIT_COLUMNS.split(",")) <= set(UNIT_INSERT_COLUMNS)
    return tuple(params[c.strip()[2:]] for c in UNIT_COLUMNS.split(","))


@pytest.mark.parametrize("unit", _units(), ids=["zh-Hans", "zh-Hant", "en"])
def test_a_row_reads_back_as_the_validated_unit(unit: MemoryUnit) -> None:
    read = unit_from_row(_row(unit))
    unit = MemoryUnit.model_validate(unit.model_dump())  # every field given, as a row gives it
    assert read == unit and repr(read) == repr(unit)
    assert read.__dict__ == unit.__dict__ and list(read.__dict__) == list(unit.__dict__)
    assert read.lifespan.__dict__ == unit.lifespan.__dict__
    assert read.model_fields_set == unit.model_fields_set
    assert read.__pydantic_private__ == unit.__pydantic_private__
    assert read.__pydantic_extra__ == unit.__pydantic_extra__
    assert read.model_dump() == unit.model_dump()
    assert read.to_public_dict() == unit.to_public_dict()
    assert read.model_copy(update={"content": "x"}).content == "x"


def test_rows_share_no_mutable_list() -> None:
    """The parsed JSON lists are cached per text; each unit still owns its lists."""
    unit = _units()[0]
    a, b = unit_from_row(_row(unit)), unit_from_row(_row(unit))
    a.source_turn_ids.append("k9")
    a.entities.clear()
    assert b.source_turn_ids == ["k1"] and len(b.entities) == 1


def test_an_integer_relevance_reads_as_a_float() -> None:
    row = list(_row(_units()[1]))
    row[10] = 1  # a driver may hand back 1 for 1.0
    read = unit_from_row(row)
    assert type(read.relevance_score) is float and read == _units()[1].model_copy(
        update={"id": read.id, "content_hash": read.content_hash})
