"""Drives a match from its source: a camera, a stream URL or a video file through the live pipeline, or a
recorded event log replayed as it was recorded.

Threads and queues. For video, one thread decodes frames into a bounded queue and another runs the
pipeline (vision -> calibration -> tracking -> events) and hands each frame's events to the match service,
which refers them, stores them and publishes them; the network side (uvicorn's event loop) only reads from
the hub, so none of the three waits for another. When the pipeline falls behind a live source (a camera, a
stream, or a file played at its own frame rate), the decoder drops the *oldest* queued frame and counts it;
events are never dropped. A file played ``fast`` has no clock to keep up with, so there the decoder waits
for the pipeline instead and every frame is used.

Restart. The store knows the last source frame fully handled. An event log resumes right after it; a video
resumes at the first frame after the last completed shot (balls at rest, so the tracker starts cleanly), and
the events it sees again up to the recorded frame are recognised and not recorded twice.
"""

from __future__ import annotations

import collections
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from api.capture import open_video
from api.service.match import MatchService
from api.store import Message
from tracking.events import Event, read_jsonl


class SourceError(ValueError):
    """A source that cannot be opened or read."""


class FramePipeline(Protocol):
    """api.pipeline.Pipeline as the runner uses it."""

    def step(self, frame: np.ndarray, index: int, t: float) -> list[Event]: ...

    def finish(self) -> list[Event]: ...

    @property
    def balls(self) -> dict[str, tuple[float, float]]: ...


# Makes the pipeline for a video: (frame rate, the balls known by id at the resume point, or None).
PipelineFactory = Callable[[float, dict[str, tuple[float, float]] | None], FramePipeline]

# (frame index, monotonic time the frame was read, messages published for it, monotonic time its processing
# began: later than the read when the frame waited in the queue)
StepHook = Callable[[int, float, list[Message], float], None]


@dataclass(frozen=True)
class SourceSpec:
    """What ``--source`` names: ``kind`` is ``camera``, ``url``, ``file`` or ``events``."""

    kind: str
    location: str
    scenario_dir: Path | None = None  # a synth scenario folder (video.mp4 + camera.json + truth/)

    @property
    def live(self) -> bool:
        return self.kind in ("camera", "url")

    @property
    def video_path(self) -> Path | None:
        return Path(self.location) if self.kind == "file" else None


def parse_source(src: str) -> SourceSpec:
    if src.isdigit():
        return SourceSpec("camera", src)
    if "://" in src:
        return SourceSpec("url", src)
    path = Path(src)
    if path.is_dir():
        video = path / "video.mp4"
        if not video.exists():
            raise SourceError(f"{src}: a folder source needs video.mp4 in it")
        return SourceSpec("file", str(video.resolve()), path.resolve())
    if not path.exists():
        raise SourceError(f"{src}: no such file, camera index or URL")
    if path.suffix == ".jsonl":
        return SourceSpec("events", str(path.resolve()))
    return SourceSpec("file", str(path.resolve()))


# ---- the bounded frame queue ------------------------------------------------------------------------------
class FrameQueue:
    """A bounded queue of frames. ``put`` either drops the oldest queued frame (counted) or waits."""

    def __init__(self, size: int, *, drop_oldest: bool) -> None:
        self._items: collections.deque[Any] = collections.deque()
        self._size = size
        self._drop = drop_oldest
        self._cond = threading.Condition()
        self.dropped = 0

    def put(self, item: Any, *, force_wait: bool = False) -> None:
        with self._cond:
            if self._drop and not force_wait:
                if len(self._items) >= self._size:
                    self._items.popleft()
                    self.dropped += 1
            else:
                while len(self._items) >= self._size:
                    self._cond.wait()
            self._items.append(item)
            self._cond.notify_all()

    def get(self) -> Any:
        with self._cond:
            while not self._items:
                self._cond.wait()
            item = self._items.popleft()
            self._cond.notify_all()
            return item


_END = object()


