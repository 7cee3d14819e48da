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
4. update the matched tracks, re-seed those matched through the kink tier; bring hidden balls back where
   they may be (``_reacquire``, ``_adopt_hidden``, ``_recover``; ``tracking.hidden_balls``,
   ``tracking.identities``: who a ball is); the rest are hidden (``_miss``), and leave as potted (vanished in a
   pocket mouth and stayed gone for ``pot_confirm_s``) or off the table (``tracking.pocket_watch``), or come back
   with the same id. Every change of a track's state goes through ``tracking.states``' one table;
5. start a tentative track on each clear detection no track took, and watch the weak ones until they hold
   still or roll on one ball's course (``_start_tracks``; ``tracking.births``);
6. after a burst (a rack or cluster broken up: several resting balls set moving at once), check the ids of
   its balls two and three frames on, when each path run back to the burst leads to where its ball rested
   (``tracking.bursts``); corrected ids come out in ``TrackerFrame.relabel``, for the frames since the burst,
   which a reader holds back while ``checking_burst``.

A resting ball is *anchored*: its position is the running mean of its detections, its velocity zero,
and only a detection within ``anchor_gate_mm`` keeps it at rest, so it neither drifts nor trades places
with a frozen neighbour. It starts moving when a detection lies beyond that gate.

