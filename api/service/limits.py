"""What a request may carry: a size cap on bodies, JSON that cannot blow the parser's stack or smuggle in
non-numbers, and integers that fit the record.

Every refusal is an ``HTTPException`` (or a plain 413) with a one-line reason, so that no input reaches a
place where it would become a 500: SQLite stores integers up to 2^63 - 1 and raises on larger ones, Python's
JSON parser recurses once per nesting level, and ``NaN`` or ``Infinity`` would be written to the record and
then streamed as bare words that a browser's ``JSON.parse`` rejects.
"""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The largest sequence number, shot index or frame number a request may name: 2^53 - 1 is exact in a
# browser's numbers and far inside SQLite's 64-bit integers.
MAX_INT = 2**53 - 1
# An input record is a few hundred bytes; nested deeper than this it is not one.
MAX_JSON_DEPTH = 32


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413, by its Content-Length before
    anything is read, or as soon as a chunked body passes the limit; nothing over it is buffered."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _plain(send, 400, "the Content-Length header is not a number")
                    return
                if declared > self.limit:
                    await _plain(send, 413, self._reason())
                    return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge
            return msg

        async def tracking_send(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await _plain(send, 413, self._reason())

    def _reason(self) -> str:
        return f"the request body is over the limit of {self.limit} bytes"


async def _plain(send: Send, status: int, reason: str) -> None:
    body = json.dumps({"detail": reason}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a record may hold (finite numbers only)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range (finite numbers only)")
    return value


def _depth(raw: str) -> int:
    """The deepest nesting of brackets outside strings, counted without recursion."""
    depth = deepest = 0
    in_str = escaped = False
    for ch in raw:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_json_body(raw: bytes) -> Any:
    """The request body as JSON, or a 400 with the reason: not UTF-8, not JSON, nested too deep, or holding
    NaN, Infinity or a number that overflows a float."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(400, f"the body is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    if _depth(text) > MAX_JSON_DEPTH:
        raise HTTPException(400, f"the body is nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise HTTPException(400, f"the body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # NaN/Infinity, 1e999, an integer of thousands of digits
        raise HTTPException(400, f"the body is not acceptable JSON: {str(exc).splitlines()[0]}") from None


def parse_seq(value: str | None, what: str) -> int:
    """A sequence number from a header or a query (``Last-Event-ID``, ``since``); absent or empty is 0."""
    if value is None or not value.strip():
        return 0
    text = value.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 20:
        raise HTTPException(400, f"{what} must be a sequence number 0..{MAX_INT} (got '{text[:40]}')")
    seq = int(text)
    if seq > MAX_INT:
        raise HTTPException(400, f"{what} must be a sequence number 0..{MAX_INT} (got {text})")
    return seq
