"""Who may do what, for every HTTP door of jiyi: ``serve`` (with its inspector), ``proxy`` and
``mcp --transport http``.

Why one module: the three servers were written apart and had drifted (only ``serve`` checked a
token); the rules below are now written once and every app installs the same middleware.

* **The loopback rule** (:func:`check_bind`): a server refuses to listen beyond loopback unless a
  token is configured. A server without a token also answers only loopback clients
  (:class:`RequireToken` refuses any other client address), so a port forwarded by mistake is
  still closed.
* **Tokens** (:class:`Auth`): ``JIYI_TOKEN`` is the admin shortcut (every operation on every
  user); ``JIYI_TOKENS_FILE`` (TOML or JSON) lists scoped tokens, each with the users it covers
  (exact ids, prefixes such as ``"acme-*"``, or ``"*"``) and the operations it allows
  (:data:`OPERATIONS`). Tokens are compared as SHA-256 digests with :func:`hmac.compare_digest`
  against every entry (no early exit), and never logged: logs name a token by its ``name``.
* **The check per request** (:class:`RequireToken`): every path but the liveness probe (and the
  inspector's static page, which holds no data) needs ``Authorization: Bearer <token>``, scheme
  case-insensitive; a missing or unknown token is 401. The token's :class:`Grant` is put in the
  ASGI scope; each route then calls :func:`authorize` with the operation and the user it touches
  (a unit's owner for routes that take a unit id): outside the grant is :class:`ForbiddenError`
  (403 over HTTP, a ``forbidden`` tool error over MCP).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import os
import tomllib
import unicodedata
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from .errors import ConfigError, JiyiError

log = logging.getLogger("jiyi.auth")

Operation = Literal["read", "write", "metrics", "admin"]
#: ``read``: recall, prompt assembly, the inspector's views of a user. ``write``: store turns,
#: feedback, forget. ``metrics``: ``/metrics`` and the store-wide health figures (what a
#: Prometheus scraper needs, nothing more). ``admin``: everything (needs ``users = ["*"]``).
OPERATIONS: Final[tuple[Operation, ...]] = ("read", "write", "metrics", "admin")

#: Where :class:`RequireToken` puts the request's :class:`Grant` in the ASGI scope.
GRANT_KEY: Final = "jiyi.grant"

#: Tokens of ``JIYI_TOKENS_FILE`` must be at least this long (random, not a password).
MIN_TOKEN_CHARS: Final = 16

LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class ForbiddenError(JiyiError):
    """A valid token asked for a user or an operation outside its grant (HTTP 403)."""

    code = "forbidden"


# ----------------------------------------------------------------------------- grants


@dataclass(frozen=True)
class Grant:
    """What one token may do. ``users``: exact ids, prefixes ending in ``*``, or ``*`` (all)."""

    name: str
    users: tuple[str, ...]
    operations: frozenset[str]

    @property
    def all_users(self) -> bool:
        return "*" in self.users

    def covers(self, user_id: str) -> bool:
        """True when ``user_id`` is one of the grant's users or starts with one of its prefixes."""
        for pattern in self.users:
            if pattern == "*" or pattern == user_id:
                return True
            if pattern.endswith("*") and user_id.startswith(pattern[:-1]):
                return True
        return False

    def allows(self, operation: Operation) -> bool:
        return "admin" in self.operations or operation in self.operations


#: The grant of a server without tokens: everything, to loopback clients only.
LOCAL: Final = Grant(name="local", users=("*",), operations=frozenset(OPERATIONS))


def authorize(grant: Grant, operation: Operation, user_id: str | None = None) -> None:
    """Raise :class:`ForbiddenError` unless ``grant`` allows ``operation`` (on ``user_id`` when
    given). Call it with the user id exactly as the memory will use it (after
    :func:`jiyi.validation.check_user_id`), or a unit's owner for routes that take a unit id."""
    if not grant.allows(operation):
        log.warning("denied: token %r may not %s", grant.name, operation)
        raise ForbiddenError(f"this token does not allow the {operation!r} operation")
    if user_id is not None and not grant.covers(user_id):
        log.warning("denied: token %r does not cover user %r", grant.name, user_id)
        raise ForbiddenError(f"this token does not cover user {user_id!r}")


def grant_of(scope: Mapping[str, Any]) -> Grant:
    """The grant :class:`RequireToken` attached to a request. Fails closed: a request that did
    not pass through the middleware gets nothing."""
    grant = scope.get(GRANT_KEY)
    if not isinstance(grant, Grant):
        raise ForbiddenError("this request was not authenticated")
    return grant


# ----------------------------------------------------------------------------- tokens


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


@dataclass(frozen=True)
class _Entry:
    digest: bytes
    grant: Grant
    from_file: bool = True