No I/O and no clock: time comes in with every frame.
"""

from __future__ import annotations

import copy
import math
from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from filterpy.kalman import KalmanFilter
from scipy.optimize import linear_sum_assignment

from calibration.contract import UNSTATED_FPS
from calibration.table import TableModel
from tracking import association, births, gates, hidden_balls, identities, jumps, paths, pocket_watch, states
from tracking.bursts import BurstWatch
from tracking.ids import IdAssigner, match_ids
from tracking.kalman import (
    UNKNOWN_SPEED_SIGMA_MM_S,
    mahalanobis_sq_many,
    make_ball_filter,
    predict_dt,
    reseed,
    update_position,
)
from tracking.paths import distances as _distances
from tracking.states import Change, Phase
from tracking.tracker_settings import TrackerSettings
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
# A resting ball seen again this many frames or fewer after its last sighting (one frame missed), more than a
# radius from its place, moved a radius in two frames (1 m/s at 60 fps, 0.5 m/s at 30): it was set rolling and
# its first step went unmatched (a struck ball's first blurred frame). It was not carried off unseen: a hand
# that moves a ball unseen covers it, carries it and uncovers it, which takes longer than that.
SET_OFF_FRAMES = 2
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
    # ids corrected in this frame, (old, new) pairs, for every frame since ``relabel_since`` (``tracking.bursts``)
    relabel: tuple[tuple[str, str], ...] = ()
    relabel_since: float = 0.0

    def by_id(self) -> dict[str, BallObs]:
        return {b.id: b for b in self.balls}


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
    last_conf: float = 1.0  # its last detection's confidence: a ball half under a hand scores 0.3-0.5
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
        frame_dt: float | None = None,
    ) -> None:
        """``frame_dt``: the stream's frame interval (s, one over the frame rate its source states; None where
        it states none: ``calibration.contract.UNSTATED_FPS``'s). It serves until two frames have come; from
        then on the interval is measured from the timestamps."""
        self.table = table
        self.s = settings or TrackerSettings()
        self._who = identities.Identities(table, self.s, dict(known_ids or {}))  # ids, and the balls that left
        self._tracks: list[_Track] = []
        self._next_key = 1
        self._t: float | None = None
        self._t0: float | None = None  # when the first ball was seen
        self._shot_active = False
        self._frame_dt_est: float | None = None
        self._stream_dt = 1.0 / UNSTATED_FPS if frame_dt is None else float(frame_dt)
        self._shot_flip_t: float | None = None  # when shot_active last turned on (this tracker's clock)
        self._bursts = BurstWatch()  # resting balls set moving together, until their ids are checked
        self._colour: np.ndarray | None = None  # this frame's detections' colours (None where not measured)
        self._cue = np.zeros(0, bool)  # this frame's detections classed as the cue ball
        self._recovered: list[Reappearance] = []  # hidden resting balls found elsewhere in this frame
        # the last frame's detections no ball took, and its time: where a ball struck from rest was first seen
        self._untaken = np.zeros((0, 2))
        self._untaken_t = -math.inf
        # (t, x, y) of the recent frames' detections no public ball took: a hand seen coming near a ball
        self._strays = np.zeros((0, 3))
        self._pocket = np.zeros(0, np.int64)  # this frame's detections' pockets (``step``'s ``pocket``)
        self._barred = np.zeros(0, bool)  # this frame's detections where vision saw no place for a new ball
        self._resumed_t = -math.inf  # when observation last resumed after frames without the table (``resume``)
        self._births = births.BirthWatch(table)  # weak detections watched until they prove themselves balls
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

    @property
    def ids(self) -> IdAssigner:
        """The public ids: the balls' known starting places and the ids in use (``identities.Identities``)."""
        return self._who.ids

    @property
    def checking_burst(self) -> bool:
        """Are the ids of a burst's balls still to be checked? Their frames since it may yet be relabelled."""
        return self._bursts.checking

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
            tr.last_conf = float(conf[c])
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
        self._untaken = z[[c for c in range(len(z)) if c not in matched_d]].reshape(-1, 2)
        self._untaken_t = t
        self._keep_strays(z, [c for r, c in zip(rows, cols, strict=True) if self._public(active[r])], t)
        self._start_tracks(z, born_conf, cue, col, start, matched_d, t)
        relabel = self._bursts.step(self._tracks, t, t_prev, self._frame_dt, self.s, self.table.ball_radius_mm)
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
            elif not tr.resting:
                # a ball never runs past the cushion's touching line: one missed the frame its prediction
                # crossed it bounced off the cushion there (else it is reported a radius or more inside the rail)
                self._bounce(tr)
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
            if c in matched_d or not room[c]:
                continue
            # a detection on a known ball's starting place in the first moments is that ball, whatever vision
            # flagged there (a player's arm beside it): a glove or a watch does not sit on a ball's place
            known = self._who.at_known_place(z[c], t, self._t0)
            if (start[c] and conf[c] >= self.s.new_track_confidence) or known:
                sure = packed is not None and bool(packed[c]) and conf[c] >= self.s.new_track_confidence
                self._tracks.append(self._new_track(z[c], bool(cue[c]), t, float(conf[c]), sure))
                self._tracks[-1].colour = None if col is None else col[c].copy()
        weak = [c for c in range(len(z)) if start[c] and room[c] and c not in matched_d]
        self._watch_weak([c for c in weak if conf[c] < self.s.new_track_confidence], z, conf, cue, col, t)

    def _watch_weak(
        self, weak: list[int], z: np.ndarray, conf: np.ndarray, cue: np.ndarray, col: np.ndarray | None, t: float
    ) -> None:
        """Every ball on the table as the video opens gets a track, however weak its detections: one too weak to
        start a track (below ``new_track_confidence``) that no track took (``weak``: where a ball may start and
        its centre can be), seen in the first moments (``_in_opening``), is kept as a spot; a spot that holds still
        for ``rest_vouch_s`` (``births.held_still``) is a ball at rest and becomes a track. Later a weak blob is no new
        ball (a ball cannot appear from nowhere), but a lost ball seen at rest again gets its track back: while a
        public ball is hidden, a weak blob is watched the same way, and one that holds still for ``rest_vouch_s``
        is a ball at rest, which takes the hidden ball's id (``_recover``; a hand or the cue tip does not hold
        still that long, and a blob under the player's arm is no place to start: ``weak`` leaves it out). A spot
        missed longer than a tentative track may be is forgotten.

        A lost ball seen rolling again gets its track back the same way: while a public ball is hidden, weak blobs
        are chained into runs, and a run on one rolling course for ``rest_vouch_s`` is a ball, which takes a
        hidden ball's id (``_ball_on_course``; ``births.BirthWatch.watch_runs``)."""
        s = self.s
        keep_for = (s.tentative_max_misses + 0.5) * self._frame_dt
        self._births.forget_spots(t, keep_for)
        lost = any(tr.state == TrackState.OCCLUDED and tr.id is not None for tr in self._tracks)
        opening = self._in_opening(t)
        w = births.Window(keep_for, self._vouch_since(t), self._frame_dt)

        def rolling(run: births.Spot, vel: np.ndarray) -> bool:
            return self._ball_on_course(run, vel, t) is not None

        def at_rest(sp: births.Spot, pts: np.ndarray) -> None:
            self._tracks.append(self._ball_at_rest(sp, pts, t))

        self._births.watch_runs(weak if lost and not opening else [], z, conf, cue, col, t, w, rolling)
        self._births.watch_spots(weak, z, conf, cue, col, t, w, opening or lost, at_rest)

    def _ball_on_course(self, run: births.Spot, vel: np.ndarray, t: float) -> _Track | None:
        """The track of a run on a rolling course (``births.BirthWatch.watch_runs``), where it is a hidden ball
        found again: moving with the run's velocity, vouched for, public under the hidden ball's id; None (no
        track) where no hidden ball can be it."""
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

    def _ball_at_rest(self, sp: births.Spot, pts: np.ndarray, t: float) -> _Track:
        """The track of a spot that held still long enough to be a ball (``births.BirthWatch.watch_spots``): at
        rest on the mean of its sightings, vouched for, and public at once where ``_maybe_confirm`` allows it."""
        mean = pts.mean(axis=0)
        tr = self._vouched_track(sp, mean, len(pts), t)
        tr.change(Change.SETTLED)
        tr.anchor, tr.anchor_n = mean, min(len(pts), 60)
        if tr.state == TrackState.TENTATIVE:
            self._maybe_confirm(tr, t)
        return tr

    def _vouched_track(self, sp: births.Spot, pos: np.ndarray, hits: int, t: float) -> _Track:
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
        track_colour = self._track_colours(tracks)
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
            last_weak=np.array([tr.last_conf < self.s.new_track_confidence for tr in tracks], dtype=bool),
            speed_bound=speed_bound,
            reach=hidden_balls.reach(self.table, self.s, tracks, t, self._frame_dt, self.shot_active),
            track_colour=track_colour,
            cue_votes=np.array([tr.cue_votes for tr in tracks], dtype=int),
            hits=hits,
            gauged=gauged,
            m2=_motion_gauge(tracks, gauged, z),
            entering_pocket=pocket_watch.entering_pockets(self.table, self.s, tracks, kinds.occluded),
            pocket_run=pocket_watch.pocket_runs(self.table, self.s, tracks, kinds.occluded, z),
            in_pocket=self._pocket,
            going_pocket=pocket_watch.going_pockets(self.table, self.s, tracks, self._pocket),
            left_q=self._just_set_moving(tracks, t),
            untaken=self._untaken,
            untaken_t=self._untaken_t,
            strays=self._strays,
            d_last=_distances(last, z),
            d_anchor=_distances(anchor, z),
            colour_dist=association.colour_distances(self._colour, track_colour, self.s.colour_sigma),
        )

    def _detection_kinds(self, z: np.ndarray, conf: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
        """What each detection may be: weak (a ball-like blob that may be a hand or the cue tip), and, in the
        first moments, at a known ball's starting place (a ball frozen in a cluster shows little rim)."""
        m = len(z)
        # a detection vision saw no place for a new ball on (a pocket's liner, a watch) is no clear ball either
        weak = (conf < self.s.new_track_confidence) | self._barred
        who, t0 = self._who, self._t0
        at_known = [who.at_known_place(zz, t, t0) for zz in z] if who.in_warmup(t, t0) else [False] * m
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

    def _keep_strays(self, z: np.ndarray, public: list[int], t: float) -> None:
        """Keep this frame's detections no public ball took (a hand, the cue tip, a ball not yet named) with the
        last ones, for as long as ``gates.swept`` looks back from a ball's last sighting (hand_seen_s, and the
        frames a struck ball may be missed before its run is read)."""
        untaken = np.ones(len(z), bool)
        untaken[public] = False
        free = z[untaken].reshape(-1, 2)
        now = np.column_stack([np.full(len(free), t), free])
        keep = self._strays[self._strays[:, 0] >= t - self.s.hand_seen_s - 4 * self._frame_dt]
        self._strays = np.vstack([keep, now])

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

    @property
    def _frame_dt(self) -> float:
        """The frame interval, as the timestamps show it (the stream's stated one before two frames have come)."""
        return self._frame_dt_est if self._frame_dt_est is not None else self._stream_dt

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
        claims = pocket_watch.pocket_claims(self.table, self.s, tracks, self._pocket)
        for a, i in enumerate(hidden):
            d, near = hidden_balls.where_hidden_ball_may_be(
                self.table, self.s, tracks[i], z[free_d], t, self.shot_active
            )
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

    def _bring_back(self, tr: _Track, zc: np.ndarray, is_cue: bool, t: float) -> Reappearance | None:
        """Updates hidden ``tr`` with detection ``zc``; a resting ball seen again more than a radius from its
        place more than ``SET_OFF_FRAMES`` after its last sighting was moved while hidden (a hand or a ball it did
        not see), which is reported."""
        old = tr.pos.copy()
        was_resting = tr.resting
        unseen = t - tr.last_t
        self._update(tr, zc, is_cue, t, 1)
        if not (was_resting and tr.id is not None and float(np.linalg.norm(zc - old)) > self.table.ball_radius_mm):
            return None
        if unseen <= (SET_OFF_FRAMES + 0.5) * self._frame_dt:
            return None  # set rolling from its place: its run on is a set-off, which the events judge
        return Reappearance(tr.id, _pt(old), _pt(zc), t)

    # ---- track updates ---------------------------------------------------------------------------------
    def _update(self, tr: _Track, zc: np.ndarray, is_cue: bool, t: float, tier: int) -> None:
        dt = max(t - tr.last_t, 1e-6)
        tr.coast_end = None
        # A still ball whose centre was measured again, not a ball set moving, rests on (its place, its count):
        # - one detection off its place, the next back on it: a ball set moving rolls away (the cloth only slows
        #   it, and nothing it could hit sends it back onto the same spot a frame later), so that one was a
        #   displaced blob (a highlight, a shadow merged with the ball): it never left, it rests there;
        # - one detection a step off its place, the next on that new spot: a ball set moving cannot lose that
        #   step's speed within a frame on the cloth (``tracking.jumps``): it rests on the new spot (the mean of
        #   its two sightings there).
        rest: tuple[np.ndarray, int] | None = None
        if self._back_at_place(tr, zc):
            assert tr.left_anchor is not None
            rest = (tr.left_anchor.copy(), max(tr.left_anchor_n, 1))
        elif self._stood_after_step(tr, zc, t):
            rest = (tr.last_meas.copy(), 1)
        if rest is not None:
            tr.change(Change.SETTLED)
            tr.anchor, tr.anchor_n = rest
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
        path whose speed changes no faster than rolling on cloth allows (``births.on_course``; a hand reaching over the
        table turns and speeds up, a stroke accelerates the cue many times faster). Its track is a ball from then
        on (``vouched``), reported above ``ghost_below`` however weak its later looks; a tentative one seen since
        the first moments becomes public (``_maybe_confirm``)."""
        if tr.vouched:
            return
        since = self._vouch_since(t)
        if not tr.recent or tr.recent[0][0] > since + self._frame_dt:
            return  # not seen that long ago: too young to tell
        seen = np.array([s for s in tr.recent if s[0] >= since])
        radius = self.table.ball_radius_mm
        if births.held_still(seen[:, 1:], radius) or births.on_course(seen, radius) is not None:
            tr.vouched = True

    def _vouch_since(self, t: float) -> float:
        """Where the ``rest_vouch_s`` window that ends at ``t`` starts (half a frame early, so a sighting exactly
        that old is in it)."""
        return t - self.s.rest_vouch_s - 0.5 * self._frame_dt

    def _back_at_place(self, tr: _Track, zc: np.ndarray) -> bool:
        """Whether ``tr``, set moving from its resting place on its last detection alone, is seen back inside
        that place's anchor gate now."""
        if tr.resting or tr.left_anchor is None or tr.left_t != tr.last_t:
            return False
        dx, dy = zc - tr.left_anchor
        return math.hypot(dx, dy) <= self.s.anchor_gate_mm

    def _stood_after_step(self, tr: _Track, zc: np.ndarray, t: float) -> bool:
        """Whether ``tr``, set moving from its resting place on its last detection alone, stands on that
        detection's spot now, in the next frame (``jumps.stood_after``), with no other ball near: only a ball it
        ran into stops a ball within a frame (a stun shot into a ball a step away), and that ball, touching the
        new spot when hit, leaves at no more than the step's speed, so it is within a diameter and two steps of
        that spot now."""
        if tr.resting or tr.left_anchor is None or tr.left_t != tr.last_t or tr.prev_t is None:
            return False
        if t - tr.last_t > 1.5 * self._frame_dt:
            return False  # not the next frame: it may have rolled and stopped unseen
        # the step from its last sighting at rest (not from its anchor, which lags a ball creeping off)
        before, gate = tr.prev_meas, self.s.anchor_gate_mm  # (gate: the spread of a still ball's sightings)
        if before is None or not jumps.stood_after(
            before, tr.last_meas, tr.last_t - tr.prev_t, zc, t - tr.last_t, gate
        ):
            return False
        reach = self.table.ball_diameter_mm + 2.0 * float(np.linalg.norm(tr.last_meas - before))
        return not any(o is not tr and float(np.linalg.norm(o.pos - zc)) <= reach for o in self._tracks)

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
            tr.quality >= self.s.placed_confidence or not self._who.off_known_places(tr)
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
        if (tr.vouched and self._in_opening(tr.first_t) and not self._who.off_known_places(tr)) or (
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
        """The id of the hidden ball ``tr`` is, found again at rest or rolling (``identities.Identities.recover``,
        which takes the hidden track off the list); a ball that was hidden at rest and is found elsewhere was
        moved: a ``Reappearance``."""
        found = self._who.recover(self._tracks, tr, rolling)
        if found is None:
            return None
        if found.moved is not None:
            self._recovered.append(Reappearance(found.id, _pt(found.moved[0]), _pt(found.moved[1]), t))
        return found.id

    def _check_rest(self, tr: _Track, t: float) -> None:
        # The samples within the window: the newest ones (``recent`` is in time order). Read from the newest back,
        # with their bounding box: once it is wider than the rest circle's diameter (and a micron), no centre has
        # them all within the radius, so the test below would fail: a moving ball leaves after two or three.
        # Rest is judged on four sightings at least (fewer say little about the noise's spread): a camera slower
        # than 12 fps takes longer than rest_window_s to give them, and the window waits for them.
        window = max(self.s.rest_window_s, 3.0 * self._frame_dt)
        cutoff = t - window - 1e-9
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
        covered = tr.recent[0][0] <= t - window + 1e-6
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
        if not (tr.vouched and len(tr.recent) >= 2 and self._who.in_warmup(t, self._t0)):
            return
        (_, x1, y1), (_, x2, y2) = tr.recent[-2], tr.recent[-1]
        mean = np.array([(x1 + x2) / 2, (y1 + y2) / 2])
        if math.hypot(x1 - x2, y1 - y2) > 2 * self.s.rest_radius_mm or not self._who.at_known_place(mean, t, self._t0):
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
        best = hidden_balls.hidden_behind(self.table, self.s, self._tracks, tr, tr.prev_meas, tr.prev_t)
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

    def _lost_in_stroke_blur(self, tr: _Track) -> _Track | None:
        """A ball that vanished from rest just before this shot and has not been seen since was struck too fast
        for the detector (a break shot's blur): the one that vanished last is this ball. Only a track that was a
        ball (``identities.was_ball``) hands its id on: the weak blob that vanishes as the stroke starts is as often the
        player's bridge hand or the cue tip, lifted off the cloth, and a ball that comes out of hiding later would
        take an id no ball had, and the weak look that kept that blob from being reported with it."""
        hidden = [
            o for o in hidden_balls.hidden_named(self._tracks, tr)
            if identities.was_ball(o, self.s) and self._vanished_at_rest(o) and self._vanished_at_stroke(o)
        ]  # fmt: skip
        return max(hidden, key=lambda o: o.last_t) if hidden else None

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
        """The id a new public ball takes: a hidden ball's where it came out of hiding on that ball's path
        (``_adopt_hidden``), else the one ``identities.Identities.claim`` gives it (a respotted ball's only
        between shots, with no ball moving)."""
        adopted = self._adopt_hidden(tr)
        if adopted is not None:
            return adopted
        respot = (
            not self.shot_active and bool(self._who.lost) and self._t is not None and self._t > 0.5
            and not self._moving()
        )  # fmt: skip
        return self._who.claim(tr, self._t0, respot)

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
        still = self._who.at_known_place(zc, t, self._t0)
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
        """A hidden public ball judged gone now (``pocket_watch.gone``; its absence counts from ``resume``):
        it leaves as potted or off the table, and its id is the one a respotted ball takes back."""
        if tr.id is None:
            return None
        out = pocket_watch.gone(self.table, self.s, tr, t - max(tr.last_t, self._resumed_t), final)
        if out is None:
            return None
        tr.change(Change.POT if out.kind == "pot" else Change.OFF)
        self._who.lost.append(tr.id)
        return Loss(tr.id, out.kind, out.pocket, _pt(tr.last_meas), _pt(out.vel), tr.last_t, out.confidence)


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
    for i, j in zip(*np.nonzero(d < radius), strict=True):  # (row-major: each pair i < j in the same order)
        if i < j and not (out[i] or out[j]):
            out[j if conf[i] >= conf[j] else i] = True
    return out


def _pt(a: np.ndarray) -> tuple[float, float]:
    return (float(a[0]), float(a[1]))


def _speed_bound(kf: KalmanFilter) -> float:
    """How fast the filter's ball may be going: its speed, or, where its velocity is not known (set off
    unseen), one standard deviation of that velocity."""
    return max(float(np.hypot(kf.x[2], kf.x[3])), float(np.sqrt(max(kf.P[2, 2], kf.P[3, 3]))))
