"""Fan-out of the stream to its clients, each with its own bounded buffer.

The runner's threads publish messages (already committed to the store, in sequence order); the hub hands
them to every connected client on the event loop. A client that cannot keep up fills its own buffer and is
then dropped with a close reason naming the last sequence number it was sent, so it can resume from there;
nobody else waits for it. A client that connects with a sequence number first catches up from the store
(paged, so an old resume costs no memory), then follows the live feed without a gap or a repeat.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence

from api.store import Message

# A page of the catch-up read from the store.
CATCH_UP_PAGE = 500


class ClientDropped(Exception):
    """The client fell too far behind; ``last_seq`` is the last message it was given."""

    def __init__(self, last_seq: int, limit: int, why: str | None = None) -> None:
        why = why or f"more than {limit} messages behind"
        super().__init__(f"client too slow: {why}; resume after seq {last_seq}")
        self.last_seq = last_seq


class _Client:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buf: deque[Message] = deque()
        self.wake = asyncio.Event()
        self.overflowed = False
        self.live = False  # False while catching up from the store, where an overflow costs nothing

    def offer(self, msgs: Sequence[Message]) -> bool:
        """Buffer the messages; True when this offer overflowed the buffer of a live client (dropped)."""
        if self.overflowed:
            return False
        if len(self.buf) + len(msgs) > self.limit:
            self.overflowed = True
            self.buf.clear()
            self.wake.set()
            return self.live
        self.buf.extend(msgs)
        self.wake.set()
        return False


class StreamHub:
    """Thread-safe publishing, per-client bounded buffers, catch-up from a message reader."""

    def __init__(self, read: Callable[[int, int], list[Message]], *, client_limit: int = 2000) -> None:
        self._read = read  # (after_seq, limit) -> messages from the store
        self.client_limit = client_limit
        self._clients: set[_Client] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self.dropped_clients = 0

    # ---- wiring ---------------------------------------------------------------------------------
    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._loop = loop

    def unbind(self) -> None:
        with self._lock:
            self._loop = None

    @property
    def client_count(self) -> int:
        return len(self._clients)

    def publish(self, msgs: Sequence[Message]) -> None:
        """Hand committed messages (in seq order) to every client. Callable from any thread; never blocks."""
        if not msgs:
            return
        with self._lock:
            loop = self._loop
        if loop is None or loop.is_closed():
            return  # nobody can be listening; the store has the messages for later readers
        batch = tuple(msgs)
        with contextlib.suppress(RuntimeError):  # the loop closed just now: same as no loop
            loop.call_soon_threadsafe(self._fanout, batch)

    def _fanout(self, msgs: tuple[Message, ...]) -> None:
        for client in self._clients:
            if client.offer(msgs):
                self.dropped_clients += 1

    # ---- a client's view ------------------------------------------------------------------------------
    async def follow(self, after: int) -> AsyncIterator[Message]:
        """Every message with seq > ``after``, then the live feed, in order, for as long as the caller
        reads. Raises ClientDropped when the caller falls more than ``client_limit`` messages behind."""
        client = _Client(self.client_limit)
        self._clients.add(client)
        last = after
        loop = asyncio.get_running_loop()
        try:
            while True:
                # Catch up from the store. Registration came first, so anything committed from now on is
                # also in the buffer; duplicates are skipped by seq.
                while True:
                    client.overflowed = False
                    page = await loop.run_in_executor(None, self._read, last, CATCH_UP_PAGE)
                    for msg in page:
                        yield msg
                        last = msg.seq
                    if len(page) < CATCH_UP_PAGE:
                        break
                if client.overflowed:
                    continue  # the buffer overflowed while catching up: the store still has it all
                # Live.
                client.live = True
                while True:
                    while not client.buf:
                        if client.overflowed:
                            raise ClientDropped(last, self.client_limit)
                        client.wake.clear()
                        await client.wake.wait()
                    if client.overflowed:
                        raise ClientDropped(last, self.client_limit)
                    msg = client.buf.popleft()
                    if msg.seq <= last:
                        continue
                    yield msg
                    last = msg.seq
        finally:
            self._clients.discard(client)
