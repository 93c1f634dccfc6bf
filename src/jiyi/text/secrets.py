"""The one secret detector, for every path that carries user text.

Before storage (:func:`redact`) secrets become typed placeholders (``[API_KEY]``) in the turn
text, so they never reach a unit's content, the keyword index or an embedding; in the prompt the
execution channel masks them (:func:`mask_text`, :func:`mask_secrets`) and the summary channel
drops any sentence that holds one (:func:`has_secret`). All of these find the same spans.

The secrets themselves are returned to the caller (placeholder -> secret) and nothing else keeps
them. Covered: OpenAI / Anthropic / AWS / GitHub / Slack / Google keys, bearer tokens, JWTs,
private keys, passwords and tokens given as ``password: ...`` / ``密码是...``, values of JSON keys
that name a secret, card numbers that pass the Luhn check, and 18-digit Chinese ID numbers whose
checksum and birth date are valid.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from .fastre import gate_all

#: What the prompt shows instead of a secret.
MASK = "***"

_KEY_PARTS = frozenset(
    "token password passwd pwd passcode secret authorization auth cookie credential credentials "  # noqa: SIM905
    "apikey privatekey accesskey secretkey otp pin cvv ssn".split()
)
_KEY_JOINED = ("apikey", "privatekey", "accesskey", "secretkey", "clientsecret", "sessiontoken")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def is_secret_key(key: str) -> bool:
    """True for a mapping key that names a secret (``api_key``, ``X-Auth-Token``, ``password``)."""
    parts = [p for p in re.split(r"[^a-z0-9]+", _CAMEL.sub("_", key).lower()) if p]
    joined = "".join(parts)
    return any(p in _KEY_PARTS for p in parts) or any(j in joined for j in _KEY_JOINED)

_ORDER_CONTEXT = re.compile(r"(?:订单|訂單|单号|單號|运单|運單|快递|快遞|order|tracking|ticket|工单|工單)\D{0,6}$",
                            re.I)
#: An order word right after the number ("2026299097581817这单啥时候到", "2026…4512 那單", "…817
#: order still pending"): a long order number that passes the Luhn check by chance is no card.
_ORDER_AFTER = re.compile(r"\s{0,2}(?:(?:这|那|這|此|该|該)\s?)?(?:单|單|订单|訂單)|\s{0,2}(?:order|shipment|"
                          r"parcel|package)\b", re.I)
#: A phone number written with its country code ("+86 172 3545 6061") or after a phone word
#: ("新号码是…", "my new number is …") can pass the Luhn check by chance: it is no card.
_PHONE_CONTEXT = re.compile(
    r"\+\s*$|(?:手机|手機|电话|電話|号码|號碼|新号|新號|换号|換號|打|致电|致電|联系|聯絡|聯繫|\b(?:phone|"
    r"number|mobile|cell|call|text|whatsapp|reach me)\b)\D{0,12}$", re.I)


@dataclass
class Redaction:
    text: str
    secrets: dict[str, str] = field(default_factory=dict)  # placeholder -> secret


class _Namer:
    """Hands out ``[KIND]``, ``[KIND_2]``...; the same secret always gets the same placeholder."""

    def __init__(self) -> None:
        self.by_secret: dict[str, str] = {}
        self.counts: dict[str, int] = {}
        self.secrets: dict[str, str] = {}

    def __call__(self, kind: str, secret: str) -> str:
        if secret in self.by_secret:
            return self.by_secret[secret]
        n = self.counts.get(kind, 0) + 1
        self.counts[kind] = n
        name = f"[{kind}]" if n == 1 else f"[{kind}_{n}]"
        self.by_secret[secret] = name
        self.secrets[name] = secret
        return name


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum of a card number (digits only)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def cn_id_ok(number: str) -> bool:
    """An 18-digit 居民身份证号码: valid ISO 7064 checksum and a real birth date."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    s = sum(int(number[i]) * _ID_WEIGHTS[i] for i in range(17))
    if _ID_CHECK[s % 11] != number[17].upper():
        return False
    try:
        born = date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    return 1900 <= born.year <= 2100


