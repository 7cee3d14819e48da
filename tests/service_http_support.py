"""A service on a real uvicorn server with the settings and keepalive a test asks for (the connection cap,
the send timeout, a short WebSocket ping), and a raw WebSocket client that reads only when told to."""

from __future__ import annotations

import base64
import os
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from api.service.launch import Service, build
from api.service.settings import ServiceSettings
from tests.service_support import MATCH_LOG, TOKEN, free_port


@contextmanager
def serve(
    tmp: Path, *, token: str | None = TOKEN, ws_ping: tuple[float, float] | None = None, **settings: Any
) -> Iterator[tuple[Service, str]]:
    """The recorded test match (its source not started) behind uvicorn on 127.0.0.1; ``ws_ping`` is the
    server's (interval, timeout) of the WebSocket keepalive (uvicorn's default: 20 s, 20 s)."""
    env = {"TABLEREF_OPERATOR_TOKEN": token} if token else {}
    conf = ServiceSettings.load({"db": tmp / "match.db", **settings}, env=env)
    svc = build(str(MATCH_LOG), "russian71", conf, fast=True)
    extra = {} if ws_ping is None else {"ws_ping_interval": ws_ping[0], "ws_ping_timeout": ws_ping[1]}
    config = uvicorn.Config(svc.app, host="127.0.0.1", port=free_port(), log_level="warning",
                            timeout_graceful_shutdown=1, **extra)  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield svc, f"http://127.0.0.1:{config.port}"
    finally:
        svc.runner.stop()
        svc.runner.join(5)
        server.should_exit = True
        thread.join(10)
        svc.store.close()


def wait_for(cond: Any, timeout: float = 20.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


class RawWebSocket:
    """A WebSocket client on a plain socket with a tiny receive buffer that reads only when told to: the
    slow reader (client libraries keep draining the socket, and answer pings, in the background)."""

    def __init__(self, port: int, path: str) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.sock.recv(4096)
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head

    def _need(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed without a close frame")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self) -> tuple[int, bytes]:
        """(opcode, payload) of the next frame from the server (never masked, never fragmented here)."""
        b0, b1 = self._need(2)
        length = b1 & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._need(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._need(8))[0]
        return b0 & 0x0F, self._need(length)

    def frames_until_close(self, timeout: float = 30.0) -> tuple[list[bytes], int, str]:
        """Every text payload, then the close frame's code and reason (pings are read past, unanswered)."""
        self.sock.settimeout(timeout)
        texts: list[bytes] = []
        while True:
            opcode, payload = self.recv()
            if opcode == 1:
                texts.append(payload)
            elif opcode == 8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                return texts, code, payload[2:].decode()

    def close(self) -> None:
        self.sock.close()
