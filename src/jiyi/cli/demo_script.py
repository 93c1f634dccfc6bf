"""The demo conversation: 60 bilingual customer-service turns over four days, with the facts the
seed's agent lost by turn 50 (a name, an order, a phone change, a coupon that expires, a topic
switch). Invented for the demo; any resemblance to real people or orders is accidental."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ..units import Role
from ..validation import check_role

START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)

# (day offset, minute offset, role, text)
SCRIPT: list[tuple[int, int, str, str]] = [
    (0, 0, "user", "你好，我想查一下我的订单"),
    (0, 1, "assistant", "您好！请问怎么称呼您？"),
    (0, 2, "user", "我叫张伟，订单号是 ABC12345"),
    (0, 3, "assistant", "张先生您好，我来帮您查询订单 ABC12345。"),
    (0, 4, "tool", '{"tool":"get_order_status","order_id":"ABC12345","status":"shipped","carrier":"顺丰","tracking_no":"SF1234567890"}'),
    (0, 5, "assistant", "您的订单 ABC12345 已发货，顺丰运单号 SF1234567890。"),
    (0, 6, "user", "好的，谢谢"),
    (0, 7, "assistant", "不客气，还有什么可以帮您？"),
    (0, 8, "user", "我的手机号是 13812345678，快递员可以打这个电话"),
    (0, 9, "assistant", "好的，已记录您的手机号 13812345678。"),
    (0, 10, "user", "我住在上海市浦东新区张江路88号"),
    (0, 11, "assistant", "收到，收货地址是上海市浦东新区张江路88号。"),
    (0, 12, "user", "对了，我是你们的黄金会员"),
    (0, 13, "assistant", "感谢您的支持，黄金会员可享受免运费。"),
    (0, 14, "user", "有没有优惠券可以用？"),
    (0, 15, "assistant", "您有一张满200减30的优惠券，券码 CPN2026，这张券到5月3日有效。"),
    (0, 16, "user", "好的，我下次买东西的时候用"),
    (0, 17, "assistant", "好的，记得在5月3日前使用哦。"),
    (1, 0, "user", "Hi, quick question in English: my email is zhang.wei@example.com"),
    (1, 1, "assistant", "Thanks, I've noted your email zhang.wei@example.com."),
    (1, 2, "user", "I prefer delivery in the evening after 6pm"),
    (1, 3, "assistant", "Got it: evening delivery after 6pm."),
    (1, 4, "user", "我想退掉订单里的蓝牙耳机，型号是 AirSound Pro 2"),
    (1, 5, "assistant", "好的，已为您申请退货：蓝牙耳机 AirSound Pro 2，退款 ¥499 将原路返回。"),
    (1, 6, "tool", '{"tool":"create_return","order_id":"ABC12345","item":"AirSound Pro 2","refund":"499 CNY","return_id":"RT778899"}'),
    (1, 7, "assistant", "退货单号 RT778899，退款金额 499 元。"),
    (1, 8, "user", "嗯嗯"),
    (1, 9, "assistant", "还有其他问题吗？"),
    (1, 10, "user", "我换号了，新号是 13998765432，以后打这个"),
    (1, 11, "assistant", "好的，已将您的手机号更新为 13998765432。"),
    (1, 12, "user", "对，就是这个号"),
    (1, 13, "assistant", "好的，已确认。"),
    (2, 0, "user", "推荐一款适合跑步的耳机吧"),
    (2, 1, "assistant", "推荐 RunBeat X1 运动耳机，防水防汗，售价 ¥399。"),
    (2, 2, "user", "那个产品有黑色的吗？"),
    (2, 3, "assistant", "RunBeat X1 有黑色和白色两种颜色。"),
    (2, 4, "user", "预算500元以内，还有别的吗？"),
    (2, 5, "assistant", "还有 FitSound S3，售价 ¥459，续航30小时。"),
    (2, 6, "user", "I think I'll go with the RunBeat X1 in black"),
    (2, 7, "assistant", "Great choice: RunBeat X1, black, ¥399."),
    (2, 8, "user", "我要投诉，上次的快递员态度很差"),
    (2, 9, "assistant", "非常抱歉给您带来不好的体验，已为您登记投诉，工单号 TK20260503。"),
    (2, 10, "user", "另外快递外包装也破了"),
    (2, 11, "assistant", "已补充到投诉工单 TK20260503：外包装破损。"),
    (2, 12, "user", "多久能处理完？"),
    (2, 13, "assistant", "投诉会在48小时内处理完毕。"),
    (2, 14, "user", "好吧"),
    (2, 15, "assistant", "请问还有什么需要帮助的吗？"),
    (3, 0, "user", "我家里的WiFi路由器一直报错 E1042"),
    (3, 1, "assistant", "错误码 E1042 表示固件版本过旧，请升级到 3.2.1 版本。"),
    (3, 2, "user", "升级好了，现在正常了"),
    (3, 3, "assistant", "太好了，路由器已恢复正常。"),
    (3, 4, "user", "我的订单号是多少来着？"),
    (3, 5, "assistant", "您的订单号是 ABC12345。"),
    (3, 6, "user", "现在我的电话是多少？"),
    (3, 7, "assistant", "您当前的手机号是 13998765432。"),
    (3, 8, "user", "那张优惠券还能用吗？"),
    (3, 9, "assistant", "那张优惠券已于5月3日过期。"),
    (3, 10, "user", "好的，谢谢你"),
    (3, 11, "assistant", "不客气，祝您生活愉快！"),
]

# The questions the seed's agent got wrong at turn 50, asked at the end of day 3.
QUESTIONS: list[str] = [
    "我叫什么名字？",
    "我的订单号是多少？",
    "我现在的电话是多少？",
    "我的优惠券还能用吗？",
    "我的退货单号是多少？",
    "What's my email?",
    "那个运动耳机叫什么？",
    "我的投诉工单处理得怎么样了？",
    "When do I prefer deliveries?",
]


def turns() -> list[tuple[datetime, Role, str, str]]:
    """(at, role, text, turn_id) for every scripted turn."""
    return [
        (START + timedelta(days=d, minutes=m), check_role(role), text, f"T{i + 1}")
        for i, (d, m, role, text) in enumerate(SCRIPT)
    ]