#: The body of a key after a known prefix: a digit or an upper-case letter somewhere, or at
#: least 12 characters ("sk-abc123", "sk-proj-Q9x…", not "sk-short").
_KEY_BODY = r"(?=[A-Za-z0-9_\-]*[0-9A-Z]|[A-Za-z0-9_\-]{12})[A-Za-z0-9_\-]{6,}"

# (kind, pattern, group holding the secret: 0 = whole match)
_PATTERNS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("PRIVATE_KEY", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)"), 0),
    ("JWT", re.compile(r"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}"), 0),
    # Provider keys are caught at any length after their prefix (a short key leaks as much as
    # a long one) when the body looks like a key (a digit or mixed case, or 12+ characters),
    # so "sk-short" or "SK-II" stay text.
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{6,}"), 0),
    ("API_KEY", re.compile(
        r"(?<![A-Za-z0-9\-])sk-(?:proj-|svcacct-|admin-|None-|live-|test-)?" + _KEY_BODY), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{8,}"
                           r"(?![A-Za-z0-9])"), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9_]{6,}"), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{10,}"), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])glpat-[A-Za-z0-9_\-]{8,}"), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9\-]{6,}"), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])xapp-[A-Za-z0-9\-]{8,}"), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{20,}"), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{8,}"), 0),
    ("API_KEY", re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{12,}"), 0),
    ("SECRET", re.compile(
        r"(?i)aws_secret_access_key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"), 1),
    ("TOKEN", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/=\-]{12,})"), 1),
    ("PASSWORD", re.compile(
        r"(?i)\b(?:password|passwd|pwd|passcode|pin code)\b\s*(?:is|was|=|:)\s*[\"']?([^\s\"',;]+)"), 1),
    ("PASSWORD", re.compile(
        r"(?:密码|密碼|口令|支付密码|支付密碼|验证码|驗證碼)\s*(?:是|为|為|改成了?|改为|改為|:|：|=)\s*([^\s，。,;；、！？\u4e00-\u9fff]+)"), 1),
    ("TOKEN", re.compile(
        r"(?i)\b(?:api[_\- ]?key|access[_\- ]?token|auth[_\- ]?token|secret[_\- ]?key|client[_\- ]?secret|token|secret)\b\s*(?:is|=|:)\s*[\"']?([A-Za-z0-9._~+/=\-]{8,})"), 1),
    ("TOKEN", re.compile(r"(?:密钥|密鑰|令牌|秘钥|秘鑰)\s*(?:是|为|為|:|：|=)\s*([A-Za-z0-9._~+/=\-]{8,})"), 1),
)
_JSON_PAIR = re.compile(r'"([^"\\]{1,64})"\s*:\s*"((?:[^"\\]|\\.){1,4096})"')
_CARD = re.compile(r"(?<![0-9A-Za-z])(?:\d[ \-]?){12,18}\d(?![0-9A-Za-z])")
_CN_ID = re.compile(r"(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])")


def _sub_group(text: str, rx: re.Pattern[str], group: int, repl: Callable[[str], str]) -> str:
    out: list[str] = []
    last = 0
    for m in rx.finditer(text):
        s, e = m.span(group)
        secret = m.group(group)
        if not secret or secret.startswith("["):
            continue
        out.append(text[last:s])
        out.append(repl(secret))
        last = e
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


_MAYBE_SECRET = re.compile(
    r"[A-Za-z0-9_\-+/=.]{6,}|\d[\d \-]{11,}|密|口令|令牌|秘钥|秘鑰|验证码|驗證碼|PRIVATE|(?i:pwd|pin code)")


#: Literals one of which every pattern of ``_PATTERNS`` needs (a superset of their prefixes,
#: lower-cased): a text holding none of them skips the nineteen scans. One case-sensitive scan
#: of the lower-cased text is several times cheaper than an ``re.I`` alternation.
_PATTERN_TRIGGERS: tuple[str, ...] = (
    "private key", "eyj", "sk-", "sk_", "rk_", "pk_", "akia", "asia", "agpa", "aida", "aroa",
    "anpa", "anva", "aipa", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox",
    "xapp-", "aiza", "hf_", "aws_secret", "bearer", "pass", "pwd", "pin code", "api", "token",
    "secret", "密码", "密碼", "验证码", "驗證碼", "口令", "密钥", "密鑰", "令牌", "秘钥", "秘鑰")


