"""The frame-by-frame observer: detections -> tracks -> events, shared by ``analyze`` and the live service.

    pipe = Pipeline(calibration, game="russian71")
    for index, (frame, t) in enumerate(frames):
        new_events = pipe.step(frame, index, t)      # events decided in this frame (a few frames late)
    new_events = pipe.finish()                       # the rest, once the video ends
    pipe.balls                                       # the latest ball positions, for an overlay
    pipe.track_rows()                                # tracks.csv rows (smoothed on the fitted paths)

No I/O, no clock, no global state: a pipeline owns its detector, tracker and event extractor, and time comes
only from the timestamps it is given, so replaying a video gives the same events. One pipeline per stream;
it is not thread-safe, so a live service runs it in one thread.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

import numpy as np

from api.ball_looks import BallLooks
from calibration.contract import Event
from calibration.mapping import Calibration
from calibration.table import TableModel
from tracking.detect.settings import with_values
from tracking.extractor import EventExtractor, ExtractorSettings
from tracking.guided import GuidedMeasurement
from tracking.ids import rack_ids
from tracking.tracker import BallObs, Tracker, TrackerFrame, TrackerSettings
from vision.cover import CoverModel
from vision.pockets import PocketInteriors
from vision.table_view import TableView

_log = logging.getLogger("tableref.pipeline")

CUE_CLASS = 1  # vision.detections.CUE: the code of a cue ball told apart by colour


class FrameDetections(Protocol):
    """What the pipeline reads from a detector's output (``vision.detections.Detections`` has it)."""

    @property
    def pos_mm(self) -> np.ndarray: ...
    @property
    def confidence(self) -> np.ndarray: ...
    @property
    def cls(self) -> np.ndarray: ...


class BallDetector(Protocol):
    def detect(self, frame_bgr: np.ndarray) -> Any: ...


@dataclass(frozen=True)
class _Measured:
    """A frame's detections with streak measurements in place of a fast ball's (what the tracker reads)."""

    pos_mm: np.ndarray
    confidence: np.ndarray
    cls: np.ndarray
    colour: np.ndarray | None
    no_start: np.ndarray | None = None  # where no new track may start (``no_start``)
    # p(ball) of each detection's look (``Detections.p_ball``), NaN for a measurement put in (a streak is not a
    # look the classifier judged); None where the detector gives none
    p_ball: np.ndarray | None = None


def no_start(dets: Any) -> np.ndarray | None:
    """Detections no new track may start on: vision's ``in_pocket``, ``covered`` or ``unlike_ball`` (None where
    none is given), or the ``no_start`` already drawn from them (streak measurements, recorded tracker input)."""
    if hasattr(dets, "no_start"):
        return dets.no_start
    flags = [
        np.asarray(f, dtype=bool).reshape(-1)
        for f in (getattr(dets, name, None) for name in ("in_pocket", "covered", "unlike_ball"))
        if f is not None
    ]
    return np.logical_or.reduce(flags) if flags else None


def _with_measurements(dets: Any, keep: np.ndarray, added: list[tuple[np.ndarray, float, Any, Any]]) -> _Measured:
    """``dets`` without the detections ``keep`` drops, with ``added`` (position, confidence, class, colour)."""
    pos = np.asarray(dets.pos_mm, dtype=float).reshape(-1, 2)
    conf = np.asarray(dets.confidence, dtype=float).reshape(-1)
    cls = np.asarray(dets.cls).reshape(-1)
    colour = getattr(dets, "colour", None)
    col = None if colour is None else np.asarray(colour, dtype=float).reshape(-1, 3)
    barred = no_start(dets)
    p_ball = getattr(dets, "p_ball", None)
    return _Measured(
        np.vstack([pos[keep], *[np.asarray(a[0])[None, :] for a in added]]),
        np.concatenate([conf[keep], [a[1] for a in added]]),
        np.concatenate([cls[keep], np.array([a[2] for a in added], dtype=cls.dtype)]),
        None if col is None else np.vstack([col[keep], *[np.asarray(a[3])[None, :] for a in added]]),
        None if barred is None else np.concatenate([barred[keep], np.zeros(len(added), bool)]),
        None
        if p_ball is None
        else np.concatenate([np.asarray(p_ball, dtype=float).reshape(-1)[keep], np.full(len(added), np.nan)]),
    )


