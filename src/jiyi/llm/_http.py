"""HTTP plumbing shared by the LLM clients: bounded retries on connection errors, clear errors."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from ..errors import LLMError

#: Failures where the request never reached the model: safe to send again.
RETRYABLE = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
RETRY_STATUS = frozenset({502, 503, 504})


def default_timeout(read: float = 300.0) -> httpx.Timeout:
    return httpx.Timeout(connect=5.0, read=read, write=30.0, pool=5.0)


def error_message(response: httpx.Response) -> str:
    """The server's own error text (Ollama and OpenAI both answer ``{"error": ...}``)."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300].strip() or response.reason_phrase
    if isinstance(body, dict):
        err = body.get("error", body.get("detail"))
        if isinstance(err, dict):
            return str(err.get("message") or err)[:500]
        if err is not None:
            return str(err)[:500]
    return json.dumps(body, ensure_ascii=False)[:300]


def raise_for_status(response: httpx.Response, what: str) -> None:
    if response.status_code >= 400:
        kind = "rejected the request" if response.status_code < 500 else "failed"
        raise LLMError(
            f"{what}: server {kind} with HTTP {response.status_code}: {error_message(response)}"
        )


def parse_json(text: str | bytes, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        snippet = text[:200] if isinstance(text, str) else text[:200].decode(errors="replace")
        raise LLMError(f"{what}: server answered something that is not JSON: {snippet!r}") from exc


class Retrying:
    """Send a request with at most ``retries`` extra attempts on connection failures or 502-504."""

    def __init__(
        self, retries: int = 2, backoff: float = 0.25, sleep: Callable[[float], None] = time.sleep
    ):
        self.retries = max(0, retries)
        self.backoff = backoff
        self.sleep = sleep

    def _attempts(self) -> Iterator[int]:
        yield from range(self.retries + 1)

    @contextmanager
    def stream(
        self, client: httpx.Client, method: str, url: str, what: str, **kwargs: Any
    ) -> Iterator[httpx.Response]:
        """An open streamed response with a 2xx status (the body is not yet read)."""
        last: Exception | None = None
        for attempt in self._attempts():
            if attempt:
                self.sleep(self.backoff * 2 ** (attempt - 1))
            yielded = False
            try:
                with client.stream(method, url, **kwargs) as response:
                    if response.status_code in RETRY_STATUS and attempt < self.retries:
                        response.read()
                        last = LLMError(f"{what}: HTTP {response.status_code}")
                        continue
                    if response.status_code >= 400:
                        response.read()
                        raise_for_status(response, what)
                    yielded = True
                    yield response
                    return
            except RETRYABLE as exc:
                if yielded:
                    raise LLMError(f"{what}: connection lost mid-answer: {exc}") from exc
                last = exc
                continue
            except httpx.TimeoutException as exc:
                raise LLMError(f"{what}: timed out ({type(exc).__name__}) at {url}") from exc
            except httpx.HTTPError as exc:
                raise LLMError(f"{what}: {type(exc).__name__}: {exc}") from exc
        raise LLMError(
            f"{what}: cannot reach {url} after {self.retries + 1} attempts: {last}"
        ) from last

    def request(self, client: httpx.Client, method: str, url: str, what: str, **kwargs: Any) -> Any:
        """The parsed JSON body of a successful request."""
        with self.stream(client, method, url, what, **kwargs) as response:
            try:
                body = response.read()
            except httpx.HTTPError as exc:
                raise LLMError(f"{what}: connection lost while reading: {exc}") from exc
        return parse_json(body, what)