_PATTERN_TRIGGER = re.compile("|".join(re.escape(t) for t in _PATTERN_TRIGGERS))


def _may_match_a_pattern(text: str) -> bool:
    return _PATTERN_TRIGGER.search(text.lower()) is not None


_NOT_KEY_CHAR = re.compile(r"[^a-z0-9]+")
#: Every word :func:`is_secret_key` looks for, whole or in its joined parts.
_KEY_WORDS = tuple(sorted(_KEY_PARTS | set(_KEY_JOINED)))


def _may_name_a_secret_key(text: str) -> bool:
    """Whether some key of a JSON text may name a secret: :func:`is_secret_key` finds its words
    in a key's lower-cased letters and digits, which stand in the same order in the text's (a
    text holding none of the words has no secret key: the pair scan is skipped)."""
    joined = _NOT_KEY_CHAR.sub("", text.lower())
    return any(w in joined for w in _KEY_WORDS)


def redact(text: str) -> Redaction:
    """``text`` with every secret replaced by a typed placeholder, and the secrets found."""
    namer = _Namer()
    if not _MAYBE_SECRET.search(text):
        return Redaction(text=text)
    if ('":' in text or '" :' in text) and _may_name_a_secret_key(text):
        def pair(m: re.Match[str]) -> str:
            key, value = m.group(1), m.group(2)
            if is_secret_key(key) and value and not value.startswith("["):
                kind = "PASSWORD" if "pass" in key.lower() or "pwd" in key.lower() else "SECRET"
                return m.group(0)[: m.start(2) - m.start(0)] + namer(kind, value) + '"'
            return m.group(0)
        text = _JSON_PAIR.sub(pair, text)
    for kind, rx, group in _PATTERNS if _may_match_a_pattern(text) else ():
        if group == 0:
            text = rx.sub(lambda m, k=kind: namer(k, m.group(0)), text)  # type: ignore[misc]
        else:
            text = _sub_group(text, rx, group, lambda s, k=kind: namer(k, s))  # type: ignore[misc]

    def card(m: re.Match[str]) -> str:
        raw = m.group(0)
        digits = re.sub(r"[ \-]", "", raw)
        if not 13 <= len(digits) <= 19 or not luhn_ok(digits) or len(set(digits)) == 1:
            return raw
        before = text[max(0, m.start() - 24):m.start()]
        if (_ORDER_CONTEXT.search(before[-16:]) or _PHONE_CONTEXT.search(before)
                or _ORDER_AFTER.match(text, m.end())):
            return raw
        return namer("CARD_NUMBER", raw)

    text = _near_keyword(text, namer)
    if "[API_KEY" in text:
        text = _aws_secret(text, namer)
    text = _CN_ID.sub(lambda m: namer("ID_NUMBER", m.group(0)) if cn_id_ok(m.group(0))
                      else m.group(0), text)
    text = _CARD.sub(card, text)
    return Redaction(text=text, secrets=dict(namer.secrets))


#: Shorter tokens are never taken for a secret by their look alone (too many words and codes).
MIN_CANDIDATE_CHARS = 16
_CANDIDATE = re.compile(
    r"(?<![A-Za-z0-9._~+/=\-])[A-Za-z0-9._~+/=\-]{" + str(MIN_CANDIDATE_CHARS) + ",}")
#: Words that name a secret; a long random token within a few characters of one is a secret
#: ("my api token here: Zq8…", "密钥 Xy7…", "口令为…").
_SECRET_WORD = re.compile(
    r"(?:api[ _\-]?key|access[ _\-]?key|secret[ _\-]?key|private[ _\-]?key|\bkey|token|secret|"
    r"password|passwd|passphrase|credential|密钥|密鑰|秘钥|秘鑰|口令|令牌|密码|密碼|凭证|憑證|金鑰)"
    r"[^\n]{0,24}$", re.I)
_SECRET_WORD_AFTER = re.compile(
    r"^[^\n]{0,12}?(?:是我的|是|为|為|作为|作為)?(?:密钥|密鑰|秘钥|秘鑰|口令|令牌|密码|密碼|金鑰|"
    r"\b(?:api key|token|secret|password))", re.I)
