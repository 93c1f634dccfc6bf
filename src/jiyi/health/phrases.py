"""Forgetting phrases (the amnesia detector): what a model says when its memory came back empty.

Pure functions. The lists are defaults; :class:`jiyi.health.HealthConfig` takes others.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

#: Default phrases per language tag. Matching is case-insensitive after NFKC normalisation,
#: with curly apostrophes read as straight ones and runs of spaces collapsed.
DEFAULT_FORGETTING_PHRASES: dict[str, tuple[str, ...]] = {
    "zh-Hans": (
        "我不太记得", "我不记得", "我记不清", "请再说一遍", "请您再说一遍", "请再说一次",
        "根据当前信息", "根据目前的信息", "根据现有信息", "我没有相关记录", "我无法回忆",
        "能再告诉我一次", "请重新提供", "我没有这方面的记忆",
    ),
    "zh-Hant": (
        "我不太記得", "我不記得", "我記不清", "請再說一遍", "請您再說一遍", "請再說一次",
        "根據當前信息", "根據當前資訊", "根據目前的資訊", "根據現有資訊", "我沒有相關記錄",
        "我無法回憶", "能再告訴我一次", "請重新提供", "我沒有這方面的記憶",
    ),
    "en": (
        "i don't recall", "i do not recall", "i don't remember", "i do not remember",
        "could you repeat", "can you repeat", "please repeat", "could you remind me",
        "based on the current information", "based on the information available",
        "i don't have that information", "i have no record", "i'm not sure what you mentioned",
    ),
}

_SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    """NFKC, casefold, straight apostrophes, single spaces: the form phrases are matched in."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = folded.replace("\u2019", "'").replace("\u2018", "'").replace("`", "'")
    return _SPACES.sub(" ", folded).strip()


def find_forgetting_phrase(
    reply: str, phrases: Mapping[str, Sequence[str]] = DEFAULT_FORGETTING_PHRASES
) -> str | None:
    """The first configured phrase found in ``reply`` (as configured), or ``None``."""
    text = normalise(reply)
    for group in phrases.values():
        for phrase in group:
            needle = normalise(phrase)
            if needle and needle in text:
                return phrase
    return None
