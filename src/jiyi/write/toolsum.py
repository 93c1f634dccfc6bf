"""Tool results (JSON) summarised as facts: ``订单ABC123已发货，运单SF123456789``.

Known keys (order id, status, tracking number, carrier, amount, ETA, error...) are worded as a
sentence; other scalar fields follow as ``key: value``. A list of records gives one fact per
record. Batch progress ({task_id, completed, total, last_success_id}) becomes a
``batch_operation`` fact. Text that is not valid JSON is kept as text (typed tool_result).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_ORDER_KEYS = ("order_id", "orderid", "order_no", "order_number", "orderno", "order", "订单号")
_TRACK_KEYS = ("tracking_no", "tracking_number", "trackingno", "tracking", "waybill", "waybill_no",
               "express_no", "运单号", "shipment_id")
_STATUS_KEYS = ("status", "state", "order_status", "状态")
_CARRIER_KEYS = ("carrier", "courier", "express", "express_company", "快递")
_AMOUNT_KEYS = ("amount", "total", "price", "total_amount", "paid", "金额")
_ETA_KEYS = ("eta", "estimated_delivery", "expected_delivery", "delivery_date", "预计送达")
_ERROR_KEYS = ("error", "error_code", "errcode", "code", "error_message", "message", "msg")
_TASK_KEYS = ("task_id", "taskid", "job_id", "batch_id")
_ITEM_KEYS = ("item", "item_name", "items", "product", "product_name", "goods", "goods_name",
              "sku_name", "商品", "商品名称", "title")
_REFUND_AMOUNT_KEYS = ("refund", "refund_amount", "退款", "退款金额")
#: Identifier fields by category (the order and the tracking number are handled above):
#: each is worded "<label><id>" and becomes a durable identifier fact (:mod:`.idfacts`).
_ID_KEYS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("return", "退货单", ("return_id", "return_no", "return_number", "rma", "rma_id", "退货单号")),
    ("refund", "退款单", ("refund_id", "refund_no", "refund_number", "退款单号")),
    ("ticket", "工单", ("ticket_id", "ticket_no", "ticket", "case_id", "case_no", "complaint_id",
                      "工单号")),
    ("booking", "预订", ("booking_id", "booking_no", "booking_ref", "reservation_id",
                        "reservation_no", "confirmation_code", "confirmation_no", "pnr", "预订号")),
    ("coupon", "优惠券", ("coupon", "coupon_code", "coupon_id", "voucher", "voucher_code",
                        "promo_code", "券码")),
    ("account", "账号", ("account_id", "account_no", "account_number", "member_id",
                        "customer_id", "会员号")),
)
_STATUS_ZH = {
    "shipped": "已发货", "in_transit": "运输中", "delivered": "已签收", "pending": "待处理",
    "processing": "处理中", "paid": "已支付", "unpaid": "待支付", "cancelled": "已取消",
    "canceled": "已取消", "refunded": "已退款", "returned": "已退货", "completed": "已完成",
    "failed": "失败", "success": "成功", "ok": "成功", "out_for_delivery": "派送中",
    "created": "已创建", "confirmed": "已确认", "on_hold": "已暂停",
}


@dataclass(frozen=True)
class ToolFact:
    text: str
    batch: tuple[str, int, int, str | None] | None = None  # task id, completed, total, last id
    #: identifiers of the record: (category, id, the "<label><id>" words that name it in text)
    ids: tuple[tuple[str, str, str], ...] = ()

    def about(self, words: str) -> str:
        """The record's text without the words naming one of its ids (the id fact's detail)."""
        parts = [p.replace(words, "", 1).strip() if p.startswith(words) else p
                 for p in self.text.split("，")]
        return "，".join(p for p in parts if p)


def _pick(record: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, Any] | None:
    lowered = {str(k).lower(): k for k in record}
    for key in keys:
        if key in lowered:
            value = record[lowered[key]]
            if value not in (None, "", [], {}):
                return lowered[key], value
    return None


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def _record_fact(record: dict[str, Any]) -> ToolFact:
    used: set[str] = set()
    parts: list[str] = []
    task = _pick(record, _TASK_KEYS)
    done = _pick(record, ("completed", "done", "processed", "success_count"))
    total = _pick(record, ("total", "total_count", "count"))
    if task and done and total and str(done[1]).isdigit() and str(total[1]).isdigit():
        last = _pick(record, ("last_success_id", "last_id", "last_success"))
        used |= {task[0], done[0], total[0]} | ({last[0]} if last else set())
        head = f"批量任务{task[1]}进度：{done[1]}/{total[1]}"
        if last:
            head += f"，最后成功ID {last[1]}"
        failed = _pick(record, ("failed", "failed_ids", "errors"))
        if failed:
            used.add(failed[0])
            head += f"，失败：{_scalar(failed[1])}"
        rest = _rest(record, used)
        text = head + ("；" + rest if rest else "")
        return ToolFact(text, (str(task[1]), int(done[1]), int(total[1]),
                               str(last[1]) if last else None))
    ids: list[tuple[str, str, str]] = []
    order = _pick(record, _ORDER_KEYS)
    status = _pick(record, _STATUS_KEYS)
    sentence = ""
    if order and isinstance(order[1], (str, int)):
        used.add(order[0])
        sentence = f"订单{_scalar(order[1])}"
        ids.append(("order", _scalar(order[1]), sentence))
    if status:
        used.add(status[0])
        raw = _scalar(status[1])
        sentence += _STATUS_ZH.get(raw.lower(), f"状态{raw}" if sentence else f"状态：{raw}")
    if sentence:
        parts.append(sentence)
    item = _pick(record, _ITEM_KEYS)
    if item:
        used.add(item[0])
        parts.append(_scalar(item[1]) if not isinstance(item[1], list)
                     else "、".join(_scalar(x) for x in item[1]))
    for category, label, keys in _ID_KEYS:
        hit = _pick(record, keys)
        if hit and isinstance(hit[1], (str, int)):
            used.add(hit[0])
            parts.append(f"{label}{_scalar(hit[1])}")
            ids.append((category, _scalar(hit[1]), parts[-1]))
    carrier = _pick(record, _CARRIER_KEYS)
    track = _pick(record, _TRACK_KEYS)
    if track:
        used.add(track[0])
        prefix = f"{_scalar(carrier[1])}运单" if carrier else "运单"
        if carrier:
            used.add(carrier[0])
        parts.append(f"{prefix}{_scalar(track[1])}")
        ids.append(("tracking", _scalar(track[1]), parts[-1]))
    for keys, label in ((_AMOUNT_KEYS, "金额"), (_REFUND_AMOUNT_KEYS, "退款"),
                        (_ETA_KEYS, "预计送达")):
        hit = _pick(record, keys)
        if hit:
            used.add(hit[0])
            parts.append(f"{label}{_scalar(hit[1])}")
    err = _pick(record, _ERROR_KEYS)
    if err and not parts:
        used.add(err[0])
        parts.append(f"错误：{_scalar(err[1])}")
    rest = _rest(record, used)
    if rest:
        parts.append(rest)
    return ToolFact("，".join(parts), ids=tuple(ids))


def _rest(record: dict[str, Any], used: set[str]) -> str:
    items = []
    for k, v in record.items():
        if k in used or v in (None, "", [], {}):
            continue
        items.append(f"{k}: {_scalar(v)}")
    return "，".join(items)


#: A wrapper such as {"code": 0, "msg": "ok", "data": [...]} has a few keys; a record with more
#: keys is a record, even when one of them holds a list.
ENVELOPE_MAX_KEYS = 4
#: Records of one tool result read at most; the units of a turn are capped anyway
#: (``packing.MAX_UNITS_PER_TURN``) and the raw result stays in the turn.
MAX_TOOL_RECORDS = 200


def summarise_tool(text: str) -> list[ToolFact] | None:
    """Facts of a JSON tool result, or None when ``text`` is not JSON (kept as text then)."""
    s = text.strip()
    if not s or s[0] not in "{[":
        return None
    try:
        data = json.loads(s)
    except (ValueError, RecursionError):
        return None
    records: list[Any]
    if isinstance(data, dict):
        inner = next((v for k, v in data.items()
                      if k in ("data", "result", "results", "items", "orders", "records")
                      and isinstance(v, (dict, list))), None)
        if inner is not None and len(data) <= ENVELOPE_MAX_KEYS:
            head = {k: v for k, v in data.items() if not isinstance(v, (dict, list))
                    and k not in ("ok", "success", "code") }
            records = inner if isinstance(inner, list) else [inner]
            if head:
                records = [head, *records]
        else:
            records = [data]
    elif isinstance(data, list):
        records = data
    else:
        records = [data]
    facts: list[ToolFact] = []
    for rec in records[:MAX_TOOL_RECORDS]:
        fact = _record_fact(rec) if isinstance(rec, dict) else ToolFact(_scalar(rec))
        if fact.text.strip():
            facts.append(fact)
    return facts
