"""A local MJPEG-over-HTTP camera for the source fault tests: serves JPEG frames as
``multipart/x-mixed-replace`` on 127.0.0.1, and can be told to stall (keep the connection, send nothing),
to close its connections, to come back, or to accept connections and never answer."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

BOUNDARY = b"tablerefframe"


class MjpegServer:
    """``mode``: ``serve`` (frames at ``fps``), ``stall`` (connections kept open, nothing sent), ``close``
    (connections closed, new ones refused at once), ``silent`` (connections accepted, never answered).
    ``burst``: frame numbers sent back to back, as a network camera delivers what it buffered through a hiccup;
    the frames after them keep the camera's own clock (no catching up)."""

    def __init__(
        self,
        frames: Sequence[np.ndarray] | Callable[[int], np.ndarray],
        fps: float = 25.0,
        burst: range = range(0),
    ) -> None:
        self._frames = frames
        self.fps = fps
        self.burst = burst
        self.mode = "serve"
        self.sent = 0  # frames sent, over all connections
        self.position = 0  # the next frame to send (a camera goes on where it is, whoever watches)
        self.connections = 0
        self._jpeg_cache: dict[int, bytes] = {}
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.port = int(self._sock.getsockname()[1])
        self._stop = threading.Event()
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/stream.mjpg"

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        if mode == "close":
            with self._lock:
                for c in self._open:
                    with contextlib.suppress(OSError):
                        c.shutdown(socket.SHUT_RDWR)
                    c.close()
                self._open.clear()

    def close(self) -> None:
        self._stop.set()
        self.set_mode("close")
        self._sock.close()

    def _frame(self, i: int) -> bytes | None:
        if i in self._jpeg_cache:
            return self._jpeg_cache[i]
        img = self._frames(i) if callable(self._frames) else self._frames[i] if i < len(self._frames) else None
        if img is None:
            return None
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        assert ok
        if not callable(self._frames):
            self._jpeg_cache[i] = buf.tobytes()
        return buf.tobytes()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            if self.mode == "close":
                conn.close()
                continue
            self.connections += 1
            with self._lock:
                self._open.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(30)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            while self.mode in ("silent", "stall") and not self._stop.is_set():
                time.sleep(0.05)
            if self.mode != "serve":
                return
            conn.sendall(
                b"HTTP/1.0 200 OK\r\nCache-Control: no-cache\r\n"
                b"Content-Type: multipart/x-mixed-replace; boundary=" + BOUNDARY + b"\r\n\r\n"
            )
            next_at = time.monotonic()
            while not self._stop.is_set():
                if self.mode == "stall":
                    time.sleep(0.02)
                    next_at = time.monotonic()
                    continue
                if self.mode != "serve":
                    return
                jpg = self._frame(self.position)
                if jpg is None:
                    time.sleep(0.02)
                    continue
                conn.sendall(
                    b"--"
                    + BOUNDARY
                    + b"\r\nContent-Type: image/jpeg\r\nContent-Length: "
                    + str(len(jpg)).encode()
                    + b"\r\n\r\n"
                    + jpg
                    + b"\r\n"
                )
                self.position += 1
                self.sent += 1
                if self.position in self.burst:
                    next_at = time.monotonic()
                    continue
                next_at += 1.0 / self.fps
                delay = next_at - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
        except OSError:
            return
        finally:
            with contextlib.suppress(OSError):
                conn.close()


class VideoFrames:
    """Frame ``i`` of a video file, decoded in order (what a camera pointed at that scene would send); None
    past its end."""

    def __init__(self, path: Path, start: int = 0) -> None:
        self._cap = cv2.VideoCapture(str(path))
        self._start = start
        if start:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, start)
        self._next = 0
        self._lock = threading.Lock()

    def __call__(self, i: int) -> np.ndarray | None:
        with self._lock:
            if i != self._next:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, self._start + i)
            ok, frame = self._cap.read()
            self._next = i + 1
            return frame if ok else None