@dataclass(frozen=True)
class TrackRow:
    frame: int
    t: float
    ball: str
    x: float
    y: float
    visible: int


class Pipeline:
    def __init__(
        self,
        calibration: Calibration | None = None,
        *,
        table: TableModel | None = None,
        game: str | None = None,
        detector: BallDetector | None = None,
        detector_name: str = "classical",
        known_ids: dict[str, tuple[float, float]] | None = None,
        tracker_settings: TrackerSettings | None = None,
        extractor_settings: ExtractorSettings | None = None,
        keep_tracks: bool = True,
        meas_sigma_mm: float | None = None,
        streaks: bool = True,
        fps: float | None = None,
    ) -> None:
        """``calibration`` is needed to run on frames (``step``); ``step_detections`` works from table
        positions alone, given ``table``. ``known_ids`` ({id: position}) names the balls at those places
        (an operator's correction); without it a game with a fixed rack order (001 2.2.3) numbers a racked
        pyramid. ``fps``: the stream's frame rate where its source states one (a video's, a live source's, a
        recording's); the tracker and the extractor take their first frame's interval from it."""
        self.calibration = calibration
        self.table = table or (calibration.table if calibration is not None else TableModel())
        self.game = game
        self._detector = detector
        self._detector_name = detector_name
        if meas_sigma_mm is None and calibration is not None:
            # about one pixel of detection noise on the cloth, never below the synthetic 1080p figure
            meas_sigma_mm = max(1.2, 1.2 / calibration.px_per_mm())
        if meas_sigma_mm is not None:
            tracker_settings, extractor_settings = noise_settings(meas_sigma_mm, tracker_settings, extractor_settings)
        self.meas_sigma_mm = meas_sigma_mm
        ids = dict(rack_ids(self.table, game))
        ids.update(known_ids or {})
        frame_dt = None if not fps else 1.0 / fps
        self.tracker = Tracker(self.table, tracker_settings, known_ids=ids, frame_dt=frame_dt)
        self.extractor = EventExtractor(
            self.table, extractor_settings, self.tracker.s.filter.meas_sigma_mm, frame_dt=frame_dt
        )
        self.events: list[Event] = []
        self.keep_tracks = keep_tracks
        self._rows: list[tuple[int, float, BallObs]] = []
        self.last: TrackerFrame | None = None
        self._finished = False
        # fast balls measured where the tracker predicts them, by their launch or blur streak (tracking.guided)
        self.guided = (
            GuidedMeasurement(calibration, self.tracker.s.max_speed_mm_s, self.extractor.s.ghost_below, frame_dt)
            if streaks and calibration is not None
            else None
        )
        self.looks = BallLooks()  # each ball's colour at rest: it names a ball the camera could not number
        self._held: list[TrackerFrame] = []  # tracker frames not yet given to the extractor (see step_detections)
        # is the table in the picture (vision.table_view)? frame spans (first, last) where it was not
        self.view = TableView(calibration) if calibration is not None else None
        self.paused: list[tuple[int, int]] = []
        # the table model's places where no ball is born: inside the pockets, under what covers the cloth
        self.pockets = PocketInteriors(self.table)
        self.cover = CoverModel(calibration) if calibration is not None else None
        self.recalibrated: list[int] = []  # frames where the camera had moved and the table was calibrated again
        self._detector_name_made = detector is None  # the pipeline makes its detector (and can make it again)

    # ---- feeding ----------------------------------------------------------------------------------------
    @property
    def detector(self) -> BallDetector:
        if self._detector is None:
            if self.calibration is None:
                raise ValueError("the pipeline needs a calibration to detect balls in frames")
            from vision.detector import make_detector

            self._detector = make_detector(self._detector_name, self.calibration)
        return self._detector

    def step(self, frame_bgr: np.ndarray, index: int, t: float) -> list[Event]:
        """One video frame at timestamp ``t`` (seconds from the start); returns the events decided now."""
        return self._step_frame(frame_bgr, self.detector.detect(frame_bgr), index, t)

    def _step_frame(self, frame_bgr: np.ndarray, dets: Any, index: int, t: float) -> list[Event]:
        if self.view is not None and not self.view.check(frame_bgr):
            # not the table (a camera cut, a graphics wipe): observation pauses, nothing from this frame
            if self.paused and self.paused[-1][1] == index - 1:
                self.paused[-1] = (self.paused[-1][0], index)
            else:
                self.paused.append((index, index))
            return []
        if self.paused and self.paused[-1][1] == index - 1:
            self.tracker.resume(float(t))
            if self._recalibrate_if_moved(frame_bgr, index):
                dets = self.detector.detect(frame_bgr)
        dets = self._label(frame_bgr, dets)
        if self.guided is not None and self.last is not None and t > self.last.t:
            guided = self.guided.measure(frame_bgr, dets, self.last, t)
            if guided.changed:
                dets = _with_measurements(dets, guided.keep, list(guided.added))
        new = self.step_detections(dets, index, t)
        if self.guided is not None:
            assert self.last is not None
            self.guided.observe(dets, self.last)
        return new

    def _recalibrate_if_moved(self, frame_bgr: np.ndarray, index: int) -> bool:
        """The table is back after frames without it: where it is not where the calibration puts it (a bumped
        camera, a cut back to another shot), calibrate again on this frame and go on with the new mapping (ball
        positions are on the table, so the tracks carry over). True where the mapping changed and this
        frame's detections must be made again."""
        if self.view is None or self.calibration is None or not self.view.moved(frame_bgr):
            return False
        from calibration.auto import auto_calibrate

        try:
            cal = auto_calibrate(frame_bgr, self.table)
        except ValueError as exc:
            _log.warning(
                "frame %d: the table is not where the calibration puts it; calibrating again failed (%s)", index, exc
            )
            return False
        old = np.array([self.calibration.corners_px[k] for k in sorted(cal.corners_px)])
        new = np.array([cal.corners_px[k] for k in sorted(cal.corners_px)])
        _log.warning(
            "frame %d: the camera moved (the table's corners by up to %.0f px): calibrated again on this frame",
            index,
            float(np.abs(new - old).max()),
        )
        self.recalibrated.append(index)
        self.calibration = cal
        self.view = TableView(cal)
        self.view.check(frame_bgr)  # the new view's first frame
        self.cover = CoverModel(cal)
        if self.guided is not None:
            self.guided = GuidedMeasurement(
                cal, self.tracker.s.max_speed_mm_s, self.extractor.s.ghost_below, self.guided.frame_dt
            )
        if self._detector_name_made:
            self._detector = None  # made again, for the new mapping, on the next use
        return self._detector is None

    def _label(self, frame_bgr: np.ndarray, dets: Any) -> Any:
        """The detections labelled against the table model: ``in_pocket`` (``vision.pockets``) and ``covered``
        (``vision.cover``, which learns the empty cloth from this frame)."""
        if not hasattr(dets, "with_flags"):
            return dets
        covered = None
        if self.cover is not None:
            covered = self.cover.covered(self.cover.update(frame_bgr, dets.px), dets.px)
        return dets.with_flags(self.pockets.contains(dets.pos_mm), covered)

    def step_detections(self, dets: FrameDetections, index: int, t: float) -> list[Event]:
        if self._finished:
            raise ValueError("this pipeline has finished; start a new one")
        cls = np.asarray(dets.cls).reshape(-1)
        is_cue = cls == CUE_CLASS if cls.dtype.kind in "iu" else cls == "cue"
        colour = getattr(dets, "colour", None)
        barred = no_start(dets)  # None: detections without vision's labels
        tf = self.tracker.step(
            index,
            float(t),
            dets.pos_mm,
            dets.confidence,
            is_cue,
            colour,
            shot_active=self.extractor.shot_active,
            may_start=None if barred is None else ~barred,
            pocket=None if barred is None else self.pockets.which(dets.pos_mm),
            look=getattr(dets, "p_ball", None),
        )
        self.last = tf
        if tf.relabel:
            self._relabel_held(dict(tf.relabel), tf.relabel_since)
        self.looks.observe(tf.balls, dets)
        self._held.append(tf)
        if self.tracker.checking_burst:
            return []  # a burst's ids may yet change: its frames wait (a few frames) before events are read
        return self._release_held()

    def _relabel_held(self, names: dict[str, str], since: float) -> None:
        """The tracker corrected ids (a burst's balls, ``tracking.bursts``): the frames held since then
        take the right ones, and so do the looks and launches kept by id."""

        def rename(f: TrackerFrame) -> TrackerFrame:
            return replace(
                f,
                balls=tuple(replace(b, id=names.get(b.id, b.id)) for b in f.balls),
                losses=tuple(replace(x, id=names.get(x.id, x.id)) for x in f.losses),
                reappeared=tuple(replace(x, id=names.get(x.id, x.id)) for x in f.reappeared),
            )

        self._held = [rename(f) if f.t >= since else f for f in self._held]
        if self.guided is not None:
            self.guided.rename(names)
        self.looks.rename(names)

    def _release_held(self) -> list[Event]:
        """The held tracker frames, oldest first, to tracks.csv's rows and the event extractor."""
        held, self._held = self._held, []
        new: list[Event] = []
        for tf in held:
            if self.keep_tracks:
                ghost = self.extractor.s.ghost_below
                self._rows.extend((tf.frame, tf.t, b) for b in tf.balls if b.quality >= ghost)
            new.extend(self.extractor.update(tf))
        self.events.extend(new)
        return new

    def run(
        self,
        frames: Iterable[np.ndarray],
        fps: float,
        progress: Callable[[int, float], None] | None = None,
        detect_ahead: bool = True,
    ) -> int:
        """Feed a whole recording (frame ``i`` at ``i / fps`` seconds), then finish; returns the number of frames.
        ``frames`` is any iterable of BGR images, e.g. ``video_frames(cv2.VideoCapture(path))`` (which decodes
        ahead in its own thread). ``progress(n, t)`` is called after each frame; ``detect_ahead``: see
        ``run_timed``."""
        return self.run_timed(((f, i / fps) for i, f in enumerate(frames)), progress, detect_ahead)

    def run_timed(
        self,
        frames: Iterable[tuple[np.ndarray, float]],
        progress: Callable[[int, float], None] | None = None,
        detect_ahead: bool = True,
    ) -> int:
        """Feed ``(frame, t)`` pairs (e.g. ``timed_frames(cap, fps)``), then finish; returns the number of frames.

        ``detect_ahead``: the detector runs in a thread of its own, a few frames ahead of tracking (most of its
        work is OpenCV and numpy, which release the GIL, so with the decoder's thread the three stages overlap
        on the cores there are). Each stage keeps the frame order, so the events are the same either way."""
        ready = None
        if detect_ahead:
            # Start-up off the critical path: the detector (its rectifier maps, numba's registries and first
            # cached kernel, the ball classifier's session) and the tracking side's frame-free maps are built
            # now, each in a thread of its own, while the decoder starts on the first frames; until the first
            # detections neither the detection thread nor this one has anything else to do. Each is built once,
            # as before, and waited for where first used.
            ready = _Started(lambda: self.detector, "tableref-detector")
            tracking_ready = _Started(self._prepare_tracking, "tableref-prepare")
            frames = _after(ready, frames)
        dets: Iterable[tuple[np.ndarray, Any, float]] = ((f, self.detector.detect(f), t) for f, t in frames)
        if detect_ahead:
            dets = prefetch(dets, PREFETCH)
        n = 0
        for n, (f, d, t) in enumerate(dets, start=1):
            if n == 1 and ready is not None:
                tracking_ready.wait()
            self._step_frame(f, d, n - 1, t)
            if progress is not None:
                progress(n, t)
        self.finish()
        return n

    def _prepare_tracking(self) -> None:
        """What the tracking side builds on its first frame and that needs no frame: the launch watch's maps of
        the whole cloth (``tracking.guided``)."""
        if self.guided is not None:
            self.guided.launches  # noqa: B018 (built on first use; used from the first frame on)

    def finish(self) -> list[Event]:
        """End of the stream: decides what is still pending (the last shot's end among it)."""
        if self._finished:
            return []
        self._finished = True
        t_end = self.last.t if self.last is not None else 0.0
        new = self._release_held()
        last = self.extractor.finish(self.tracker.finish(t_end))
        self.events.extend(last)
        return new + last

    # ---- reading ----------------------------------------------------------------------------------------
    @property
    def balls(self) -> dict[str, tuple[float, float]]:
        """The latest position of every ball on the table."""
        ghost = self.extractor.s.ghost_below
        return {} if self.last is None else {b.id: b.pos for b in self.last.balls if b.quality >= ghost}

    @property
    def shot_in_progress(self) -> bool:
        return self.extractor.shot_active

    def sorted_events(self) -> list[Event]:
        return sorted(self.events, key=lambda e: (e.t or 0.0, _ORDER.get(e.type, 1)))

    def track_rows(self, smoothed: bool = True) -> list[TrackRow]:
        """tracks.csv rows (CONTRACT.md section 5). ``smoothed``: positions from the fitted paths where the
        ball was seen (the filter's otherwise), which is what a recorded video allows."""
        out = []
        for frame, t, b in self._rows:
            p = self.extractor.smoothed(b.id, t) if (smoothed and b.visible) else None
            x, y = p if p is not None else b.pos
            out.append(TrackRow(frame, t, b.id, x, y, 1 if b.visible else 0))
        return out

    # ---- operator corrections ---------------------------------------------------------------------------
    def rename_ball(self, old: str, new: str) -> None:
        """The ball called ``old`` is ``new`` (a holder of ``new`` takes ``old``): from now on."""
        self._release_held()  # under the ids they had when they were seen
        holder = any(b.id == new for b in (self.last.balls if self.last else ()))
        if self.guided is not None:
            self.guided.forget_looks()
        self.tracker.rename(old, new)
        self.looks.rename({old: new, new: old} if holder else {old: new})
        self._rename_extractor({old: new, new: old} if holder else {old: new})

    def assign_ids(self, wanted: dict[str, tuple[float, float]]) -> dict[str, str]:
        """Each wanted id goes to the ball nearest its position (one-to-one): from now on."""
        self._release_held()
        mapping = self.tracker.assign_ids(wanted)
        if self.guided is not None:
            self.guided.forget_looks()
        self.looks.rename(mapping)
        self._rename_extractor(mapping)
        return mapping

    def _rename_extractor(self, mapping: dict[str, str]) -> None:
        if self.guided is not None:
            self.guided.rename(mapping)
        if self.last is not None:
            balls = tuple(replace(b, id=mapping.get(b.id, b.id)) for b in self.last.balls)
            self.last = replace(self.last, balls=balls)
        self.extractor.rename(mapping)


