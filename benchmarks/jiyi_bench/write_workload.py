"""The write benchmarks' workload, shared by ``jiyi bench write`` and its ``--batch-compare``
(and the prompt, answers and compression harnesses): a seeded bilingual conversation (zh-Hans,
zh-Hant, en; user, assistant and tool turns with ids, phones, dates, amounts, coupons, secrets,
chit-chat, confirmations and long turns) and the machine description every report carries."""

from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
SURNAMES = "张王李赵陈刘杨黄周吴"
GIVEN = ("伟", "芳", "娜", "敏", "静", "强", "磊", "洋", "艳", "杰")
CITIES = (("北京", "Beijing"), ("上海", "Shanghai"), ("深圳", "Shenzhen"), ("臺北", "Taipei"),
          ("杭州", "Hangzhou"), ("成都", "Chengdu"))
NAMES_EN = ("Caroline", "Melanie", "John", "Alice", "Bob", "Grace")

USER_ZH = (
    "我叫{name}，订单号是 DD{n:08d}",
    "帮我查一下订单DD{n:08d}到哪了，明天早上{h}点前能到吗？",
    "我换号了，新号是139{n:08d}",
    "我的邮箱是user{n}@example.com",
    "我搬到{city}了，收货地址也要改",
    "这张券到{m}月{d}日有效，满{amt}元可用",
    "因为服务器故障错误码503导致订单创建失败请稍后重试",
    "下周三之前帮我把发票开好，抬头是{name}",
    "我对花生过敏，别推荐含花生的零食",
    "上次买的iPhone 15 Pro屏幕坏了，花了¥{amt}",
    "我的密码是Pw{n}!x，帮我登录一下",
)
USER_HANT = (
    "我叫{name}，訂單編號是 TW{n:08d}",
    "幫我查一下運單SF{n:010d}，後天下午三點前要收到",
    "我的手機號碼是09{n:08d}",
    "這張券到{m}月{d}日前有效",
    "我住在臺北市信義路五段{d}號",
)
USER_EN = (
    "Hi, I'm {en}. My order #A{n:06d} hasn't arrived yet.",
    "I went to a support group yesterday and it was so powerful.",
    "I moved to {city_en} last month, so please update my address.",
    "My phone number is +1 415-555-{p:04d}",
    "Can you check ticket INC-{n:05d}? It crashed with error code E{e} again.",
    "The coupon SAVE{p:04d} is valid until June {d}; my budget is ${amt}.",
    "I finished the painting I told you about last week, it's a sunset over the lake.",
    "We're planning a camping trip with the kids next month, maybe in the mountains.",
    "Use this key: sk-proj-{key}",
)
ASSISTANT = (
    "好的，已为您查询到订单DD{n:08d}，预计{m}月{d}日送达。",
    "您的工单INC-{n:05d}已提交，我们会在24小时内回复。",
    "That's great to hear! What did you paint?",
    "I've updated your address. Anything else?",
    "很抱歉，支付失败，错误代码 PAY-{e}，请更换银行卡。",
)
CHITCHAT = ("谢谢！", "好的", "哈哈哈", "Thanks so much!", "Hey Mel! Good to see you!", "謝謝你", "👍👍")
CONFIRM = ("对，就是这个号", "是的", "Yes, that's right", "對的")


@dataclass(frozen=True)
class GenTurn:
    text: str
    role: str
    at: datetime
    speaker: str | None


def _fill(template: str, rng: random.Random, n: int) -> str:
    city = rng.choice(CITIES)
    return template.format(
        name=rng.choice(SURNAMES) + rng.choice(GIVEN), n=n, h=rng.randint(7, 11),
        city=city[0], city_en=city[1], m=rng.randint(1, 12), d=rng.randint(1, 28),
        amt=rng.randint(10, 9999), en=rng.choice(NAMES_EN), p=rng.randint(0, 9999),
        e=rng.randint(1000, 9999), key="".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
                                                  for _ in range(32)))


def _tool_json(rng: random.Random, n: int) -> str:
    kind = rng.random()
    if kind < 0.5:
        body: dict[str, Any] = {"order_id": f"DD{n:08d}", "status": rng.choice(
            ["shipped", "delivered", "pending", "cancelled"]), "tracking_no": f"SF{n:010d}",
            "amount": rng.randint(10, 999)}
    elif kind < 0.8:
        body = {"task_id": f"T{n % 50}", "completed": n % 100, "total": 100,
                "last_success_id": f"r-{n}"}
    elif kind < 0.95:
        body = {"orders": [{"order_id": f"DD{n + i:08d}", "status": "paid"} for i in range(3)]}
    else:
        return f'{{"order_id": "DD{n:08d}", "status": '  # malformed on purpose
    return json.dumps(body, ensure_ascii=False)


def generate(turns: int, seed: int = 7) -> list[GenTurn]:
    """A deterministic bilingual conversation of ``turns`` turns."""
    rng = random.Random(seed)
    out: list[GenTurn] = []
    for i in range(turns):
        at = START + timedelta(minutes=3 * i)
        r = rng.random()
        n = rng.randint(1, 99_999_999)
        if r < 0.08:
            out.append(GenTurn(rng.choice(CHITCHAT), "user", at, None))
        elif r < 0.11:
            out.append(GenTurn(rng.choice(CONFIRM), "user", at, None))
        elif r < 0.28:
            out.append(GenTurn(_tool_json(rng, n), "tool", at, None))
        elif r < 0.43:
            out.append(GenTurn(_fill(rng.choice(ASSISTANT), rng, n), "assistant", at, None))
        elif r < 0.47:  # a long turn: several sentences, several units
            parts = [_fill(rng.choice(USER_ZH + USER_EN), rng, n + k) for k in range(8)]
            out.append(GenTurn(" ".join(parts), "user", at, None))
        else:
            pool = rng.choice((USER_ZH, USER_ZH, USER_HANT, USER_EN, USER_EN))
            speaker = rng.choice(NAMES_EN) if pool is USER_EN and rng.random() < 0.5 else None
            out.append(GenTurn(_fill(rng.choice(pool), rng, n), "user", at, speaker))
    return out


def machine() -> dict[str, str]:
    def sh(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"
    return {"nproc": sh(["nproc"]) or str(os.cpu_count()), "free_h": sh(["free", "-h"]),
            "python": sys.version.split()[0], "platform": platform.platform(),
            "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg())}