@dataclass(frozen=True)
class Auth:
    """The configured tokens. ``Auth()`` (none): loopback only, no token asked."""

    entries: tuple[_Entry, ...] = ()

    @property
    def required(self) -> bool:
        """True when requests must carry a token (some token is configured)."""
        return bool(self.entries)

    def describe(self) -> str:
        """For startup lines: how many tokens, never their values."""
        if not self.entries:
            return "no token (loopback clients only)"
        scoped = sum(1 for e in self.entries if e.from_file)
        admin = len(self.entries) - scoped
        parts = (["JIYI_TOKEN"] if admin else []) + ([f"{scoped} scoped"] if scoped else [])
        return "token required: " + " + ".join(parts)

    def authenticate(self, header: bytes | None) -> Grant | None:
        """The grant of an ``Authorization`` header value, or ``None`` (401)."""
        token = parse_bearer(header)
        if token is None or not self.entries:
            return None
        digest = _digest(token)
        found: Grant | None = None
        for entry in self.entries:  # every entry, no early exit
            if hmac.compare_digest(digest, entry.digest):
                found = entry.grant
        return found

    @classmethod
    def build(cls, token: str | None = None,
              tokens_file: str | os.PathLike[str] | None = None) -> Auth:
        """``token``: the admin token (``JIYI_TOKEN``); ``tokens_file``: scoped tokens."""
        entries: list[_Entry] = []
        if token is not None:
            value = token.strip()
            if not value:
                raise ConfigError("JIYI_TOKEN is set but blank")
            _check_token_chars(value, "JIYI_TOKEN")
            entries.append(_Entry(_digest(value),
                                  Grant("JIYI_TOKEN", ("*",), frozenset(OPERATIONS)),
                                  from_file=False))
        if tokens_file is not None:
            scoped = load_tokens_file(tokens_file)
            if entries and any(e.digest == entries[0].digest for e in scoped):
                raise ConfigError(f"JIYI_TOKENS_FILE {tokens_file}: an entry has the same token "
                                  "as JIYI_TOKEN; every token must be different")
            entries.extend(scoped)
        return cls(tuple(entries))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Auth:
        """From ``JIYI_TOKEN`` and ``JIYI_TOKENS_FILE`` (an empty variable counts as unset for
        the file; a blank ``JIYI_TOKEN`` is an error, not "no token")."""
        env = os.environ if environ is None else environ
        path = env.get("JIYI_TOKENS_FILE") or None
        return cls.build(env.get("JIYI_TOKEN"), path)


def parse_bearer(header: bytes | str | None) -> str | None:
    """The token of ``Bearer <token>`` (any case of ``Bearer``), or ``None``."""
    if header is None:
        return None
    text = header.decode("latin-1") if isinstance(header, bytes) else header
    scheme, _, rest = text.strip().partition(" ")
    token = rest.strip()
    if scheme.lower() != "bearer" or not token or any(ch.isspace() for ch in token):
        return None
    return token


def _check_token_chars(token: str, where: str) -> None:
    if any(ch.isspace() or unicodedata.category(ch).startswith("C") for ch in token):
        raise ConfigError(f"{where}: a token must not contain spaces or control characters")


# ----------------------------------------------------------------------------- the tokens file

_ENTRY_KEYS = frozenset({"name", "token", "token_sha256", "users", "operations"})


def load_tokens_file(path: str | os.PathLike[str]) -> list[_Entry]:
    """Read ``JIYI_TOKENS_FILE``: TOML (``[[tokens]]`` tables) or JSON (``{"tokens": [...]}``).
    Each entry: ``name`` (shown in logs), ``token`` or ``token_sha256`` (hex), ``users``,
    ``operations``. Errors name the file and entry, never a token value."""
    where = f"JIYI_TOKENS_FILE {path}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read it ({getattr(exc, 'strerror', None) or exc})") \
            from None
    data: Any
    if str(path).endswith(".json") or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{where}: not valid TOML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or set(data) != {"tokens"} or not isinstance(data["tokens"],
                                                                                list):
        raise ConfigError(f'{where}: expected only a "tokens" list ([[tokens]] in TOML)')
    if not data["tokens"]:
        raise ConfigError(f"{where}: the tokens list is empty")
    entries = [_entry(raw, f"{where}: tokens[{i}]", i) for i, raw in enumerate(data["tokens"])]
    seen: dict[bytes, str] = {}
    for entry in entries:
        if entry.digest in seen:
            raise ConfigError(f"{where}: {seen[entry.digest]} and {entry.grant.name} have the "
                              "same token; every token must be different")
        seen[entry.digest] = entry.grant.name
    return entries