_ORDER = {"shot_start": 0, "shot_end": 2}


def noise_settings(
    sigma_mm: float, tracker: TrackerSettings | None = None, extractor: ExtractorSettings | None = None
) -> tuple[TrackerSettings, ExtractorSettings]:
    """Tracker and extractor settings for a detection noise of ``sigma_mm`` (the defaults suit ~1 mm):
    every gate that separates noise from motion grows with it."""
    tr = tracker or TrackerSettings()
    ex = extractor or ExtractorSettings()
    tr = replace(tr, filter=replace(tr.filter, meas_sigma_mm=sigma_mm))  # the rest gates follow (TrackerSettings)
    ex = with_values(
        ex,
        # a path breaks on a detection off its fit by this plus three times the fit's own scatter: that scatter
        # is the measured noise, so this term need not be the whole noise margin (at 4 sigma kinks of a few mm,
        # a kiss or a graze, went unbroken and their contacts and line crossings unseen)
        break_mm=max(ex.segments.break_mm, 1.5 * sigma_mm),
        graze_tol_mm=max(ex.cushions.graze_tol_mm, 2.0 * sigma_mm),
    )  # (but not kiss_tol_mm: a kiss is told from a near miss, which the physics makes as often, within millimetres)
    return tr, ex


class _FrameSource(Protocol):
    def read(self) -> tuple[bool, Any]: ...
    def get(self, prop_id: int) -> float: ...


