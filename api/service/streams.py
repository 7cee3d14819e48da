"""The stream's connections: a cap on how many, an SSE response that notices silent sockets, and a
WebSocket pump that drops a slow reader with its resume point before the server's keepalive cuts it.

Why the keepalive matters: uvicorn pings every WebSocket client and closes one that has not answered
within its ping timeout with 1011, a code that says "server error" and carries no resume point. A slow
reader is exactly a client whose answer to the ping waits behind the data it has not read yet, so the
pump watches the same ping and drops the reader with 4008 (and ``?since=`` to resume from) at a shorter
delay. A send that cannot even be handed to the socket for ``send_timeout`` seconds is the same verdict.
Where the server is not uvicorn's default WebSocket protocol the ping cannot be watched and only the send
timeout and the per-client buffer (``hub.ClientDropped``) apply.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import WebSocket
from fastapi.responses import StreamingResponse
from starlette.types import Message, Receive, Scope, Send

from api.service.hub import ClientDropped
from api.store import Message as StreamMessage

log = logging.getLogger("tableref.service")

WS_CLOSE_TOO_SLOW = 4008  # the client fell too far behind; the reason says "resume with ?since=N"
WS_CLOSE_TRY_LATER = 1013  # RFC 6455 "try again later": the connection cap is reached
WS_CLOSE_BAD_REQUEST = 1008  # RFC 6455 "policy violation": a malformed ?since=


class ClientSlots:
    """At most ``limit`` stream connections (SSE and WebSocket together) at once."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0
        self.refused = 0

    def take(self) -> bool:
        if self.open >= self.limit:
            self.refused += 1
            return False
        self.open += 1
        return True

    def give_back(self) -> None:
        self.open = max(self.open - 1, 0)

    def refusal(self) -> str:
        return f"too many stream clients (the cap is {self.limit}); try again later"


class EventStreamResponse(StreamingResponse):
    """An SSE response holding one client slot (given back however the response ends) whose every write
    must reach the socket within ``send_timeout`` seconds: a client that stopped reading, or vanished
    without closing its connection, is let go instead of holding the slot for ever. (The keepalive comments
    of ``sse_lines`` make sure there is a write to time even when the match is quiet.)"""

    def __init__(self, content: AsyncIterator[str], *, slots: ClientSlots, send_timeout: float,
                 headers: dict[str, str]) -> None:  # fmt: skip
        super().__init__(content, media_type="text/event-stream", headers=headers)
        self._slots = slots
        self._send_timeout = send_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def timed_send(msg: Message) -> None:
            async with asyncio.timeout(self._send_timeout):  # no task per write, unlike wait_for
                await send(msg)

        try:
            await super().__call__(scope, receive, timed_send)
        except TimeoutError:
            log.warning("an SSE client did not take a write for %.0f s: closing its connection", self._send_timeout)
        finally:
            self._slots.give_back()
            with contextlib.suppress(Exception):
                await self.body_iterator.aclose()  # type: ignore[attr-defined]


async def sse_lines(messages: AsyncIterator[StreamMessage], keepalive: float) -> AsyncIterator[str]:
    """The SSE text of the stream: a ``retry`` hint, then ``id``/``data`` per message, a comment line after
    ``keepalive`` quiet seconds (proxies and the send timeout need something to write), and a final
    ``event: dropped`` naming the resume point when the client fell too far behind."""
    yield "retry: 1000\n\n"
    it = messages.__aiter__()
    pending: asyncio.Future[StreamMessage] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(it.__anext__())
            done, _ = await asyncio.wait({pending}, timeout=keepalive)
            if not done:
                yield ": keepalive\n\n"
                continue
            try:
                msg = pending.result()
            except StopAsyncIteration:
                return
            except ClientDropped as exc:
                info = json.dumps({"reason": str(exc), "resume_after": exc.last_seq})
                yield f"event: dropped\ndata: {info}\n\n"
                return
            pending = None
            yield f"id: {msg.seq}\ndata: {msg.to_json()}\n\n"
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            with contextlib.suppress(BaseException):
                await pending
        with contextlib.suppress(Exception):
            await it.aclose()  # type: ignore[attr-defined]


class _ServerSide:
    """uvicorn's own WebSocket protocol object behind a connection, when that is what serves it: the only
    place the keepalive ping's state can be read and a close frame queued behind unread data."""

    def __init__(self, websocket: WebSocket) -> None:
        proto = getattr(getattr(websocket, "_receive", None), "__self__", None)
        needed = ("pending_ping_payload", "ping_sent_at", "ping_timeout", "conn", "transport", "loop")
        self.proto: Any = proto if proto is not None and all(hasattr(proto, a) for a in needed) else None

    @property
    def ping_timeout(self) -> float | None:
        return None if self.proto is None else self.proto.ping_timeout

    def ping_unanswered_for(self) -> float:
        """Seconds the current keepalive ping has waited for its answer (0 when none is out)."""
        p = self.proto
        if p is None or p.pending_ping_payload is None:
            return 0.0
        return float(p.loop.time() - p.ping_sent_at)

    def force_close(self, code: int, reason: str) -> bool:
        """Queue a close frame behind whatever the client has not read yet, then close, as the server's own
        keepalive does; True when done (False: not uvicorn's protocol, or already closing)."""
        p = self.proto
        if p is None or getattr(p, "close_sent", False) or p.transport.is_closing():
            return False
        try:
            p.conn.fail(code, reason)
            p.transport.write(b"".join(p.conn.data_to_send()))
            p.close_sent = True
            p.transport.close()
        except Exception as exc:  # a protocol object of another shape: fall back to the ASGI close
            log.debug("could not queue a close frame: %s", exc)
            return False
        return True


async def pump_websocket(websocket: WebSocket, follow: Callable[[int], AsyncIterator[StreamMessage]], since: int,
                         *, send_timeout: float) -> None:  # fmt: skip
    """Send the stream from ``since`` until the client goes away; a client that falls behind (its buffer
    overflows, a send waits ``send_timeout``, or it leaves the keepalive ping unanswered for as long) is
    closed with 4008 and the sequence number to resume from."""
    server = _ServerSide(websocket)
    last = [since]
    # Drop before the server's ping timeout fires (it closes with 1011 and no resume point).
    slow_after = send_timeout if server.ping_timeout is None else min(send_timeout, 0.5 * server.ping_timeout)

    async def pump() -> None:
        async for msg in follow(since):
            try:
                async with asyncio.timeout(send_timeout):
                    await websocket.send_text(msg.to_json())
            except TimeoutError:
                raise ClientDropped(last[0], 0, f"a send waited {send_timeout:.0f} s") from None
            last[0] = msg.seq

    async def until_disconnect() -> None:
        # Clients have nothing to say; reading notices at once when one goes away, even between messages.
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass

    async def watch_ping() -> None:
        if server.proto is None:
            await asyncio.Event().wait()  # nothing to watch: wait to be cancelled
        while server.ping_unanswered_for() < slow_after:
            await asyncio.sleep(min(1.0, slow_after / 4))
        raise ClientDropped(last[0], 0, f"the keepalive ping waited {slow_after:.0f} s behind unread messages")

    tasks = {asyncio.create_task(pump()), asyncio.create_task(until_disconnect()), asyncio.create_task(watch_ping())}
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    dropped = next((t.exception() for t in done if isinstance(t.exception(), ClientDropped)), None)
    if isinstance(dropped, ClientDropped):
        reason = f"too slow; resume with ?since={dropped.last_seq}"
        if not server.force_close(WS_CLOSE_TOO_SLOW, reason):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.close(WS_CLOSE_TOO_SLOW, reason), send_timeout)
