"""Drives a match from its source: a camera, a stream URL or a video file through the live pipeline, or a
recorded event log replayed as it was recorded.

Threads and queues. For video, one thread reads frames into a bounded queue and another runs the pipeline
(vision -> calibration -> tracking -> events) and hands each frame's events to the match service, which
refers them, stores them and publishes them; the network side (uvicorn's event loop) only reads from the hub,
so none of the three waits for another.

What is never dropped. A recorded file is played at its frame rate (or as fast as possible with ``fast``),
but every one of its frames is observed: when the pipeline falls behind, the reader waits and the playback
runs late, so a file gives the same calls however busy the machine is. Only a live camera or stream, which
cannot wait, drops frames (the oldest queued first), counts them, and says so: a shot during which frames
were dropped is flagged for a referee's review with the count in its verdict's notes.

A live source that stalls or closes is reconnected (``api.live_feed``); the match stays open, /state shows
the outage ("reconnecting", for how long, which attempt), and a shot in progress when it was lost is ended
there and flagged for review rather than judged on half its frames as if nothing had happened. A file that
ends before the frame count its header announced says so in the log and on /state.

Restart. The store knows the last source frame fully handled. An event log resumes right after it. A video
file resumes from its last resume point (``api.resume``: the observer as it was right after a shot ended),
or, without one, from its first frame: the frames up to the last recorded one are observed again as fast as
possible, the events already recorded are recognised and not recorded twice, and from there on the match
goes on exactly as the uninterrupted run would have. A live source cannot be replayed: it carries on from
where the record ends, with the balls where it left them, and a shot the restart interrupted is ended and
flagged for review.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from api.capture import open_video
from api.live_feed import FeedSettings, FeedStatus, LiveFeed
from api.resume import ResumePoint, ResumePoints, frame_checksum
from api.service.match import MatchService
from api.store import Message
from calibration.contract import Event, read_jsonl

log = logging.getLogger("tableref.runner")

# A test hook: the process ends abruptly (as under ``kill -9``) right after the frame with this index has been
# committed to the store, before anything else is written for it.
EXIT_AFTER_FRAME_ENV = "TABLEREF_EXIT_AFTER_FRAME"
# frames of a live source held for the observer, the oldest dropped when full: how far behind the camera it may
# fall before it skips frames; a longer queue only delays what the overlay shows (`tableref bench live`)
FRAME_QUEUE = 8


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
    """A bounded queue of frames. ``put`` either drops the oldest queued frame (counted) or waits. Markers put
    with ``force_wait`` (the end, a lost feed) are never dropped and never wait (a reader that has stopped
    must not hold up the one telling it to stop); once ``close``d, a waiting ``put`` gives up."""

    def __init__(self, size: int, *, drop_oldest: bool) -> None:
        self._items: collections.deque[tuple[bool, Any]] = collections.deque()
        self._size = size
        self._drop = drop_oldest
        self._cond = threading.Condition()
        self._closed = False
        self.dropped = 0

    def put(self, item: Any, *, force_wait: bool = False) -> None:
        with self._cond:
            if force_wait:
                pass
            elif self._drop:  # a live source never waits: the oldest frame makes room
                while len(self._items) >= self._size:
                    k = next((i for i, (droppable, _) in enumerate(self._items) if droppable), None)
                    if k is None:
                        break
                    del self._items[k]
                    self.dropped += 1
            else:
                while len(self._items) >= self._size and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
            self._items.append((not force_wait, item))
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def get(self) -> Any:
        with self._cond:
            while not self._items:
                self._cond.wait()
            _, item = self._items.popleft()
            self._cond.notify_all()
            return item


_END = object()


@dataclass(frozen=True)
class _Lost:
    """A marker in the frame queue: the live feed was lost here."""

    reason: str


@dataclass
class RunnerStats:
    frames_read: int = 0
    frames_processed: int = 0
    frames_dropped: int = 0
    frames_replayed: int = 0  # frames observed again after a restart, up to the last one recorded
    events: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    error: str | None = None
    warning: str | None = None

    def to_dict(self) -> dict[str, Any]:
        end = self.finished or time.monotonic()
        wall = max(end - self.started, 1e-9)
        out = {
            "frames_read": self.frames_read,
            "frames_processed": self.frames_processed,
            "frames_dropped": self.frames_dropped,
            "events": self.events,
            "fps": round(self.frames_processed / wall, 2),
            "error": self.error,
        }
        if self.frames_replayed:
            out["frames_replayed"] = self.frames_replayed
        if self.warning:
            out["warning"] = self.warning
        return out


@dataclass
class _Resume:
    """Where a video match starts observing, and what of it is already recorded."""

    first: int = 0  # the first frame to observe
    recorded_until: int = -1  # the last frame whose events are all recorded
    seen: set[tuple[Any, ...]] = field(default_factory=set)  # keys of the recorded camera events
    point: ResumePoint | None = None
    shot_offset: int = 0  # added to the pipeline's shot numbers (a fresh pipeline in the middle of a match)
    known_ids: dict[str, tuple[float, float]] | None = None
    renames: list[tuple[str, str]] = field(default_factory=list)  # operator renames after the resume point


class Runner:
    """Feeds one source into a MatchService on background threads."""

    def __init__(
        self,
        service: MatchService,
        source: SourceSpec,
        *,
        fast: bool = False,
        pipeline_factory: PipelineFactory | None = None,
        frame_queue: int = FRAME_QUEUE,
        on_step: StepHook | None = None,
        on_record: Callable[[Message], None] | None = None,
        resume_dir: Path | None = None,
        feed_settings: FeedSettings | None = None,
    ) -> None:
        self.service = service
        self.source = source
        self.fast = fast
        self.pipeline_factory = pipeline_factory
        self.frame_queue_size = frame_queue
        self.on_step = on_step
        self.on_record = on_record
        self.feed_settings = feed_settings or FeedSettings()
        self.stats = RunnerStats()
        self.done = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._queue: FrameQueue | None = None
        self.fps: float | None = None
        self.frame_count: int | None = None
        self._resume = _Resume()
        self._points = (
            ResumePoints(resume_dir, service.match_id, source.location)
            if resume_dir is not None and source.kind == "file"
            else None
        )
        self._renames: collections.deque[tuple[str, str]] = collections.deque()
        self._feed: LiveFeed | None = None
        self._announced: dict[str, Any] = {}
        self._drops_in_shot: dict[int, int] = {}
        self._drops_announced = 0.0
        exit_at = os.environ.get(EXIT_AFTER_FRAME_ENV, "")
        self._exit_after = int(exit_at) if exit_at.strip().lstrip("-").isdigit() else None
        service.input_hooks.append(self._on_input)

    # ---- control ------------------------------------------------------------------------------------
    def start(self) -> None:
        """Starts the source's threads and returns at once: a live source is opened on them, so a camera or a
        server that does not answer never holds up the HTTP service."""
        if self.source.kind == "events":
            self._threads = [threading.Thread(target=self._guard, args=(self._run_log,), name="log", daemon=True)]
        elif self.pipeline_factory is None:
            raise SourceError("a video source needs the live pipeline, which this build does not have")
        elif self.source.live:
            self._resume = self._live_resume()
            self._queue = FrameQueue(self.frame_queue_size, drop_oldest=True)
            self._threads = [
                threading.Thread(target=self._guard, args=(self._read_live,), name="live-feed", daemon=True),
                threading.Thread(target=self._guard, args=(self._vision,), name="vision", daemon=True),
            ]
        else:
            cap = _open_file(self.source)
            self.fps = float(cap.get(_CAP_FPS) or 0.0) or 30.0
            count = int(cap.get(_CAP_COUNT) or 0)
            self.frame_count = count if count > 0 else None
            self.service.store.set_fps(self.service.match_id, self.fps)
            self._resume = self._video_resume()
            self._queue = FrameQueue(self.frame_queue_size, drop_oldest=False)
            self._threads = [
                threading.Thread(target=self._guard, args=(lambda: self._read_file(cap),), name="decode", daemon=True),
                threading.Thread(target=self._guard, args=(self._vision,), name="vision", daemon=True),
            ]
        self._publish_info("opening" if self.source.live else "playing")
        for th in self._threads:
            th.start()

    def stop(self) -> None:
        self._stop.set()
        if self._queue is not None:
            self._queue.close()
            self._queue.put(_END, force_wait=True)

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
            log.exception("the source stopped")
            self.stats.error = f"{type(exc).__name__}: {exc}"
            self._publish_info("failed")
            self.stats.finished = time.monotonic()
            self.done.set()
            if self._queue is not None:
                self._queue.close()
                self._queue.put(_END, force_wait=True)

    def _publish_info(self, status: str) -> None:
        info: dict[str, Any] = {
            "status": status, "kind": self.source.kind, "location": self.source.location, "fast": self.fast,
        }  # fmt: skip
        info.update(self.stats.to_dict())
        if self.fps:
            info["video_fps"] = self.fps
        if self.frame_count:
            info["frame_count"] = self.frame_count
        if self.source.live and self._feed is None:
            info["state"] = status  # opening, then preparing (the detector's kernels) before the feed opens
        if self._feed is not None:
            info.update(self._feed.status.to_dict())
            if self._feed.status.state == "reconnecting":
                info["status"] = "reconnecting"
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

    # ---- where a video starts --------------------------------------------------------------------------
    def _recorded(self) -> tuple[set[tuple[Any, ...]], list[tuple[int, str, str]]]:
        """Keys of every recorded camera event of the match, and its operator renames (seq, old id, new id)."""
        seen: set[tuple[Any, ...]] = set()
        renames: list[tuple[int, str, str]] = []
        mid = self.service.match_id
        after = 0
        while True:
            page = self.service.store.messages(mid, after, 1000)
            for m in page:
                if m.kind == "event":
                    seen.add(_event_key(m.data))
                elif m.kind == "input" and m.data.get("type") == "rename":
                    renames.append((m.seq, str(m.data["ball"]), str(m.data["to"])))
                after = m.seq
            if len(page) < 1000:
                break
        return seen, renames

    def _video_resume(self) -> _Resume:
        progress = self.service.progress_frame
        if progress < 0:
            if self._points is not None:
                self._points.discard()  # a point left by another match that had this number
            return _Resume()
        seen, renames = self._recorded()
        point = self._points.load(progress) if self._points is not None else None
        if point is None:  # observe the whole video again: the same observer from the same first frame
            return _Resume(0, progress, seen, None, 0, None, [])
        later = [(old, new) for seq, old, new in renames if seq > point.seq]
        return _Resume(point.frame + 1, progress, seen, point, 0, None, later)

    def _live_resume(self) -> _Resume:
        """A live match restarted: frames carry on after the last recorded one, shots after the last recorded,
        the balls named where the record last saw them. A shot the restart interrupted is ended for review."""
        progress = self.service.progress_frame
        if progress < 0:
            return _Resume()
        live = self.service.live
        if live.shot is not None:
            self._close_interrupted_shot(progress, "the service restarted during this shot")
        nxt = live.next_shot
        known = {b: (float(p[0]), float(p[1])) for b, p in live.positions.items()} or None
        return _Resume(progress + 1, -1, set(), None, nxt, known, [])

    def _close_interrupted_shot(self, frame: int, reason: str) -> None:
        """The record has a shot in progress that the observer can no longer see to its end: it is ended
        where it was last seen and flagged for a referee's review with ``reason``."""
        live = self.service.live
        shot = live.shot
        if shot is None:
            return
        self.service.flag_shot(shot, f"not observed to its end: {reason}", what="lost")
        positions = {b: (float(p[0]), float(p[1])) for b, p in live.positions.items()}
        end = Event(type="shot_end", t=live.t or 0.0, frame=frame, shot=shot, positions=positions, review=True)
        self._step(frame, time.monotonic(), [end], live.t)

    # ---- reading a file -----------------------------------------------------------------------------------
    def _read_file(self, cap: Any) -> None:
        """Every frame of the file into the queue, in order, at the file's frame rate (late rather than never
        when the pipeline falls behind); frames already recorded before a restart as fast as they come."""
        assert self._queue is not None and self.fps is not None
        res = self._resume
        first = self._seek(cap, res)
        index = first
        paced_from = max(first, res.recorded_until + 1)
        start: float | None = None
        try:
            while not self._stop.is_set():
                ok, frame = cap.read()
                if not ok:
                    break
                read_at = time.monotonic()
                self.stats.frames_read += 1
                if not self.fast and index >= paced_from:
                    if start is None:
                        start = read_at
                    delay = (index - paced_from) / self.fps - (read_at - start)
                    if delay > 0 and self._stop.wait(delay):
                        break
                    read_at = time.monotonic()
                self._queue.put((index, index / self.fps, read_at, frame))
                index += 1
            if not self._stop.is_set():
                self._check_complete(index)
        finally:
            cap.release()
            self._queue.put(_END, force_wait=True)

    def _seek(self, cap: Any, res: _Resume) -> int:
        """Positions the video at the frame after the resume point and returns its index: seeks, and checks
        that the frame found there is the one the point was saved on; where it is not (a container whose
        seeking is not frame-exact), decodes from the start up to it."""
        point = res.point
        if point is None:
            return res.first
        if point.frame > 0:
            cap.set(_CAP_POS, point.frame)
            ok, frame = cap.read()
            if ok and frame_checksum(frame) == point.frame_sum:
                return point.frame + 1
            log.warning("seeking the video did not find frame %d; decoding up to it", point.frame)
            cap.set(_CAP_POS, 0)
        for i in range(point.frame + 1):
            ok, frame = cap.read()
            if not ok:
                raise SourceError(f"the video ends before frame {point.frame}, where its match was left")
            if i == point.frame and frame_checksum(frame) != point.frame_sum:
                raise SourceError(f"frame {point.frame} of the video is not the one its match was left at")
        return point.frame + 1

    def _check_complete(self, end: int) -> None:
        """A file that ends before the frame count its header gives was cut short: say so."""
        count = self.frame_count
        if count is None or end >= count - 1:  # the header's count may round the duration up by a frame
            return
        self.stats.warning = (
            f"the video ended at frame {end} of the {count} its header announces: the file is truncated or damaged"
        )
        log.warning("%s: %s", self.source.location, self.stats.warning)
        self._announce(state="ended_early", detail=self.stats.warning)

    # ---- reading a live feed --------------------------------------------------------------------------------
    def _read_live(self) -> None:
        assert self._queue is not None
        queue = self._queue
        lock = threading.Lock()
        first_index = self._resume.first
        counter = {"index": first_index}
        t0: list[float] = []
        last_t = [(self.service.live.t or 0.0) if first_index > 0 else -1.0]

        def deliver(frame: np.ndarray, read_at: float) -> None:
            with lock:
                if not t0:
                    t0.append(read_at - max(last_t[0] + 1.0, 0.0))
                t = max(read_at - t0[0], last_t[0] + 1e-3)  # a live frame's time is when it came
                last_t[0] = t
                index = counter["index"]
                counter["index"] += 1
                self.stats.frames_read += 1
                queue.put((index, t, read_at, frame))

        def lost(reason: str) -> None:
            queue.put(_Lost(reason), force_wait=True)

        def status(st: FeedStatus) -> None:
            if st.fps and not self.fps:
                self.fps = st.fps
                self.service.store.set_fps(self.service.match_id, st.fps)
            self._publish_info("playing" if st.state == "live" else st.state)
            self._announce(state=st.state, detail=st.detail)

        self._publish_info("preparing")
        self._prime_kernels()
        self._feed = LiveFeed(
            self.source.location, deliver=deliver, on_lost=lost, on_status=status, stop=self._stop,
            settings=self.feed_settings,
        )  # fmt: skip
        try:
            self._feed.run()
        finally:
            queue.put(_END, force_wait=True)

    def _prime_kernels(self) -> None:
        """Loads the detector's compiled kernels into this process before the camera is opened: the first call
        of each holds the interpreter for a second or more while it is read in, and during a live feed that
        would be frames lost (or a feed taken for stalled) at the start of the match."""
        try:
            from api.warmup import drive_detector
        except ImportError:  # a build without the warm-up: the kernels load at the first frames instead
            return
        try:
            drive_detector(lambda: self._stop.is_set())
        except Exception as exc:  # the feed still opens; the first frames are only slower
            log.warning("could not prepare the detector's kernels before the feed: %s", exc)

    # ---- observing ----------------------------------------------------------------------------------------
    def _new_pipeline(self, known_ids: dict[str, tuple[float, float]] | None) -> FramePipeline:
        assert self.pipeline_factory is not None
        return self.pipeline_factory(self.fps or 30.0, known_ids)

    def _vision(self) -> None:
        assert self._queue is not None
        res = self._resume
        if res.point is not None:
            pipeline: FramePipeline | None = res.point.pipeline
            stored = dict(res.point.stored)
            self._renames.extend(res.renames)
        elif not self.source.live:
            pipeline, stored = self._new_pipeline(res.known_ids), {}
        else:
            pipeline, stored = None, {}  # made at the first frame, once the camera's frame rate is known
        offset = res.shot_offset
        made = pipeline is not None
        last_index, last_t, last_read, last_start = -1, 0.0, time.monotonic(), time.monotonic()
        dropped_seen = 0
        while True:
            item = self._queue.get()
            if item is _END:
                break
            if isinstance(item, _Lost):
                if pipeline is not None:
                    self._end_pipeline(pipeline, offset, last_index, last_t, last_read, item.reason)
                    offset = self.service.live.next_shot
                    pipeline = None
                continue
            index, t, read_at, frame = item
            started_at = time.monotonic()
            maker = self.pipeline_factory
            if pipeline is None and getattr(maker, "pending", False):  # a live source calibrated from its frames
                found = maker.offer(frame)  # type: ignore[union-attr]
                info = getattr(maker, "info", None)
                if info:
                    self.service.calibration = dict(info)
                if not found:
                    continue
            if pipeline is None:  # the first frame of a live feed, or the first after it came back
                known = res.known_ids
                if made:  # the balls where the record last saw them
                    known = {b: (float(p[0]), float(p[1])) for b, p in self.service.live.positions.items()} or None
                pipeline, made = self._new_pipeline(known), True
            while self._renames:
                old, new = self._renames.popleft()
                rename = getattr(pipeline, "rename_ball", None)
                if rename is not None:
                    rename(old, new)
            raw = pipeline.step(frame, index, t)
            events = self._renumber(raw, offset, res.recorded_until, res.seen)
            if self.source.live and self._queue.dropped > dropped_seen:
                self._note_drops(self._queue.dropped - dropped_seen)
                dropped_seen = self._queue.dropped
            last_index, last_t, last_read, last_start = index, t, read_at, started_at
            balls = pipeline.balls
            moved = _moved(stored, balls)
            if moved:
                stored = dict(balls)
            if index <= res.recorded_until and not events:
                self.stats.frames_replayed += 1  # observed again after a restart: all it found is recorded
            else:
                looks = getattr(pipeline, "looks", None)
                if looks is not None:  # the colour words of balls the camera could not number (api.names)
                    self.service.note_looks(looks.words())
                self._step(index, read_at, events, t, balls if moved else None, started_at)
            if self._exit_after is not None and index >= self._exit_after:
                os._exit(137)
            if self._points is not None and any(e.type == "shot_end" for e in raw):
                self._save_point(pipeline, index, frame, stored)
            self.stats.frames_processed += 1
            self.stats.frames_dropped = self._queue.dropped
            if self.stats.frames_processed % 15 == 0:
                self._publish_info("playing")
        if not self._stop.is_set() and pipeline is not None:
            tail = self._renumber(pipeline.finish(), offset, res.recorded_until, res.seen)
            if tail or last_index >= 0:
                self._step(max(last_index, res.recorded_until), last_read, tail, last_t, started_at=last_start)
        self._finished()

    def _end_pipeline(
        self, pipeline: FramePipeline, offset: int, index: int, t: float, read_at: float, reason: str
    ) -> None:
        """The live feed was lost: what the observer still holds is decided now, and a shot it had in progress
        is ended there and flagged for review (the frames after the loss are not there to judge it on)."""
        shot = self.service.live.shot
        if shot is not None:
            self.service.flag_shot(shot, f"not observed to its end: {reason}", what="lost")
        tail = self._renumber(pipeline.finish(), offset, -1, set())
        for ev in tail:
            if ev.shot is not None and (ev.type == "shot_end" or ev.shot == shot):
                self.service.flag_shot(ev.shot, f"not observed to its end: {reason}", what="lost")
        tail = [ev.model_copy(update={"review": True}) if ev.type == "shot_end" else ev for ev in tail]
        if tail or index >= 0:
            self._step(max(index, 0), read_at, tail, t)
        if self.service.live.shot is not None:
            self._close_interrupted_shot(max(index, 0), reason)

    def _note_drops(self, n: int) -> None:
        """Frames a live source dropped. During a shot they are never silent: the shot's verdict is flagged
        with the count in its notes, and /state and the stream say so (at most once a second)."""
        shot = self.service.live.shot
        if shot is None:
            return
        total = self._drops_in_shot.get(shot, 0) + n
        self._drops_in_shot = {shot: total}
        reason = f"{total} camera frame(s) dropped during this shot (the observer fell behind the camera)"
        self.service.flag_shot(shot, reason, what="dropped frames")
        now = time.monotonic()
        if now - self._drops_announced >= 1.0:
            self._drops_announced = now
            self._announce(dropped={"shot": shot, "frames": total})

    def _announce(self, **changes: Any) -> None:
        """What the stream's ``state`` messages say about the source (a change makes one)."""
        for k, v in changes.items():
            if v is None:
                self._announced.pop(k, None)
            else:
                self._announced[k] = v
        self.service.note_source(dict(self._announced))

    def _save_point(self, pipeline: FramePipeline, index: int, frame: np.ndarray, stored: dict[str, Any]) -> None:
        assert self._points is not None
        point = ResumePoint(index, self.service.store.last_seq(self.service.match_id), frame_checksum(frame),
                            pipeline, dict(stored))  # fmt: skip
        try:
            self._points.save(point)
        except Exception as exc:  # a restart then replays from an earlier point: later, but the same calls
            log.warning("could not save a resume point at frame %d: %s", index, exc)

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


def _open_file(source: SourceSpec) -> Any:
    cap = open_video(source.location)
    if not cap.isOpened():
        raise SourceError(f"cannot open the video file {source.location}")
    return cap