T = TypeVar("T")
PREFETCH = 4  # frames decoded ahead: enough to ride out one slow frame, little memory (4 x 6 MB at 1080p)
_CAP_POS_MSEC = 0  # cv2.CAP_PROP_POS_MSEC (api.pipeline does not import cv2)


class _Failed:
    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


_DONE = object()


def prefetch(items: Iterable[T], depth: int = PREFETCH) -> Generator[T, None, None]:
    """The items of ``items`` in their order, produced up to ``depth`` ahead in a background thread.

    Meant for a video decoder (OpenCV's ``read`` releases the GIL, so decoding overlaps with the detector in
    the caller's thread). An exception raised while producing is raised here, in the caller, at the point
    where the item would have come; leaving the loop early (``break``, an error in the caller) stops the
    thread before this generator returns."""
    q: queue.Queue[Any] = queue.Queue(maxsize=max(1, depth))
    stop = threading.Event()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put(item):
                    return
        except BaseException as exc:  # handed to the caller, which re-raises it
            put(_Failed(exc))
            return
        put(_DONE)

    worker = threading.Thread(target=produce, name="tableref-decode", daemon=True)
    worker.start()
    try:
        while True:
            item = q.get()
            if item is _DONE:
                return
            if isinstance(item, _Failed):
                raise item.exc
            yield item
    finally:
        stop.set()
        while worker.is_alive():
            with contextlib.suppress(queue.Empty):
                q.get(timeout=0.05)
        worker.join()


