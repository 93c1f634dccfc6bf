"""A store's contents with random ids replaced by stable labels, to compare two stores unit for
unit (content, type, slot, validity, supersession, source turns, events, turns)."""

from __future__ import annotations

from typing import Any

from jiyi import Memory


def snapshot(mem: Memory, user_ids: list[str]) -> dict[str, Any]:
    """Per user: units (sorted), turns (in ingestion order) and events, without random ids."""
    out: dict[str, Any] = {}
    for uid in user_ids:
        data = mem.store.export_user(uid)
        turn_label = {t["key"]: _turn_label(t) for t in data["turns"]}
        turn_label.update({t["turn_id"]: _turn_label(t) for t in data["turns"]})
        unit_label = {u["id"]: (u["content"], u["type"], u["session_id"], u["created_at"])
                      for u in data["units"]}

        def label(value: Any, units: dict[str, Any] = unit_label,
                  turns: dict[str, Any] = turn_label) -> Any:
            if isinstance(value, str):
                return units.get(value) or turns.get(value) or value
            return value

        units = []
        for u in data["units"]:
            row = {k: v for k, v in u.items() if k != "id"}
            row["supersedes"] = label(u["supersedes"])
            row["superseded_by"] = label(u["superseded_by"])
            row["source_turn_ids"] = sorted(map(str, map(label, u["source_turn_ids"])))
            row["provenance"] = sorted(map(str, map(label, data["provenance"][u["id"]])))
            units.append(row)
        out[uid] = {
            "units": sorted(units, key=repr),
            "turns": [_turn_label(t) for t in data["turns"]],
            "events": sorted(
                repr((label(e["unit_id"]), e["event"], label(e["detail"]), e["at"],
                      e["score_after"])) for e in data["events"]),
        }
    return out


def _turn_label(t: dict[str, Any]) -> tuple[Any, ...]:
    # a turn without a caller id is stored under its random key: label it by what it said
    tid = None if t["turn_id"] == t["key"] else t["turn_id"]
    return (tid, t["session_id"], t["role"], t["speaker"], t["text"], t["at"])


def unit_summary(units: list[Any]) -> list[tuple[str, str, str | None]]:
    """What an ingest returned, without ids."""
    return [(u.content, u.type.value, u.slot) for u in units]
