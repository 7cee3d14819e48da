"""Weak detections no track took, watched until they prove themselves balls.

A ball the detector scores too low to start a track (a dark ball on dark cloth, a blurred rolling ball) is
still a ball when it behaves as one for ``rest_vouch_s``: it holds still (a *spot*, ``held_still``), or it
rolls on one ball's course (a *run*, ``on_course``); a hand or the cue tip does neither that long.
``BirthWatch`` owns the spots and runs being watched; the tracker says when to watch and turns a proven spot
or run into a track (it alone makes tracks and gives ids).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from calibration.table import TableModel
from tracking.tracker_settings import STILL_RADII

# The most a ball rolling free on the cloth changes its velocity in a second (mm/s^2): rolling resistance slows
# it by about 0.1 g, and the sliding just after a hit by about 0.2 g for a fraction of a second. A hand or the
# cue swept over the cloth turns and speeds up far more within a second; a rolling ball's run does not.
ROLLING_ACCEL_MM_S2 = 2000.0


@dataclass
class Spot:
    """A weak detection that no track took, seen again at one place: a ball at rest the detector scores too low
    to start a track (a dark ball on dark cloth), until it has held still for ``rest_vouch_s``. A run (seen
    again on one rolling course) is kept in the same record."""

    seen: list[tuple[float, float, float]]  # its sightings (t, x, y) over the last rest_vouch_s, oldest first
    conf: float  # the mean of its detections' confidence
    cue_votes: int
    colour: np.ndarray | None
    first_t: float  # when it was first seen

    @property
    def pos(self) -> np.ndarray:
        return np.mean(np.array(self.seen)[:, 1:], axis=0)

    def ahead(self, t: float) -> np.ndarray:
        """Where a ball rolling on the course of its last two sightings would be at ``t`` (its last sighting
        where it has only one)."""
        (t1, x1, y1) = self.seen[-1]
        if len(self.seen) < 2:
            return np.array([x1, y1])
        (t0, x0, y0) = self.seen[-2]
        k = (t - t1) / max(t1 - t0, 1e-6)
        return np.array([x1 + k * (x1 - x0), y1 + k * (y1 - y0)])

    def add(self, t: float, z: np.ndarray, conf: float, is_cue: bool, colour: np.ndarray | None) -> None:
        """One more sighting at ``z`` (mm): its confidence and colour join the running means, its class a vote."""
        self.seen.append((t, float(z[0]), float(z[1])))
        n = len(self.seen)
        self.conf += (conf - self.conf) / n
        self.cue_votes += 1 if is_cue else -1
        if colour is not None and self.colour is not None:
            self.colour = self.colour + (colour - self.colour) / n


@dataclass(frozen=True)
class Window:
    """The time a weak thing must prove itself over: sightings older than ``keep_for`` since the last one are
    forgotten (a thing missed longer than a tentative track may be), and the ``rest_vouch_s`` window ending now
    starts at ``since``; ``frame_dt`` is the frame interval."""

    keep_for: float
    since: float
    frame_dt: float


def held_still(pts: np.ndarray, ball_radius_mm: float) -> bool:
    """Are these sightings over ``rest_vouch_s`` one thing holding still: each within ``STILL_RADII`` ball
    radii of their mean? (A new thing missed more than ``tentative_max_misses`` frames is forgotten, so one
    that lasted that long was seen in most of its frames.) The circle is wider than the rest circle: a dark
    ball's faint rim puts its detections several millimetres about its centre, while a rolling ball leaves a
    radius within a frame or two."""
    reach = STILL_RADII * ball_radius_mm
    return float(np.max(np.linalg.norm(pts - pts.mean(axis=0), axis=1))) <= reach


def on_course(seen: np.ndarray, ball_radius_mm: float) -> np.ndarray | None:
    """The velocity now (mm/s) of a thing whose sightings (t, x, y) lie on one rolling ball's course: a
    path of constant acceleration no stronger than a rolling ball's (``ROLLING_ACCEL_MM_S2``), its sightings
    scattered about it by no more than ``STILL_RADII`` ball radii (root mean square: a faint rim's scatter, as
    ``held_still`` allows; a few sightings lie further off, a blurred rim's centre anywhere along its streak
    or a repeated frame showing the ball a frame's travel behind), moving more than that across the window (a
    thing holding still is a spot's), never turning back, and slowing at one rate (the cloth slows a rolling
    ball steadily; it cannot reverse it, nor speed it up and slow it again, as a hand swaying out and back
    does: the part of its path a changing rate would explain, a cubic's, stays within that scatter); else
    None."""
    reach = STILL_RADII * ball_radius_mm
    if len(seen) < 4:
        return None
    tt = seen[:, 0] - seen[-1, 0]
    a = np.stack([np.ones_like(tt), tt, tt * tt], axis=1)
    coef, *_ = np.linalg.lstsq(a, seen[:, 1:], rcond=None)
    off = float(np.sqrt(np.mean(np.sum((a @ coef - seen[:, 1:]) ** 2, axis=1))))
    moved = float(np.hypot(*(seen[-1, 1:] - seen[0, 1:])))
    if off > reach or moved <= 2 * reach or float(np.hypot(*(2 * coef[2]))) > ROLLING_ACCEL_MM_S2:
        return None
    if float((coef[1] + 2 * coef[2] * tt[0]) @ coef[1]) <= 0.0:
        return None  # its velocity as the window opened and now point apart: it turned back
    cubic, *_ = np.linalg.lstsq(np.column_stack([a, tt**3]), seen[:, 1:], rcond=None)
    if float(np.hypot(*cubic[3])) * (0.5 * float(tt[-1] - tt[0])) ** 3 > reach:
        return None  # its rate of slowing changed across the window: no ball rolling free
    return np.asarray(coef[1], dtype=float)


class BirthWatch:
    """The spots (weak things holding still) and runs (weak things on one rolling course) being watched, each
    until it proves itself a ball or is forgotten."""

    def __init__(self, table: TableModel) -> None:
        self.table = table
        self.spots: list[Spot] = []  # weak detections held still where no track is
        self.runs: list[Spot] = []  # weak detections on one rolling course where no track is

    def watch_spots(
        self,
        weak: list[int],
        z: np.ndarray,
        conf: np.ndarray,
        cue: np.ndarray,
        col: np.ndarray | None,
        t: float,
        w: Window,
        new: bool,
        at_rest: Callable[[Spot, np.ndarray], None],
    ) -> None:
        """Each weak detection ``weak`` joins the spot it lies within ``STILL_RADII`` ball radii of, or (where
        ``new``) starts one; a spot seen since the window opened that held still across it is a ball at rest,
        handed to ``at_rest`` with its sightings in the window, and watched no more."""
        reach = STILL_RADII * self.table.ball_radius_mm
        for c in weak:
            k = _join(
                self.spots, lambda sp: sp.pos, reach, new, t, z[c], conf[c], cue[c], None if col is None else col[c]
            )
            if k is None:
                continue
            sp = self.spots[k]
            if sp.seen[0][0] <= w.since + w.frame_dt:
                pts = np.array([(x, y) for rt, x, y in sp.seen if rt >= w.since])
                if held_still(pts, self.table.ball_radius_mm):
                    self.spots.pop(k)
                    at_rest(sp, pts)
                else:
                    del sp.seen[0]  # the oldest sighting left the window

    def forget_spots(self, t: float, keep_for: float) -> None:
        """Forgets the spots not seen for ``keep_for``."""
        self.spots = [sp for sp in self.spots if t - sp.seen[-1][0] <= keep_for]

    def watch_runs(
        self,
        weak: list[int],
        z: np.ndarray,
        conf: np.ndarray,
        cue: np.ndarray,
        col: np.ndarray | None,
        t: float,
        w: Window,
        rolling: Callable[[Spot, np.ndarray], bool],
    ) -> None:
        """Forgets the runs not seen for ``keep_for``; then each weak detection ``weak`` joins the run whose
        course puts it within a ball's diameter (``Spot.ahead``), or starts one. A run seen since the window
        opened on one rolling course (``on_course``) is handed to ``rolling`` with its velocity, and watched no
        more where ``rolling`` takes it as a ball."""
        self.runs = [r for r in self.runs if t - r.seen[-1][0] <= w.keep_for]
        gate = self.table.ball_diameter_mm
        for c in weak:
            k = _join(
                self.runs, lambda r: r.ahead(t), gate, True, t, z[c], conf[c], cue[c], None if col is None else col[c]
            )
            assert k is not None  # a run may always start
            run = self.runs[k]
            while run.seen[0][0] < w.since:
                del run.seen[0]  # the oldest sighting left the window
            if run.seen[0][0] > w.since + w.frame_dt:
                continue  # not seen that long yet
            course = on_course(np.array(run.seen), self.table.ball_radius_mm)
            if course is None:
                continue
            if rolling(run, course):
                self.runs.pop(k)


def _join(
    watched: list[Spot],
    place: Callable[[Spot], np.ndarray],
    gate: float,
    may_start: bool,
    t: float,
    z: np.ndarray,
    conf: float,
    is_cue: bool,
    colour: np.ndarray | None,
) -> int | None:
    """The index in ``watched`` of the thing a weak detection at ``z`` is one more sighting of: the nearest not
    yet seen at ``t`` whose ``place`` (where it should be now) lies within ``gate``, else a new thing where
    ``may_start``; None where it joins nothing."""
    near = [(float(np.hypot(*(z - place(w)))), k) for k, w in enumerate(watched) if w.seen[-1][0] < t]
    d, k = min(near, default=(math.inf, -1))
    if d > gate:
        if not may_start:
            return None
        watched.append(Spot([], float(conf), 0, None if colour is None else colour.copy(), t))
        k = len(watched) - 1
    watched[k].add(t, z, float(conf), bool(is_cue), colour)
    return k
