"""The words of the time grammar: numbers, months, weekdays, parts of day and relative words.

Plain data (and :func:`cn_int`, the reader of the number table), one table per kind, for Simplified Chinese, Traditional Chinese and English together.
:mod:`jiyi.text.timegrammar` is the only reader; the write path (dating facts) and the read path
(a query's time window) both go through it, so a word added here is understood by both at once.
"""

from __future__ import annotations

#: Chinese digits (两/兩 count as 2; 〇 and 零 as 0). 十 is read by :func:`cn_int`.
CN_DIGITS: dict[str, int] = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
    "七": 7, "八": 8, "九": 9,
}
#: One character of a number written in Arabic or Chinese digits (for regular expressions).
CN_NUM = "[0-9零〇一二两兩三四五六七八九十]"


def cn_int(text: str) -> int | None:
    """``"12"``, ``"十二"``, ``"二十三"``, ``"三十一"`` -> int; None when not a number."""
    if text.isdigit():
        return int(text)
    if not text or any(ch not in CN_DIGITS and ch != "十" for ch in text):
        return None
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = CN_DIGITS.get(tens) if tens else 1
        o = CN_DIGITS.get(ones) if ones else 0
        if t is None or o is None:
            return None
        return t * 10 + o
    value = 0
    for ch in text:
        value = value * 10 + CN_DIGITS[ch]
    return value

#: English numbers as words, for spans ("three days ago", "a couple of weeks later").
EN_NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2,
}

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")
#: English month names and their abbreviations (lower case) -> 1..12.
MONTHS_EN: dict[str, int] = {name.lower(): i + 1 for i, name in enumerate(MONTH_NAMES)}
MONTHS_EN.update({name[:3]: i for name, i in list(MONTHS_EN.items())})
MONTHS_EN["sept"] = 9

#: The words a Chinese weekday is said with ("周三", "星期三", "禮拜三"), before its day character.
ZH_WEEKDAY_WORD = "(?:周|週|星期|礼拜|禮拜)"
WEEKDAYS_EN: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6,
}
#: The character after 周/週/星期/礼拜/禮拜 -> Monday = 0 .. Sunday = 6.
WEEKDAYS_ZH: dict[str, int] = {
    "一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6,
    "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6,
}

#: A part of the day -> its canonical English name.
PARTS_OF_DAY: dict[str, str] = {
    "早上": "morning", "早晨": "morning", "上午": "morning", "清晨": "morning", "中午": "noon",
    "下午": "afternoon", "傍晚": "evening", "晚上": "evening", "夜里": "night", "夜裡": "night",
    "凌晨": "night", "晚间": "evening", "晚間": "evening", "夜晚": "evening", "夜间": "night",
    "夜間": "night",
    # Cantonese
    "朝早": "morning", "上晝": "morning", "上昼": "morning", "晏晝": "noon", "晏昼": "noon",
    "下晝": "afternoon", "下昼": "afternoon",
    "morning": "morning", "afternoon": "afternoon", "evening": "evening",
    "night": "night", "noon": "noon",
}
#: Parts of day after noon: "下午3点" is 15:00.
PM_PARTS = frozenset({"afternoon", "evening", "night"})
#: The Chinese wording of each canonical part of day (for rendering).
PART_ZH: dict[str, str] = {
    "morning": "早上", "noon": "中午", "afternoon": "下午", "evening": "晚上", "night": "夜里",
}

