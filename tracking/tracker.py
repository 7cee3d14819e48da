"""Multi-ball tracker: detections in table mm -> ball tracks with explicit states and stable ids.

One Kalman filter per ball (``tracking.kalman``). Each frame:

1. predict every moving track to the frame's timestamp (a hidden one bounces off the cushions); a resting
   track stays on its anchor (``_predict``);
2. describe the association problem (``_scene`` -> ``tracking.association.Scene``) and price every
   track-detection pair as a sum of named terms (``association.costs``: anchor, motion, kink, tentative,
   colour), in two tiers: statistical (inside a ball's gate) and kink (outside it, within reach at top speed:
   a collision or a cushion; a nearer statistical match always wins);
3. rule pairs out with the gates (``tracking.gates.GATES``: each a named object with its physical reason),
   and match in two stages, ByteTrack's way: the confident detections first, then the weak ones to the tracks
   left (``association.match_confident``, ``association.match_weak``);
4. update the matched tracks, re-seed those matched through the kink tier; bring hidden balls back
   (``_reacquire``, ``_adopt_hidden``, ``_recover``); the rest are hidden (``_miss``), and leave as potted
   (vanished in a pocket mouth and stayed gone for ``pot_confirm_s``) or off the table, or come back with the
   same id. Every change of a track's state goes through ``tracking.states``' one table;
5. after a burst (a rack or cluster broken up: several resting balls set moving at once), check the ids of
   its balls two and three frames on, when each path run back to the burst leads to where its ball rested
   (``_Burst``); corrected ids come out in ``TrackerFrame.relabel``, for the frames since the burst, which
   a reader holds back while ``checking_burst``.

A resting ball is *anchored*: its position is the running mean of its detections, its velocity zero,
and only a detection within ``anchor_gate_mm`` keeps it at rest, so it neither drifts nor trades places
with a frozen neighbour. It starts moving when a detection lies beyond that gate.

No I/O and no clock: time comes in with every frame.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from filterpy.kalman import KalmanFilter
from scipy.optimize import linear_sum_assignment

from calibration.table import TableModel
from tracking import association, gates, paths, states
from tracking.ids import IdAssigner, match_ids
from tracking.kalman import (
    UNKNOWN_SPEED_SIGMA_MM_S,
    mahalanobis_sq_many,
    make_ball_filter,
    predict_dt,
    reseed,
    seeded_speed_sigma,
    update_position,
)
from tracking.paths import distances as _distances
from tracking.states import Change, Phase
from tracking.tracker_settings import REACQUIRE_RADIUS_MM, STILL_RADII, TrackerSettings
from vision.ball_classifier import combine
from vision.detections import CUE, Detections
from vision.packing import MIN_NEIGHBOURS, frozen_neighbours


class TrackState(StrEnum):
    TENTATIVE = "tentative"  # seen, not yet confirmed: holds no public id
    CONFIRMED = "confirmed"  # seen in this frame
    OCCLUDED = "occluded"  # not seen now; predicted (moving) or held on its anchor (resting)
    POTTED = "potted"  # vanished in a pocket mouth and stayed gone
    OFF_TABLE = "off_table"  # vanished beyond the playing field


_PUBLIC: dict[Phase, TrackState] = {
    Phase.TENTATIVE: TrackState.TENTATIVE,
    Phase.TENTATIVE_AT_REST: TrackState.TENTATIVE,
    Phase.MOVING: TrackState.CONFIRMED,
    Phase.RESTING: TrackState.CONFIRMED,
    Phase.HIDDEN_MOVING: TrackState.OCCLUDED,
    Phase.HIDDEN_RESTING: TrackState.OCCLUDED,
    Phase.POTTED: TrackState.POTTED,
    Phase.OFF_TABLE: TrackState.OFF_TABLE,
}

# the quality reported for a vouched ball (above the extractor's ghost threshold, below a clear detection's)
VOUCHED_QUALITY = 0.75
# The most a ball rolling free on the cloth changes its velocity in a second (mm/s^2): rolling resistance slows
# it by about 0.1 g, and the sliding just after a hit by about 0.2 g for a fraction of a second. A hand or the
# cue swept over the cloth turns and speeds up far more within a second; a rolling ball's run does not.
ROLLING_ACCEL_MM_S2 = 2000.0
ACTIVE = (TrackState.TENTATIVE, TrackState.CONFIRMED, TrackState.OCCLUDED)


@dataclass(frozen=True)
class BallObs:
    """One ball in one frame, as the tracker sees it."""

    id: str
    pos: tuple[float, float]  # filtered (moving) or anchored (resting) position, mm
    meas: tuple[float, float] | None  # this frame's detection, or None where predicted
    vel: tuple[float, float]
    resting: bool
    state: TrackState
    kinked: bool = False  # matched through the kink tier (collision/cushion) this frame
    quality: float = 1.0  # running mean of its detections' confidence: low for a ghost (a hand, the cue tip)

    @property
    def visible(self) -> bool:
        return self.meas is not None


@dataclass(frozen=True)
class Loss:
    """A ball that left the table this frame (decided now; ``last_t`` is when it was last seen)."""

    id: str
    kind: str  # "pot" or "off_table"
    pocket: str | None
    last_pos: tuple[float, float]
    last_vel: tuple[float, float]
    last_t: float
    confidence: float


@dataclass(frozen=True)
class Reappearance:
    """A hidden resting ball that came back somewhere else (moved by hand or clothes while hidden)."""

    id: str
    old_pos: tuple[float, float]
    new_pos: tuple[float, float]
    t: float


@dataclass(frozen=True)
class TrackerFrame:
    frame: int
    t: float
    balls: tuple[BallObs, ...]
    losses: tuple[Loss, ...] = ()
    reappeared: tuple[Reappearance, ...] = ()
    # ids corrected in this frame, (old, new) pairs, for every frame since ``relabel_since`` (see ``_Burst``)
    relabel: tuple[tuple[str, str], ...] = ()
    relabel_since: float = 0.0

    def by_id(self) -> dict[str, BallObs]:
        return {b.id: b for b in self.balls}


@dataclass
class _Burst:
    """Resting balls set moving together: a rack or a cluster broken up. In the frame it bursts the balls are
    blurred and crowded, and the tracker may give a ball its neighbour's detection; two frames later each path,
    run back to the moment of the burst, shows where its ball rested, and so which ball it is."""

    t0: float  # the time of the last frame before the burst (every ball of it at rest)
    anchors: dict[int, np.ndarray]  # track key -> where that track's ball rested


@dataclass
class _Spot:
    """A weak detection that no track took, seen again at one place: a ball at rest the detector scores too low
    to start a track (a dark ball on dark cloth), until it has held still for ``rest_vouch_s``."""

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


@dataclass
class _Track:
    key: int
    kf: KalmanFilter
    phase: Phase  # its state (``tracking.states``); changed only through ``change``
    last_t: float
    last_meas: np.ndarray
    id: str | None = None
    hits: int = 1
    misses: int = 0
    cue_votes: int = 0
    quality: float = 1.0
    colour: np.ndarray | None = None
    anchor: np.ndarray | None = None
    anchor_n: int = 0
    prev_meas: np.ndarray | None = None
    prev_t: float | None = None
    left_anchor: np.ndarray | None = None  # where it rested before it was last set moving
    left_t: float = -math.inf  # when it was last set moving
    left_anchor_n: int = 0  # how many detections that resting place was the mean of
    # a ball, not a ghost: it took a known ball's id at its known place, or it held still or rolled on one ball's
    # course for a second (``_vouch_at_rest``)
    vouched: bool = False
    # of its ``hits``, the sightings on detections where vision saw no place for a new ball (``_maybe_confirm``)
    barred: int = 0
    first_t: float = 0.0  # when it was first seen
    recent: deque[tuple[float, float, float]] = field(default_factory=lambda: deque(maxlen=64))
    # a hidden moving ball's extrapolation when it stopped (coast_s), and the speed it had: where to look for it
    coast_end: np.ndarray | None = None
    coast_speed: float = 0.0

    @property
    def state(self) -> TrackState:
        """The public state its phase shows (``BallObs.state``)."""
        return _PUBLIC[self.phase]

    @property
    def resting(self) -> bool:
        return self.phase in states.RESTING

    def change(self, change: Change) -> None:
        self.phase = states.after(self.phase, change)

    @property
    def pos(self) -> np.ndarray:
        return self.anchor if (self.resting and self.anchor is not None) else self.kf.x[:2].copy()

    @property
    def vel(self) -> np.ndarray:
        return np.zeros(2) if self.resting else self.kf.x[2:4].copy()


class Tracker:
    """Feed ``step(frame, t, pos_mm, confidence, is_cue)`` once per frame; read ``TrackerFrame``s."""

    def __init__(
        self,
        table: TableModel,
        settings: TrackerSettings | None = None,
        known_ids: dict[str, tuple[float, float]] | None = None,
    ) -> None:
        self.table = table
        self.s = settings or TrackerSettings()
        self.ids = IdAssigner(dict(known_ids or {}), match_radius_mm=table.ball_radius_mm)
        self._tracks: list[_Track] = []
        self._next_key = 1
        self._t: float | None = None
        self._lost_recent: list[str] = []
        self._t0: float | None = (
            None  # when the first ball was seen  # ids of balls that left the table, most recent last
        )
        self._shot_active = False
        self._frame_dt_est: float | None = None
        self._shot_flip_t: float | None = None  # when shot_active last turned on (this tracker's clock)
        self._burst: _Burst | None = None
        self._colour: np.ndarray | None = None  # this frame's detections' colours (None where not measured)
        self._cue = np.zeros(0, bool)  # this frame's detections classed as the cue ball
        self._recovered: list[Reappearance] = []  # hidden resting balls found elsewhere in this frame
        self._pocket = np.zeros(0, np.int64)  # this frame's detections' pockets (``step``'s ``pocket``)
        self._barred = np.zeros(0, bool)  # this frame's detections where vision saw no place for a new ball
        self._resumed_t = -math.inf  # when observation last resumed after frames without the table (``resume``)
        self._spots: list[_Spot] = []  # weak detections held still where no track is (``_watch_spots``)
        self._runs: list[_Spot] = []  # weak detections on one rolling course where no track is (``_watch_runs``)
        pockets = list(table.pockets.values())
        # the pockets' mouth centres, outward normals and mouth widths as arrays (the cloth test's screen)
        self._mouths = (
            np.array([pk.mouth_center for pk in pockets], dtype=float).reshape(-1, 2),
            np.array([pk.outward for pk in pockets], dtype=float).reshape(-1, 2),
            np.array([pk.mouth_width_mm for pk in pockets], dtype=float),
        )

    # ---- public API ------------------------------------------------------------------------------------
    @property
    def shot_active(self) -> bool:
        """Was a shot in play at the last ``step`` (its ``shot_active`` input)?"""
        return self._shot_active

    def step(
        self,
        frame: int,
        t: float,
        pos_mm: np.ndarray,
        confidence: np.ndarray | None = None,
        is_cue: np.ndarray | None = None,
        colour: np.ndarray | None = None,
        shot_active: bool = False,
        may_start: np.ndarray | None = None,
        pocket: np.ndarray | None = None,
        look: np.ndarray | None = None,
    ) -> TrackerFrame:
        """One frame's detections: table positions (N x 2), and optionally their confidence, whether each is
        the distinguishable cue ball, and their mean colour (N x 3, any colour space), which keeps two balls
        of different colours from trading ids where their paths meet. ``shot_active``: is a shot in play (the
        event extractor decides it)? A respotted ball appears only between shots, and a ball lost in a stroke's
        blur is looked for only around a shot's start. ``look``: each detection's p(ball) by its look (NaN where
        not judged), which lets a ball the geometry finds poorly start a track (``vision.ball_classifier.combine``)."""
        if shot_active and not self._shot_active:
            self._shot_flip_t = self._t  # the last frame before the shot was seen in play
        self._shot_active = shot_active
        z, conf, cue, col, start, born_conf = self._admit(pos_mm, confidence, is_cue, colour, may_start, pocket, look)
        t_prev = self._t
        active = self._predict(t)
        rows, cols, tiers = self._associate(active, z, t, conf)
        matched_t: set[int] = set()
        matched_d: set[int] = set()
        kinked: set[int] = set()
        for r, c, tier in zip(rows, cols, tiers, strict=True):
            tr = active[r]
            tr.barred += int(not start[c])
            tr.quality += 0.1 * (float(conf[c]) - tr.quality)
            if col is not None:
                tr.colour = col[c].copy() if tr.colour is None else tr.colour + 0.1 * (col[c] - tr.colour)
            self._update(tr, z[c], bool(cue[c]), t, tier)
            matched_t.add(r)
            matched_d.add(c)
            if tier == 1:
                kinked.add(tr.key)
        reappeared = self._reacquire(active, matched_t, z, matched_d, cue, t, conf) + self._recovered
        self._recovered = []

        losses = self._miss([tr for i, tr in enumerate(active) if i not in matched_t], t)
        self._start_tracks(z, born_conf, cue, col, start, matched_d, t)
        relabel = self._watch_burst(t, t_prev)
        balls = tuple(self._observe(tr, t, tr.key in kinked) for tr in self._tracks if self._public(tr))
        since = relabel[0] if relabel is not None else 0.0
        pairs = relabel[1] if relabel is not None else ()
        return TrackerFrame(frame, t, balls, tuple(losses), tuple(reappeared), pairs, since)

    def _miss(self, missed: list[_Track], t: float) -> list[Loss]:
        """The tracks not seen this frame: a tentative one missed too often is dropped (a hand, the cue tip); a
        public one is hidden, and judged gone (potted, off the table) where and how long it has been gone."""
        losses: list[Loss] = []
        for tr in missed:
            tr.misses += 1
            if tr.state == TrackState.TENTATIVE:
                if tr.misses > self.s.tentative_max_misses:
                    self._tracks.remove(tr)
                continue
            tr.change(Change.MISSED)
            if not tr.resting:
                self._rest_hidden(tr, t)
            loss = self._check_loss(tr, t)
            if loss is not None:
                losses.append(loss)
        return losses

    def _start_tracks(
        self,
        z: np.ndarray,
        conf: np.ndarray,
        cue: np.ndarray,
        col: np.ndarray | None,
        start: np.ndarray,
        matched_d: set[int],
        t: float,
    ) -> None:
        """A new tentative track for each clear detection no track took (or one at a known ball's place), where
        vision saw room for a new ball."""
        # in the first frame a ball frozen among others is a ball at once (``_new_track``); later it never matters
        first_frame = self._t0 is None or self._t0 == t
        packed = (frozen_neighbours(z, self.table.ball_diameter_mm) >= MIN_NEIGHBOURS) if first_frame else None
        room = self._room_for_ball(z)
        for c in range(len(z)):
            if not (start[c] and room[c]):
                continue
            if c not in matched_d and (conf[c] >= self.s.new_track_confidence or self._at_known_place(z[c], t)):
                sure = packed is not None and bool(packed[c]) and conf[c] >= self.s.new_track_confidence
                self._tracks.append(self._new_track(z[c], bool(cue[c]), t, float(conf[c]), sure))
                self._tracks[-1].colour = None if col is None else col[c].copy()
        weak = [c for c in range(len(z)) if start[c] and room[c] and c not in matched_d]
        self._watch_spots([c for c in weak if conf[c] < self.s.new_track_confidence], z, conf, cue, col, t)

    def _watch_spots(
        self, weak: list[int], z: np.ndarray, conf: np.ndarray, cue: np.ndarray, col: np.ndarray | None, t: float
    ) -> None:
        """Every ball on the table as the video opens gets a track, however weak its detections: one too weak to
        start a track (below ``new_track_confidence``) that no track took (``weak``: where a ball may start and
        its centre can be), seen in the first moments (``_in_opening``), is kept as a spot; a spot that holds still
        for ``rest_vouch_s`` (``_held_still``) is a ball at rest and becomes a track. Later a weak blob is no new
        ball (a ball cannot appear from nowhere), but a lost ball seen at rest again gets its track back: while a
        public ball is hidden, a weak blob is watched the same way, and one that holds still for ``rest_vouch_s``
        is a ball at rest, which takes the hidden ball's id (``_recover``; a hand or the cue tip does not hold
        still that long, and a blob under the player's arm is no place to start: ``weak`` leaves it out). A spot
        missed longer than a tentative track may be is forgotten."""
        s = self.s
        keep_for = (s.tentative_max_misses + 0.5) * self._frame_dt
        self._spots = [sp for sp in self._spots if t - sp.seen[-1][0] <= keep_for]
        reach = STILL_RADII * self.table.ball_radius_mm
        lost = any(tr.state == TrackState.OCCLUDED and tr.id is not None for tr in self._tracks)
        watch = self._in_opening(t) or lost
        self._watch_runs(weak if lost and not self._in_opening(t) else [], z, conf, cue, col, t)
        for c in weak:
            near = [(float(np.hypot(*(z[c] - sp.pos))), k) for k, sp in enumerate(self._spots) if sp.seen[-1][0] < t]
            d, k = min(near, default=(math.inf, -1))
            if d > reach:
                if not watch:
                    continue
                colour = None if col is None else col[c].copy()
                self._spots.append(_Spot([], float(conf[c]), 0, colour, t))
                k = len(self._spots) - 1
            sp = self._spots[k]
            sp.add(t, z[c], float(conf[c]), bool(cue[c]), None if col is None else col[c])
            since = self._vouch_since(t)
            if sp.seen[0][0] <= since + self._frame_dt:
                pts = np.array([(x, y) for rt, x, y in sp.seen if rt >= since])
                if self._held_still(pts):
                    self._spots.pop(k)
                    self._tracks.append(self._ball_at_rest(sp, pts, t))
                else:
                    del sp.seen[0]  # the oldest sighting left the window

    def _watch_runs(
        self, weak: list[int], z: np.ndarray, conf: np.ndarray, cue: np.ndarray, col: np.ndarray | None, t: float
    ) -> None:
        """A lost ball seen rolling again gets its track back: while a public ball is hidden, weak blobs that no
        track took are chained into runs, each sighting within a ball's diameter of where the run's last two put
        it (a rolling ball's course; a run that meets a cushion or a ball starts again). A run seen in most
        frames for ``rest_vouch_s`` on one rolling course (``_on_course``) is a ball, which takes a hidden
        ball's id (``_adopt_hidden``, else ``_recover``): a dark ball struck while its track was held at its
        place, whose detections all stay below ``new_track_confidence``. A run forgotten as a spot is."""
        s = self.s
        keep_for = (s.tentative_max_misses + 0.5) * self._frame_dt
        self._runs = [r for r in self._runs if t - r.seen[-1][0] <= keep_for]
        gate = self.table.ball_diameter_mm
        for c in weak:
            near = [(float(np.hypot(*(z[c] - r.ahead(t)))), k) for k, r in enumerate(self._runs) if r.seen[-1][0] < t]
            d, k = min(near, default=(math.inf, -1))
            if d > gate:
                colour = None if col is None else col[c].copy()
                self._runs.append(_Spot([], float(conf[c]), 0, colour, t))
                k = len(self._runs) - 1
            run = self._runs[k]
            run.add(t, z[c], float(conf[c]), bool(cue[c]), None if col is None else col[c])
            since = self._vouch_since(t)
            while run.seen[0][0] < since:
                del run.seen[0]  # the oldest sighting left the window
            if run.seen[0][0] > since + self._frame_dt:
                continue  # not seen that long yet
            course = self._on_course(np.array(run.seen))
            if course is None:
                continue
            tr = self._ball_on_course(run, course, t)
            if tr is not None:
                self._runs.pop(k)

    def _on_course(self, seen: np.ndarray) -> np.ndarray | None:
        """The velocity now (mm/s) of a thing whose sightings (t, x, y) lie on one rolling ball's course: a
        path of constant acceleration no stronger than a rolling ball's (``ROLLING_ACCEL_MM_S2``), its sightings
        scattered about it by no more than ``STILL_RADII`` ball radii (root mean square: a faint rim's scatter, as
        ``_held_still`` allows; a few sightings lie further off, a blurred rim's centre anywhere along its streak
        or a repeated frame showing the ball a frame's travel behind), moving more than that across the window (a
        thing holding still is a spot's, ``_watch_spots``), never turning back, and slowing at one rate (the cloth
        slows a rolling ball steadily; it cannot reverse it, nor speed it up and slow it again, as a hand swaying
        out and back does: the part of its path a changing rate would explain, a cubic's, stays within that
        scatter); else None."""
        reach = STILL_RADII * self.table.ball_radius_mm
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

    def _ball_on_course(self, run: _Spot, vel: np.ndarray, t: float) -> _Track | None:
        """The track of a run on a rolling course (``_watch_runs``), where it is a hidden ball found again:
        moving with the run's velocity, vouched for, public under the hidden ball's id; None (no track) where
        no hidden ball can be it."""
        last = np.array(run.seen[-1][1:])
        if not self._room_for_ball(last.reshape(1, 2))[0]:
            return None
        tr = self._vouched_track(run, last, len(run.seen), t)
        reseed(tr.kf, last, vel, self.s.filter, self._frame_dt)
        tr.prev_meas, tr.prev_t = np.array(run.seen[-2][1:]), run.seen[-2][0]
        name = self._adopt_hidden(tr)
        if name is None:
            name = self._recover(tr, t, rolling=True)
        if name is None:
            return None
        tr.change(Change.CONFIRMED)
        tr.id = name
        self._tracks.append(tr)
        return tr

    def _ball_at_rest(self, sp: _Spot, pts: np.ndarray, t: float) -> _Track:
        """The track of a spot that held still long enough to be a ball (``_watch_spots``): at rest on the mean
        of its sightings, vouched for, and public at once where ``_maybe_confirm`` allows it."""
        mean = pts.mean(axis=0)
        tr = self._vouched_track(sp, mean, len(pts), t)
        tr.change(Change.SETTLED)
        tr.anchor, tr.anchor_n = mean, min(len(pts), 60)
        if tr.state == TrackState.TENTATIVE:
            self._maybe_confirm(tr, t)
        return tr

    def _vouched_track(self, sp: _Spot, pos: np.ndarray, hits: int, t: float) -> _Track:
        """A new track at ``pos`` for a spot or run that proved itself a ball by holding still or rolling on one
        course: it carries the sightings' confidence, colour, class votes and history, and is vouched for."""
        tr = self._new_track(pos, sp.cue_votes > 0, t, sp.conf)
        tr.cue_votes, tr.colour, tr.hits, tr.first_t = sp.cue_votes, sp.colour, hits, sp.first_t
        tr.recent.clear()
        tr.recent.extend(sp.seen)
        tr.vouched = True
        return tr

    def _room_for_ball(self, z: np.ndarray) -> np.ndarray:
        """(N,) bool: where a ball's centre can be. The cushion stops a ball with its centre nearly a radius
        from the nose (the nose touches it just above its equator, at 0.96 R), so nothing whose centre lies
        closer than half a radius to a nose (the other half: calibration and detection error) is a new ball,
        but in a pocket's mouth, which a ball enters: it is the cushion itself, the rail, a player's hand on it."""
        tb = self.table
        m = 0.5 * tb.ball_radius_mm
        inside = (z[:, 0] >= m) & (z[:, 0] <= tb.length_mm - m) & (z[:, 1] >= m) & (z[:, 1] <= tb.width_mm - m)
        for c in np.flatnonzero(~inside):
            inside[c] = tb.in_pocket_mouth(_pt(z[c])) is not None
        return inside

    @staticmethod
    def _public(tr: _Track) -> bool:
        return tr.state in (TrackState.CONFIRMED, TrackState.OCCLUDED) and tr.id is not None

    @staticmethod
    def _observe(tr: _Track, t: float, kinked: bool) -> BallObs:
        """A public track as the frame reports it."""
        assert tr.id is not None
        seen = tr.state == TrackState.CONFIRMED and tr.last_t == t
        quality = round(max(tr.quality, VOUCHED_QUALITY) if tr.vouched else tr.quality, 3)
        meas = _pt(tr.last_meas) if seen else None
        return BallObs(tr.id, _pt(tr.pos), meas, _pt(tr.vel), tr.resting, tr.state, kinked, quality)

    def scene(
        self, t: float, dets: Detections, pocket: np.ndarray | None = None, may_start: np.ndarray | None = None
    ) -> association.Scene:
        """The association problem the next ``step`` at ``t`` would solve on ``dets`` (its columns: the detections
        the tracker admits, in order; ``pocket`` and ``may_start`` as ``step`` takes them), with the tracker left
        as it was: to inspect or test the cost and gates."""
        probe = copy.deepcopy(self)
        z, conf, *_ = probe._admit(dets.pos_mm, dets.confidence, dets.cls == CUE, dets.colour, may_start, pocket, None)
        active = probe._predict(t)
        return probe._scene(active, z, t, conf)

    def _admit(
        self,
        pos_mm: np.ndarray,
        confidence: np.ndarray | None,
        is_cue: np.ndarray | None,
        colour: np.ndarray | None,
        may_start: np.ndarray | None,
        pocket: np.ndarray | None,
        look: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
        """The detections a ball on the cloth can make: confident enough, on the cloth, one per ball; last, each
        one's confidence as a new ball (raised where its ``look`` is a ball's, ``vision.ball_classifier.combine``,
        in the opening moments only: see ``_opening``)."""
        z = np.asarray(pos_mm, dtype=float).reshape(-1, 2)
        conf = np.ones(len(z)) if confidence is None else np.asarray(confidence, dtype=float).reshape(-1)
        cue = np.zeros(len(z), bool) if is_cue is None else np.asarray(is_cue, dtype=bool).reshape(-1)
        col = None if colour is None else np.asarray(colour, dtype=float).reshape(-1, 3)
        keep = (conf >= self.s.min_confidence) & np.all(np.isfinite(z), axis=1) & self._on_cloth(z)
        keep &= ~_same_ball(z, conf, self.table.ball_radius_mm)
        # ``may_start``: False where vision saw no place for a new ball (inside a pocket, under a player's arm)
        start = np.ones(len(z), bool) if may_start is None else np.asarray(may_start, dtype=bool).reshape(-1)
        # ``pocket``: the index (``table.pockets``' order) of the pocket whose inside holds each detection, or -1
        self._pocket = np.full(len(z), -1) if pocket is None else np.asarray(pocket).reshape(-1)
        self._pocket = self._pocket[keep]
        self._barred = ~start[keep]
        born = conf if look is None or not self._opening() else combine(conf, np.asarray(look, dtype=float).reshape(-1))
        z, conf, cue, start, born = z[keep], conf[keep], cue[keep], start[keep], born[keep]
        col = None if col is None or len(col) != len(keep) else col[keep]
        self._colour, self._cue = col, cue
        return z, conf, cue, col, start, born

    def _opening(self) -> bool:
        """Has the tracker watched the table for less than ``warmup_s`` (before this frame)? As the video opens
        every ball is at rest at its place and none is known yet: a ball the rim finds poorly (a dark ball on blue
        cloth) but that looks like one is a ball to start. Later every ball on the table has been seen; a new
        track is then a ball already known (hidden, moving) or something else, and a blob with almost no rim
        that only looks round and lit (the bridge hand on the cue, 0.3 by its rim) is not vouched for by its
        look: it must show a ball's rim, as without the classifier."""
        return self._t0 is None or self._t is None or self._t - self._t0 < self.s.warmup_s

    def _predict(self, t: float) -> list[_Track]:
        """Moves the clock to ``t`` and every moving track's filter with it (a hidden one bounces off the
        cushions, and one hidden past coast_s is held where it was last seen); returns the active tracks."""
        dt = 0.0 if self._t is None else max(t - self._t, 1e-6)
        if dt > 0:
            self._frame_dt_est = dt if self._frame_dt_est is None else 0.9 * self._frame_dt_est + 0.1 * dt
        self._t = t
        active = [tr for tr in self._tracks if tr.state in ACTIVE]
        for tr in active:
            if tr.state == TrackState.OCCLUDED and not tr.resting and t - tr.last_t > self.s.coast_s:
                # hidden too long to extrapolate: hold it where it was last seen (on the table)
                if tr.coast_end is None:
                    tr.coast_end, tr.coast_speed = tr.kf.x[:2].copy(), float(np.hypot(*tr.kf.x[2:4]))
                tr.kf.x = np.array([*self._clamp(tr.last_meas), 0.0, 0.0])
                continue
            if not tr.resting and dt > 0:
                predict_dt(tr.kf, dt, self.s.filter)
                if tr.state == TrackState.OCCLUDED:
                    self._bounce(tr)
        return active

    @property
    def checking_burst(self) -> bool:
        """Are the ids of a burst's balls still to be checked? Their frames since it may yet be relabelled."""
        return self._burst is not None

    def _watch_burst(self, t: float, t_prev: float | None) -> tuple[float, tuple[tuple[str, str], ...]] | None:
        """Notes a burst (``_Burst``), adds the balls that join it, and checks its ids when their paths show
        them: returns (the time from which, the (old, new) id pairs) where ids changed."""
        s = self.s
        left = {
            tr.key: tr.left_anchor
            for tr in self._tracks
            if tr.id is not None
            and tr.state in ACTIVE
            and not tr.resting
            and tr.left_t == t
            and tr.left_anchor is not None
        }
        b = self._burst
        if b is None:
            if t_prev is not None and len(left) >= s.burst_min_balls:
                self._burst = _Burst(t_prev, dict(left))
            return None
        dt = self._frame_dt
        if t - b.t0 <= s.burst_join_frames * dt + 1e-9:
            b.anchors.update(left)
        if t - b.t0 < s.burst_check_frames * dt - 1e-6:
            return None
        if t - b.t0 >= s.burst_last_frames * dt - 1e-6:
            self._burst = None  # the last check
        return self._check_burst(b, t)

    def _check_burst(self, b: _Burst, t: float) -> tuple[float, tuple[tuple[str, str], ...]] | None:
        """Each ball of the burst seen in this frame and the one before (both after it): its path run back to
        the burst's moment (searched over the frame interval it happened in) against where the burst's balls
        rested, assigned one to one (least total distance); ids change where that assignment beats the present
        one and each changed ball's path leads back to within a radius of its new place."""
        dt = self._frame_dt
        members = [
            tr
            for tr in self._tracks
            if tr.key in b.anchors
            and tr.id is not None
            and tr.state == TrackState.CONFIRMED
            and tr.last_t == t
            and tr.prev_t is not None
            and tr.prev_t > b.t0 + 0.5 * dt
        ]
        if len(members) < 2:
            return None
        z = np.array([tr.last_meas for tr in members])
        v = np.array([(tr.last_meas - tr.prev_meas) / max(tr.last_t - (tr.prev_t or 0.0), 1e-6) for tr in members])
        a = np.array([b.anchors[tr.key] for tr in members])
        best: tuple[float, np.ndarray, np.ndarray] | None = None
        for tb in np.linspace(b.t0, b.t0 + dt, 9):
            back = z - v * (t - tb)
            cost = _distances(back, a)
            r, c = linear_sum_assignment(cost)
            total = float(cost[r, c].sum())
            if best is None or total < best[0]:
                best = (total, c, cost)
        assert best is not None
        _, c, cost = best
        changed = np.flatnonzero(c != np.arange(len(members)))
        if not len(changed):
            return None
        if float(cost[changed, c[changed]].max()) > self.table.ball_radius_mm:
            return None  # a changed ball's path does not lead back to its new place: noise, not an answer
        old = [str(tr.id) for tr in members]  # every member has an id (filtered above)
        pairs = tuple((old[k], old[int(c[k])]) for k in changed)
        for k in changed:
            members[k].id = old[int(c[k])]
            members[k].left_anchor = a[int(c[k])].copy()
            b.anchors[members[k].key] = a[int(c[k])].copy()
        return b.t0 + 0.5 * dt, pairs

    def _bounce(self, tr: _Track) -> None:
        """A hidden rolling ball predicted through a cushion bounced off it: its prediction mirrored in the
        cushion's touching line (one radius in from the nose), its velocity with it, the normal parts shortened
        by the cushion's restitution (except in a pocket's mouth, where it may run on and drop)."""
        x = tr.kf.x
        lo = self.table.ball_radius_mm
        hi = (self.table.length_mm - lo, self.table.width_mm - lo)
        if lo <= x[0] <= hi[0] and lo <= x[1] <= hi[1]:
            return
        if self.table.in_pocket_mouth((float(x[0]), float(x[1]))):
            return
        e = self.s.cushion_restitution
        for k in (0, 1):
            if x[k] < lo:
                x[k], x[k + 2] = lo + e * (lo - x[k]), -e * x[k + 2]
            elif x[k] > hi[k]:
                x[k], x[k + 2] = hi[k] - e * (x[k] - hi[k]), -e * x[k + 2]
        sv = self.s.bounce_sigma_mm_s
        tr.kf.P = tr.kf.P + np.diag([0.0, 0.0, sv * sv, sv * sv])

    def _clamp(self, p: np.ndarray) -> np.ndarray:
        R = self.table.ball_radius_mm
        return np.clip(p, [R, R], [self.table.length_mm - R, self.table.width_mm - R])

    def _on_cloth(self, z: np.ndarray) -> np.ndarray:
        """Detections a ball on the table can make: inside the cushion noses (a little slack for noise),
        and not past a pocket's mouth, where a ball already dropped (or the rail, a caption, a spectator)
        would be."""
        tb = self.table
        m = self.s.cloth_slack_mm
        ok = (z[:, 0] >= -m) & (z[:, 0] <= tb.length_mm + m) & (z[:, 1] >= -m) & (z[:, 1] <= tb.width_mm + m)
        # Screened for all pockets at once (elementwise, to a micrometre): the exact test below runs only for a
        # pocket with a detection near the zone past its mouth line, where it could reject one.
        mc_all, out_all, width_all = self._mouths
        dx = z[None, :, 0] - mc_all[:, 0:1]
        dy = z[None, :, 1] - mc_all[:, 1:2]
        past = dx * out_all[:, 0:1] + dy * out_all[:, 1:2] > self.s.dropped_depth_mm - 1e-3
        beside = np.abs(dy * out_all[:, 0:1] - dx * out_all[:, 1:2]) <= width_all[:, None] + 1e-3
        maybe = (past & beside).any(axis=1).tolist()
        for pk, near in zip(tb.pockets.values(), maybe, strict=True):
            if not near:
                continue
            mc, out = np.array(pk.mouth_center), np.array(pk.outward)
            depth = (z - mc) @ out
            lateral = np.abs((z - mc) @ np.array([-out[1], out[0]]))
            ok &= ~((depth > self.s.dropped_depth_mm) & (lateral <= pk.mouth_width_mm))
        return ok

    def rename(self, old: str, new: str) -> None:
        """Operator correction: the ball now called ``old`` is ``new`` (swapped with any holder of ``new``)."""
        holder = next((tr for tr in self._tracks if tr.id == new), None)
        target = next((tr for tr in self._tracks if tr.id == old), None)
        if target is None:
            raise KeyError(f"no ball '{old}' on the table")
        if holder is not None:
            holder.id = old
        target.id = new
        self.ids.reserve(new)

    def assign_ids(self, wanted: dict[str, tuple[float, float]]) -> dict[str, str]:
        """Operator correction by position: give each wanted id to the ball nearest its position."""
        positions = {tr.id: tr.pos for tr in self._tracks if tr.id is not None and tr.state in ACTIVE}
        mapping = match_ids(positions, wanted, radius_mm=self.table.ball_diameter_mm)
        by_id = {tr.id: tr for tr in self._tracks if tr.id is not None}
        for old, new in mapping.items():
            by_id[old].id = new
            self.ids.reserve(new)
        return mapping

    # ---- association -----------------------------------------------------------------------------------
    def _associate(
        self, tracks: list[_Track], z: np.ndarray, t: float, conf: np.ndarray
    ) -> tuple[list[int], list[int], list[int]]:
        """Pairs tracks with detections: the summed cost terms (``tracking.association``), the gates in turn
        (``tracking.gates``), then two least-cost assignments: the confident detections first, the weak ones
        after, to the tracks left. Returns (track rows, detection columns, tiers)."""
        if not tracks or len(z) == 0:
            return [], [], []
        sc = self._scene(tracks, z, t, conf)
        cost, tier = association.costs(sc)
        allowed = gates.apply(sc, np.isfinite(cost), tier)
        confident = association.confident_detections(sc, tier)
        first = association.match_confident(cost, allowed, tier, confident)
        second = association.match_weak(cost, allowed, tier, confident, first)
        return association.joined(first, second)

    def _scene(self, tracks: list[_Track], z: np.ndarray, t: float, conf: np.ndarray) -> association.Scene:
        """The facts the cost terms and gates read, for ``tracks`` (predicted to ``t``) and detections ``z``:
        what each ball is doing, where it can be now, and what each detection may be."""
        kinds = _ball_kinds(tracks)
        last, anchor = _ball_places(tracks, kinds.anchored)
        speed_bound = _speed_bounds(tracks, kinds)
        pred = np.array([tr.kf.x[:2] for tr in tracks], dtype=float).reshape(-1, 2)
        hits = self._runs_into_resting(last, pred, anchor, kinds.anchored)
        gauged = ~kinds.anchored & ~hits & ~self._blind(tracks, kinds, speed_bound)
        weak, at_known = self._detection_kinds(z, conf, t)
        return association.Scene(
            s=self.s,
            t=t,
            frame_dt=self._frame_dt,
            ball_diameter_mm=self.table.ball_diameter_mm,
            ball_radius_mm=self.table.ball_radius_mm,
            z=z,
            weak=weak,
            at_known=at_known,
            colour=self._colour,
            is_cue=self._cue,
            ids=tuple(tr.id for tr in tracks),
            occluded=kinds.occluded,
            tentative=kinds.tentative,
            seen=kinds.seen,
            resting=kinds.resting,
            anchored=kinds.anchored,
            named=kinds.named,
            last=last,
            anchor=anchor,
            pos=np.array([tr.pos for tr in tracks], dtype=float).reshape(-1, 2),
            pred=pred,
            vel=np.array([tr.kf.x[2:4] for tr in tracks], dtype=float).reshape(-1, 2),
            last_t=np.array([tr.last_t for tr in tracks], dtype=float),
            speed_bound=speed_bound,
            reach=self._reach(tracks, t),
            track_colour=self._track_colours(tracks),
            cue_votes=np.array([tr.cue_votes for tr in tracks], dtype=int),
            hits=hits,
            gauged=gauged,
            m2=_motion_gauge(tracks, gauged, z),
            entering_pocket=self._entering_pockets(tracks, kinds.occluded),
            pocket_run=self._pocket_runs(tracks, kinds.occluded, z),
            in_pocket=self._pocket,
            going_pocket=self._going_pockets(tracks),
            left_q=self._just_set_moving(tracks, t),
            d_last=_distances(last, z),
            d_anchor=_distances(anchor, z),
        )

    def _detection_kinds(self, z: np.ndarray, conf: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
        """What each detection may be: weak (a ball-like blob that may be a hand or the cue tip), and, in the
        first moments, at a known ball's starting place (a ball frozen in a cluster shows little rim)."""
        m = len(z)
        # a detection vision saw no place for a new ball on (a pocket's liner, a watch) is no clear ball either
        weak = (conf < self.s.new_track_confidence) | self._barred
        at_known = [self._at_known_place(zz, t) for zz in z] if self._in_warmup(t) else [False] * m
        return weak, np.array(at_known, bool).reshape(m)

    def _blind(self, tracks: list[_Track], kinds: _BallKinds, speed_bound: np.ndarray) -> np.ndarray:
        """Balls seen once with their velocity unknown (a tentative track not at a known place): their gate is
        as wide as a break's speed, so they are matched by distance alone, in the kink tier, where a known
        ball's kink comes before them (else the cue tip, seen once beside the struck ball, takes its
        detection)."""
        once = np.array([tr.hits == 1 for tr in tracks])
        return kinds.tentative & once & (speed_bound >= UNKNOWN_SPEED_SIGMA_MM_S)

    def _runs_into_resting(
        self, last: np.ndarray, pred: np.ndarray, anchor: np.ndarray, anchored: np.ndarray
    ) -> np.ndarray:
        """Moving balls whose run since they were last seen meets a resting ball squarely: they hit it, so
        their prediction past it means nothing."""
        free = ~anchored
        hits = np.zeros(len(last), bool)
        reach = self.table.ball_diameter_mm - self.s.tunnel_tol_mm
        hits[free] = paths.runs_into(last[free], pred[free], anchor[anchored], reach)
        return hits

    def _entering_pockets(self, tracks: list[_Track], occluded: np.ndarray) -> np.ndarray:
        """Hidden balls last seen running into a pocket's mouth (they may be gone down it)."""
        return np.array([bool(o) and self._entering_pocket(tr) for tr, o in zip(tracks, occluded, strict=True)], bool)

    def _pocket_runs(self, tracks: list[_Track], occluded: np.ndarray, z: np.ndarray) -> np.ndarray:
        """For each hidden ball that was entering a pocket, each detection's distance from its run in (a fast
        ball unseen for a frame is seen again in the jaws); inf for every other pair."""
        pocket_run = np.full((len(tracks), len(z)), np.inf)
        for i in np.flatnonzero(occluded):
            d_pk = self._from_pocket_run(tracks[i], z)
            if d_pk is not None:
                pocket_run[i] = d_pk
        return pocket_run

    def _just_set_moving(self, tracks: list[_Track], t: float) -> np.ndarray:
        """Where the balls set moving just now (within ``weak_resume_s``) rested: a weak blob there is more
        likely the hand or cue over the empty place than the ball come back."""
        return np.array(
            [tr.left_anchor for tr in tracks
             if not tr.resting and tr.left_anchor is not None and t - tr.left_t <= self.s.weak_resume_s]
        ).reshape(-1, 2)  # fmt: skip

    def _track_colours(self, tracks: list[_Track]) -> np.ndarray | None:
        """Each ball's running colour (NaN rows where none is known yet); None where detections carry none."""
        if self._colour is None:
            return None
        colours = np.array([np.full(3, np.nan) if tr.colour is None else tr.colour for tr in tracks])
        return colours.astype(float).reshape(len(tracks), -1)

    def _reach(self, tracks: list[_Track], t: float) -> np.ndarray:
        """How far from where it was last seen each track's ball can be now. A ball in sight: at top speed since
        then. A ball hidden at rest stays where it went under (within ``_reacquire_radius``) unless something
        could have set it moving unseen, and then no farther than that could send it (``_struck_speed``). A ball
        hidden while rolling: no farther than its speed carries it (the cloth only slows it), give or take a
        collision's kick or a cushion's rebound (``hidden_speedup``), and not across the table to a blob (the
        player's hand)."""
        s = self.s
        reach = np.empty(len(tracks))
        for i, tr in enumerate(tracks):
            gap = max(t - tr.last_t, 1e-6)
            reach[i] = s.max_speed_mm_s * gap + self.table.ball_radius_mm
            if tr.state != TrackState.OCCLUDED:
                continue
            if gap > 0.2:
                # past a blink a hidden ball is looked for where it went under (struck unseen, it comes back as a
                # new ball whose path leads there: ``_adopt_hidden``) or along its path (``_reacquire``)
                reach[i] = min(reach[i], self._reacquire_radius(tr, t))
            if tr.resting:  # where it went under, or as far as a stroke or a hit could have sent it since
                struck = self._struck_speed(tr, tracks, t) * gap + self.table.ball_radius_mm
                reach[i] = min(reach[i], max(self._reacquire_radius(tr, t), struck))
            if not tr.resting and gap > 1.5 * self._frame_dt:
                speed = float(np.hypot(*tr.kf.x[2:4]))
                reach[i] = min(reach[i], s.hidden_speedup * speed * gap + 2.0 * self.table.ball_diameter_mm)
        return reach

    def _struck_speed(self, tr: _Track, tracks: list[_Track], t: float) -> float:
        """How fast a ball hidden at rest may have been set moving unseen by now (``t``); 0 where nothing could
        have struck it. While every ball rests the cue may strike any of them, and drive it at top speed (the
        stroke hidden under the cue and the player's arm). Once balls move, only a moving ball that could have
        reached it, or one that reached a ball frozen to it (a hit passes through a chain: a rack at the break),
        sets it moving, and no faster than that ball went (equal masses: a hit gives at most the hitter's speed,
        and the cloth only slows a ball), as far as it was measured before this ball went under
        (``_speed_since``); a ball whose speed was not measured by then may have gone at top speed."""
        movers = [o for o in tracks if not o.resting and o.state != TrackState.TENTATIVE and o is not tr]
        if not movers:
            return self.s.max_speed_mm_s
        D = self.table.ball_diameter_mm
        resting = [o for o in tracks if o.resting and o.state != TrackState.TENTATIVE]
        chain, todo = [tr], [tr]
        while todo:  # the balls frozen to it, and to those, ...
            a = todo.pop()
            for o in resting:
                if not any(o is c for c in chain) and float(np.linalg.norm(o.pos - a.pos)) <= D + self.s.frozen_tol_mm:
                    chain.append(o)
                    todo.append(o)
        places = np.array([c.pos for c in chain], dtype=float).reshape(-1, 2)
        top = 0.0
        for mv in movers:
            speed = self._speed_since(mv, tr.last_t)
            run = speed * (t - min(tr.last_t, mv.last_t))  # centres a diameter apart at the touch
            if float(np.min(np.linalg.norm(places - mv.last_meas, axis=1))) <= 2.0 * D + run:
                top = max(top, speed)
        return top

    def _speed_since(self, mv: _Track, t0: float) -> float:
        """The most moving ball ``mv`` can have gone at any time since ``t0``: the fastest it was seen to go
        between two sightings a frame apart, both since it was set moving (the launch's own step starts from
        rest partway through the frame and reads slow) and the later by ``t0``, with the measurement's
        spread (``gate_chi2``'s sigmas of a two-sighting speed); after that it only slowed (the cloth) or took
        at most a faster ball's speed (a hit between equal masses). A speed that was not measured by ``t0`` is
        not a speed of 0: a ball whose set-off was unseen (struck under the cue or hidden at a hit, at 30 fps
        one frame is enough) or seen moving only once may have been sent at top speed (``max_speed_mm_s``)."""
        s, dt = self.s, self._frame_dt
        seen = [(rt, x, y) for rt, x, y in mv.recent if mv.left_t - 1e-9 <= rt <= t0 + 1e-9]
        steps = [
            math.hypot(xb - xa, yb - ya) / (tb - ta)
            for (ta, xa, ya), (tb, xb, yb) in itertools.pairwise(seen)
            if 0.0 < tb - ta <= 1.5 * dt
        ]
        if not steps:
            return s.max_speed_mm_s
        spread = math.sqrt(s.gate_chi2) * seeded_speed_sigma(s.filter, dt)
        return min(max(steps) + spread, s.max_speed_mm_s)

    @property
    def _frame_dt(self) -> float:
        """The frame interval, as the timestamps show it (1/60 s before two frames have come)."""
        return self._frame_dt_est if self._frame_dt_est is not None else 1.0 / 60.0

    def _reacquire(
        self,
        tracks: list[_Track],
        matched_t: set[int],
        z: np.ndarray,
        matched_d: set[int],
        cue: np.ndarray,
        t: float,
        conf: np.ndarray,
    ) -> list[Reappearance]:
        """Second pass: an unmatched detection near a hidden ball (resting: within reacquire radius;
        moving: near its straight path, for moving_reacquire_s) brings that ball back with its id."""
        out: list[Reappearance] = []
        free_d = [c for c in range(len(z)) if c not in matched_d and conf[c] >= self.s.new_track_confidence]
        hidden = [
            i for i, tr in enumerate(tracks)
            if i not in matched_t and tr.state == TrackState.OCCLUDED and tr.id is not None
        ]  # fmt: skip
        if not free_d or not hidden:
            return out
        cost = np.full((len(hidden), len(free_d)), 1e9)
        claims = self._pocket_claims(tracks)
        for a, i in enumerate(hidden):
            d, near = self._where_hidden_ball_may_be(tracks[i], z[free_d], t)
            near &= claims[i, free_d]
            cost[a, near] = d[near]
        r, c = linear_sum_assignment(cost)
        for a, b in zip(r, c, strict=True):
            if cost[a, b] >= 1e9:
                continue
            back = self._bring_back(tracks[hidden[a]], z[free_d[b]], bool(cue[free_d[b]]), t)
            matched_t.add(hidden[a])
            matched_d.add(free_d[b])
            if back is not None:
                out.append(back)
        return out

    def _pocket_claims(self, tracks: list[_Track]) -> np.ndarray:
        """Which detections each track may take back (n x m): one inside a pocket's hole or net only the ball
        that was last seen going into that pocket (a ball does not climb out of a pocket; a hand reaches in)."""
        inside = self._pocket >= 0
        return ~inside[None, :] | (self._pocket[None, :] == self._going_pockets(tracks)[:, None])

    def _where_hidden_ball_may_be(self, tr: _Track, zf: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Each detection's distance from where hidden ``tr`` may be now, and whether it is near enough: along
        its run into a pocket; at its place if it rests (or has been gone too long to extrapolate); else
        along its extrapolated path, the window widening with its speed (it may have slowed or been kicked)."""
        gap = t - tr.last_t
        d_pk = None if tr.resting else self._from_pocket_run(tr, zf)
        if d_pk is not None:
            d, radius = d_pk, 2 * self.table.ball_diameter_mm
        else:
            if tr.resting or gap > self.s.moving_reacquire_s:
                centre, radius = tr.pos, self._reacquire_radius(tr, t)
            else:
                centre = tr.kf.x[:2]
                radius = REACQUIRE_RADIUS_MM + 0.5 * float(np.linalg.norm(tr.kf.x[2:4])) * gap
            d = np.linalg.norm(zf - centre, axis=1)
        near = d <= radius
        if tr.coast_end is not None and not tr.resting and gap <= self.s.moving_reacquire_s:
            # held where it was last seen once its extrapolation stopped: it is as likely where that
            # extrapolation (cushion bounces in it) had taken it by then, and on from there
            d_end = np.linalg.norm(zf - tr.coast_end, axis=1)
            on = d_end <= REACQUIRE_RADIUS_MM + 0.5 * tr.coast_speed * (gap - self.s.coast_s)
            d, near = np.where(on, np.minimum(d, d_end), d), near | on
        return d, near

    def _bring_back(self, tr: _Track, zc: np.ndarray, is_cue: bool, t: float) -> Reappearance | None:
        """Updates hidden ``tr`` with detection ``zc``; a resting ball seen again more than a radius from its
        place was moved while hidden (a hand or a ball it did not see), which is reported."""
        old = tr.pos.copy()
        was_resting = tr.resting
        self._update(tr, zc, is_cue, t, 1)
        if was_resting and tr.id is not None and float(np.linalg.norm(zc - old)) > self.table.ball_radius_mm:
            return Reappearance(tr.id, _pt(old), _pt(zc), t)
        return None

    def _reacquire_radius(self, tr: _Track, t: float) -> float:
        """How far from where it was a hidden ball may be seen again and keep its id. Between shots a hand may
        have moved it (``REACQUIRE_RADIUS_MM``). In play a ball hidden at rest for a while (under the player's
        arm) comes back at its place, within ``inplay_reacquire_mm``; struck while hidden, it comes back as a
        new ball whose path leads back to its place (``_adopt_hidden``), not as the hand that comes out from
        over it."""
        if self.shot_active and tr.resting and t - tr.last_t > self.s.inplay_hidden_s:
            return self.s.inplay_reacquire_mm
        return REACQUIRE_RADIUS_MM

    # ---- track updates ---------------------------------------------------------------------------------
    def _update(self, tr: _Track, zc: np.ndarray, is_cue: bool, t: float, tier: int) -> None:
        dt = max(t - tr.last_t, 1e-6)
        tr.coast_end = None
        if self._back_at_place(tr, zc):
            # One detection off its place, the next back on it: a ball set moving rolls away (the cloth only
            # slows it, and nothing it could hit sends it back onto the same spot a frame later), so that one
            # was a displaced blob (a highlight, a shadow merged with the ball): it never left, it rests there.
            assert tr.left_anchor is not None
            tr.change(Change.SETTLED)
            tr.anchor, tr.anchor_n = tr.left_anchor.copy(), max(tr.left_anchor_n, 1)
            tr.left_anchor, tr.left_t = None, -math.inf
            tr.kf.x = np.array([tr.anchor[0], tr.anchor[1], 0.0, 0.0])
            tier = 0
        if tr.resting and tr.anchor is not None and tier == 0:
            # Anchored: the running mean of the detections (capped so a slow creep is still followed).
            tr.anchor_n = min(tr.anchor_n + 1, 60)
            tr.anchor = tr.anchor + (zc - tr.anchor) / tr.anchor_n
            tr.kf.x = np.array([tr.anchor[0], tr.anchor[1], 0.0, 0.0])
        elif tier == 1 or (tr.resting and tr.anchor is not None):
            # A kink or a resting ball set moving: restart the filter from the last two detections, or, for a
            # ball unseen for frames before its kink (struck into a blur, it hit the rack), with its velocity
            # unknown: the one between its last two sightings runs through the collision.
            base = tr.anchor if (tr.resting and tr.anchor is not None) else tr.last_meas
            reseed(tr.kf, zc, (zc - base) / dt, self.s.filter, self._frame_dt)
            if tr.resting and tr.anchor is not None:
                tr.left_anchor = tr.anchor.copy()
                tr.left_anchor_n = tr.anchor_n
                tr.left_t = t
            tr.change(Change.SET_MOVING)
            tr.anchor = None
        else:
            update_position(tr.kf, zc)
        tr.prev_meas, tr.prev_t = tr.last_meas, tr.last_t
        tr.last_meas = zc.copy()
        tr.last_t = t
        tr.hits += 1
        tr.misses = 0
        tr.cue_votes += 1 if is_cue else -1
        tr.recent.append((t, float(zc[0]), float(zc[1])))
        if tr.state in (TrackState.OCCLUDED, TrackState.CONFIRMED):
            tr.change(Change.SEEN)
        elif tr.state == TrackState.TENTATIVE and tr.hits >= self.s.confirm_hits:
            self._maybe_confirm(tr, t)
        if not tr.resting:
            self._check_rest(tr, t)
        self._vouch_at_rest(tr, t)

    def _vouch_at_rest(self, tr: _Track, t: float) -> None:
        """A thing seen in most frames for ``rest_vouch_s`` holding still, or rolling on one ball's course, is a
        ball, however weakly the detector scores it (a dark ball on dark cloth has a faint rim, a rolling ball's
        rim is blurred): a hand or the cue tip does not hold still that long, nor move for a second on a straight
        path whose speed changes no faster than rolling on cloth allows (``_on_course``; a hand reaching over the
        table turns and speeds up, a stroke accelerates the cue many times faster). Its track is a ball from then
        on (``vouched``), reported above ``ghost_below`` however weak its later looks; a tentative one seen since
        the first moments becomes public (``_maybe_confirm``)."""
        if tr.vouched:
            return
        since = self._vouch_since(t)
        if not tr.recent or tr.recent[0][0] > since + self._frame_dt:
            return  # not seen that long ago: too young to tell
        seen = np.array([s for s in tr.recent if s[0] >= since])
        if self._held_still(seen[:, 1:]) or self._on_course(seen) is not None:
            tr.vouched = True

    def _vouch_since(self, t: float) -> float:
        """Where the ``rest_vouch_s`` window that ends at ``t`` starts (half a frame early, so a sighting exactly
        that old is in it)."""
        return t - self.s.rest_vouch_s - 0.5 * self._frame_dt

    def _held_still(self, pts: np.ndarray) -> bool:
        """Are these sightings over ``rest_vouch_s`` one thing holding still: each within ``STILL_RADII`` ball
        radii of their mean? (A new thing missed more than ``tentative_max_misses`` frames is forgotten, so one
        that lasted that long was seen in most of its frames.) The circle is wider than the rest circle: a dark
        ball's faint rim puts its detections several millimetres about its centre, while a rolling ball leaves a
        radius within a frame or two."""
        reach = STILL_RADII * self.table.ball_radius_mm
        return float(np.max(np.linalg.norm(pts - pts.mean(axis=0), axis=1))) <= reach

    def _back_at_place(self, tr: _Track, zc: np.ndarray) -> bool:
        """Whether ``tr``, set moving from its resting place on its last detection alone, is seen back inside
        that place's anchor gate now."""
        if tr.resting or tr.left_anchor is None or tr.left_t != tr.last_t:
            return False
        dx, dy = zc - tr.left_anchor
        return math.hypot(dx, dy) <= self.s.anchor_gate_mm

    def _maybe_confirm(self, tr: _Track, t: float) -> None:
        """A new ball becomes public at once in the first moments of the video. Later a ball cannot appear
        from nowhere: it is a hidden ball coming back (it takes that ball's id), or one placed on the table
        between shots, which must have rested for rest_window_s; anything else (a hand, the cue tip) stays
        tentative and is dropped when it goes. A placed ball is a clear detection: the player's bridge hand, still
        on the cloth before a stroke, is a weak ball-sized blob. Nothing becomes a ball where no ball's centre can
        be (``_room_for_ball``), nor from sightings most of which vision barred (``may_start``: inside a pocket, on
        what covers the table, not a ball's look): one frame's judgement of a blob a few pixels across flickers
        with the video's noise, and a track born on one such flicker, then fed by the same blob judged no ball
        in the frames around it (a pocket's pale liner, a watch), is that blob, not a ball; a ball is judged
        one in most of the frames it is seen."""
        if not self._room_for_ball(tr.last_meas.reshape(1, 2))[0]:
            return
        if 2 * tr.barred >= tr.hits:
            return
        if (self._t0 is None or t - self._t0 <= self.s.warmup_s) and (
            tr.quality >= self.s.placed_confidence or not self._off_known_places(tr)
        ):
            # (where the starting places are known, a weak blob away from all of them is no ball: the player's
            # hand at rest beside the cue ball)
            tr.change(Change.CONFIRMED)
            tr.id = self._claim_id(tr)
            return
        adopted = self._adopt_hidden(tr)
        if adopted is None:
            adopted = self._recover(tr, t)
        if adopted is not None:
            tr.change(Change.CONFIRMED)
            tr.id = adopted
            return
        if (tr.vouched and self._in_opening(tr.first_t) and not self._off_known_places(tr)) or (
            not self.shot_active
            and tr.resting
            and tr.hits >= 2 * self.s.confirm_hits
            and tr.quality >= self.s.placed_confidence
            and not self._moving()
        ):
            tr.change(Change.CONFIRMED)
            tr.id = self._claim_id(tr)

    def _in_opening(self, t: float) -> bool:
        """Was ``t`` in the first moments of the video (``warmup_s``), when every ball on the table is seen for the
        first time? Later a ball held still where no track was cannot have come from nowhere: it is a lost ball
        found again (``_recover``), or a ball placed between shots, or not a ball (a hand resting on the cloth)."""
        return self._t0 is None or t - self._t0 <= self.s.warmup_s

    def _recover(self, tr: _Track, t: float, rolling: bool = False) -> str | None:
        """A lost ball seen at rest again gets its track back: a new track seen clearly at rest (a placed ball's
        test) while a public ball of its colour is hidden is that ball, found where it stopped unseen (under the
        player, after a blurred run). Of several, the one whose last known place (its coasted run's end, for a
        ball hidden moving) is nearest, as the balls' motion has it; in a set of one colour that is the only
        guide. A ball that was hidden at rest and is found elsewhere was moved: a ``Reappearance``. ``rolling``:
        ``tr`` is a vouched run on a rolling course (``_watch_runs``), measured from where it was first seen."""
        s = self.s
        at_rest = tr.resting and tr.anchor is not None
        if not ((at_rest or (rolling and tr.vouched)) and tr.hits >= 2 * s.confirm_hits):
            return None
        if not self._was_ball(tr):
            return None  # neither seen clearly nor held still for ``rest_vouch_s``: a hand at rest, not a ball
        hidden = [
            o for o in self._tracks
            if o is not tr and o.state == TrackState.OCCLUDED and o.id is not None and self._same_colour(o, tr)
        ]  # fmt: skip
        if not hidden:
            return None
        anchor = tr.anchor if at_rest else _first_seen(tr)
        assert anchor is not None

        def gap(o: _Track) -> float:
            where = o.coast_end if (o.coast_end is not None and not o.resting) else o.pos
            return float(np.hypot(*(where - anchor)))

        best = min(hidden, key=gap)
        name = best.id
        assert name is not None
        if best.resting and gap(best) > self.table.ball_radius_mm:
            self._recovered.append(Reappearance(name, _pt(best.pos), _pt(anchor), t))
        best.id = None
        tr.vouched = tr.vouched or best.vouched
        tr.cue_votes = max(tr.cue_votes, best.cue_votes) if best.cue_votes > 0 else tr.cue_votes
        self._tracks.remove(best)
        return name

    def _same_colour(self, a: _Track, b: _Track) -> bool:
        """Could ``a`` and ``b`` be one ball by their looks: not firmly of different classes (cue or not), and
        of colours within colour_gate_sigma of each other where both are measured?"""
        firm = self.s.colour_class_votes
        if (a.cue_votes >= firm and b.cue_votes < 0) or (b.cue_votes >= firm and a.cue_votes < 0):
            return False
        if a.colour is None or b.colour is None:
            return True
        return float(np.linalg.norm(a.colour - b.colour)) <= self.s.colour_gate_sigma * self.s.colour_sigma

    def _check_rest(self, tr: _Track, t: float) -> None:
        # The samples within the window: the newest ones (``recent`` is in time order). Read from the newest back,
        # with their bounding box: once it is wider than the rest circle's diameter (and a micron), no centre has
        # them all within the radius, so the test below would fail: a moving ball leaves after two or three.
        cutoff = t - self.s.rest_window_s - 1e-9
        wide = 2.0 * self.s.rest_radius_mm + 1e-6
        n = 0
        x_lo = y_lo = math.inf
        x_hi = y_hi = -math.inf
        for rt, x, y in reversed(tr.recent):
            if rt < cutoff:
                break
            n += 1
            x_lo, x_hi, y_lo, y_hi = min(x_lo, x), max(x_hi, x), min(y_lo, y), max(y_hi, y)
            if x_hi - x_lo > wide or y_hi - y_lo > wide:
                return
        covered = tr.recent[0][0] <= t - self.s.rest_window_s + 1e-6
        young = n == len(tr.recent) and tr.hits <= len(tr.recent)  # its whole life is in the window
        if n < 4 or not (covered or young):
            return
        a = np.array([[x, y] for _, x, y in list(tr.recent)[len(tr.recent) - n :]])
        mean = a.mean(axis=0)
        if np.max(np.linalg.norm(a - mean, axis=1)) <= self.s.rest_radius_mm:
            tr.change(Change.SETTLED)
            tr.anchor = mean
            tr.anchor_n = len(a)
            tr.kf.x = np.array([mean[0], mean[1], 0.0, 0.0])

    def _rest_hidden(self, tr: _Track, t: float) -> None:
        """A ball hidden in the first moments whose last two sightings were at its known starting place (the
        rack, the operator), within the rest circle of each other, rests there: the player's arm may hide it
        from then until it is struck, too soon for the rest window to fill."""
        if not (tr.vouched and len(tr.recent) >= 2 and self._in_warmup(t)):
            return
        (_, x1, y1), (_, x2, y2) = tr.recent[-2], tr.recent[-1]
        mean = np.array([(x1 + x2) / 2, (y1 + y2) / 2])
        if math.hypot(x1 - x2, y1 - y2) > 2 * self.s.rest_radius_mm or not self._at_known_place(mean, t):
            return
        tr.change(Change.SETTLED)
        tr.anchor = mean
        tr.anchor_n = 2
        tr.kf.x = np.array([mean[0], mean[1], 0.0, 0.0])

    def _adopt_hidden(self, tr: _Track) -> str | None:
        """A new ball that came out of hiding on a straight path from where a hidden ball rested (struck
        under the player's arm) is that ball: it takes over the hidden track's id."""
        if tr.prev_meas is None or tr.prev_t is None:
            return None
        best = self._hidden_behind(tr, tr.prev_meas, tr.prev_t)
        if best is None and self.shot_active and not self._seen_twice_in_one_place(tr):
            best = self._lost_in_stroke_blur(tr)
        if best is None:
            return None
        name = best.id
        best.id = None
        tr.vouched = tr.vouched or best.vouched  # the same ball: a known ball at its place stays one under an arm
        self._tracks.remove(best)
        return name

    def _seen_twice_in_one_place(self, tr: _Track) -> bool:
        """A new ball seen just twice, both times in one place (within the anchor gate): still, or a frame the
        video repeated. Its path, which says which hidden ball it came from, shows on its next sighting; until
        then no ball lost anywhere in the stroke's blur is given its id."""
        if tr.prev_meas is None or tr.hits > self.s.confirm_hits:
            return False
        dx, dy = tr.last_meas - tr.prev_meas
        return math.hypot(dx, dy) <= self.s.anchor_gate_mm

    def _hidden_named(self, tr: _Track) -> list[_Track]:
        """The hidden public balls other than ``tr``."""
        return [o for o in self._tracks if o is not tr and o.state == TrackState.OCCLUDED and o.id is not None]

    def _hidden_behind(self, tr: _Track, prev: np.ndarray, prev_t: float) -> _Track | None:
        """The hidden ball whose place lies nearest the new ball's path run back from its first sighting
        ``prev`` (within a ball's diameter of it), or None."""
        v = (tr.last_meas - prev) / max(tr.last_t - prev_t, 1e-6)
        best, best_d = None, 2.0 * self.table.ball_radius_mm
        for old in self._hidden_named(tr):
            d = self._gap_from_path(old, prev, prev_t, v)
            if d is not None and d < best_d:
                best, best_d = old, d
        return best

    def _gap_from_path(self, old: _Track, prev: np.ndarray, prev_t: float, v: np.ndarray) -> float | None:
        """How far the hidden ball ``old``'s place lies from the path of a new ball first seen at ``prev`` (at
        ``prev_t``) moving with ``v``: from ``prev`` itself where the new ball is barely moving, else across the
        line it came along. None where ``old`` cannot be the new ball: it went into a pocket far away, lies ahead
        of the new ball, or too far behind it to have got there at top speed."""
        far = float(np.linalg.norm(prev - old.last_meas)) > 2 * self.table.ball_diameter_mm
        if far and self._entering_pocket(old):
            return None  # it vanished running into a pocket: it is in there, not coming out of hiding far away
        back = old.pos - prev
        speed = float(np.linalg.norm(v))
        if speed < 50.0:
            d = float(np.linalg.norm(back))
            return d if d <= REACQUIRE_RADIUS_MM else None
        u = v / speed
        along = float(back @ u)
        if along > 0:  # the hidden ball lies ahead of the new one, not behind it
            return None
        if -along > self.s.max_speed_mm_s * max(prev_t - old.last_t, 0.0) + self.table.ball_radius_mm:
            return None
        return abs(float(back[0] * u[1] - back[1] * u[0]))

    def _lost_in_stroke_blur(self, tr: _Track) -> _Track | None:
        """A ball that vanished from rest just before this shot and has not been seen since was struck too fast
        for the detector (a break shot's blur): the one that vanished last is this ball. Only a track that was a
        ball (``_was_ball``) hands its id on: the weak blob that vanishes as the stroke starts is as often the
        player's bridge hand or the cue tip, lifted off the cloth, and a ball that comes out of hiding later would
        take an id no ball had, and the weak look that kept that blob from being reported with it."""
        hidden = [
            o for o in self._hidden_named(tr)
            if self._was_ball(o) and self._vanished_at_rest(o) and self._vanished_at_stroke(o)
        ]  # fmt: skip
        return max(hidden, key=lambda o: o.last_t) if hidden else None

    def _was_ball(self, o: _Track) -> bool:
        """Was ``o`` a ball, not a ghost: seen clearly (a placed ball's test), or vouched for by its place, its
        stillness or its rolling course? A hand or the cue tip is a weak blob that is none of these."""
        return o.vouched or o.quality >= self.s.placed_confidence

    def _vanished_at_stroke(self, o: _Track) -> bool:
        """Did ``o`` vanish around this shot's stroke: at most ``blur_adopt_s`` before the shot was seen to
        start, and no later (a ball hidden later in the shot is under the player's arm, not lost in the
        stroke's blur)?"""
        flip = self._shot_flip_t
        if flip is None:
            return False
        return flip - self.s.blur_adopt_s <= o.last_t <= flip

    def _vanished_at_rest(self, o: _Track) -> bool:
        """Resting when it vanished, or seen set moving but gone before it got a radius from its place (the
        first blurred frame of a hard stroke still shows it, a few millimetres on)."""
        if o.resting:
            return True
        if o.left_anchor is None:
            return False
        return float(np.linalg.norm(o.last_meas - o.left_anchor)) <= self.table.ball_radius_mm

    def _claim_id(self, tr: _Track) -> str:
        adopted = self._adopt_hidden(tr)
        if adopted is not None:
            return adopted
        if not self.shot_active and self._lost_recent and self._t is not None and self._t > 0.5 and not self._moving():
            # A ball placed back on the table between shots (a respotted ball) takes the id of the ball that
            # left most recently; the operator can correct it.
            return self._lost_recent.pop()
        first = _first_seen(tr)
        name = self.ids.claim(first, tr.cue_votes > 0)
        known = name in self.ids.known and self._at_known_place(first, tr.recent[0][0] if tr.recent else None)
        tr.vouched = tr.vouched or known
        return name

    def _in_warmup(self, t: float | None) -> bool:
        """Could a detection at ``t`` be at a known ball's place (``_at_known_place``'s test of the time)?"""
        return not (t is None or (self._t0 is not None and t - self._t0 > self.s.warmup_s) or not self.ids.known)

    def _at_known_place(self, z: np.ndarray, t: float | None) -> bool:
        """In the first moments, a detection within a quarter radius of a ball's known starting place (the rack
        order or the operator's placement) is that ball, however weak the detector's confidence (a ball frozen
        in a cluster has little visible rim)."""
        return self._in_warmup(t) and self._known_gap(z) <= 0.25 * self.table.ball_radius_mm

    def _off_known_places(self, tr: _Track) -> bool:
        """The balls' starting places are known and the track was first seen a radius or more from each."""
        return bool(self.ids.known) and self._known_gap(_first_seen(tr)) >= self.table.ball_radius_mm

    def _known_gap(self, p: np.ndarray) -> float:
        """Distance (mm) from ``p`` to the nearest known starting place (infinite where none is known)."""
        return min((math.hypot(p[0] - q[0], p[1] - q[1]) for q in self.ids.known.values()), default=math.inf)

    def _moving(self) -> bool:
        """Is any public ball in motion (a shot in play, whether or not the extractor has decided so yet)?"""
        return any(tr.id is not None and tr.state == TrackState.CONFIRMED and not tr.resting for tr in self._tracks)

    def _new_track(self, zc: np.ndarray, is_cue: bool, t: float, conf: float = 1.0, packed: bool = False) -> _Track:
        """A tentative track at ``zc``; confirmed at once in the first frame where it is clearly a ball: a clear
        detection, or one frozen among two others (``packed``: a rack, which no hand makes)."""
        first_frame = self._t0 is None or self._t0 == t
        if self._t0 is None:
            self._t0 = t
        # a ball at its known starting place is at rest there: its velocity is known (zero), so its gate is a
        # few millimetres and it cannot take a neighbour's detection when its own drops out
        still = self._at_known_place(zc, t)
        kf = make_ball_filter(zc, self.s.filter, np.zeros(2) if still else None, self._frame_dt)
        tr = _Track(self._next_key, kf, Phase.TENTATIVE, t, zc.copy(), cue_votes=1 if is_cue else -1, first_t=t)
        tr.quality = conf
        tr.recent.append((t, float(zc[0]), float(zc[1])))
        self._next_key += 1
        # (a weak blob waits for its second sighting: the player's hand is one)
        if self.s.confirm_hits <= 1 or (first_frame and (conf >= self.s.placed_confidence or packed)):
            tr.change(Change.CONFIRMED)
            tr.id = self._claim_id(tr)
            # frozen among two others in the first frame: a ball of the rack, however faint its rim grows later
            tr.vouched = tr.vouched or packed
        return tr

    # ---- leaving the table -----------------------------------------------------------------------------
    def finish(self, t: float) -> tuple[Loss, ...]:
        """End of the stream: a hidden ball last seen entering a pocket (or leaving the field) and not seen
        since is decided now, however short the time since it vanished."""
        out = []
        for tr in self._tracks:
            if tr.state == TrackState.OCCLUDED and tr.id is not None:
                loss = self._check_loss(tr, t, final=True)
                if loss is not None:
                    out.append(loss)
        return tuple(out)

    def resume(self, t: float) -> None:
        """Observation resumes at ``t`` after frames that did not show the table (a camera cut, a graphics
        wipe): a ball is judged gone only on frames in which it was looked for, so its absence counts from now."""
        self._resumed_t = t

    def _check_loss(self, tr: _Track, t: float, final: bool = False) -> Loss | None:
        if tr.id is None:
            return None
        gap = t - max(tr.last_t, self._resumed_t)
        if final:
            gap = max(gap, self.s.pot_confirm_s)
        p = tr.last_meas
        v = np.zeros(2) if tr.resting else tr.kf.x[2:4]
        if tr.prev_meas is not None and tr.prev_t is not None and not tr.resting:
            v = (tr.last_meas - tr.prev_meas) / max(tr.last_t - tr.prev_t, 1e-6)
        speed = float(np.linalg.norm(v))
        tb = self.table
        R = tb.ball_radius_mm
        pocket = self._pocket_ahead(p, v)
        if pocket is not None and speed > 30.0 and gap >= self.s.pot_confirm_s:
            return self._lose(tr, "pot", pocket, v, 0.8 if final else 0.95)
        if pocket is None and speed > 30.0 and gap >= self.s.pot_confirm_s and self._climbed_rail(tr):
            # it ran at a rail fast enough to ride over it: gone off the table where its path leaves the field
            # within a frame or two, or where it vanished close to the rail
            ahead = p + v * min(gap, 0.1)
            margin = R + 5.0
            outside = not (-margin <= ahead[0] <= tb.length_mm + margin and -margin <= ahead[1] <= tb.width_mm + margin)
            near_rail = self._first_rail(p, v)[2] < 3 * R  # the rail it ran at, not one it ran along
            if outside or near_rail:
                return self._lose(tr, "off_table", None, v, 0.7)
        mouth = tb.in_pocket_mouth(_pt(p))
        if mouth is not None and (gap >= self.s.pot_confirm_s or final):
            # A ball hanging in the mouth that drops later (001 2.1.15): less certain than a running pot,
            # since a hand could hide it; flagged for review by the extractor.
            return self._lose(tr, "pot", mouth, v, 0.6)
        return None

    def _going_pockets(self, tracks: list[_Track]) -> np.ndarray:
        """For each track, the index (``table.pockets``' order) of the pocket it was last seen going into, or lying
        in the mouth of; -2 for none. Computed only where a detection lies inside a pocket (-2 for all else)."""
        out = np.full(len(tracks), -2)
        if not (self._pocket >= 0).any():
            return out
        names = list(self.table.pockets)
        for i, tr in enumerate(tracks):
            v = np.zeros(2) if tr.resting else tr.kf.x[2:4]
            if not tr.resting and tr.prev_meas is not None and tr.prev_t is not None:
                v = (tr.last_meas - tr.prev_meas) / max(tr.last_t - tr.prev_t, 1e-6)
            going = self._pocket_ahead(tr.last_meas, v) or self.table.in_pocket_mouth(_pt(tr.last_meas))
            out[i] = names.index(going) if going else -2
        return out

    def _entering_pocket(self, tr: _Track) -> bool:
        """Was ``tr`` last seen moving into a pocket (its last two sightings' velocity, as ``_check_loss`` reads it)?"""
        if tr.resting or tr.prev_meas is None or tr.prev_t is None:
            return False
        v = (tr.last_meas - tr.prev_meas) / max(tr.last_t - tr.prev_t, 1e-6)
        return float(np.linalg.norm(v)) > 30.0 and self._pocket_ahead(tr.last_meas, v) is not None

    def _from_pocket_run(self, tr: _Track, z: np.ndarray) -> np.ndarray | None:
        """For a hidden ball that was entering a pocket, the distances of detections ``z`` from its run in: the
        line from where it was last seen to the pocket's mouth (a fast ball unseen for a frame or two, at 30 fps,
        is seen again in the jaws, a frame's travel or more from where it was last seen). None for any other."""
        name = self._pocket_ahead(tr.last_meas, tr.kf.x[2:4])
        if name is None:
            return None
        a = np.asarray(tr.last_meas, dtype=float)
        ab = np.asarray(self.table.pockets[name].mouth_center, dtype=float) - a
        u = np.clip(((z - a) @ ab) / max(float(ab @ ab), 1e-9), 0.0, 1.0)
        return np.linalg.norm(z - (a + u[:, None] * ab), axis=1)

    def _pocket_ahead(self, p: np.ndarray, v: np.ndarray) -> str | None:
        """The pocket a ball last seen at ``p`` moving with ``v`` was entering: already in or just short of
        the mouth, or reaching the mouth line between its jaws within 0.1 s along its path."""
        tb = self.table
        R = tb.ball_radius_mm
        best, best_tau = None, math.inf
        for pk in tb.pockets.values():
            depth = pk.depth(_pt(p))
            vn = v[0] * pk.outward[0] + v[1] * pk.outward[1]
            # when (within 0.1 s) its path crosses the mouth line, and whether it does so between the jaws
            tau = -depth / vn if vn > 0 else math.inf
            crosses = tau <= 0.1
            between = crosses and abs(pk.lateral(_pt(p + v * tau))) <= pk.mouth_width_mm / 2 + R * 0.5
            if depth >= -R - 10.0 and abs(pk.lateral(_pt(p))) <= pk.mouth_width_mm / 2 + R:
                # Beside the mouth and heading out over the rail: a ball whose centre crosses the mouth line beyond
                # the jaws' tips meets the rail, not the hole, and if it vanishes it jumped off the table. A ball
                # rolling along the cushion into the pocket crosses that line slowly (past 0.1 s): this pocket's.
                if depth < 0 and crosses and not between and self._first_rail(p, v)[1] >= self.s.climb_speed_mm_s:
                    continue
                return pk.name
            if between and tau < best_tau:
                best, best_tau = pk.name, tau
        return best

    def _first_rail(self, p: np.ndarray, v: np.ndarray) -> tuple[int, float, float]:
        """The rail a ball at ``p`` moving with ``v`` reaches first: its axis (0: an end rail, across x; 1: a side
        rail, across y), the ball's speed normal to it (0 for a ball at rest) and its centre's distance from it."""
        tb = self.table
        taus, speeds, gaps = [], [], []
        for axis, hi in ((0, tb.length_mm), (1, tb.width_mm)):
            vn = float(v[axis])
            gap = (hi - float(p[axis])) if vn > 0 else float(p[axis])
            taus.append(max(gap, 0.0) / abs(vn) if vn != 0.0 else math.inf)
            speeds.append(abs(vn))
            gaps.append(gap)
        k = int(np.argmin(taus))
        return k, speeds[k], gaps[k]

    def _climbed_rail(self, tr: _Track) -> bool:
        """Was ``tr`` seen running at a rail fast enough to ride over its cushion (``climb_speed_mm_s``)? Both of
        its last two steps must be that fast toward the same rail: one such step after a standstill, or from a
        ball's first sighting, is a detection taken from another ball or a blob, not a run."""
        if tr.resting or len(tr.recent) < 3:
            return False
        (t0, x0, y0), (t1, x1, y1), (t2, x2, y2) = list(tr.recent)[-3:]
        v_prev = np.array([x1 - x0, y1 - y0]) / max(t1 - t0, 1e-6)
        v_last = np.array([x2 - x1, y2 - y1]) / max(t2 - t1, 1e-6)
        k, speed, _ = self._first_rail(np.array([x2, y2]), v_last)
        # the earlier step's speed toward that same rail
        prev = float(v_prev[k]) * math.copysign(1.0, float(v_last[k]))
        return min(speed, prev) >= self.s.climb_speed_mm_s

    def _lose(self, tr: _Track, kind: str, pocket: str | None, v: np.ndarray, conf: float) -> Loss:
        tr.change(Change.POT if kind == "pot" else Change.OFF)
        assert tr.id is not None
        self._lost_recent.append(tr.id)
        return Loss(tr.id, kind, pocket, _pt(tr.last_meas), _pt(v), tr.last_t, conf)


@dataclass(frozen=True)
class _BallKinds:
    """What each track's ball is doing this frame, as masks over the tracks."""

    occluded: np.ndarray  # not seen in the last frame
    tentative: np.ndarray  # seen, not yet a public ball
    seen: np.ndarray  # confirmed and seen in the last frame
    resting: np.ndarray  # at rest (seen or hidden)
    anchored: np.ndarray  # at rest on an anchor: its place is the mean of its detections
    named: np.ndarray  # holds a public id
    hidden_moving: np.ndarray  # hidden while it was moving: it rolls on unseen


def _ball_kinds(tracks: list[_Track]) -> _BallKinds:
    """Sorts the balls into seen, hidden, tentative and resting: each kind is priced and gated its own way."""
    kinds = [tr.state for tr in tracks]
    occluded = np.array([k == TrackState.OCCLUDED for k in kinds], bool)
    resting = np.array([tr.resting for tr in tracks], bool)
    return _BallKinds(
        occluded=occluded,
        tentative=np.array([k == TrackState.TENTATIVE for k in kinds], bool),
        seen=np.array([k == TrackState.CONFIRMED for k in kinds], bool),
        resting=resting,
        anchored=np.array([tr.resting and tr.anchor is not None for tr in tracks], bool),
        named=np.array([tr.id is not None for tr in tracks], bool),
        hidden_moving=occluded & ~resting,
    )


def _ball_places(tracks: list[_Track], anchored: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each ball was last seen, and where each resting one sits (its anchor; its last sighting for the
    others): a detection near either may be that ball."""
    last = np.array([tr.last_meas for tr in tracks], dtype=float).reshape(-1, 2)
    anchor = np.array([tr.anchor if a else tr.last_meas for tr, a in zip(tracks, anchored, strict=True)])
    return last, anchor.astype(float).reshape(-1, 2)


def _speed_bounds(tracks: list[_Track], kinds: _BallKinds) -> np.ndarray:
    """How fast a ball seen once, or one hidden while moving, may be going (its filter's speed or velocity
    sigma); the others never ask (0): a seen ball's filter prices it, a resting one does not move."""
    asks = kinds.tentative | kinds.hidden_moving
    return np.array([_speed_bound(tr.kf) if a else 0.0 for tr, a in zip(tracks, asks, strict=True)])


def _motion_gauge(tracks: list[_Track], gauged: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distance of each detection from each gauged ball's prediction (how surprising it
    is under the filter's motion model); inf for the balls whose prediction means nothing."""
    m2 = np.full((len(tracks), len(z)), np.inf)
    rows = np.flatnonzero(gauged)
    if len(rows):
        m2[rows] = mahalanobis_sq_many([tracks[i].kf for i in rows], z)
    return m2


def _same_ball(z: np.ndarray, conf: np.ndarray, radius: float) -> np.ndarray:
    """Detections of a ball another, more confident detection already gives (the two less than a radius apart:
    two balls' centres are never nearer than a diameter), to be dropped; of equals the later one."""
    out = np.zeros(len(z), bool)
    if len(z) < 2:
        return out
    d = _distances(z, z)
    for i, j in zip(*np.nonzero(np.triu(d < radius, 1)), strict=True):
        if not (out[i] or out[j]):
            out[j if conf[i] >= conf[j] else i] = True
    return out


def _first_seen(tr: _Track) -> np.ndarray:
    """Where a track was first seen (its oldest sample still kept)."""
    return np.array(tr.recent[0][1:]) if tr.recent else tr.last_meas


def _pt(a: np.ndarray) -> tuple[float, float]:
    return (float(a[0]), float(a[1]))


def _speed_bound(kf: KalmanFilter) -> float:
    """How fast the filter's ball may be going: its speed, or, where its velocity is not known (set off
    unseen), one standard deviation of that velocity."""
    return max(float(np.hypot(kf.x[2], kf.x[3])), float(np.sqrt(max(kf.P[2, 2], kf.P[3, 3]))))
