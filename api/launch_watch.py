"""Balls struck from rest into a blur the detector cannot see: found by their launch streak (vision.launch).

A resting ball that the detector loses while its place shows plain cloth was struck away (a ball merely
hidden under a hand or the cue leaves no cloth there). For a few frames the watch looks for its streak
around that place, a blob pointing back at it; the streak's centre is fed to the tracker as the ball's
measurement. Once found, the ball is followed by its streak for ``follow_s`` (searching only around where
it should be), which gives the tracker its direction and speed; after that the ordinary streak measurement
(``vision.streaks``, from the tracker's prediction) carries on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.mapping import Calibration
from tracking.tracker import TrackerFrame


@dataclass(frozen=True)
class LaunchWatchSettings:
    search_frames: float = 3.5  # a resting ball lost this many frames ago or less is looked for
    # ... and one whose first blurred measurement, a frame or so before it was lost, already broke its rest
    left_frames: float = 1.5
    follow_s: float = 0.5  # a launched ball is then followed by its streak this long (till it hits something)
    max_reach_mm: float = 800.0  # the search never spreads wider than this around the place
    confidence: float = 0.7  # of a launch measurement: a ball's mass, in line with its place


@dataclass(frozen=True)
class LaunchFix:
    id: str
    pos_mm: np.ndarray
    blur_mm: float
    followed: bool = False  # found following a launched ball (else: a ball just lost from rest)


class LaunchWatch:
    def __init__(self, calibration: Calibration, max_speed_mm_s: float, settings: LaunchWatchSettings | None = None):
        from vision.launch import LaunchFinder

        self.cal = calibration
        self.s = settings or LaunchWatchSettings()
        self.max_speed = max_speed_mm_s
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
        from vision.launch import place_is_clear

        dt = t - last.t
        r = self.cal.table.ball_radius_mm
        pred = {b.id: np.asarray(b.pos) + np.asarray(b.vel) * dt for b in last.balls}
        out: list[LaunchFix] = []
        launched: dict[str, tuple[tuple[float, float], float, float]] = {}
        for b in last.balls:
            seen = self._seen_t.get(b.id)
            if seen is None:
                continue
            state = self._launched.get(b.id)
            if state is not None:
                place, left, found = state
                if t - found > self.s.follow_s or b.resting:
                    del self._launched[b.id]
                    continue
                speed = float(np.hypot(*b.vel))
                near: tuple[tuple[float, float], float] | None = (
                    (float(pred[b.id][0]), float(pred[b.id][1])),
                    0.5 * speed * dt + 2.0 * r,
                )
            else:
                rest = self._rest.get(b.id)
                if b.resting:
                    place = (float(b.pos[0]), float(b.pos[1]))
                elif rest is not None and last.t - rest[1] <= self.s.left_frames * dt:
                    place = rest[0]  # its first blurred frame broke its rest, and now it is lost
                else:
                    continue
                if t - seen > self.s.search_frames * dt:
                    continue
                if len(det_pos) and float(np.min(np.hypot(*(det_pos - np.asarray(b.pos)).T))) < r:
                    continue  # the detector still sees it at its place (or where its first blur put it)
                left, near = seen, None
                if not place_is_clear(frame_bgr, self.cal, place):
                    continue  # hidden (a hand, the cue), not struck away
            reach = self.max_speed * (t - left)
            if near is None:
                reach = min(reach, self.s.max_reach_mm)
            others = np.array([p for k, p in pred.items() if k != b.id]).reshape(-1, 2)
            hit = self.finder.find(frame_bgr, place, reach, self.max_speed * dt, others, near)
            if hit is None:
                continue
            if state is None:
                launched[b.id] = (place, left, t)
            out.append(LaunchFix(b.id, np.asarray(hit.pos_mm), hit.blur_mm, followed=state is not None))
        out = _one_ball_a_streak(out, 2.0 * r)
        self._launched.update(launched)
        self.count += len(out)
        return out


def _one_ball_a_streak(fixes: list[LaunchFix], apart_mm: float) -> list[LaunchFix]:
    """One streak is one ball's. Where a followed ball's search found the streak of a ball just struck from rest
    (the followed one's path bent by that very hit, its prediction runs on to where the other went), the streak
    is the struck ball's: the followed ball's fix is dropped."""
    fresh = [f for f in fixes if not f.followed]
    return [
        f for f in fixes if not (f.followed and any(float(np.hypot(*(f.pos_mm - g.pos_mm))) < apart_mm for g in fresh))
    ]
