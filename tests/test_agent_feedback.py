"""The pure feedback rule: used / ignored / wrong, in Simplified, Traditional Chinese and English."""

from __future__ import annotations

from datetime import UTC, datetime

from jiyi.agent_feedback import distinctive_words, judge_reply, normalise
from jiyi.text.entities import extract_entities
from jiyi.units import Entity, Lifespan, MemoryType, MemoryUnit

AT = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def unit(content: str, *, slot: str | None = None, entities: list[Entity] | None = None,
         uid: str = "m_1", type_: MemoryType = MemoryType.USER_PROFILE) -> MemoryUnit:
    return MemoryUnit(id=uid, content=content, type=type_, session_id="s", user_id="u",
                      lifespan=Lifespan(created_at=AT, expires_in=86400), slot=slot,
                      entities=entities if entities is not None else extract_entities(content, AT))


def judge(units: list[MemoryUnit], reply: str) -> dict[str, str]:
    return dict(judge_reply(units, reply, extract_entities(reply, AT)))


def test_entity_value_in_reply_is_used_whatever_the_spacing_or_script() -> None:
    phone = unit("用户的手机号是13998765432", slot="phone")
    assert judge([phone], "您的手機號是 139-9876-5432。") == {"m_1": "used"}
    email = unit("The user's email is zhang.wei@example.com", slot="email")
    assert judge([email], "Your email is Zhang.Wei@Example.com.") == {"m_1": "used"}


def test_content_words_count_when_there_is_no_entity() -> None:
    pref = unit("用户喜欢晚上六点以后送货", entities=[], type_=MemoryType.SESSION_STATE)
    assert judge([pref], "好的，我们会安排晚上送货。") == {"m_1": "used"}
    assert judge([pref], "今天天气不错。") == {"m_1": "ignored"}
    en = unit("The user prefers evening delivery after 6pm", entities=[])
    assert judge([en], "We'll schedule an evening delivery for you.") == {"m_1": "used"}
    assert judge([en], "Hello there!") == {"m_1": "ignored"}


def test_a_different_value_of_the_same_slot_is_wrong() -> None:
    phone = unit("用户的手机号是13998765432", slot="phone")
    assert judge([phone], "您的手机号是 13812345678。") == {"m_1": "wrong"}
    assert judge([phone], "您的手機號是 13812345678 還是 13998765432？") == {"m_1": "used"}
    # no slot (not a single-valued fact): another phone in the reply is not a contradiction
    free = unit("客服电话 13998765432", slot=None, type_=MemoryType.FACT_REFERENCE)
    assert judge([free], "请拨打 13812345678。") == {"m_1": "ignored"}


def test_each_unit_once_and_helpers() -> None:
    a = unit("订单号是 ABC12345", uid="m_a", slot="order_id", type_=MemoryType.SESSION_STATE)
    b = unit("用户住在上海市浦东新区张江路88号", uid="m_b")
    got = judge([a, b, a], "订单 abc12345 已发货")
    assert got == {"m_a": "used", "m_b": "ignored"}
    assert normalise("ＡＢＣ-123 45") == "abc12345"
    assert "用户" not in distinctive_words("用户喜欢跑步耳机")
    assert judge([], "anything") == {}
