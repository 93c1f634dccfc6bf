"""Harness-made values for the key-facts corpus: phones, emails, coupon codes, order ids,
discounts and dates written the way each language writes them. Pure functions of a seeded
``random.Random``."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date

EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December")


@dataclass(frozen=True)
class Phone:
    text: str  # as the customer writes it
    core: str  # the national digits every written form contains (the match key)


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(n))


def phone(rng: random.Random, lang: str) -> Phone:
    """A phone number in one of several written forms of the language's region."""
    if lang == "zh-Hans":
        core = "1" + rng.choice("3456789") + _digits(rng, 9)
        a, b, c = core[:3], core[3:7], core[7:]
        forms = [core, f"{a}-{b}-{c}", f"{a} {b} {c}", f"+86 {a} {b} {c}", f"+86-{core}"]
    elif lang == "zh-Hant":
        if rng.random() < 0.7:  # Taiwan mobile 09xx-xxx-xxx
            core = "9" + _digits(rng, 8)
            a, b, c = core[:3], core[3:6], core[6:]
            forms = [f"0{core}", f"0{a}-{b}-{c}", f"0{a} {b} {c}", f"+886 {a} {b} {c}"]
        else:  # Hong Kong 8 digits
            core = rng.choice("5679") + _digits(rng, 7)
            forms = [f"{core[:4]} {core[4:]}", f"+852 {core[:4]} {core[4:]}", core]
    else:
        if rng.random() < 0.7:  # North America
            core = rng.choice("2345678") + _digits(rng, 2) + rng.choice("2345678") + _digits(
                rng, 6)
            a, b, c = core[:3], core[3:6], core[6:]
            forms = [f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"+1 {a} {b} {c}"]
        else:  # UK mobile
            core = "7" + _digits(rng, 9)
            forms = [f"0{core[:4]} {core[4:]}", f"+44 {core[:4]} {core[4:]}"]
    return Phone(rng.choice(forms), core)


_LOCAL = ("lily", "kevin", "amy", "jason", "coco", "leo", "xiaoyu", "wei", "tina", "max",
          "yuki", "ivan", "nana", "sam", "joy", "rex")
_DOMAINS = {"zh-Hans": ("qq.com", "163.com", "126.com", "foxmail.com", "outlook.com"),
            "zh-Hant": ("gmail.com", "yahoo.com.tw", "hotmail.com", "outlook.com",
                        "netvigator.com"),
            "en": ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me")}


def email(rng: random.Random, lang: str) -> str:
    sep = rng.choice(("", ".", "_"))
    return (f"{rng.choice(_LOCAL)}{sep}{rng.choice(_LOCAL)}{_digits(rng, rng.randint(2, 4))}"
            f"@{rng.choice(_DOMAINS[lang])}")


_PREFIX = ("SAVE", "VIP", "NEW", "GIFT", "SPRING", "HAPPY", "SHIP", "WELCOME", "BDAY", "FLASH",
           "MEMBER", "LUCKY")
_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


def coupon_code(rng: random.Random) -> str:
    return (rng.choice(_PREFIX) + str(rng.choice((5, 8, 10, 15, 20, 30, 50)))
            + "".join(rng.choice(_LETTERS) for _ in range(2)))


def order_id(rng: random.Random, lang: str) -> str:
    if lang == "zh-Hans":
        return rng.choice(("", "DD", "JD")) + "2026" + _digits(rng, 12)
    if lang == "zh-Hant":
        return rng.choice(("TW", "HK", "")) + _digits(rng, 10)
    return rng.choice((f"ORD-{_digits(rng, 8)}", f"#{_digits(rng, 3)}-{_digits(rng, 7)}",
                       f"W{_digits(rng, 9)}"))


def discount(rng: random.Random, lang: str) -> str:
    n = rng.choice((10, 20, 30, 50))
    if lang == "zh-Hans":
        return rng.choice((f"满{n * 10}减{n}", f"减{n}元", f"{rng.choice((8, 9))}折"))
    if lang == "zh-Hant":
        return rng.choice((f"折{n * 10}元", f"滿{n * 100}折{n * 10}", f"{rng.choice((8, 9))}折"))
    return rng.choice((f"${n} off", f"{rng.choice((10, 15, 20))}% off", "free shipping"))


def render_date(day: date, lang: str, with_year: bool) -> str:
    """zh "5月3日" / "2026年5月3日", en "May 3" / "May 3, 2026"."""
    if lang == "en":
        text = f"{EN_MONTHS[day.month - 1]} {day.day}"
        return f"{text}, {day.year}" if with_year else text
    text = f"{day.month}月{day.day}日"
    return f"{day.year}年{text}" if with_year else text



#: Words that say "membership level" in a result; a level's own name ("钻石" of "钻石会员")
#: counts only beside one of them.
LEVEL_WORDS = ("会员", "會員", "等级", "等級", "级别", "級別", "vip", "member", "tier", "level",
               "status")
_ARTICLES = ("a ", "an ", "the ", "my ")


def match_key(value: str) -> str:
    """The part of a bank value a right answer must contain: a leading English article
    dropped ("a phone call" -> "phone call")."""
    out = value.strip()
    low = out.casefold()
    for art in _ARTICLES:
        if low.startswith(art) and len(out) > len(art) + 1:
            return out[len(art):]
    return out


def level_core(value: str) -> str:
    """A membership level without its generic word ("钻石会员" -> "钻石", "Gold VIP" -> "Gold"),
    or the value itself when that leaves under two characters."""
    core = value
    for word in LEVEL_WORDS:
        i = core.casefold().find(word)
        if i >= 0:
            core = (core[:i] + core[i + len(word):]).strip()
    return core if len(core) >= 2 else value