#: Day words -> days from today. 大前天 is three days before today, 大后天 three days after.
ZH_DAY_OFFSETS: dict[str, int] = {
    "大后天": 3, "大後天": 3, "大前天": -3, "今天": 0, "今日": 0, "今晚": 0, "今早": 0,
    "明天": 1, "明日": 1, "明早": 1, "明晚": 1, "后天": 2, "後天": 2, "昨天": -1, "昨日": -1,
    "昨晚": -1, "前天": -2, "听日": 1, "聽日": 1, "琴日": -1, "寻日": -1, "尋日": -1,
}
#: Day words that also name a part of the day.
ZH_DAY_PARTS: dict[str, str] = {
    "今晚": "evening", "今早": "morning", "明早": "morning", "明晚": "evening", "昨晚": "evening",
}
EN_DAY_OFFSETS: dict[str, int] = {
    "today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1, "last night": -1,
    "the day before yesterday": -2, "day before yesterday": -2,
    "the day after tomorrow": 2, "day after tomorrow": 2,
}

#: Year words -> years from this year.
ZH_YEAR_OFFSETS: dict[str, int] = {
    "去年": -1, "今年": 0, "明年": 1, "前年": -2, "后年": 2, "後年": 2,
}
#: 上/下/这 before a week or month word -> how many weeks or months from this one.
ZH_SHIFTS: dict[str, int] = {"上上": -2, "上": -1, "下": 1, "下下": 2, "这": 0, "這": 0, "本": 0}
#: last/next/this before a weekday, week, month or year.
EN_SHIFTS: dict[str, int] = {"last": -1, "past": -1, "next": 1, "coming": 1, "this": 0}

#: Words for "lately": not a date, a window of the last :data:`RECENT_DAYS` days (recall only).
RECENT_WORDS = ("最近", "近来", "近來", "recently", "lately")
RECENT_DAYS = 7

#: A part of a month after the month ("五月中", "4月中旬", "月底", "用到月尾") -> its day (0: the
#: last day of the month). A part that spans days is read as its last day but 中/mid (the 15th)
#: and 初 (the 5th).
ZH_MONTH_PARTS: dict[str, int] = {
    "初": 5, "上旬": 10, "中旬": 15, "中": 15, "下旬": 0, "底": 0, "末": 0, "尾": 0,
}
#: The words before a weekday or "the weekend" that make it a day ahead: the next one from
#: today ("good till Sunday", "by Friday").
EN_FORWARD = (r"(?:(?:valid|good|usable|expires?|expiring|ends?|lasts?|runs?)\s+"
              r"(?:until|till|til|'til|thru|through|to|on|by|before)|until|till|til|'til|thru|"
              r"through|by|before|expires?|expiring)")
#: Words that make a clause's dates British-style, day first ("3/5" is 3 May), when no
#: date in the turn says which: currencies and spellings of the places that write day first.
DAY_FIRST_HINTS = (r"£|€|₹|\bRs\.?\s?\d|\bS\$|\bRM\s?\d|\b(?:UK|Britain|British|England|London|"
                   r"Scotland|Ireland|Australia|Aussie|India|Singapore|Malaysia|NZ|Europe|"
                   r"mum|colour|favourite|whilst|fortnight|cheque|centre|organise|realise|"
                   r"queue|programme)\b")
#: Fixed-date holidays -> (month, day), read as a date only beside a word of ending ("五一前",
#: "用到国庆", "valid until Christmas"); a holiday named alone is often no day ("圣诞老人").
HOLIDAYS_ZH: dict[str, tuple[int, int]] = {
    "元旦": (1, 1), "情人节": (2, 14), "情人節": (2, 14), "五一": (5, 1), "劳动节": (5, 1),
    "勞動節": (5, 1), "国庆": (10, 1), "國慶": (10, 1), "双十一": (11, 11), "雙十一": (11, 11),
    "双11": (11, 11), "雙11": (11, 11), "双十二": (12, 12), "雙十二": (12, 12), "平安夜": (12, 24),
    "圣诞": (12, 25), "聖誕": (12, 25),
}
HOLIDAYS_EN: dict[str, tuple[int, int]] = {
    "new year's day": (1, 1), "valentine's day": (2, 14), "halloween": (10, 31),
    "christmas eve": (12, 24), "christmas": (12, 25), "new year's eve": (12, 31),
}
