"""A live camera or stream kept open for as long as the match lasts.

Each connection reads on a thread of its own, watched by the clock: a stream that stops sending frames for
``read_timeout_s`` has stalled, one whose reads fail has closed, and one that does not open within
``open_timeout_s`` is not there (yet). In each case the feed says so and tries again after a pause that
grows with each failed attempt, up to ``backoff_s[-1]``, until it is stopped: a camera that drops out for
a minute loses that minute, not the match. A connection that hangs inside OpenCV is abandoned to its
thread, which lets go of it whenever the call returns; nothing waits for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from api.capture import open_live


@dataclass(frozen=True)
class FeedSettings:
    open_timeout_s: float = 5.0  # a stream that has not sent its first frame by then is not there
    read_timeout_s: float = 3.0  # a stream with no frame for this long has stalled
    backoff_s: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0)  # pause before each new attempt; the last repeats
    report_every_s: float = 1.0  # how often an outage's length is brought up to date while it lasts


@dataclass
class FeedStatus:
    """What /state says about the feed."""

    state: str = "opening"  # opening | live | reconnecting | stopped
    attempt: int = 0  # failed attempts since the feed was last live
    lost_at: float | None = None  # monotonic time the feed was lost (None while live)
    cause: str | None = None  # why it was lost
    detail: str | None = None  # why the last attempt to get it back failed (at first: why it was lost)
    outages: int = 0  # times it was lost since the service started
    fps: float | None = None  # what the camera says it sends

    def to_dict(self, now: float | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "attempt": self.attempt, "outages": self.outages}
        if self.lost_at is not None:
            out["lost_s"] = round((now if now is not None else time.monotonic()) - self.lost_at, 1)
        if self.cause:
            out["cause"] = self.cause
        if self.detail:
            out["detail"] = self.detail
        return out


class _Connection:
    """One attempt: opens the source on its own thread, then hands over each frame it reads until abandoned."""

    def __init__(self, location: str, settings: FeedSettings, deliver: Callable[[np.ndarray, float], None]) -> None:
        self.location = location
        self.s = settings
        self._deliver = deliver
        self.opened = threading.Event()
        self.ended = threading.Event()
        self.error: str | None = None
        self.fps: float | None = None
        self.last_frame_at: float | None = None
        self._abandoned = False
        self._lock = threading.Lock()
        threading.Thread(target=self._run, name="live-connection", daemon=True).start()

    def abandon(self) -> None:
        with self._lock:
            self._abandoned = True

    def _run(self) -> None:
        cap = None
        began = time.monotonic()
        try:
            cap = open_live(self.location, open_timeout_s=self.s.open_timeout_s, read_timeout_s=self.s.read_timeout_s)
            if not cap.isOpened():
                waited = time.monotonic() - began
                slow = waited >= 0.9 * self.s.open_timeout_s
                self.error = f"did not answer within {waited:.0f} s" if slow else "could not be opened"
                return
            fps = float(cap.get(5) or 0.0)  # cv2.CAP_PROP_FPS
            self.fps = fps if 1.0 <= fps <= 240.0 else None
            self.opened.set()
            while True:
                asked = time.monotonic()
                ok, frame = cap.read()
                with self._lock:
                    if self._abandoned:
                        return
                    if not ok:
                        waited = time.monotonic() - asked
                        slow = waited >= 0.9 * self.s.read_timeout_s
                        self.error = f"stalled: no frame for {waited:.0f} s" if slow else "the stream closed"
                        return
                    self.last_frame_at = time.monotonic()
                    self._deliver(frame, self.last_frame_at)
        except Exception as exc:  # an OpenCV error is one more way for a connection to fail
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.ended.set()
            if cap is not None:
                cap.release()


class LiveFeed:
    """Runs on the caller's thread until ``stop`` is set: connects, watches, reconnects.

    ``deliver(frame, read_at)`` gets each frame; ``on_lost(reason)`` is called once when a live feed is lost
    (the runner then closes the shot in progress); ``on_status(status)`` whenever what /state shows changes."""

    def __init__(
        self,
        location: str,
        *,
        deliver: Callable[[np.ndarray, float], None],
        on_lost: Callable[[str], None],
        on_status: Callable[[FeedStatus], None],
        stop: threading.Event,
        settings: FeedSettings | None = None,
    ) -> None:
        self.location = location
        self.s = settings or FeedSettings()
        self._deliver = deliver
        self._on_lost = on_lost
        self._on_status = on_status
        self._stop = stop
        self.status = FeedStatus()

    def run(self) -> None:
        s = self.s
        while not self._stop.is_set():
            conn = _Connection(self.location, s, self._deliver)
            reason = self._watch(conn)
            conn.abandon()
            if self._stop.is_set():
                break
            self._lost(reason)
            pause = s.backoff_s[min(self.status.attempt - 1, len(s.backoff_s) - 1)]
            end = time.monotonic() + pause
            while not self._stop.is_set() and time.monotonic() < end:
                self._stop.wait(min(s.report_every_s, max(end - time.monotonic(), 0.0)))
                self._on_status(self.status)
        self.status.state = "stopped"
        self._on_status(self.status)

    def _watch(self, conn: _Connection) -> str:
        """Waits while the connection delivers; returns why it no longer does."""
        s = self.s
        deadline = time.monotonic() + s.open_timeout_s + s.read_timeout_s
        while not conn.opened.is_set():
            if conn.ended.is_set():
                return f"{self._name()} {conn.error or 'could not be opened'}"
            if self._stop.is_set():
                return "stopped"
            if time.monotonic() > deadline:
                return f"{self._name()} did not answer within {s.open_timeout_s + s.read_timeout_s:.0f} s"
            self._stop.wait(0.05)
            if self.status.lost_at is not None:
                self._on_status(self.status)
        opened_at = time.monotonic()
        first = True
        while not self._stop.is_set():
            last = conn.last_frame_at
            now = time.monotonic()
            if last is not None and first:
                first = False
                self._live(conn)
            if conn.ended.is_set():
                return f"{self._name()} {conn.error or 'closed'}"
            since = now - (last if last is not None else opened_at)
            if since > s.read_timeout_s:
                return f"{self._name()} stalled: no frame for {s.read_timeout_s:.0f} s"
            self._stop.wait(0.05)
        return "stopped"

    def _name(self) -> str:
        return "the camera" if self.location.isdigit() else "the stream"

    def _live(self, conn: _Connection) -> None:
        st = self.status
        st.state, st.attempt, st.lost_at, st.cause, st.detail = "live", 0, None, None, None
        st.fps = conn.fps
        self._on_status(st)

    def _lost(self, reason: str) -> None:
        st = self.status
        if st.lost_at is None:
            st.lost_at = time.monotonic()
            st.outages += 1
            st.cause = reason
            if st.state == "live":
                self._on_lost(reason)
        st.state = "reconnecting"
        st.attempt += 1
        st.detail = reason
        self._on_status(st)
