"""Guided measurement of fast balls: the tracker's predictions tell vision where to measure a blurred ball.

A ball fast enough to smear across a frame's exposure is a streak, not a disc: the detector fits its circle at
one end of it, splits it in two, or misses it. Two measurements, each looked for where the tracker's last
frame says the ball must be, take the detector's place for such balls:

- a ball struck from rest into a blur the detector cannot see (``LaunchWatch``, ``vision.launch``): a resting
  ball lost while its place shows plain cloth was struck away (a ball merely hidden under a hand or the cue
  leaves no cloth there). For a few frames its streak is looked for around that place, a blob pointing back
  at it; once found, the ball is followed by its streak for ``follow_s`` (searching only around where it
  should be), which gives the tracker its direction and speed;
- a fast, lone ball in flight (``vision.streaks``): its detections near where the tracker expects it (one at a
  blurred end, or two fragments) give way to the centre of its streak, where that is measurable.

It sits in ``tracking`` because it needs both the tracker's frames and vision's measurements (tracking may
import vision, not the reverse). ``GuidedMeasurement.measure`` says which detections to drop and which
measurements to add; the caller (``api.pipeline``) builds the frame the tracker reads from that, and after the
tracker's step tells it what was seen (``observe``). Its state (each ball's last detection's look, the
launched balls being followed) is one stream's, kept by public id, so a rename of ids reaches it (``rename``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from calibration.mapping import Calibration
from tracking.tracker import BallObs, TrackerFrame


class Added(NamedTuple):
    """A measurement put in a frame's detections in place of the detector's: position, confidence, class, colour."""

    pos_mm: np.ndarray
    confidence: float
    cls: Any
    colour: np.ndarray | None


@dataclass(frozen=True)
class Guided:
    """What guided measurement makes of one frame's detections: the ones kept (a mask over the detector's
    output, in its order), then the measurements added after them."""

    keep: np.ndarray
    added: tuple[Added, ...]

    @property
    def changed(self) -> bool:
        return bool(self.added) or not bool(np.all(self.keep))


@dataclass(frozen=True)
class LaunchWatchSettings:
    # a resting ball lost this many frames ago or less is looked for along a launch from its place: fewer
    # misses a ball struck into a blur the detector lost for a few frames; more searches longer for a ball a
    # hand or the cue merely hides (a streak found there is another thing's)
    search_frames: float = 3.5
    # ... and one whose first blurred measurement, a frame or so before it was lost, already broke its rest:
    # fewer loses a ball whose first blurred frame moved it off its place; more searches from a place a slowly
    # rolling ball left long ago
    left_frames: float = 1.5
    # a launched ball is then followed by its streak this long (till it hits something): shorter drops a fast
    # ball to blur before its first hit; longer keeps matching streaks after it has slowed to sharp detections
    follow_s: float = 0.5
    # the search never spreads wider than this around the place: smaller misses a hard-struck ball already
    # farther off; larger lets another ball's streak across the table be taken, and costs search time
    max_reach_mm: float = 800.0
    # a launch measurement's confidence (a ball's mass, in line with its place), read as a detection's by the
    # tracker: under new_track_confidence it only continues a known ball, under the extractor's ghost_below it
    # lowers the track's mean towards a ghost's
    confidence: float = 0.7


@dataclass(frozen=True)
class LaunchFix:
    id: str
    pos_mm: np.ndarray
    blur_mm: float
    followed: bool = False  # found following a launched ball (else: a ball just lost from rest)


class LaunchWatch:
    """``frame_dt``: the camera's frame interval where the stream states one. The watch's spans are counted in
    it, not in the time since the frame seen before: an observer that fell behind and dropped frames would
    otherwise look for every ball lost in the last seconds, across the table, on every frame (over a second a
    frame on a 720p break), and fall further behind."""

    def __init__(
        self,
        calibration: Calibration,
        max_speed_mm_s: float,
        settings: LaunchWatchSettings | None = None,
        frame_dt: float | None = None,
    ) -> None:
        from vision.launch import LaunchFinder

        self.cal = calibration
        self.s = settings or LaunchWatchSettings()
        self.max_speed = max_speed_mm_s
        self.frame_dt = frame_dt
        self.finder = LaunchFinder(calibration)
        self._seen_t: dict[str, float] = {}  # id: when the ball was last detected
        self._launched: dict[str, tuple[tuple[float, float], float, float]] = {}  # id: (place, left it, found)
        self._rest: dict[str, tuple[tuple[float, float], float]] = {}  # id: (where it last rested, when)
        self.count = 0

    def observe(self, tf: TrackerFrame) -> None:
        """After the tracker's step: who was seen, and which launched balls are no longer followed."""
        for b in tf.balls:
            if b.meas is not None:
                self._seen_t[b.id] = tf.t
            if b.resting:
                self._rest[b.id] = ((float(b.pos[0]), float(b.pos[1])), tf.t)
        ids = {b.id for b in tf.balls}
        for k in [k for k in self._launched if k not in ids]:
            del self._launched[k]

    def rename(self, mapping: dict[str, str]) -> None:
        self._seen_t = {mapping.get(k, k): v for k, v in self._seen_t.items()}
        self._rest = {mapping.get(k, k): v for k, v in self._rest.items()}
        self._launched = {mapping.get(k, k): v for k, v in self._launched.items()}

    def fixes(self, frame_bgr: np.ndarray, last: TrackerFrame, det_pos: np.ndarray, t: float) -> list[LaunchFix]:
        """This frame's launch measurements: balls lost from rest found by their streak, and launched ones
        followed."""
        dt = t - last.t
        r = self.cal.table.ball_radius_mm
        pred = {b.id: np.asarray(b.pos) + np.asarray(b.vel) * dt for b in last.balls}
        out: list[LaunchFix] = []
        launched: dict[str, tuple[tuple[float, float], float, float]] = {}
        for b in last.balls:
            search = self._search(frame_bgr, b, last, det_pos, t, pred)
            if search is None:
                continue
            reach = self.max_speed * (t - search.left)
            if search.near is None:
                reach = min(reach, self.s.max_reach_mm)
            others = np.array([p for k, p in pred.items() if k != b.id]).reshape(-1, 2)
            hit = self.finder.find(frame_bgr, search.place, reach, self.max_speed * dt, others, search.near)
            if hit is None:
                continue
            if not search.followed:
                launched[b.id] = (search.place, search.left, t)
            out.append(LaunchFix(b.id, np.asarray(hit.pos_mm), hit.blur_mm, followed=search.followed))
        out = _one_ball_a_streak(out, 2.0 * r)
        self._launched.update(launched)
        self.count += len(out)
        return out

    def _search(
        self,
        frame_bgr: np.ndarray,
        b: BallObs,
        last: TrackerFrame,
        det_pos: np.ndarray,
        t: float,
        pred: dict[str, np.ndarray],
    ) -> _Search | None:
        """Where to look for ``b``'s streak in this frame: along its launch while it is followed, else from its
        place if it was just lost from rest; None where it is not looked for."""
        seen = self._seen_t.get(b.id)
        if seen is None:
            return None
        if self._launched.get(b.id) is not None:
            return self._follow(b, t - last.t, t, pred)
        return self._lost_from_rest(frame_bgr, b, last, det_pos, t, seen)

    def _follow(self, b: BallObs, dt: float, t: float, pred: dict[str, np.ndarray]) -> _Search | None:
        """A launched ball followed by its streak, around where the tracker predicts it (a blur's half length
        and a diameter of slack); no longer once ``follow_s`` has passed or it came to rest."""
        place, left, found = self._launched[b.id]
        if t - found > self.s.follow_s or b.resting:
            del self._launched[b.id]
            return None
        speed = float(np.hypot(*b.vel))
        near = ((float(pred[b.id][0]), float(pred[b.id][1])), 0.5 * speed * dt + 2.0 * self.cal.table.ball_radius_mm)
        return _Search(place, left, near, followed=True)

    def _lost_from_rest(
        self, frame_bgr: np.ndarray, b: BallObs, last: TrackerFrame, det_pos: np.ndarray, t: float, seen: float
    ) -> _Search | None:
        """A resting ball (or one whose first blurred frame just broke its rest) lost for a few frames while its
        place shows plain cloth: struck away, looked for along a launch from its place."""
        from vision.launch import place_is_clear

        dt = t - last.t if self.frame_dt is None else min(t - last.t, self.frame_dt)
        rest = self._rest.get(b.id)
        if b.resting:
            place = (float(b.pos[0]), float(b.pos[1]))
        elif rest is not None and last.t - rest[1] <= self.s.left_frames * dt:
            place = rest[0]  # its first blurred frame broke its rest, and now it is lost
        else:
            return None
        if t - seen > self.s.search_frames * dt:
            return None
        r = self.cal.table.ball_radius_mm
        if len(det_pos) and float(np.min(np.hypot(*(det_pos - np.asarray(b.pos)).T))) < r:
            return None  # the detector still sees it at its place (or where its first blur put it)
        if not place_is_clear(frame_bgr, self.cal, place):
            return None  # hidden (a hand, the cue), not struck away
        return _Search(place, seen, None, followed=False)