_ID_WORD = re.compile(
    r"(?:订单|訂單|单号|單號|运单|運單|快递|快遞|工单|工單|物流|order|tracking|ticket|invoice|"
    r"booking|reservation)[^\n]{0,16}$", re.I)


def _entropy(token: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(token)
    return -sum(c / n * math.log2(c / n) for c in Counter(token).values())


#: A random-looking token is mostly not digits (a long number is an id, not a key) ...
RANDOM_MAX_DIGIT_SHARE = 0.8
#: ... and spread over many symbols: a random 16-character hex or base64 key has 3.5-4 bits per
#: character, camel-case words ("HelloWorldFooBar") and short-alphabet ids about 3.1.
RANDOM_MIN_ENTROPY_BITS = 3.3
#: How far before a candidate token a secret-naming word may stand ("my api token here: …") ...
SECRET_WORD_BEFORE_CHARS = 40
#: ... or after it ("Zq8… 是我的密钥").
SECRET_WORD_AFTER_CHARS = 24
#: An id word this close before the token ("订单号", "order id") makes it an id, not a secret.
ID_WORD_BEFORE_CHARS = 20
#: An AWS secret key counts only this close to its access key id (same line or the next).
AWS_SECRET_NEAR_KEY_CHARS = 160


def _random_looking(token: str) -> bool:
    """A long token that is not a word, a number or an id: several character classes and
    high entropy ("Zq8wL2…" yes; "1234567890123456", "HelloWorldFooBar" no). An id such as
    "PO-20260517-8891" can look random too: a token is a secret only next to a word naming a
    secret and with no id word just before it (:func:`_near_keyword`)."""
    classes = sum(bool(re.search(rx, token)) for rx in ("[a-z]", "[A-Z]", "[0-9]"))
    return classes >= 2 \
        and sum(ch.isdigit() for ch in token) < len(token) * RANDOM_MAX_DIGIT_SHARE \
        and _entropy(token) >= RANDOM_MIN_ENTROPY_BITS


def _near_keyword(text: str, namer: _Namer) -> str:
    """Long random tokens next to a word naming a secret (before it, or just after it)."""
    if len(text) < MIN_CANDIDATE_CHARS:
        return text
    out: list[str] = []
    last = 0
    for m in _CANDIDATE.finditer(text):
        tok = m.group(0).rstrip(".")
        if not _random_looking(tok):
            continue
        before = text[max(0, m.start() - SECRET_WORD_BEFORE_CHARS):m.start()]
        after = text[m.end():m.end() + SECRET_WORD_AFTER_CHARS]
        near = _SECRET_WORD.search(before) or _SECRET_WORD_AFTER.search(after)
        if not near or _ID_WORD.search(before[-ID_WORD_BEFORE_CHARS:]):
            continue
        out.append(text[last:m.start()])
        out.append(namer("SECRET", tok))
        last = m.start() + len(tok)
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])")


def _aws_secret(text: str, namer: _Namer) -> str:
    """The 40-character AWS secret access key standing near an access key id."""
    keys = [m.start() for m in re.finditer(r"\[API_KEY(?:_\d+)?\]", text)]

    def repl(m: re.Match[str]) -> str:
        tok = m.group(0)
        if any(abs(m.start() - k) <= AWS_SECRET_NEAR_KEY_CHARS for k in keys) and _random_looking(tok):
            return namer("SECRET", tok)
        return tok
    return _AWS_SECRET.sub(repl, text)


def has_secret(text: str) -> bool:
    """True when :func:`redact` finds a secret in ``text``."""
    return bool(redact(text).secrets)


def mask_text(text: str) -> str:
    """``text`` with every secret :func:`redact` finds replaced by ``***``."""
    found = redact(text)
    if not found.secrets:
        return text
    out = found.text
    for placeholder in sorted(found.secrets, key=len, reverse=True):  # [API_KEY_2] before [API_KEY]
        out = out.replace(placeholder, MASK)
    return out


def mask_secrets(value: Any) -> Any:
    """A copy of a JSON-like value with secret keys' values and secret-shaped strings masked."""
    if isinstance(value, dict):
        return {
            k: (MASK if is_secret_key(str(k)) and v not in (None, "") else mask_secrets(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    if isinstance(value, str):
        return mask_text(value)
    return value


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
