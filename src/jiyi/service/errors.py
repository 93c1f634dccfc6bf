"""Every error answers ``{"error": {"code", "message"}}``; never a traceback in a body."""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..auth import ForbiddenError
from ..errors import (
    BudgetError,
    ConfigError,
    JiyiError,
    LLMError,
    NotFoundError,
    StoreError,
    ValidationError,
)

log = logging.getLogger("jiyi.service")

_STATUS_CODES: dict[int, str] = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    414: "uri_too_long", 431: "headers_too_large",
    405: "method_not_allowed", 406: "not_acceptable", 413: "payload_too_large",
    415: "unsupported_media_type", 422: "invalid_input", 429: "too_many_requests",
    503: "unavailable",
}


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def error_bytes(code: str, message: str) -> bytes:
    return json.dumps(error_body(code, message), ensure_ascii=False).encode("utf-8")


def error_response(status: int, code: str, message: str,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


def status_of(exc: JiyiError) -> int:
    """The HTTP status of a jiyi error."""
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ForbiddenError):
        return 403
    if isinstance(exc, (ValidationError, BudgetError, ConfigError)):
        return 422
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, LLMError):
        return 502
    return 400


def _describe(errors: list[Any]) -> tuple[str, str]:
    """A short message from pydantic errors: where and what, never the offending value."""
    code = "invalid_input"
    parts: list[str] = []
    for err in errors[:5]:
        if err.get("type") == "json_invalid":
            code = "malformed_json"
        if err.get("type") == "model_attributes_type" and tuple(err.get("loc", ())) == ("body",):
            parts.append("the body must be a JSON object sent as application/json")
            continue
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    if len(errors) > 5:
        parts.append(f"... {len(errors) - 5} more")
    return code, "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        code, message = _describe(list(exc.errors()))
        status = 400 if code == "malformed_json" else 422
        return error_response(status, code, message)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        status = exc.status_code
        message = exc.detail if isinstance(exc.detail, str) else "request failed"
        if status == 400 and "parsing the body" in message:
            message = "the body is not valid UTF-8 JSON"
        return error_response(status, _STATUS_CODES.get(status, "http_error"), message,
                              dict(exc.headers) if exc.headers else None)

    async def on_jiyi(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, JiyiError)
        status = status_of(exc)
        if status >= 500:
            log.error("%s %s failed: %s", request.method, request.url.path, exc)
        return error_response(status, exc.code, str(exc))

    async def on_overflow(request: Request, exc: Exception) -> JSONResponse:
        return error_response(422, "invalid_input", "a time or number is out of range")

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("%s %s: unexpected error", request.method, request.url.path)
        return error_response(500, "internal_error", "internal error (see the server log)")

    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(JiyiError, on_jiyi)
    app.add_exception_handler(OverflowError, on_overflow)
    app.add_exception_handler(Exception, on_unexpected)