class _Search(NamedTuple):
    """Where a launch search looks: the place the ball left, when it left it, and (while it is followed) the
    point it should be near with the radius around it; ``followed``: a launched ball followed."""

    place: tuple[float, float]
    left: float
    near: tuple[tuple[float, float], float] | None
    followed: bool


def _one_ball_a_streak(fixes: list[LaunchFix], apart_mm: float) -> list[LaunchFix]:
    """One streak is one ball's. Where a followed ball's search found the streak of a ball just struck from rest
    (the followed one's path bent by that very hit, its prediction runs on to where the other went), the streak
    is the struck ball's: the followed ball's fix is dropped."""
    fresh = [f for f in fixes if not f.followed]
    return [
        f for f in fixes if not (f.followed and any(float(np.hypot(*(f.pos_mm - g.pos_mm))) < apart_mm for g in fresh))
    ]


Look = tuple[float, Any, np.ndarray | None]  # a detection's confidence, class and colour


class GuidedMeasurement:
    """Launch and streak measurements for one stream, looked for where the tracker's last frame predicts.

    ``max_speed_mm_s`` bounds how far a launched ball can have gone; a ball whose track quality is below
    ``ghost_below`` (a track not yet believed) guides no streak search."""

    def __init__(
        self,
        calibration: Calibration,
        max_speed_mm_s: float,
        ghost_below: float,
        frame_dt: float | None = None,
        launch_settings: LaunchWatchSettings | None = None,
    ) -> None:
        """``frame_dt``: the camera's frame interval, where the stream states one (``LaunchWatch``)."""
        self.cal = calibration
        self.frame_dt = frame_dt
        self.table = calibration.table
        self.max_speed = max_speed_mm_s
        self.ghost_below = ghost_below
        self._launch_settings = launch_settings
        self._launches: LaunchWatch | None = None  # built on the first frame it is needed (its maps cost time)
        self.looks: dict[str, Look] = {}  # id: its last detection's confidence, class and colour
        self.streak_count = 0

    @property
    def launches(self) -> LaunchWatch:
        if self._launches is None:
            self._launches = LaunchWatch(self.cal, self.max_speed, self._launch_settings, self.frame_dt)
        return self._launches

    def measure(self, frame_bgr: np.ndarray, dets: Any, last: TrackerFrame, t: float) -> Guided:
        """This frame's detections (``pos_mm``, ``confidence``, ``cls``, optional ``colour``), guided by the
        tracker's ``last`` frame: launch measurements first, then streak measurements of the fast balls not
        launched now."""
        pos = np.asarray(dets.pos_mm, dtype=float).reshape(-1, 2)
        conf = np.asarray(dets.confidence, dtype=float).reshape(-1)
        cls = np.asarray(dets.cls).reshape(-1)
        colour = getattr(dets, "colour", None)
        col = None if colour is None else np.asarray(colour, dtype=float).reshape(-1, 3)
        keep1, added1, launched = self._launch_measurements(frame_bgr, pos, last, t)
        # the streak search reads the frame as the launch measurements left it
        pos1 = np.vstack([pos[keep1], *[a.pos_mm[None, :] for a in added1]])
        conf1 = np.concatenate([conf[keep1], [a.confidence for a in added1]])
        cls1 = np.concatenate([cls[keep1], np.array([a.cls for a in added1], dtype=cls.dtype)])
        col1 = None if col is None else np.vstack([col[keep1], *[np.asarray(a.colour)[None, :] for a in added1]])
        keep2, added2 = self._streak_measurements(frame_bgr, pos1, conf1, cls1, col1, last, t, launched)
        keep = keep1.copy()
        n1 = int(keep1.sum())
        keep[keep1] = keep2[:n1]
        added = [a for a, k in zip(added1, keep2[n1:], strict=True) if k] + added2
        return Guided(keep, tuple(added))

    def observe(self, dets: Any, tf: TrackerFrame) -> None:
        """After the tracker's step on the measured frame ``dets``: each seen ball's look (what a streak
        measurement of it carries where the detector missed it altogether), and who the launch watch saw."""
        pos = np.asarray(dets.pos_mm, dtype=float).reshape(-1, 2)
        if len(pos):
            colour = getattr(dets, "colour", None)
            col = None if colour is None else np.asarray(colour, dtype=float).reshape(-1, 3)
            for b in tf.balls:
                if b.meas is None:
                    continue
                k = int(np.argmin(np.hypot(*(pos - np.asarray(b.meas)).T)))
                self.looks[b.id] = (float(dets.confidence[k]), dets.cls[k], None if col is None else col[k])
        self.launches.observe(tf)

    def rename(self, mapping: dict[str, str]) -> None:
        """Public ids changed (a relabel by the tracker, an operator's correction)."""
        self.looks = {mapping.get(k, k): v for k, v in self.looks.items()}
        if self._launches is not None:
            self._launches.rename(mapping)

    def forget_looks(self) -> None:
        """An operator renamed balls: the looks kept by the old ids no longer say whose they are."""
        self.looks.clear()

    def _launch_measurements(
        self, frame_bgr: np.ndarray, pos: np.ndarray, last: TrackerFrame, t: float
    ) -> tuple[np.ndarray, list[Added], set[str]]:
        """Balls struck from rest into a blur the detector misses, measured by their launch streak; a
        detector's fragments of that streak give way to it. Also the ids so measured."""
        fixes = [f for f in self.launches.fixes(frame_bgr, last, pos, t) if f.id in self.looks]
        keep = np.ones(len(pos), bool)
        added: list[Added] = []
        r = self.table.ball_radius_mm
        for f in fixes:
            if len(pos):
                keep &= np.hypot(*(pos - f.pos_mm).T) >= r + f.blur_mm / 2.0
            _, cls, col = self.looks[f.id]
            added.append(Added(np.asarray(f.pos_mm), self.launches.s.confidence, cls, col))
        return keep, added, {f.id for f in fixes}

    def _streak_measurements(
        self,
        frame_bgr: np.ndarray,
        pos: np.ndarray,
        conf: np.ndarray,
        cls: np.ndarray,
        col: np.ndarray | None,
        last: TrackerFrame,
        t: float,
        skip: set[str],
    ) -> tuple[np.ndarray, list[Added]]:
        """A fast, lone ball's detections near where the tracker expects it (one at a blurred end, or two
        fragments) replaced by the centre of its streak (``vision.streaks``), where that is measurable."""
        from vision.streaks import STREAK_MIN_BLUR_DIAMETERS, STREAK_MIN_PATH_MM, measure_streak

        keep = np.ones(len(pos), bool)
        added: list[Added] = []
        dt = t - last.t
        r = self.table.ball_radius_mm
        moving = [b for b in last.balls if not b.resting and b.quality >= self.ghost_below]
        fast = [b for b in moving if float(np.hypot(*b.vel)) * dt >= STREAK_MIN_PATH_MM and b.id not in skip]
        if not fast:
            return keep, added
        pred = {b.id: np.asarray(b.pos) + np.asarray(b.vel) * dt for b in last.balls}
        fps = 1.0 / dt
        for b in fast:
            p = pred[b.id]
            half = float(np.hypot(*b.vel)) * dt / 2.0  # half the path covered in a frame
            if not self._lone_straight_run(b.id, p, half, pred):
                continue
            near = np.where(keep & (np.hypot(*(pos - p).T) < r + half + 15.0))[0] if len(pos) else np.array([], int)
            if len(near) == 0 and (b.meas is None or b.id not in self.looks):
                continue  # missed now and not seen last frame: nothing to carry over
            m = measure_streak(frame_bgr, self.cal, (float(p[0]), float(p[1])), b.vel, fps)
            if m.pos_mm is None or float(np.hypot(m.pos_mm[0] - p[0], m.pos_mm[1] - p[1])) > r + half:
                continue
            if len(near) and m.blur_mm < STREAK_MIN_BLUR_DIAMETERS * 2 * r:
                continue  # a short blur: the detector's circle is the better measurement
            look = self._streak_look(b.id, near, keep, conf, cls, col)
            if look is not None:
                added.append(Added(np.asarray(m.pos_mm), *look))
        self.streak_count += len(added)
        return keep, added

    def _lone_straight_run(self, ball: str, p: np.ndarray, half: float, pred: dict[str, np.ndarray]) -> bool:
        """Is the frame's path of ``ball`` (predicted centre ``p``, ``half`` its half length) one straight blur
        of it alone: no other ball near it, no cushion and no pocket within reach inside the frame?"""
        r = self.table.ball_radius_mm
        clear = 2.0 * r + half + 2.0 * r
        if any(float(np.linalg.norm(q - p)) < clear for k, q in pred.items() if k != ball):
            return False  # another ball near the path: a contact, or its disc in the window
        if self.table.nearest_cushion((float(p[0]), float(p[1])))[1] < r + half + 20.0:
            return False  # a bounce inside the frame bends the path
        pockets = self.table.pockets.values()
        # a pocket: the ball may drop out of sight inside the frame
        return not any(float(np.hypot(*(p - pk.mouth_center))) < pk.mouth_width_mm + half + 2 * r for pk in pockets)

    def _streak_look(
        self, ball: str, near: np.ndarray, keep: np.ndarray, conf: np.ndarray, cls: np.ndarray, col: np.ndarray | None
    ) -> Look | None:
        """The look a streak measurement carries: the best of the detections it replaces (dropped from
        ``keep``), or where the detector missed the streak, the ball as it was last detected (less sure); None
        where the frame has colours and that last look has none."""
        if len(near):
            best = near[int(np.argmax(conf[near]))]
            keep[near] = False
            return (float(conf[best]), cls[best], None if col is None else col[best])
        c0, k0, col0 = self.looks[ball]
        if col is not None and col0 is None:
            return None
        return (0.8 * c0, k0, col0 if col is not None else None)