class _Started:
    """``fn()`` running in a thread of its own from now on; ``wait()`` returns once it has finished and raises
    what it raised, in the waiting thread."""

    def __init__(self, fn: Callable[[], Any], name: str) -> None:
        self._fn = fn
        self._exc: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._fn()
        except BaseException as exc:  # handed to the waiting thread, which re-raises it
            self._exc = exc

    def wait(self) -> None:
        self._thread.join()
        if self._exc is not None:
            raise self._exc


def _after(started: _Started, items: Iterable[T]) -> Iterator[T]:
    """The items of ``items``, the first one taken before ``started`` is waited for (so that a decoder behind
    ``items`` starts at once) and none handed on before it has finished."""
    it = iter(items)
    first = next(it, _DONE)
    started.wait()
    if first is _DONE:
        return
    yield first  # type: ignore[misc]
    yield from it


def _read_frames(cap: _FrameSource) -> Iterator[np.ndarray]:
    while True:
        ok, frame = cap.read()
        if not ok:
            return
        yield frame


def video_frames(cap: _FrameSource, depth: int = PREFETCH) -> Iterator[np.ndarray]:
    """The frames of an opened ``cv2.VideoCapture`` (or anything with its ``read``), until it runs out, decoded
    ``depth`` frames ahead in a background thread (``depth=0``: in the caller's thread)."""
    return prefetch(_read_frames(cap), depth) if depth > 0 else _read_frames(cap)


def _read_timed(cap: _FrameSource, fps: float, limit: int) -> Iterator[tuple[np.ndarray, float]]:
    last_t = -1.0
    i = 0
    while not limit or i < limit:
        ok, frame = cap.read()
        if not ok:
            return
        ms = cap.get(_CAP_POS_MSEC)
        t = ms / 1000.0 if ms and ms / 1000.0 > last_t else i / fps
        if t <= last_t:
            t = last_t + 1.0 / fps
        last_t = t
        yield frame, t
        i += 1


def timed_frames(
    cap: _FrameSource, fps: float, limit: int = 0, depth: int = PREFETCH
) -> Iterator[tuple[np.ndarray, float]]:
    """``(frame, t)`` for each frame of an opened ``cv2.VideoCapture`` (at most ``limit``; 0: all), decoded
    ahead like ``video_frames``. ``t`` (seconds) is the decoder's timestamp where it is sane (variable frame
    rate, dropped frames: it increases), else ``index / fps``; it always increases."""
    items = _read_timed(cap, fps, limit)
    return prefetch(items, depth) if depth > 0 else items