@dataclass
class RunnerStats:
    frames_read: int = 0
    frames_processed: int = 0
    frames_dropped: int = 0
    events: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        end = self.finished or time.monotonic()
        wall = max(end - self.started, 1e-9)
        return {
            "frames_read": self.frames_read,
            "frames_processed": self.frames_processed,
            "frames_dropped": self.frames_dropped,
            "events": self.events,
            "fps": round(self.frames_processed / wall, 2),
            "error": self.error,
        }


class Runner:
    """Feeds one source into a MatchService on background threads."""

    def __init__(
        self,
        service: MatchService,
        source: SourceSpec,
        *,
        fast: bool = False,
        pipeline_factory: PipelineFactory | None = None,
        frame_queue: int = 8,
        on_step: StepHook | None = None,
        on_record: Callable[[Message], None] | None = None,
    ) -> None:
        self.service = service
        self.source = source
        self.fast = fast
        self.pipeline_factory = pipeline_factory
        self.frame_queue_size = frame_queue
        self.on_step = on_step
        self.on_record = on_record
        self.stats = RunnerStats()
        self.done = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._queue: FrameQueue | None = None
        self.fps: float | None = None
        self.frame_count: int | None = None
        self._resume: tuple[int, int, int, set[tuple[Any, ...]]] = (0, 0, -1, set())
        self._known_ids: dict[str, tuple[float, float]] | None = None
        self._renames: collections.deque[tuple[str, str]] = collections.deque()
        service.input_hooks.append(self._on_input)

    # ---- control ------------------------------------------------------------------------------------
    def start(self) -> None:
        if self.source.kind == "events":
            self._threads = [threading.Thread(target=self._guard, args=(self._run_log,), name="log", daemon=True)]
        else:
            if self.pipeline_factory is None:
                raise SourceError("a video source needs the live pipeline, which this build does not have")
            cap = _open_capture(self.source)
            self._resume = self._video_resume()
            self.fps = float(cap.get(_CAP_FPS) or 0.0) or 30.0
            count = int(cap.get(_CAP_COUNT) or 0)
            self.frame_count = count if count > 0 else None
            self.service.store.set_fps(self.service.match_id, self.fps)
            self._queue = FrameQueue(self.frame_queue_size, drop_oldest=not (self.fast and not self.source.live))
            self._threads = [
                threading.Thread(target=self._guard, args=(lambda: self._decode(cap),), name="decode", daemon=True),
                threading.Thread(target=self._guard, args=(self._vision,), name="vision", daemon=True),
            ]
        self._publish_info("playing")
        for th in self._threads:
            th.start()

    def stop(self) -> None:
        self._stop.set()
        if self._queue is not None:
            self._queue.put(_END, force_wait=False)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the source to end; True when it has (or was never started)."""
        if not self._threads:
            return True
        return self.done.wait(timeout)

    def _on_input(self, ev: Event) -> None:
        """An operator's rename reaches the live pipeline before its next frame, so later events carry the
        new id (an event log is renamed by the match service as it is read)."""
        if ev.type == "rename" and self.source.kind != "events" and ev.ball and ev.to:
            self._renames.append((ev.ball, ev.to))

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception as exc:  # the service stays up and says what stopped the source
            self.stats.error = f"{type(exc).__name__}: {exc}"
            self._publish_info("failed")
            self.stats.finished = time.monotonic()
            self.done.set()
            if self._queue is not None:
                self._queue.put(_END)

    def _publish_info(self, status: str) -> None:
        info = {"status": status, "kind": self.source.kind, "location": self.source.location, "fast": self.fast}
        info.update(self.stats.to_dict())
        if self.fps:
            info["video_fps"] = self.fps
        if self.frame_count:
            info["frame_count"] = self.frame_count
        self.service.source_info = info

    def _step(
        self,
        frame: int,
        read_at: float,
        events: list[Event],
        t: float | None,
        positions: dict[str, tuple[float, float]] | None = None,
        started_at: float | None = None,
    ) -> None:
        msgs = self.service.ingest(frame, events, t=t, positions=positions)
        self.stats.events += sum(1 for m in msgs if m.kind in ("event", "input"))
        if self.on_step is not None:
            self.on_step(frame, read_at, msgs, read_at if started_at is None else started_at)
        if self.on_record is not None:
            for m in msgs:
                self.on_record(m)

    def _finished(self) -> None:
        self.stats.finished = time.monotonic()
        if not self._stop.is_set():
            self.service.finish("finished")
        self._publish_info("finished" if not self._stop.is_set() else "stopped")
        self.done.set()

    # ---- an event log ----------------------------------------------------------------------------------
    def _run_log(self) -> None:
        resume_after = self.service.progress_frame
        start = time.monotonic()
        t0: float | None = None
        for frame, t, events in group_log(read_jsonl(self.source.location)):
            if self._stop.is_set():
                break
            self.stats.frames_read += 1
            if frame <= resume_after:
                continue
            if not self.fast and t is not None:
                t0 = t if t0 is None else t0
                delay = (t - t0) - (time.monotonic() - start)
                if delay > 0 and self._stop.wait(delay):
                    break
            self._step(frame, time.monotonic(), [self.service.source_event(e) for e in events], t)
            self.stats.frames_processed += 1
            if self.stats.frames_processed % 25 == 0:
                self._publish_info("playing")
        self._finished()

    # ---- a video ------------------------------------------------------------------------------------------
    def _video_resume(self) -> tuple[int, int, int, set[tuple[Any, ...]]]:
        """(first frame to decode, shot-number offset, last recorded frame, keys of recorded events after it)."""
        progress = self.service.progress_frame
        if progress < 0:
            return 0, 0, -1, set()
        mid = self.service.match_id
        shots = [s for s in self.service.store.shots(mid) if s["end_frame"] is not None]
        first = (shots[-1]["end_frame"] + 1) if shots else 0
        offset = (shots[-1]["shot"] + 1) if shots else 0
        if shots:  # the new pipeline names the balls where the last shot left them, as they were named then
            self._known_ids = {b: (float(p[0]), float(p[1])) for b, p in shots[-1]["end_positions"].items()}
        seen: set[tuple[Any, ...]] = set()
        renames: list[tuple[str, str]] = []  # the operator's renames since the last shot ended
        after = 0
        while True:
            page = self.service.store.messages(mid, after, 1000)
            for m in page:
                if m.kind == "event" and (m.data.get("frame") or 0) >= first:
                    seen.add(_event_key(m.data))
                if m.kind == "event" and m.data.get("type") == "shot_end":
                    renames = []
                elif m.kind == "input" and m.data.get("type") == "rename":
                    renames.append((str(m.data["ball"]), str(m.data["to"])))
                after = m.seq
            if len(page) < 1000:
                break
        if self._known_ids is not None:
            for old, new in renames:
                if old in self._known_ids and new not in self._known_ids:
                    self._known_ids[new] = self._known_ids.pop(old)
        return first, offset, progress, seen

    def _decode(self, cap: Any) -> None:
        assert self._queue is not None and self.fps is not None
        first = self._resume[0]
        if first > 0 and not self.source.live:
            cap.set(_CAP_POS, first)
        index = first if not self.source.live else 0
        start = time.monotonic()
        paced = not self.fast and not self.source.live
        try:
            while not self._stop.is_set():
                ok, frame = cap.read()
                if not ok:
                    break
                read_at = time.monotonic()
                self.stats.frames_read += 1
                t = index / self.fps
                if paced:
                    delay = (index - first) / self.fps - (read_at - start)
                    if delay > 0 and self._stop.wait(delay):
                        break
                    read_at = time.monotonic()
                self._queue.put((index, t, read_at, frame))
                self.stats.frames_dropped = self._queue.dropped
                index += 1
        finally:
            cap.release()
            self._queue.put(_END, force_wait=True)

    def _vision(self) -> None:
        assert self._queue is not None and self.fps is not None and self.pipeline_factory is not None
        pipeline = self.pipeline_factory(self.fps, self._known_ids)
        _, offset, recorded_until, seen = self._resume
        last_index, last_t, last_read, last_start = -1, 0.0, time.monotonic(), time.monotonic()
        stored: dict[str, tuple[float, float]] = {}
        while True:
            item = self._queue.get()
            if item is _END:
                break
            index, t, read_at, frame = item
            started_at = time.monotonic()
            while self._renames:
                old, new = self._renames.popleft()
                rename = getattr(pipeline, "rename_ball", None)
                if rename is not None:
                    rename(old, new)
            events = self._renumber(pipeline.step(frame, index, t), offset, recorded_until, seen)
            last_index, last_t, last_read, last_start = index, t, read_at, started_at
            balls = pipeline.balls
            moved = _moved(stored, balls)
            if moved:
                stored = dict(balls)
            self._step(index, read_at, events, t, balls if moved else None, started_at)
            self.stats.frames_processed += 1
            self.stats.frames_dropped = self._queue.dropped
            if self.stats.frames_processed % 15 == 0:
                self._publish_info("playing")
        if not self._stop.is_set():
            tail = self._renumber(pipeline.finish(), offset, recorded_until, seen)
            if tail or last_index >= 0:
                self._step(max(last_index, recorded_until), last_read, tail, last_t, started_at=last_start)
        self._finished()

    @staticmethod
    def _renumber(events: list[Event], offset: int, recorded_until: int, seen: set[tuple[Any, ...]]) -> list[Event]:
        out: list[Event] = []
        for ev in events:
            if offset and ev.shot is not None:
                ev = ev.model_copy(update={"shot": ev.shot + offset})
            if ev.frame is not None and ev.frame <= recorded_until and _event_key(ev.to_dict()) in seen:
                continue  # recorded before the restart
            out.append(ev)
        return out


def _moved(before: dict[str, tuple[float, float]], now: dict[str, tuple[float, float]], tol_mm: float = 0.5) -> bool:
    """Whether the balls differ from those last stored: another set of balls, or one moved over ``tol_mm``."""
    if before.keys() != now.keys():
        return True
    return any(abs(now[b][0] - p[0]) > tol_mm or abs(now[b][1] - p[1]) > tol_mm for b, p in before.items())


def _event_key(d: dict[str, Any]) -> tuple[Any, ...]:
    return (
        d.get("type"), d.get("shot"), d.get("frame"), d.get("ball"),
        json.dumps(d.get("balls")), d.get("pocket"), d.get("cushion"), d.get("line"),
    )  # fmt: skip


def group_log(events: list[Event]) -> Iterator[tuple[int, float | None, list[Event]]]:
    """A recorded log as (video frame, time, records) steps. An input with no frame joins the next camera
    event's step (or the last step)."""
    pending: list[Event] = []
    cur_frame: int | None = None
    cur_t: float | None = None
    cur: list[Event] = []
    last_frame = 0
    for ev in events:
        if ev.frame is None:
            pending.append(ev)
            continue
        if cur_frame is not None and ev.frame != cur_frame:
            yield cur_frame, cur_t, cur
            cur = []
        if cur_frame != ev.frame:
            cur_frame, cur_t = ev.frame, ev.t
        cur.extend(pending)
        pending = []
        cur.append(ev)
        last_frame = ev.frame
    if cur_frame is not None and (cur or pending):
        yield cur_frame, cur_t, cur + pending
    elif pending:
        yield last_frame, None, pending


# ---- OpenCV capture ------------------------------------------------------------------------------------------
_CAP_FPS = cv2.CAP_PROP_FPS
_CAP_COUNT = cv2.CAP_PROP_FRAME_COUNT
_CAP_POS = cv2.CAP_PROP_POS_FRAMES


def _open_capture(source: SourceSpec) -> Any:
    cap = cv2.VideoCapture(int(source.location)) if source.kind == "camera" else open_video(source.location)
    if not cap.isOpened():
        raise SourceError(f"cannot open {source.kind} source {source.location}")
    return cap