def _strings(value: Any, what: str, where: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {what} must be a non-empty list of strings")
    return [v.strip() for v in value]


def _user_pattern(pattern: str, where: str) -> str:
    if not pattern:
        raise ConfigError(f"{where}: a user id or prefix is blank")
    if "*" in pattern[:-1]:
        raise ConfigError(f'{where}: {pattern!r}: "*" may only end a prefix ("acme-*") or '
                          'stand alone ("*")')
    if any(unicodedata.category(ch).startswith("C") for ch in pattern):
        raise ConfigError(f"{where}: {pattern!r} contains control characters")
    return pattern


def _entry(raw: Any, where: str, index: int) -> _Entry:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: must be a table/object")
    unknown = sorted(set(raw) - _ENTRY_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} "
                          f"(allowed: {', '.join(sorted(_ENTRY_KEYS))})")
    name = raw.get("name", f"tokens[{index}]")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}: name must be a non-blank string")
    name = name.strip()
    where = f"{where} ({name})"
    digest = _entry_digest(raw, where)
    users = tuple(_user_pattern(u, where) for u in _strings(raw.get("users"), "users", where))
    ops = _strings(raw.get("operations"), "operations", where)
    bad = sorted(set(ops) - set(OPERATIONS))
    if bad:
        raise ConfigError(f"{where}: unknown operation(s) {', '.join(bad)} "
                          f"(allowed: {', '.join(OPERATIONS)})")
    if "admin" in ops and users != ("*",):
        raise ConfigError(f'{where}: "admin" covers the whole store; its users must be ["*"]')
    return _Entry(digest, Grant(name, users, frozenset(ops)))


def _entry_digest(raw: Mapping[str, Any], where: str) -> bytes:
    token, hashed = raw.get("token"), raw.get("token_sha256")
    if (token is None) == (hashed is None):
        raise ConfigError(f"{where}: give exactly one of token or token_sha256")
    if token is not None:
        if not isinstance(token, str) or len(token.strip()) < MIN_TOKEN_CHARS:
            raise ConfigError(f"{where}: token must be a string of at least {MIN_TOKEN_CHARS} "
                              "characters")
        _check_token_chars(token.strip(), where)
        return _digest(token.strip())
    try:
        digest = bytes.fromhex(hashed) if isinstance(hashed, str) else b""
    except ValueError:
        digest = b""
    if len(digest) != 32:
        raise ConfigError(f"{where}: token_sha256 must be 64 hex digits (sha256 of the token)")
    return digest


# ----------------------------------------------------------------------------- where to listen


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost; False for 0.0.0.0, :: and anything else."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        addr = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped.is_loopback
    return addr.is_loopback


def check_bind(host: str, auth: Auth) -> None:
    """Refuse to listen beyond loopback without a token."""
    if not is_loopback(host) and not auth.required:
        raise ConfigError(
            f"refusing to listen on {host} without a token: set JIYI_TOKEN or JIYI_TOKENS_FILE "
            "(every route but the liveness probe will require one) or bind 127.0.0.1")


# ----------------------------------------------------------------------------- the middleware


def _error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}},
                      ensure_ascii=False).encode("utf-8")


async def send_json_error(send: Send, status: int, code: str, message: str,
                          headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """An ASGI JSON error response ``{"error": {"code", "message"}}``."""
    body = _error_body(code, message)
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *headers,
    ]})
    await send({"type": "http.response.body", "body": body})


def _remote_client(scope: Scope) -> bool:
    """True when the client's address is an IP address that is not loopback (test clients and
    Unix sockets have no IP address and count as local)."""
    client = scope.get("client")
    if not client:
        return False
    try:
        ipaddress.ip_address(str(client[0]))
    except ValueError:
        return False
    return not is_loopback(str(client[0]))


class RequireToken:
    """ASGI middleware: attaches the request's :class:`Grant` (see the module docstring).

    ``open_paths``/``open_prefixes``: answered without a token (liveness; pages without data).
    ``strip_authorization``: remove the header once checked (the proxy must not relay jiyi's
    token to its upstream)."""

    def __init__(self, app: ASGIApp, auth: Auth, *,
                 open_paths: Collection[str] = ("/healthz",),
                 open_prefixes: tuple[str, ...] = (),
                 strip_authorization: bool = False) -> None:
        self.app = app
        self.auth = auth
        self.open_paths = frozenset(open_paths)
        self.open_prefixes = open_prefixes
        self.strip_authorization = strip_authorization

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        path = str(scope.get("path", ""))
        if path in self.open_paths or path.startswith(self.open_prefixes):
            await self.app(scope, receive, send)
            return
        if not self.auth.required:
            if _remote_client(scope):
                await self._refuse(scope, send, 403, "forbidden",
                                   "this server has no token and answers loopback clients only")
                return
            scope[GRANT_KEY] = LOCAL
            await self.app(scope, receive, send)
            return
        headers = list(scope.get("headers", ()))
        given = next((bytes(v) for k, v in headers if k.lower() == b"authorization"), None)
        grant = self.auth.authenticate(given)
        if grant is None:
            message = ("a bearer token is required (Authorization: Bearer ...)"
                       if given is None else "the bearer token is not valid")
            await self._refuse(scope, send, 401, "unauthorized", message)
            return
        scope[GRANT_KEY] = grant
        if self.strip_authorization:
            scope["headers"] = [(k, v) for k, v in headers if k.lower() != b"authorization"]
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Send, status: int, code: str,
                      message: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        extra = [(b"www-authenticate", b'Bearer realm="jiyi"')] if status == 401 else []
        await send_json_error(send, status, code, message, extra)
