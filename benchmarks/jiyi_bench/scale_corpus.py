"""A generated bilingual memory corpus for the scale benchmark (``jiyi bench scale``).

A few thousand distinct sentences (Simplified Chinese, Traditional Chinese, English) are built
from templates and embedded ONCE with the real embedder; every stored unit reuses one of them with
its own code appended and a slightly perturbed vector, so a million units cost a few thousand
embeddings. Users follow a heavy-tailed size distribution plus one "big user" holding a fixed
share of all units (the worst case for brute-force vector search, which scans the scope).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from jiyi.units import MemoryType

_NAMES_ZH = ["张伟", "王芳", "李娜", "刘洋", "陈静", "杨帆", "赵磊", "黄敏", "周杰", "吴婷"]
_NAMES_TW = ["張偉", "王芳", "李娜", "劉洋", "陳靜", "楊帆", "趙磊", "黃敏", "周傑", "吳婷"]
_NAMES_EN = ["Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Ivy", "Jack"]
_CITY_ZH = ["北京", "上海", "深圳", "杭州", "成都", "武汉", "南京", "西安", "广州", "重庆"]
_CITY_TW = ["臺北", "高雄", "臺中", "新竹", "臺南", "香港", "澳門", "桃園", "嘉義", "基隆"]
_CITY_EN = ["London", "Paris", "Berlin", "Tokyo", "Boston", "Seattle", "Madrid", "Rome",
            "Sydney", "Toronto"]
_ITEM_ZH = ["蓝牙耳机", "机械键盘", "咖啡机", "跑步鞋", "电饭煲", "显示器", "登山包", "保温杯",
            "空气净化器", "儿童座椅"]
_ITEM_TW = ["藍牙耳機", "機械鍵盤", "咖啡機", "跑步鞋", "電飯鍋", "顯示器", "登山包", "保溫杯",
            "空氣清淨機", "兒童座椅"]
_ITEM_EN = ["wireless earbuds", "mechanical keyboard", "coffee maker", "running shoes",
            "rice cooker", "monitor", "hiking backpack", "thermos", "air purifier", "car seat"]
_STATUS_ZH = ["已发货", "待付款", "已签收", "退款中", "已取消"]
_STATUS_TW = ["已發貨", "待付款", "已簽收", "退款中", "已取消"]
_STATUS_EN = ["shipped", "awaiting payment", "delivered", "being refunded", "cancelled"]

_TEMPLATES: list[tuple[MemoryType, str, str]] = [
    # (type, language, template) with {name} {city} {item} {status} {n}
    (MemoryType.USER_PROFILE, "zh", "我叫{name}，住在{city}，平时喜欢{item}相关的东西"),
    (MemoryType.USER_PROFILE, "tw", "我叫{name}，住在{city}，平常喜歡{item}相關的東西"),
    (MemoryType.USER_PROFILE, "en", "My name is {name}, I live in {city} and I like my {item}"),
    (MemoryType.FACT_REFERENCE, "zh", "用户在{city}的收货地址第{n}号楼，偏好周末送货上门"),
    (MemoryType.FACT_REFERENCE, "tw", "用戶在{city}的收貨地址第{n}號樓，偏好週末送貨上門"),
    (MemoryType.FACT_REFERENCE, "en", "The delivery address in {city} is building {n}; weekend delivery preferred"),
    (MemoryType.FACT_REFERENCE, "zh", "{name}对{item}过敏或不满意，第{n}次提到要换货"),
    (MemoryType.FACT_REFERENCE, "en", "{name} returned the {item} after {n} days because it broke"),
    (MemoryType.SESSION_STATE, "zh", "本次会话在比较{item}的价格，预算大约{n}00元"),
    (MemoryType.SESSION_STATE, "tw", "本次對話在比較{item}的價格，預算大約{n}00元"),
    (MemoryType.SESSION_STATE, "en", "In this chat the user compares {item} prices, budget about {n}0 dollars"),
    (MemoryType.TOOL_RESULT, "zh", "查询结果：{item}订单状态{status}，预计{n}天内送达{city}"),
    (MemoryType.TOOL_RESULT, "tw", "查詢結果：{item}訂單狀態{status}，預計{n}天內送達{city}"),
    (MemoryType.TOOL_RESULT, "en", "Lookup: the {item} order is {status}, arriving in {city} within {n} days"),
]

_SLOTS = {
    "zh": (_NAMES_ZH, _CITY_ZH, _ITEM_ZH, _STATUS_ZH),
    "tw": (_NAMES_TW, _CITY_TW, _ITEM_TW, _STATUS_TW),
    "en": (_NAMES_EN, _CITY_EN, _ITEM_EN, _STATUS_EN),
}

#: Questions a user asks; recall is measured with these (embedded per query, for real).
QUERIES = [
    "我的收货地址是哪里？", "我之前买的耳机订单到哪了", "我的預算是多少？", "我叫什麼名字",
    "where is my order?", "what did I say about the keyboard?", "我住在哪个城市",
    "退货的那个东西是什么", "what is my delivery address", "訂單狀態查詢", "咖啡机什么时候到",
    "which city do I live in", "我上次比较的是什么商品", "what is my budget", "我对什么过敏",
]


@dataclass(frozen=True)
class Sentence:
    type: MemoryType
    text: str


def distinct_sentences(n: int, seed: int = 7) -> list[Sentence]:
    """``n`` distinct template sentences (deterministic for a seed)."""
    rng = random.Random(seed)
    out: dict[str, Sentence] = {}
    while len(out) < n:
        utype, lang, template = rng.choice(_TEMPLATES)
        names, cities, items, statuses = _SLOTS[lang]
        text = template.format(name=rng.choice(names), city=rng.choice(cities),
                               item=rng.choice(items), status=rng.choice(statuses),
                               n=rng.randint(1, 99))
        out.setdefault(text, Sentence(utype, text))
    return list(out.values())


def sentence_vectors(sentences: list[Sentence], embedder: str,
                     cache: Path) -> NDArray[np.float32]:
    """The sentences' passage vectors from ``embedder``, computed once and kept in ``cache`` (.npy):
    a rebuilt store reuses them instead of embedding thousands of sentences again."""
    if cache.exists():
        vectors: NDArray[np.float32] = np.load(cache)
        return vectors
    from jiyi.embed import get_embedder

    vectors = get_embedder(embedder).embed_passages([s.text for s in sentences])
    np.save(cache, vectors)
    return vectors


def user_sizes(total: int, big_share: float, seed: int = 11) -> list[int]:
    """Units per user: user 0 is the big user (``big_share`` of ``total``); the others follow a
    log-normal law (median ~60, mean ~100, a few users with thousands)."""
    rng = np.random.default_rng(seed)
    big = int(total * big_share)
    rest = total - big
    sizes: list[int] = [big]
    left = rest
    while left > 0:
        s = int(min(max(5, rng.lognormal(mean=4.1, sigma=1.0)), 5000, left))
        sizes.append(max(1, s))
        left -= sizes[-1]
    return sizes


def perturb(base: NDArray[np.float32], rng: np.random.Generator,
            scale: float = 0.03) -> NDArray[np.float32]:
    """Rows of ``base`` with small Gaussian noise, re-normalised (distinct but near vectors)."""
    noisy = base + rng.normal(0.0, scale, size=base.shape).astype(np.float32)
    norms = np.linalg.norm(noisy, axis=1, keepdims=True)
    out: NDArray[np.float32] = (noisy / np.maximum(norms, 1e-9)).astype(np.float32)
    return out
