"""Events from tracks (CONTRACT.md section 3): shots, contacts, cushions, line crossings, pots.

Each ball's detections are cut into *segments*: a resting segment (the anchored position) or a moving
segment (a straight, decelerating path, ``tracking.trajectory``). A moving segment ends where its fit
stops predicting the ball (two detections in a row beyond the residual gate, or a kink the tracker saw),
where the ball comes to rest, or where it leaves the table. Every such *break* is explained by physics:

- a resting ball set moving: by a moving ball whose incoming path is one diameter from it, or by a frozen
  neighbour that was itself just hit (a chain through a cluster); with no ball in play it starts a shot
  (fast) or is ``disturbed`` (slow, or unexplained during a shot); a ball hit into a cushion a few centimetres
  away bounced off it before it was first seen moving (its first path comes away from that cushion);
- a moving ball's kink: by a cushion (the incoming path one radius from the nose line, moving into it), a
  pocket jaw, or another ball one diameter away; the event time is solved on the incoming paths;
- a vanished ball: ``pot`` (the tracker confirmed it gone in a mouth) or ``off_table``; the pot time is
  where the path crosses the mouth line; a ball that rattled between the jaw faces on its way down touched
  them in turn (``tracking.rattle``).

Line crossings are solved on each finished segment. A shot ends when every ball has rested for
``shot_end_hold_s``; its time is when the last ball stopped (or dropped). Everything uses the frame
timestamps given, never a clock. Events come out as soon as they are decided (a few frames late); a low
confidence sets ``review`` instead of dropping the event.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice, pairwise

import numpy as np

from calibration.table import Cushion, Jaw, Pocket, TableModel
from tracking.events import Event, jaw_cushion, jaw_pocket
from tracking.rattle import RattleSettings, rattle_touches
from tracking.tracker import Loss, Reappearance, TrackerFrame
from tracking.trajectory import Hinge, PathFit, closest_time, fit_hinge, fit_path, intersect_paths, solve_root


@dataclass(frozen=True)
class ExtractorSettings:
    meas_sigma_mm: float = 1.2
    break_mm: float = 5.0  # a detection this far (plus break_frac of a frame's travel) off the fit breaks it
    break_frac: float = 0.06
    window: int = 10  # samples in a local path fit
    new_path_samples: int = 4  # samples of the outgoing path before a kink is explained
    contact_tol_mm: float = 14.0
    cushion_tol_mm: float = 14.0
    frozen_tol_mm: float = 5.0  # neighbours this close to touching pass a hit on (a chain)
    parted_mm: float = 2.5  # two balls that touched touch anew only once seen this far apart (over a diameter)
    chain_repeat_s: float = 0.15  # a pair the push through a cluster already went through is not hit again so soon
    jaw_touch_mm: float = 2.0  # a ball stopping this close to a cushion's nose line came to rest against it
    # a potted ball whose fitted path passes within a radius plus this of a jaw touched it: the corner
    # mouths are only 5 mm wider than a ball, so a ball running in straight passes 2.5 mm off both jaws
    jaw_gap_mm: float = 0.5
    # a graze whose centre lies this far past a cushion's flat nose touched the jaw's rounded tip there (a kink's
    # explanation weighs the same: a quarter of a tolerance's score per millimetre past it against the jaw's 0.2)
    tip_past_mm: float = 0.8
    # a V of the distance to a jaw's surface, looked for within jaw_graze_reach_mm of its pocket's mouth, touched it
    # where its bottom comes within jaw_graze_tol_mm (at graze_tol_mm a ball passing a middle pocket's
    # right-angled tips a few millimetres off was taken to touch them)
    jaw_graze_reach_mm: float = 136.0
    jaw_graze_tol_mm: float = 2.0
    jaw_kink_mm: float = 6.0  # a potted ball's last turn within this of a jaw's touching distance was that touch
    # a bounce off a jaw whose outgoing path, run back, leaves the pocket's jaws this many frames (up to
    # jaw_exit_max_frames) after the incoming path reached them touched twice: the rounded tip, then a face
    jaw_exit_frames: float = 0.45
    jaw_exit_max_frames: float = 2.0
    rattle: RattleSettings = field(default_factory=RattleSettings)  # a ball bouncing between the jaw faces
    pot_depth_fraction: float = 0.5  # a ball falls when its centre is this many radii past the mouth line
    slow_drop_mm_s: float = 300.0  # a ball slower than this in the mouth fell by the frame it is first missing from
    graze_tol_mm: float = 5.0  # a straight path this close to a nose line (then away) touched it
    tail_off_mm: float = 3.0  # an incoming path's last samples this far off it came after the kink
    # a ball whose samples over the last hug_s before a touch all lie within hug_mm of touching the cushion rolled
    # along it (or rested frozen to it): it never left it, so that is no new touch (the truth's rule)
    hug_s: float = 0.1
    hug_mm: float = 2.0
    hinge_side: int = 8  # samples either side of a touch fitted to time it (a V of the distance to the nose line)
    # ... its corner up to this many samples either side of the lowest one: a ball that glances off a cushion at a
    # shallow angle draws away more slowly than it came, and over a millimetre of noise its lowest sample may come
    # two frames after the touch (on the 1080p60 suite, 1 sample: cushion F1 0.9513, 3: 0.9560, 5: 0.9547)
    hinge_reach: int = 3
    cushion_both_paths: bool = True  # a bounce off a cushion timed on the paths in and out (else on the one in)
    jaw_both_paths: bool = True  # ... and one off a jaw (1080p60 suite: cushion F1 0.9694 -> 0.9712)
    arrive_s: float = 0.1  # a ball whose samples after a dip stay against the cushion this long arrived at it
    bounce_min_mm_s: float = 15.0  # a V whose sides fall and rise at least this fast is a bounce, not noise
    # ... or whose side falls at least steep_fall_mm_s and rises at least steep_rise_mm_s: a ball coming at a
    # cushion this fast cannot stop short of it, so one that turns away however slowly touched it (a glancing
    # roll: the cushion takes most of its speed across; 1080p60 suite: cushion F1 0.9661 -> 0.9685)
    steep_fall_mm_s: float = 25.0
    steep_rise_mm_s: float = 5.0
    shot_end_hold_s: float = 0.25
    start_speed_mm_s: float = 150.0  # a ball set moving faster than this between shots is struck
    # ... unless a hand moved it: a struck ball leaves at its top speed and rolls on (the cloth slows a rolling
    # ball by 0.1-0.3 m/s2), a pushed one stops almost as soon as the hand lets go. A ball set off between shots
    # slower than push_max_speed_mm_s that stops within push_stop_s, slowing by push_decel_mm_s2 or more on
    # average, with no other ball moving, was pushed: ``disturbed``. Its shot start waits to be sure (it comes
    # out push_stop_s plus the time the tracker takes to call the ball resting after it was set off, or when
    # another ball moves).
    push_max_speed_mm_s: float = 800.0
    push_stop_s: float = 0.4
    push_decel_mm_s2: float = 500.0
    review_below: float = 0.5
    # a track whose detections average a lower confidence is not a ball: the cue's tip and the player's hand
    # average 0.53-0.59 in the rendered suites, a ball at least 0.61 (half hidden); a ball known at its place
    # (rack, operator) is vouched for at 0.75 whatever its detections
    ghost_below: float = 0.6
    rest_radius_mm: float = 2.5
    rest_smooth_s: float = 0.5  # a resting ball's reported position: the mean of its samples this far either side
    unseen_strike_s: float = 1.0  # a striker may be out of sight for this long before its first contact
    bounce_angle_deg: float = 30.0  # a hit ball's rebound off a cushion it touched before it was seen moving
    push_angle_deg: float = 20.0  # a ball pushed by a frozen neighbour leaves within this of their line of centres
    rest_touch_plateau_mm: float = 1.0  # a stopping ball is against the cushion within this of where it rests
    slow_start_frames: float = 4.0  # how far before its last resting sample a ball's start is looked for
    creep_back_s: float = 0.5  # ... and a ball that crept off its place (its detections drifting), this far
    creep_still_mm: float = 1.5  # a resting ball's detection within this of where it sat has not left yet
    creep_hinge_samples: int = 6  # ... and it was hit where its speed along its new path jumps (these of the path)
    creep_speedup_mm_s: float = 20.0
    slow_start_wait_s: float = 0.5  # a ball set off too slowly to have left its place yet is watched this long
    start_min_mm: float = 10.0  # a resting ball must get this far from its place to have moved
    # A ball nudged so softly that the tracker kept it resting (its creep under the rest gate): by the shot's end
    # its place is this far from where the shot found it, and a moving ball came within a diameter plus
    # nudge_touch_mm of it, pushing it (within nudge_angle_deg of the line of centres) the way it went.
    nudge_min_mm: float = 6.0
    nudge_touch_mm: float = 4.0
    nudge_angle_deg: float = 40.0
    nudge_run_frames: float = 4.0
    nudge_fit_s: float = 0.2
    nudge_clear_mm: float = 6.0
    # A ball set off in a shot with nothing seen to set it off is no touched ball if it was hit this recently, or
    # stopped this near that time (a creep the tracker took for rest), or if it leaves faster than a hand sends one
    regone_hit_s: float = 0.25
    regone_stop_s: float = 0.6
    touch_max_speed_mm_s: float = 1500.0
    nudge_back_s: float = 0.15  # a ball set off with no hitter at its start: one reaching it from this before
    short_path_samples: int = 2  # a path this short between two unexplained kinks is a stray measurement
    line_margin_mm: float = 0.75  # a path must start and end this far off a line to cross it
    line_rest_margin_mm: float = 1.5  # ... and start this far off it from rest (a ball resting on the line)
    line_packed_margin_mm: float = 2.5  # ... from rest against other balls (a rack's row on the long line), whose
    # edges pull a resting ball's measured centre further: 2.5 mm is the p95 of such balls' position error
    line_excursion_mm: float = 2.0  # over a line and back inside one path: this far past it each way
    # A path that ends in rest is judged against the lines from where the ball settled: the tracker calls a ball
    # resting once its detections stay in a small circle, while it may still creep a few millimetres (over a line)
    line_settle_s: float = 0.3  # ... its detections this long after the tracker called it resting
    # Two balls whose centres come within a diameter plus kiss_tol_mm and part again touched (a kiss too thin
    # to bend either path visibly), judged on the last kiss_window frames, in which the closest must be
    # kiss_rise_mm nearer than the farthest on each side (an approach and a parting, not balls frozen together).
    # A near miss is as common as a kiss, so the tolerance stays at millimetres whatever the view's noise (it was
    # widened to 5.5 mm with the noise while the detector pushed balls a few millimetres apart away from each
    # other, vision.refine; on the 1080p suites 2.5 mm now finds contacts with F1 0.9636 against 0.9609 at 60 fps)
    kiss_tol_mm: float = 2.5
    kiss_window: int = 16
    kiss_rise_mm: float = 5.0
    kiss_after: int = 12  # frames after the closest: a bend or a start there is explained first
    kiss_bent_mm: float = 15.0  # closest frames this much farther apart may still have touched, if their approach met
    # A break waits (up to this many frames) for one first seen no later that is not ready to explain yet: causes
    # come before their effects (a rack's back ball, seen off in the frame of the break, waits for the struck ball).
    order_wait_frames: int = 6


@dataclass
class _Seg:
    sid: int
    kind: str  # "rest" or "move"
    start_t: float
    start_p: np.ndarray
    idx: list[int] = field(default_factory=list)  # sample indices of this segment
    end_t: float | None = None
    end_p: np.ndarray | None = None
    packed: bool = False  # a path that started from rest against other balls
    unexplained: bool = False  # a path that began at a kink nothing explained


@dataclass
class _Settling:
    """A path that ended in rest, waiting for the resting ball's detections to say where it settled."""

    ts: list[float]  # the path's samples, to its last moving one
    ps: list[np.ndarray]
    from_rest: float  # the extra margin of a path that started from rest
    rest: _Seg  # the rest it ended in


@dataclass
class _Break:
    kind: str  # "start" (rest -> move) or "kink" (move -> move)
    old: _Seg
    new: _Seg
    t_lo: float  # last sample of the old segment
    t_hi: float  # first sample of the new one


@dataclass
class _PendingStart:
    """A ball set off between shots that may yet turn out pushed by hand rather than struck."""

    ball: str
    t: float  # when it left its place
    pos: np.ndarray  # where it rested
    confidence: float
    speed: float  # as it left


@dataclass
class _Ball:
    id: str
    ts: list[float] = field(default_factory=list)
    xy: list[np.ndarray] = field(default_factory=list)
    seen: dict[int, np.ndarray] = field(default_factory=dict)  # resting samples: the detection (xy is the anchor)
    sid: list[int] = field(default_factory=list)  # segment of each sample (-1: rejected outlier)
    segs: list[_Seg] = field(default_factory=list)
    pending: int | None = None  # first sample off the current fit, awaiting confirmation
    breaks: list[_Break] = field(default_factory=list)
    on_table: bool = True
    potted: bool = False  # the tracker decided it dropped into a pocket
    rest_pos: np.ndarray | None = None
    last_event_t: float | None = None  # last contact or start, for chains through frozen clusters
    stop_t: float | None = None
    checked_unseen_start: bool = False
    waypoint: tuple[float, np.ndarray] | None = None  # where an unseen ball is known to have been
    settling: _Settling | None = None  # the path it stopped at the end of, its lines judged once it settles
    unseen_seg: _Seg | None = None  # the path it came back on after running unseen
    # ts and xy again as arrays (rows [0, len(ts)) filled; capacity doubles), for reading windows without copying
    ts_arr: np.ndarray = field(default_factory=lambda: np.empty(64))
    xy_arr: np.ndarray = field(default_factory=lambda: np.empty((64, 2)))

    @property
    def seg(self) -> _Seg:
        return self.segs[-1]


class EventExtractor:
    """Feed ``update(TrackerFrame)`` per frame; it returns the events decided in that frame."""

    def __init__(self, table: TableModel, settings: ExtractorSettings | None = None) -> None:
        self.table = table
        self.s = settings or ExtractorSettings()
        self.balls: dict[str, _Ball] = {}
        self.shot = -1
        self.shot_active = False
        self._quiet_since: float | None = None
        self._shot_last_t = 0.0  # latest stop or pot of the current shot
        self._stroke: tuple[str, float, np.ndarray] | None = None  # the struck ball, when and where it was struck
        self._frames: list[int] = []
        self._times: list[float] = []
        self._dt = 1 / 60
        self._sid = 0
        self._segs: dict[int, _Seg] = {}  # every ball's segments by their (unique) sid
        self._rest_sums: dict[int, tuple[int, np.ndarray]] = {}  # rest sid -> (samples, running sums of x, y)
        self._contacts: list[tuple[frozenset[str], float]] = []
        self._deferred: list[Event] = []
        self._pending: _PendingStart | None = None
        self._cushion_times: list[tuple[str, float]] = []
        self._lines = [(n, 0 if ln.axis == "x" else 1, ln.value_mm) for n, ln in table.lines.items() if n != "back"]

    # ---- public ----------------------------------------------------------------------------------------
    def update(self, tf: TrackerFrame) -> list[Event]:
        if self._times:
            self._dt = 0.8 * self._dt + 0.2 * max(tf.t - self._times[-1], 1e-4)
        self._frames.append(tf.frame)
        self._times.append(tf.t)
        out: list[Event] = self._deferred
        self._deferred = []
        for obs in tf.balls:
            if obs.quality < self.s.ghost_below:
                continue  # not a ball: a blob the detector sees only now and then (a hand, the cue tip)
            b = self.balls.get(obs.id)
            if b is not None and b.potted and self.shot_active:
                continue  # a potted ball comes back only when respotted, between shots: not a blob mid-shot
            if b is None:
                b = self.balls[obs.id] = _Ball(obs.id)
            b.on_table = True
            b.potted = False
            if obs.meas is None:
                if b.rest_pos is None and obs.resting:
                    b.rest_pos = np.array(obs.pos)  # known at its place (a rack, the operator), not seen yet
                continue
            if obs.resting:
                self._add_rest(b, tf.t, np.array(obs.pos), out)
                b.seen[len(b.ts) - 1] = np.array(obs.meas)
            else:
                self._add_move(b, tf.t, np.array(obs.meas), obs.kinked)
        for loss in tf.losses:
            self._lost(loss, out)
        for re in tf.reappeared:
            self._reappeared(re, out)
        if self._pending is not None:
            self._judge_pending(out, force=False)
        self._resolve(out, force=False)
        if self.shot_active:
            self._kisses(tf.t, out)
        self._settle(tf.t, out, force=False)
        self._check_shot_end(tf, out)
        return _in_shots(out)

    def finish(self, losses: tuple[Loss, ...] = ()) -> list[Event]:
        """End of the stream; ``losses``: the tracker's last decisions (``Tracker.finish``)."""
        out: list[Event] = []
        if self._pending is not None:
            self._judge_pending(out, force=True)
        for loss in losses:
            self._lost(loss, out)
        for b in self.balls.values():
            if b.pending is not None:
                b.pending = None
        self._resolve(out, force=True)
        for b in self.balls.values():
            if b.segs and b.seg.kind == "move" and b.seg.idx:
                self._close_move(b, self._end_of(b), out)
        self._settle(math.inf, out, force=True)
        if self.shot_active and self._times:
            self._nudges(out)
            out.append(self._shot_end_event(self._shot_last_t or self._times[-1]))
            self.shot_active = False
        return _in_shots(out)

    def smoothed(self, ball: str, t: float) -> tuple[float, float] | None:
        """The ball's position at ``t`` from its segment fits (a resting ball: its segment's mean)."""
        b = self.balls.get(ball)
        if b is None or not b.ts:
            return None
        i = bisect.bisect_left(b.ts, t - 1e-9)
        if i >= len(b.ts) or abs(b.ts[i] - t) > 1e-6:
            return None
        sid = b.sid[i]
        if sid < 0:
            return None
        seg = self._segs[sid]
        if seg.kind == "rest":
            # The mean of the segment's detections within rest_smooth_s: a still ball's noise averages out, and a
            # ball that creeps (settling in a pocket mouth) or is nudged by less than the rest radius is
            # followed. Segments only grow, so their running sums are reused until the segment gets another
            # sample (tracks.csv asks once per row: recomputing them made a long clip's rows quadratic).
            n = len(seg.idx)
            cached = self._rest_sums.get(sid)
            if cached is None or cached[0] != n:
                a = np.array([b.seen.get(j, b.xy[j]) for j in seg.idx])
                cached = (n, np.vstack([np.zeros((1, 2)), np.cumsum(a, axis=0)]))
                self._rest_sums[sid] = cached
            k = bisect.bisect_left(seg.idx, i)
            half = max(1, round(self.s.rest_smooth_s / self._dt))
            lo, hi = max(0, k - half), min(n, k + half + 1)
            m = (cached[1][hi] - cached[1][lo]) / (hi - lo)
            return (float(m[0]), float(m[1]))
        k = bisect.bisect_left(seg.idx, i)  # a segment's samples are in time order
        if k >= len(seg.idx) or seg.idx[k] != i:
            k = seg.idx.index(i)
        lo, hi = max(0, k - 4), min(len(seg.idx), k + 5)
        sel = seg.idx[lo:hi]
        if len(sel) < 3:
            return (float(b.xy[i][0]), float(b.xy[i][1]))
        f = fit_path(b.ts_arr[sel], b.xy_arr[sel], quadratic_from=5, closed_form=True)
        return f.at_xy(t)

    @property
    def shot_in_progress(self) -> bool:
        return self.shot_active

    # ---- samples and segments -----------------------------------------------------------------------
    def _new_seg(self, b: _Ball, kind: str, t: float, p: np.ndarray) -> _Seg:
        self._sid += 1
        seg = _Seg(self._sid, kind, t, p.copy())
        b.segs.append(seg)
        self._segs[seg.sid] = seg
        return seg

    def _push(self, b: _Ball, t: float, p: np.ndarray, seg: _Seg | None) -> int:
        b.ts.append(t)
        b.xy.append(p)
        b.sid.append(seg.sid if seg is not None else -1)
        i = len(b.ts) - 1
        if i >= len(b.ts_arr):
            b.ts_arr = np.concatenate([b.ts_arr, np.empty(len(b.ts_arr))])
            b.xy_arr = np.concatenate([b.xy_arr, np.empty((len(b.xy_arr), 2))])
        b.ts_arr[i] = t
        b.xy_arr[i] = p
        if seg is not None:
            seg.idx.append(i)
        return i

    def _add_rest(self, b: _Ball, t: float, p: np.ndarray, out: list[Event]) -> None:
        if not b.segs:
            self._new_seg(b, "rest", t, p)
        elif b.seg.kind == "move":
            b.pending = None
            stop_t, stop_p = self._stop_of(b, p)
            path = self._close_move_seg(b, b.seg, (stop_t, stop_p), out, settle=True)
            b.stop_t = stop_t
            self._shot_last_t = max(self._shot_last_t, stop_t)
            rest = self._new_seg(b, "rest", stop_t, p)
            if path is not None:
                self._settle_ball(b, out)  # an earlier stop not judged yet (set moving again at once)
                b.settling = _Settling(*path, rest)
        self._push(b, t, p, b.seg)
        b.rest_pos = p

    def _packed(self, b: _Ball) -> bool:
        """Is ``b`` resting against another ball (within the frozen tolerance)?"""
        if b.rest_pos is None:
            return False
        reach = self.table.ball_diameter_mm + self.s.frozen_tol_mm
        return any(
            o is not b and o.on_table and o.rest_pos is not None and np.hypot(*(o.rest_pos - b.rest_pos)) <= reach
            for o in self.balls.values()
        )

    def _add_move(self, b: _Ball, t: float, p: np.ndarray, kinked: bool) -> None:
        self._add_move_sample(b, t, p, kinked)
        if not self.shot_active and not b.checked_unseen_start and all(sg.kind == "move" for sg in b.segs):
            good = [i for i in range(len(b.ts)) if b.sid[i] >= 0]
            if len(good) >= 3:
                b.checked_unseen_start = True
                self._first_seen_moving(b, good[:4])

    def _add_move_sample(self, b: _Ball, t: float, p: np.ndarray, kinked: bool) -> None:
        if not b.segs:
            self._new_seg(b, "move", t, p)
            self._push(b, t, p, b.seg)
            return
        if b.seg.kind == "move" and self._never_left(b, t, p):
            # it was set moving by a few millimetres (a hard stroke's first blurred frame) and vanished: it
            # never left its place visibly, so that was its rest, and it is set moving now, seen far away
            b.seg.kind = "rest"
        if b.seg.kind == "rest":
            old = b.seg
            t_lo = b.ts[old.idx[-1]] if old.idx else t
            new = self._new_seg(b, "move", t, b.rest_pos if b.rest_pos is not None else p)
            new.packed = self._packed(b)
            self._push(b, t, p, new)
            b.breaks.append(_Break("start", old, new, t_lo, t))
            return
        seg = b.seg
        good = _newest_in(b, seg, max(self.s.window, 3))  # all of them when fewer: enough for the tests below
        if kinked and len(good) >= 2:
            start = b.pending if b.pending is not None else None
            self._split(b, t, p, start)
            return
        if len(good) < 3:
            if b.pending is not None:
                b.sid[b.pending] = -1
                b.pending = None
            self._push(b, t, p, seg)
            return
        sel = good[-self.s.window :]
        f = fit_path(b.ts_arr[sel], b.xy_arr[sel], closed_form=True)
        step = float(np.linalg.norm(f.vel(t))) * self._dt
        r = float(np.linalg.norm(f.at(t) - p))
        if r > self.s.break_mm + self.s.break_frac * step + 3 * f.rms_mm:
            if b.pending is None:
                b.pending = self._push(b, t, p, None)
            else:
                self._split(b, t, p, b.pending)
            return
        if b.pending is not None:
            b.pending = None  # the previous sample was an outlier (it stays rejected)
        self._push(b, t, p, seg)

    def _never_left(self, b: _Ball, t: float, p: np.ndarray) -> bool:
        """The moving segment so far is a few samples at its resting place, then the ball was gone for a
        while, and ``p`` (seen now) is far from that place."""
        if b.rest_pos is None or len(b.segs) < 2 or b.segs[-2].kind != "rest":
            return False
        newest = _newest_in(b, b.seg, 1)
        if not newest or t - b.ts[newest[-1]] <= 4 * self._dt:
            return False
        good = [i for i in b.seg.idx if b.sid[i] == b.seg.sid]
        near = self.s.start_min_mm
        if float(np.linalg.norm(p - b.rest_pos)) <= 3 * near:
            return False
        return all(float(np.linalg.norm(b.xy[i] - b.rest_pos)) <= near for i in good)

    def _first_seen_moving(self, b: _Ball, idx: list[int]) -> None:
        """A ball first seen already moving with no shot in play was struck out of sight (under the
        player's arm): the shot starts with it, timed at its first sighting (flagged for review)."""
        f = fit_path(np.array([b.ts[j] for j in idx]), np.array([b.xy[j] for j in idx]))
        if float(np.linalg.norm(f.vel(f.t0))) < 2 * self.s.start_speed_mm_s:
            return
        self._start_shot(b, f.t0, b.xy[idx[0]], 0.45, None)

    def _start_shot(self, b: _Ball, t_s: float, p: np.ndarray, conf: float, out: list[Event] | None) -> None:
        self.shot += 1
        self.shot_active = True
        self._quiet_since = None
        self._shot_last_t = t_s
        positions = {k: _pt(o.rest_pos) for k, o in self.balls.items() if o.on_table and o.rest_pos is not None}
        positions.setdefault(b.id, _pt(p))
        for k, o in self.balls.items():
            if o.on_table and k not in positions and o.xy:
                positions[k] = _pt(o.xy[-1])  # never seen still (half hidden, its detections unsteady): where last seen
        ev = self._event("shot_start", t_s, ball=b.id, positions=positions, confidence=conf)
        if out is None:
            self._deferred.append(ev)
        else:
            out.append(ev)
        b.last_event_t = t_s
        self._stroke = (b.id, t_s, np.asarray(p, dtype=float).copy())
        # struck while frozen to other balls: the stroke's push passes through them at once
        self._propagate(b.id, b.id, t_s, self._deferred if out is None else out)

    def _split(self, b: _Ball, t: float, p: np.ndarray, first: int | None) -> None:
        old = b.seg
        good = [i for i in old.idx if b.sid[i] == old.sid]
        t_lo = b.ts[good[-1]]
        if first is not None:
            new = self._new_seg(b, "move", b.ts[first], b.xy[first])
            b.sid[first] = new.sid
            new.idx.append(first)
            t_hi = b.ts[first]
        else:
            new = self._new_seg(b, "move", t, p)
            t_hi = t
        b.pending = None
        self._push(b, t, p, new)
        b.breaks.append(_Break("kink", old, new, t_lo, t_hi))

    def _fit(self, b: _Ball, idx: list[int], head: bool = False) -> PathFit:
        good = [i for i in idx if b.sid[i] >= 0]
        sel = good[: self.s.window] if head else good[-self.s.window :]
        return fit_path(np.array([b.ts[j] for j in sel]), np.array([b.xy[j] for j in sel]))

    def _trimmed_before_kink(self, b: _Ball, idx: list[int]) -> tuple[PathFit, float] | None:
        """The incoming path of a kink without its last samples, and the time of the last one kept, where those
        came after the bounce: a segment may take in a sample or two from after it before the break shows (a
        glancing bounce, or the blurred frame of the bounce itself, measured where the ball was on average).
        Trailing samples this far off the path of the ones before them (``tail_off_mm``) are left out, so the
        touch is timed on the incoming path alone. None when no sample is off it."""
        good = [i for i in idx if b.sid[i] >= 0]
        for m in (2, 1):
            keep = good[-self.s.window - m : -m]
            if len(keep) < 4:
                continue
            f = fit_path(np.array([b.ts[j] for j in keep]), np.array([b.xy[j] for j in keep]))
            if all(np.linalg.norm(f.at(b.ts[j]) - b.xy[j]) > self.s.tail_off_mm for j in good[-m:]):
                return f, b.ts[keep[-1]]
        return None

    def _hugs(self, b: _Ball, cu: Cushion, t: float) -> bool:
        """Whether ``b`` kept touching ``cu`` (within ``hug_mm``) at every sample over the ``hug_s`` before ``t``:
        rolling along it, or frozen to it, it did not come to it at ``t``."""
        lo = bisect.bisect_left(b.ts, t - self.s.hug_s)
        hi = bisect.bisect_right(b.ts, t)
        R = self.table.ball_radius_mm
        offs = [cu.offset(_pt(b.seen.get(i, b.xy[i]))) - R for i in range(lo, hi) if b.sid[i] >= 0]
        return len(offs) >= max(3, round(self.s.hug_s / self._dt) - 1) and max(abs(o) for o in offs) <= self.s.hug_mm

    def _path_before(self, b: _Ball, t: float) -> tuple[PathFit, bool] | None:
        """The ball's path just before ``t``: (fit, moving). None if it has no sample by then."""
        i = bisect.bisect_right(b.ts, t + 0.25 * self._dt) - 1
        while i >= 0 and b.sid[i] < 0:
            i -= 1
        if i < 0:
            return None
        seg = self._segs[b.sid[i]]
        if seg.kind == "rest":
            a = np.array([b.xy[j] for j in seg.idx if j <= i][-self.s.window :])
            return PathFit.still(a.mean(axis=0), seg.start_t, t), False
        sel = [j for j in seg.idx if j <= i and b.sid[j] >= 0]
        f = fit_path(
            np.array([b.ts[j] for j in sel[-self.s.window :]]), np.array([b.xy[j] for j in sel[-self.s.window :]])
        )
        if len(sel) < 2:
            # one sample into a new leg (the tracker saw it bend a frame early: at a break the struck ball's last
            # frame before the hit): the leg it came in on, if it was moving
            prev = _seg_before(b, seg)
            if prev is not None and prev.kind == "move" and any(b.sid[j] >= 0 for j in prev.idx):
                g = self._fit(b, prev.idx)
                if g.n >= 2 and float(np.linalg.norm(g.vel(t))) > 5.0:
                    return g, True
            return PathFit.still(b.xy[sel[-1]], seg.start_t, t), False
        return f, float(np.linalg.norm(f.vel(t))) > 5.0

    def _stop_of(self, b: _Ball, rest_p: np.ndarray) -> tuple[float, np.ndarray]:
        """When a moving ball stopped. Under a constant deceleration the distance left to the resting point
        is a/2 (t_stop - t)^2, so its square root falls linearly to zero at t_stop: fit that line to the
        last moving samples (those clearly off the resting point)."""
        seg = b.seg
        good = [i for i in seg.idx if b.sid[i] >= 0][-60:]
        if not good:
            return seg.start_t, rest_p
        d = np.array([float(np.linalg.norm(b.xy[i] - rest_p)) for i in good])
        ts = np.array([b.ts[i] for i in good])
        k = len(good)
        while k > 0 and d[k - 1] <= 4 * self.s.meas_sigma_mm:
            k -= 1
        j = k
        while j > 0 and d[j - 1] <= 400.0 and k - j < 25:
            j -= 1
        if k - j >= 3:
            slope, icpt = np.polyfit(ts[j:k], np.sqrt(d[j:k]), 1)
            if slope < 0:
                t_stop = -icpt / slope
                lo = ts[k - 1]
                hi = ts[k] if k < len(ts) else lo + 0.5
                return float(min(max(t_stop, lo), hi + 0.5)), rest_p
        return (float(ts[k]) if k < len(ts) else float(ts[-1])), rest_p

    def _end_of(self, b: _Ball) -> tuple[float, np.ndarray]:
        good = [i for i in b.seg.idx if b.sid[i] >= 0]
        return b.ts[good[-1]], b.xy[good[-1]]

    # ---- breaks -----------------------------------------------------------------------------------------
    def _resolve(self, out: list[Event], force: bool) -> None:
        ready: list[tuple[float, _Ball, _Break]] = []
        waiting = []  # (last old sample, last new one) of the breaks not ready yet
        for b in self.balls.values():
            keep = []
            for br in b.breaks:
                n = len([i for i in br.new.idx if b.sid[i] >= 0])
                closed = br.new is not b.seg or b.seg.kind == "rest" or not b.on_table
                if n >= self.s.new_path_samples or ((force or closed) and n >= 1):
                    ready.append((br.t_hi, b, br))  # by first sighting: a ball that ran unseen comes last
                else:
                    keep.append(br)
                    waiting.append((br.t_lo, b.ts[br.new.idx[-1]] if br.new.idx else br.t_hi))
            b.breaks = keep
        now = self._times[-1] if self._times else 0.0
        # (a ball still in sight gathers its path in a few frames; one gone from sight is waited for a few frames)
        lows = [lo for lo, last in waiting if now - last <= self.s.order_wait_frames * self._dt]
        if lows and not force:
            # A break still waiting for its path happened after its ball's last sample on the old one: nothing
            # first seen after that is explained before it (it may be what set that off).
            hold = round(min(lows) / self._dt)
            for t_hi, b, br in ready:
                if round(t_hi / self._dt) > hold:
                    b.breaks.append(br)
            ready = [r for r in ready if round(r[0] / self._dt) <= hold]
        # Breaks first seen in the same frame are taken outwards from the struck ball: what it hit is the cause
        # of the rest (a rack's balls all seen set off in the frame after the break).
        # The struck ball's own break counts from its last sample before it (its hit is what sets the others off,
        # though it may be seen again only after them).
        near = self._struck_pos()
        struck = self._stroke[0] if self._stroke is not None and self.shot_active else None
        ready.sort(
            key=lambda r: (
                round((r[2].t_lo if r[1].id == struck else r[0]) / self._dt),
                self._distance_from(r[1], near),
            )
        )
        for _, b, br in ready:
            if self._pending is not None and self._pending.ball != b.id:
                self._judge_pending(out, force=True)  # another ball set off or bent: the pending one was struck
            if br.kind == "start":
                self._explain_start(b, br, out)
            else:
                self._explain_kink(b, br, out)

    def _struck_pos(self) -> np.ndarray | None:
        """Where the struck ball was last seen (None between shots)."""
        if self._stroke is None or not self.shot_active:
            return None
        b = self.balls.get(self._stroke[0])
        return b.xy[-1] if b is not None and b.xy else None

    @staticmethod
    def _distance_from(b: _Ball, p: np.ndarray | None) -> float:
        return 0.0 if p is None or not b.xy else float(np.linalg.norm(b.xy[-1] - p))

    def _judge_pending(self, out: list[Event], force: bool) -> None:
        """A ball set off slowly between shots (``_pending``): pushed by hand if it stopped too soon for a struck
        ball (``push_*`` settings), else the shot it started, from when it left its place, once that is sure."""
        p = self._pending
        assert p is not None
        b = self.balls[p.ball]
        others = any(o is not b and (o.breaks or (o.segs and o.seg.kind == "move")) for o in self.balls.values())
        stopped = b.on_table and b.segs and b.seg.kind == "rest" and b.stop_t is not None and b.stop_t > p.t
        if stopped and not others and not b.breaks:
            took = max(float(b.stop_t) - p.t, 1e-3)  # type: ignore[arg-type]
            if took <= self.s.push_stop_s and p.speed / took >= self.s.push_decel_mm_s2:
                self._pending = None
                out.append(self._event("disturbed", p.t, ball=b.id, pos=_pt(p.pos), confidence=0.6, shot=None))
                return
        now = self._times[-1] if self._times else p.t
        if force or stopped or others or b.breaks or not b.on_table or now - p.t > 2 * self.s.push_stop_s:
            self._pending = None
            self._start_shot(b, p.t, p.pos, p.confidence, out)

    def _explain_start(self, b: _Ball, br: _Break, out: list[Event]) -> None:
        """A resting ball set moving: what set it off, then a cushion it touched before it was seen moving."""
        self._explain_set_off(b, br, out)
        if br.t_hi - br.t_lo <= 2.5 * self._dt:
            self._bounce_off_start(b, br, out)

    def _explain_set_off(self, b: _Ball, br: _Break, out: list[Event]) -> None:
        dt = self._dt
        a = br.new.start_p
        new = self._fit(b, br.new.idx, head=True)
        # A ball set off slowly keeps its place (the tracker's anchor) for a few frames before it has moved far
        # enough to break its rest: its path, run back, may reach its place before the last resting sample.
        lo = br.t_lo - self.s.slow_start_frames * dt
        t_s = closest_time(lambda u: float(np.linalg.norm(new.at(u) - a)), lo, br.t_hi)
        if new.n < 2:
            t_s = 0.5 * (br.t_lo + br.t_hi)
        slow = new.n >= 2 and float(np.linalg.norm(new.vel(br.t_hi))) < self.s.start_speed_mm_s
        crept = self._creep_start(b, br) if slow and t_s < lo + 0.5 * dt else None
        if crept is not None:
            t_s = crept
        br.new.start_t = t_s
        speed = float(np.linalg.norm(new.vel(t_s)))
        moved = max((float(np.linalg.norm(b.xy[i] - a)) for i in br.new.idx if b.sid[i] >= 0), default=0.0)
        if moved < (self.s.start_min_mm if crept is not None else max(self.s.start_min_mm, 6 * self.s.meas_sigma_mm)):
            if br.new is b.seg and b.on_table and self._times[-1] - br.t_hi < self.s.slow_start_wait_s:
                b.breaks.append(br)  # still moving off, slowly: looked at again as it gets farther
            return  # detection jitter (a blurred or half-hidden ball), not a ball set moving (a steady creep is)
        unseen = br.t_hi - br.t_lo > 4 * dt  # it left its place out of sight
        if unseen and b.last_event_t is not None and b.last_event_t >= br.t_lo - dt:
            br.new.start_t = b.last_event_t  # it left its place when it was struck, unseen
            if b.waypoint is not None:
                br.new.start_t, br.new.start_p = b.waypoint[0], b.waypoint[1].copy()
            return  # back in sight after moving unseen; its start was already accounted for
        late = 2 * dt if crept is not None else dt  # a creep's start is known to a frame or so
        if b.last_event_t is not None and t_s - 3 * dt <= b.last_event_t <= t_s + late:
            return  # already explained (a contact found from the hitter's side, or a chain)
        striker = self._unseen_striker(b, t_s, a, new.vel(t_s))
        if (
            striker is not None
            and speed >= self.s.start_speed_mm_s
            and self.balls[striker].waypoint is None
            and not self._hitter(b, br, a, t_s, crept, moving_only=True)
        ):
            # struck too fast to be seen (or under the player's arm), it hit this ball's cluster; not where a
            # ball seen moving reaches it then (what vanished was something else: a hand, the cue's tip)
            self._hit_by_unseen(self.balls[striker], b, t_s, out)
            return
        if unseen and self._stalled(b, br):
            return  # back in sight far off and at once still: not a ball run from its place (a hand, the cue's tip)
        if not self.shot_active and unseen and speed >= self.s.start_speed_mm_s:
            # it ran unseen from its place and its first contact is not known yet: the shot starts with it, when
            # its path run back passes its place (within a diameter: it ran straight from there; a few degrees
            # off over half a metre is that far), else at its last sight there
            straight = br.t_lo <= t_s and float(np.linalg.norm(new.at(t_s) - a)) <= self.table.ball_diameter_mm
            self._start_shot(b, t_s if straight else br.t_lo + 0.5 * dt, a, 0.45, out)
            b.unseen_seg = br.new  # its path starts where it hits something, once that is known
            return
        if not self.shot_active:
            if speed >= self.s.start_speed_mm_s:
                # a struck ball frozen to others sets them off together: the struck one is the rearmost
                vhat = new.vel(t_s) / max(speed, 1e-9)
                set_off = [
                    k
                    for k in self._frozen_cluster(b.id, br.t_lo)
                    if self.balls[k].segs and self.balls[k].seg.kind == "move" and self.balls[k].rest_pos is not None
                ]
                first = min(set_off, key=lambda k: float(self.balls[k].rest_pos @ vhat)) if set_off else b.id  # type: ignore[operator]
                first = self._pusher(first, vhat, br.t_lo)
                fb = self.balls[first]
                fpos = fb.rest_pos if fb.rest_pos is not None else a
                conf = 0.95 if new.n >= 3 else 0.6
                if first == b.id and speed < self.s.push_max_speed_mm_s and self._pending is None:
                    self._pending = _PendingStart(b.id, t_s, np.array(fpos, dtype=float), conf, speed)
                else:
                    self._start_shot(fb, t_s, fpos, conf, out)
            else:
                out.append(self._event("disturbed", t_s, ball=b.id, pos=_pt(a), confidence=0.7, shot=None))
            return
        best = self._hitter(b, br, a, t_s, crept)
        if best is None:
            hit = self._hit_at_stroke(b, br, a, new, t_s)
            if hit is not None:
                striker, t_c, pos, t_stroke = hit
                self._contact(striker, b.id, t_c, pos, 0.75, out)
                if t_stroke is not None:
                    self._retime_shot_start(striker, t_stroke, out)
                return
            if self._still_going(b, t_s, speed):
                return
            reached = self._reached_by(b, a, new.vel(br.t_hi), t_s - self.s.nudge_back_s, br.t_hi + dt)
            if reached is not None:
                striker, t_c, q = reached
                self._contact(striker, b.id, t_c, (q + a) / 2, 0.55, out)
                return
            if speed > self.s.touch_max_speed_mm_s:
                # faster than a hand sends a ball: a ball lost from sight hit it (at 30 fps a 4 m/s ball may
                # go unseen for 7 frames after a cushion), the one that could have been where its hitter was
                u = new.vel(t_s) / speed
                lost = self._lost_hitter(b, a - u * self.table.ball_diameter_mm, t_s)
                if lost is not None:
                    self._contact(lost, b.id, t_s, a - u * (self.table.ball_diameter_mm / 2), 0.45, out)
                return
            out.append(self._event("disturbed", t_s, ball=b.id, pos=_pt(a), confidence=0.45))
            return
        _, other, t_c, conf = best
        o = self.balls[other]
        pb = self._path_before(o, t_c)
        q = pb[0].at(t_c) if pb is not None else a
        mid = (np.asarray(q) + a) / 2
        self._contact(other, b.id, t_c, mid, conf, out)

    def _stalled(self, b: _Ball, br: _Break) -> bool:
        """Whether the path ``b`` came back into sight on stopped dead within two frames of its first step, with
        no ball near: a rolling ball slows by a few m/s2 at most, so its second and third steps keep most of its
        first's length unless it hits something (a stun shot into a cluster stops it dead beside a ball)."""
        first = next((i for i in br.new.idx if b.sid[i] >= 0), None)
        if first is None:
            return False
        good = [i for i in range(first, len(b.ts)) if b.sid[i] >= 0][:4]  # its next legs too
        if len(good) < 3:
            return False
        steps = [float(np.linalg.norm(b.xy[k] - b.xy[i])) / max(b.ts[k] - b.ts[i], 1e-6) for i, k in pairwise(good)]
        if steps[0] < self.s.start_speed_mm_s or max(steps[1:]) >= 0.3 * steps[0]:
            return False
        p, reach = b.xy[good[1]], 2 * self.table.ball_diameter_mm
        near = [o for o in self.balls.values() if o is not b and o.on_table and o.xy]
        return not any(float(np.hypot(*(o.xy[-1] - p))) < reach for o in near)

    def _bounce_off_start(self, b: _Ball, br: _Break, out: list[Event]) -> None:
        """A ball hit from rest toward a cushion a few centimetres away touches it before it is first seen moving
        (at 3 m/s a ball covers 50 mm in a frame): the hit sends it along the line of centres, into the cushion,
        yet its first path moves away from it. The touch is where that path, run back, meets the cushion (one
        radius from the nose); the hit's direction mirrored in the cushion must be the path's, within
        ``bounce_angle_deg`` (the cushion takes normal speed away and spin bends the rebound)."""
        a = br.new.start_p
        hit = next(
            (
                (k, tt)
                for k, tt in reversed(self._contacts)
                if b.id in k and br.t_lo - 3 * self._dt <= tt <= br.t_hi + self._dt
            ),
            None,
        )
        if hit is None:
            return
        (other,) = hit[0] - {b.id}
        pb = self._path_before(self.balls[other], hit[1])
        if pb is None:
            return
        u = a - pb[0].at(hit[1])
        u = u / max(float(np.linalg.norm(u)), 1e-9)  # the way the hit sends it
        # the first sample may be the blurred frame of the bounce, or before it
        for _, path in islice(self._paths_out(b, br, hit[1]), 2):
            if self._bounce_before(b, a, u, hit[1], path, path.t0, out):
                return

    def _bounce_before(
        self, b: _Ball, a: np.ndarray, u: np.ndarray, t_hit: float, new: PathFit, t_first: float, out: list[Event]
    ) -> bool:
        """``_bounce_off_start`` for the path ``new``, first seen at ``t_first``: True if it found the touch."""
        R = self.table.ball_radius_mm
        v = new.vel(t_first)
        speed = float(np.linalg.norm(v))
        if speed < self.s.start_speed_mm_s:
            return False
        cos_max = math.cos(math.radians(self.s.bounce_angle_deg))
        for cu in self.table.cushions.values():
            n = np.array(cu.inward)
            if float(u @ n) >= 0.0 or float(v @ n) <= 0.0:
                continue  # not sent into it, or not coming away from it
            root = solve_root(_gap_to_cushion(new, cu, R), t_hit - 0.5 * self._dt, t_first)
            if root is None:
                continue
            p = new.at(root)
            if not (0.0 <= cu.along(_pt(p)) <= cu.length_mm):
                continue
            mirrored = u - 2.0 * float(u @ n) * n
            if float(mirrored @ v) < cos_max * speed:
                continue
            # Run back, the path reaches the cushion too early (the cushion took normal speed away, so the rebound
            # leaves at a flatter angle); run forward from the hit at the speed it left with, too late (it came in
            # faster): the mean of the two (within a frame on the suites' cases).
            gap_a = float((a - np.array(cu.start)) @ n) - R
            ahead = t_hit + max(gap_a, 0.0) / (-float(u @ n) * speed)
            root = min(max(0.5 * (root + ahead), t_hit), t_first)
            p = new.at(root)
            if not self._touched_near(b.id, root, 3 * self._dt):
                out.append(self._cushion(b.id, root, cu.name, _pt(p - n * R), 0.75))
            return True
        return False

    def _hitter(
        self, b: _Ball, br: _Break, a: np.ndarray, t_s: float, crept: float | None, moving_only: bool = False
    ) -> tuple[float, str, float, float] | None:
        """The ball that set ``b`` off from ``a`` at about ``t_s``, as (score, its id, contact time, confidence):
        a moving ball whose incoming path reaches one diameter from ``a`` then, or (unless ``moving_only``) a
        frozen neighbour just hit or starting. None if no ball explains it."""
        dt = self._dt
        D = self.table.ball_diameter_mm
        best: tuple[float, str, float, float] | None = None  # (score, other, t, conf)
        for o in self.balls.values():
            if o is b or not o.ts:
                continue
            pb = self._path_before(o, min(br.t_lo, t_s + dt))  # its path before the contact, not after
            if pb is None:
                continue
            path, moving = pb
            if moving:
                root = solve_root(_gap_to_point(path, a, D), min(br.t_lo, t_s) - 2 * dt, br.t_hi + 0.5 * dt)
                if root is None:
                    gap = abs(float(np.linalg.norm(path.at(t_s) - a)) - D)
                    if gap > self.s.contact_tol_mm:
                        continue
                    root, score = t_s, 1.0 + gap / self.s.contact_tol_mm
                else:
                    score = abs(root - t_s) / dt
                    slow = abs(root - t_s) * float(np.linalg.norm(path.vel(root))) <= self.s.contact_tol_mm
                    if score > 3.0 and not (crept is not None and slow):
                        continue  # (a slow ball creeping into another: frames off, but millimetres)
                    score = min(score, 3.0)
                conf = 0.95 if score < 1.5 else 0.7
                if best is None or score < best[0]:
                    # two estimates of one instant, each from one ball's path: its arrival and the other's
                    # departure (on the rendered suite's detections the first came a third of a frame late on
                    # average, the second half a frame early: their mean is nearer than either)
                    best = (score, o.id, 0.5 * (root + t_s), conf)
            elif not moving_only:
                d = float(np.linalg.norm(path.at(t_s) - a))
                recent = o.last_event_t is not None and abs(o.last_event_t - t_s) <= 2.5 * dt
                starting = o.seg.kind == "move" and abs(o.seg.start_t - t_s) <= 2.5 * dt
                if d <= D + self.s.frozen_tol_mm and (recent or starting):
                    te = o.last_event_t if recent and o.last_event_t is not None else t_s
                    score = 2.0 + (d - D) / self.s.frozen_tol_mm
                    if best is None or score < best[0]:
                        best = (score, o.id, max(te, br.t_lo - dt), 0.8)
        return best

    def _creep_start(self, b: _Ball, br: _Break) -> float | None:
        """When a ball set off slowly really left its place: it creeps off while the tracker still holds it at
        rest, so its detections over the last resting samples (up to ``creep_back_s``) drift away from where
        they sat. If the drift after the last one still at that place (within ``creep_still_mm``) is steady (each
        farther off than the one before, give or take the noise), where its speed jumped (``_creep_hinge``), or
        else halfway from that last one to the next; otherwise None."""
        idx = [i for i in br.old.idx if i in b.seen and b.ts[i] >= br.t_lo - self.s.creep_back_s]
        if len(idx) < 6:
            return None
        det = np.array([b.seen[i] for i in idx])
        ref = np.median(det[: len(det) // 3], axis=0)
        d = np.linalg.norm(det - ref, axis=1)
        still = np.flatnonzero(d <= self.s.creep_still_mm)
        if len(still) == 0 or still[-1] >= len(d) - 2:
            return None  # no drift seen before it broke its rest
        k = int(still[-1])
        drift = d[k:]
        if np.any(np.diff(drift) < -self.s.creep_still_mm):
            return None  # back and forth: noise or a hand, not a ball creeping off
        hinge = self._creep_hinge(b, br, idx)
        if hinge is not None:
            return hinge  # (a ball already creeping when hit drifts from its place long before it)
        return 0.5 * (b.ts[idx[k]] + b.ts[idx[k + 1]])  # it left between the last sample there and the next

    def _creep_hinge(self, b: _Ball, br: _Break, idx: list[int]) -> float | None:
        """When a slow ball hit while the tracker held it resting (its detections at ``idx`` of the old segment,
        then the first samples of its path) sped up: the corner of a hinge fitted to how far along its new path
        it was, the old speed before (none, or a creep already under way) and the new one after. None unless
        the new speed is clearly more (twice the old, and ``creep_speedup_mm_s`` over it)."""
        new = [i for i in br.new.idx if b.sid[i] >= 0][: self.s.creep_hinge_samples]
        if len(new) < 3:
            return None
        ts = np.array([b.ts[i] for i in idx + new])
        ps = np.array([b.seen[i] for i in idx] + [b.xy[i] for i in new])
        f = self._fit(b, new, head=True)
        v = f.vel(b.ts[new[0]])
        speed = float(np.linalg.norm(v))
        if speed < 1e-6:
            return None
        s = (ps - ps[0]) @ (v / speed)
        lo, hi = ts[2], b.ts[new[0]]
        h = fit_hinge(ts, s, lo, hi, steps=max(8, int(np.ceil((hi - lo) / (self._dt / 8)))))
        if h is None or h.after < 2.0 * max(h.before, 0.0) + self.s.creep_speedup_mm_s:
            return None
        return h.t

    def _pusher(self, ball: str, vhat: np.ndarray, t: float) -> str:
        """The ball struck when ``ball``, frozen to others, set off along ``vhat``: a frozen neighbour squarely
        behind it (``vhat`` along their line of centres, as a push sends it) pushed it, and that one may have
        been pushed by the one behind it. The struck ball itself barely moves in a push through a frozen ball:
        it may not yet be seen leaving its place."""
        D = self.table.ball_diameter_mm + self.s.frozen_tol_mm
        cos_max = math.cos(math.radians(self.s.push_angle_deg))
        cur, seen = ball, {ball}
        while True:
            p = self.balls[cur].rest_pos
            if p is None:
                return cur
            behind = None
            for k in self._frozen_cluster(cur, t):
                q = self.balls[k].rest_pos
                if k in seen or q is None:
                    continue
                d = float(np.linalg.norm(p - q))
                if d <= D and float((p - q) @ vhat) > cos_max * d:
                    behind = k
                    break
            if behind is None:
                return cur
            cur = behind
            seen.add(cur)

    def _hit_at_stroke(
        self, b: _Ball, br: _Break, a: np.ndarray, new: PathFit, t_s: float
    ) -> tuple[str, float, np.ndarray, float | None] | None:
        """A resting ball set moving in the first frames of a shot by the struck ball, which hit it before it
        was ever seen moving (at 25 fps a ball one diameter away is hit within a frame of the stroke): the
        struck ball's place at the stroke plus the path it has run by ``b``'s first moving sample reaches
        one diameter (plus the contact tolerance) from ``b``, and ``b`` leaves away from it. Returns (the
        struck ball, the contact time, the contact point, and the stroke time where it can be solved)."""
        if self._stroke is None:
            return None
        sid, t0, p0 = self._stroke
        dt = self._dt
        s_ball = self.balls.get(sid)
        if s_ball is None or s_ball is b:
            return None
        # within frames of the stroke: of its time as solved, or of the struck ball's last sample at its place (a
        # struck ball that barely moves after the hit has its stroke run back too early)
        left = max(
            (s_ball.ts[i] for sg in s_ball.segs if sg.kind == "rest" for i in sg.idx if s_ball.ts[i] <= br.t_hi),
            default=t0,
        )
        if br.t_lo > max(t0, left) + 3 * dt:
            return None
        D = self.table.ball_diameter_mm
        away = a - p0
        dist = float(np.linalg.norm(away))
        v_b = new.vel(t_s)
        if dist < 1e-6 or float(away @ v_b) <= 0:
            return None  # it leaves toward the struck ball's place, not away from it
        # the path the struck ball ran up to b's first moving sample (a polyline through its samples)
        after = bisect.bisect_right(s_ball.ts, t0)
        upto = bisect.bisect_right(s_ball.ts, br.t_hi + 1e-9)
        run = [p0] + [s_ball.xy[i] for i in range(after, upto) if s_ball.sid[i] >= 0]
        travel = float(sum(np.linalg.norm(run[i + 1] - run[i]) for i in range(len(run) - 1)))
        if dist - D > travel + self.s.contact_tol_mm:
            return None
        # b leaves its place at the contact: the time is where b's outgoing path, run back, is nearest its
        # place (the struck ball's incoming leg was never seen); the struck ball's centre is then one
        # diameter behind b along b's new direction (the line of centres)
        u = v_b / max(float(np.linalg.norm(v_b)), 1e-9)
        t_c = min(max(t_s, t0, br.t_lo - dt), br.t_hi)
        return sid, t_c, a - u * (D / 2), self._stroke_time(s_ball, upto, a - u * D, v_b, t_c)

    def _stroke_time(self, s_ball: _Ball, first: int, c: np.ndarray, v_b: np.ndarray, t_c: float) -> float | None:
        """When the struck ball, never seen before its first contact, was struck: its incoming velocity is
        the sum of both balls' outgoing ones (equal masses), run back over its leg from its place to the
        contact centre ``c``; no earlier than its last resting sample. ``first``: its first sample after."""
        assert self._stroke is not None
        p0 = self._stroke[2]
        nxt = [i for i in range(max(first - 1, 0), len(s_ball.ts)) if s_ball.sid[i] >= 0]
        rest = [s_ball.ts[i] for sg in s_ball.segs if sg.kind == "rest" for i in sg.idx if s_ball.ts[i] <= t_c]
        if len(nxt) < 2 or not rest:
            return None
        i, k = nxt[0], nxt[1]
        v_s = (s_ball.xy[k] - s_ball.xy[i]) / max(s_ball.ts[k] - s_ball.ts[i], 1e-6)
        speed = float(np.linalg.norm(v_s + v_b))
        if speed < self.s.start_speed_mm_s:
            return None
        return min(max(t_c - float(np.linalg.norm(c - p0)) / speed, max(rest)), t_c)

    def _retime_shot_start(self, ball: str, t: float, out: list[Event]) -> None:
        """The shot's start, not yet given out, moved to the stroke time solved from its first contact."""
        for k, e in enumerate(out):
            if e.type == "shot_start" and e.shot == self.shot and e.ball == ball:
                out[k] = self._event("shot_start", t, ball=ball, positions=e.positions, confidence=e.confidence)
                if self._stroke is not None:
                    self._stroke = (ball, t, self._stroke[2])
                return

    def _hit_by_unseen(self, s_ball: _Ball, b: _Ball, t_s: float, out: list[Event]) -> None:
        """``s_ball`` left its resting place unseen and set ``b`` moving at ``t_s``: it starts the shot (if
        none is in play) and hits the ball of ``b``'s frozen cluster nearest to where it came from; its run
        is a straight leg from its place to that contact, on which the lines it crossed are solved."""
        dt = self._dt
        sp = s_ball.rest_pos
        assert sp is not None
        rest = next(sg for sg in reversed(s_ball.segs) if sg.kind == "rest" and sg.idx)
        t_gone = s_ball.ts[rest.idx[-1]] + 0.5 * dt
        if not self.shot_active:
            self._start_shot(s_ball, t_gone, sp, 0.45, out)
        cluster = [k for k in self._frozen_cluster(b.id, t_s) if k != s_ball.id] or [b.id]
        target = min(cluster, key=lambda k: float(np.linalg.norm(self.balls[k].rest_pos - sp)))
        q = self.balls[target].rest_pos
        assert q is not None
        u = (sp - q) / max(float(np.linalg.norm(sp - q)), 1e-9)
        self._contact(s_ball.id, target, t_s, q + u * self.table.ball_radius_mm, 0.45, out)
        centre = q + u * self.table.ball_diameter_mm
        self._close_move_seg(s_ball, _Seg(-1, "move", t_gone, sp.copy()), (t_s, centre), out)
        s_ball.waypoint = (t_s, centre)
        s_ball.last_event_t = t_s
        if s_ball.unseen_seg is not None and s_ball.unseen_seg.end_t is None:
            s_ball.unseen_seg.start_t, s_ball.unseen_seg.start_p = t_s, centre.copy()

    def _unseen_striker(self, b: _Ball, t_s: float, a: np.ndarray, v: np.ndarray) -> str | None:
        """A resting ball that vanished shortly before ``b`` started, from a place behind ``b``'s new
        direction of travel: the struck ball, unseen while it ran (blur, or under the player's arm)."""
        best, best_t = None, -math.inf
        for o in self.balls.values():
            if o is b or not o.on_table or o.rest_pos is None or not o.ts or not o.segs:
                continue
            rest = next((sg for sg in reversed(o.segs) if sg.kind == "rest" and sg.idx), None)
            if rest is None:
                continue
            gone = o.ts[rest.idx[-1]]
            # its samples after its rest, but those still within a few millimetres of its place: the first
            # blurred frame of a hard stroke shows it barely moved, then it is gone
            after = [i for i in range(rest.idx[-1] + 1, len(o.ts)) if o.sid[i] >= 0]
            away = [float(np.linalg.norm(o.xy[i] - o.rest_pos)) > self.s.start_min_mm for i in after]
            later = [o.ts[i] for i, off in zip(after, away, strict=True) if off]
            if later and later[0] < t_s - 0.5 * self._dt:
                continue  # it was seen moving before b started: not unseen
            if any(not off and o.ts[i] > t_s - 1.5 * self._dt for i, off in zip(after, away, strict=True)):
                continue  # still seen at its place as b started (seen too seldom to make a rest): not the striker
            if not (t_s - self.s.unseen_strike_s <= gone <= t_s - 1.5 * self._dt):
                continue
            if float((a - o.rest_pos) @ v) <= 0:
                continue
            if gone > best_t:
                best, best_t = o.id, gone
        return best

    def _explain_kink(self, b: _Ball, br: _Break, out: list[Event]) -> None:
        dt = self._dt
        before = _seg_before(b, br.old)
        short = len([i for i in br.old.idx if b.sid[i] >= 0]) <= self.s.short_path_samples
        if br.old.unexplained and short and before is not None and before.kind == "move":
            # a path of a sample or two between two kinks nothing explained: one bounce with a stray measurement
            # in it (the blurred frame of a fast bounce), explained from the paths either side
            t_lo = max((b.ts[i] for i in before.idx if b.sid[i] >= 0), default=br.t_lo)
            br = _Break("kink", before, br.new, t_lo, br.t_hi)
        R, D = self.table.ball_radius_mm, self.table.ball_diameter_mm
        old = self._fit(b, br.old.idx)
        new = self._fit(b, br.new.idx, head=True)
        t_k = intersect_paths(old, new, br.t_lo - 0.5 * dt, br.t_hi) if new.n >= 2 else br.t_lo + 0.5 * dt
        gap_conf = 1.0 if br.t_hi - br.t_lo <= 1.5 * dt else 0.7
        p_k = old.at(t_k)
        v_old, v_new = old.vel(t_k), new.vel(t_k) if new.n >= 2 else old.vel(t_k)
        lo, hi = br.t_lo - dt, br.t_hi + 0.5 * dt
        into, t_last = self._trimmed_before_kink(b, br.old.idx) or (old, br.t_lo)  # for timing a cushion touch
        lo_c = min(lo, t_last - 0.5 * dt)
        cands: list[tuple[float, str, str, float, np.ndarray]] = []  # (score, kind, name, t, pos)
        for cu in self.table.cushions.values():
            n = np.array(cu.inward)
            off = cu.offset(_pt(p_k)) - R
            al = cu.along(_pt(p_k))
            if abs(off) > self.s.cushion_tol_mm or not (-0.5 * R <= al <= cu.length_mm + 0.5 * R):
                continue
            if float(v_old @ n) >= 0 or float(v_new @ n) <= float(v_old @ n) + 20.0:
                continue
            root = solve_root(_gap_to_cushion(into, cu, R), lo_c, hi)
            if self.s.cushion_both_paths:
                root = _both_ways(root, _gap_to_cushion(new, cu, R), new, lo_c)
            tc = root if root is not None else t_k
            if self._hugs(b, cu, tc):
                continue
            pc = into.at(tc) - n * R
            # a centre beyond the flat nose touches the rounded jaw tip there, not the nose line: past it by a
            # few millimetres the jaw explains it better
            beyond = self._beyond_flat(cu, al)
            cands.append((abs(off) / self.s.cushion_tol_mm + beyond / 4.0, "cushion", cu.name, tc, pc))
        for pk in self.table.pockets.values():
            for jaw in pk.jaws:
                dj = jaw.distance(_pt(p_k)) - R
                if abs(dj) > self.s.cushion_tol_mm:
                    continue
                root = solve_root(_gap_to_jaw(into, jaw, R), lo_c, hi)
                if self.s.jaw_both_paths:
                    root = _both_ways(root, _gap_to_jaw(new, jaw, R), new, lo_c)
                tc = root if root is not None else t_k
                cands.append((0.2 + abs(dj) / self.s.cushion_tol_mm, "cushion", jaw_cushion(pk.name), tc, into.at(tc)))
        for o in self.balls.values():
            if o is b or not o.ts or (not o.on_table and not o.ts):
                continue
            pb = self._path_before(o, t_k)
            if pb is None or pb[0].t1 < t_k - 6 * dt:
                continue
            path = pb[0]
            d = float(np.linalg.norm(path.at(t_k) - p_k))
            if abs(d - D) > self.s.contact_tol_mm:
                continue
            root = solve_root(_gap_between(old, path, D), lo, hi)
            if into is not old and pb[1]:
                # two rolling balls, and the incoming path took in samples from after the hit (the other ball's
                # may have too): time it on the paths up to the sample before them
                pt = self._path_before(o, t_last)
                if pt is not None:
                    r2 = solve_root(_gap_between(into, pt[0], D), lo_c, hi)
                    if r2 is not None and (root is None or r2 < root):  # samples after a hit make it late
                        root, path = r2, pt[0]
            tc = root if root is not None else t_k
            cands.append((abs(d - D) / self.s.contact_tol_mm, "ball", o.id, tc, (old.at(tc) + path.at(tc)) / 2))
        br.new.start_t, br.new.start_p = t_k, p_k
        self._close_move_seg(b, br.old, (t_k, p_k), out)
        if not cands:
            br.new.unexplained = True
            return  # nothing explains it
        cands.sort(key=lambda c: c[0])
        jaw_first = (
            jaw_pocket(cands[0][2]) is not None and cands[0][0] <= 0.2 + self.s.jaw_kink_mm / self.s.cushion_tol_mm
        )
        if not b.on_table and new.n < 3 and not jaw_first:
            return  # the ball dropping into a pocket, unless it turned where it met a jaw on the way in
        score, kind, name, tc, pc = cands[0]
        conf = (0.95 if score < 0.5 else 0.75 if score < 1.0 else 0.55) * gap_conf
        if len(cands) > 1 and cands[1][0] - score < 0.1 and cands[1][1] != kind:
            conf *= 0.7  # two explanations fit equally well
        if kind == "cushion":
            out.append(self._cushion(b.id, tc, name, _pt(pc), conf))
            jawed = jaw_pocket(name)
            if jawed is not None:
                pk = self.table.pockets[jawed]
                if not self._cushion_after_jaw(b, pk, br, tc, out):
                    self._jaw_exit(b, pk, br, tc, hi, out)
        else:
            o = self.balls[name]
            pb = self._path_before(o, tc)
            so = float(np.linalg.norm(pb[0].vel(tc))) if pb is not None and pb[1] else 0.0
            sb = float(np.linalg.norm(old.vel(tc)))
            first, second = (b.id, name) if sb >= so else (name, b.id)
            self._contact(first, second, tc, pc, conf, out)
            if pb is not None and new.n >= 2:
                self._bounce_after_hit(b, old, pb[0], pb[1], tc, new, br, out)

    def _paths_out(self, b: _Ball, br: _Break, tc: float) -> Iterator[tuple[float, PathFit]]:
        """The path away from a bounce at ``tc``: fitted from the first sample after the kink, then from the
        second and the third, each with the time until which the ball was seen on its way in (a second touch
        within a frame or two may come after the first sample or two). Three samples or more each."""
        good = [i for i in br.new.idx if b.sid[i] >= 0]
        for skip in range(3):
            sel = good[skip : skip + self.s.window]
            if len(sel) < 3:
                return
            t_in = b.ts[good[skip - 1]] if skip else tc
            yield t_in, fit_path(np.array([b.ts[j] for j in sel]), np.array([b.xy[j] for j in sel]))

    def _jaw_exit(self, b: _Ball, pk: Pocket, br: _Break, tc: float, hi: float, out: list[Event]) -> None:
        """A second touch of a pocket's jaws just after the one at ``tc``. A single bounce leaves the jaw where
        and when the ball met it, so the outgoing path, run back, touches it at ``tc`` too. A ball coming along a
        cushion into a corner jaw meets the rounded tip, turns into the face and bounces off that a fraction of a
        frame later: its outgoing path, run back, leaves the jaws that much later than the incoming one reached
        them (``_paths_out``: after the samples seen before that path, if any)."""
        R, dt = self.table.ball_radius_mm, self._dt
        for skip, (t_in, path) in enumerate(self._paths_out(b, br, tc)):
            lo, top = (tc - dt, hi) if skip == 0 else (t_in, path.t0 + 0.5 * dt)
            top = min(top, tc + self.s.jaw_exit_max_frames * dt)
            exits = [solve_root(_gap_to_jaw(path, jaw, R), lo, top) for jaw in pk.jaws]
            t2 = max((t for t in exits if t is not None), default=None)
            if t2 is None or t2 - tc < self.s.jaw_exit_frames * dt:
                continue
            if not self._touched_near(b.id, t2, 0.5 * dt):
                out.append(self._cushion(b.id, t2, jaw_cushion(pk.name), _pt(path.at(t2)), 0.6))
            return

    def _cushion_after_jaw(self, b: _Ball, pk: Pocket, br: _Break, tc: float, out: list[Event]) -> bool:
        """A ball that bounced off a jaw at ``tc`` into the cushion beside it and off that within a frame or two
        (a fast ball in a corner: cushion, jaw, cushion within three frames): its path away from the cushion, run
        back, comes from behind that cushion's nose line, which it met after ``tc`` and after the samples before
        that path (``_paths_out``). Leaving the cushion. True if it touched one (then no second jaw touch is
        looked for: that path left the cushion, not the jaw)."""
        R = self.table.ball_radius_mm
        for t_in, path in self._paths_out(b, br, tc):
            for name in {j.cushion for j in pk.jaws}:
                cu = self.table.cushions[name]
                n = np.array(cu.inward)
                if float(path.vel(path.t0) @ n) <= 0.0:
                    continue  # not coming away from it
                t2 = solve_root(_gap_to_cushion(path, cu, R), max(t_in, tc), path.t0)
                if t2 is None or self._past_flat(cu, cu.along(path.at_xy(t2))):
                    continue
                if not self._touched_near(b.id, t2, 0.5 * self._dt):
                    out.append(self._cushion(b.id, t2, name, _pt(path.at(t2) - n * R), 0.6))
                return True
        return False

    def _bounce_after_hit(
        self,
        b: _Ball,
        old: PathFit,
        other: PathFit,
        other_moving: bool,
        tc: float,
        new: PathFit,
        br: _Break,
        out: list[Event],
    ) -> None:
        """A ball hit beside a cushion (``old``: its path into the hit at ``tc``; ``other``: the other ball's)
        goes into the cushion before it is seen again: the hit adds to its velocity the other's along their line
        of centres (equal masses), and where that sends it into the cushion while ``new`` comes away from it, it
        touched it (``_bounce_before``)."""
        p, q = old.at(tc), other.at(tc)
        n = (q - p) / max(float(np.linalg.norm(q - p)), 1e-9)
        v = old.vel(tc)
        v_o = other.vel(tc) if other_moving else np.zeros(2)
        v_after = v + float((v_o - v) @ n) * n
        speed = float(np.linalg.norm(v_after))
        good = [i for i in br.new.idx if b.sid[i] >= 0]
        if speed >= self.s.start_speed_mm_s and good:
            self._bounce_before(b, p, v_after / speed, tc, new, b.ts[good[0]], out)

    def _kisses(self, t: float, out: list[Event]) -> None:
        """Touches too thin to bend either path visibly (two balls rolling side by side, a feathered cut): over
        the last ``kiss_window`` frames the centres came within a diameter (plus the measurement noise) and
        were farther apart, by ``kiss_rise_mm``, both before and after. Judged on the frames in which both balls
        were seen, at least one of them moving."""
        w = self.s.kiss_window
        D = self.table.ball_diameter_mm
        near = D + self.s.kiss_tol_mm
        live = [b for b in self.balls.values() if len(b.ts) >= w and abs(b.ts[-1] - t) < 1e-9]
        # A pair is judged only if one of the two was moving in some kept sample of the window (the last test
        # below, on the pair's common frames, which are among those): two balls at rest all along are skipped at
        # once. Nothing in between changes any state, so skipping them early changes no decision.
        moving = {b.id: self._moved_in_window(b, w) for b in live}
        if not any(moving.values()):
            return
        # each ball's last w samples: frame numbers and positions of those kept (not rejected outliers)
        win: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]] = {}

        def window(b: _Ball) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
            got = win.get(b.id)
            if got is None:
                n = len(b.ts)
                kept, frames = self._kept_frames(b, n - w, n)
                xy = b.xy_arr[n - w : n]
                keep = kept - (n - w)
                got = win[b.id] = (frames, xy[keep], keep - w, float(np.linalg.norm(xy[-1] - xy[0])))
            return got

        cleared = self._kiss_screen(live, moving, w, near + 2 * D)
        for i, a in enumerate(live):
            for j in range(i + 1, len(live)):
                c = live[j]
                if not (moving[a.id] or moving[c.id]) or (i, j) in cleared:
                    continue
                na, xa, ia, travel_a = window(a)
                nc, xc, ic, travel_c = window(c)
                if float(np.linalg.norm(a.xy[-1] - c.xy[-1])) > near + max(w * 20.0, 2 * (travel_a + travel_c)):
                    continue  # too far apart now to have been close in the window
                _, ka, kc = np.intersect1d(na, nc, assume_unique=True, return_indices=True)
                if len(ka) < self.s.kiss_after + 4:
                    continue
                ja, jc = ia[ka].tolist(), ic[kc].tolist()
                diff = xa[ka] - xc[kc]
                dd = np.sqrt(diff[:, 0] * diff[:, 0] + diff[:, 1] * diff[:, 1])
                k = int(np.argmin(dd))
                if dd[k] > near + 2 * D or not (2 <= k <= len(dd) - 1 - self.s.kiss_after):
                    continue  # decided once the breaks of a visible bend (a ball set off slowly) would be
                if dd[k] > near:
                    # Not close in any frame: they may have met between frames (the closest frame as far from the
                    # touch as they closed in a frame), or their paths bent off just before the closest frame
                    # (kiss_bent_mm). On the paths they came in on, did they meet?
                    rel = (a.xy[ja[k + 1]] - c.xy[jc[k + 1]]) - (a.xy[ja[k]] - c.xy[jc[k]])
                    reach = max(near + self.s.kiss_bent_mm, math.hypot(near, float(np.linalg.norm(rel))))
                    if dd[k] > reach or self._approach_gap(a, c, ja, jc, k) > near:
                        continue
                rise = dd[k] + self.s.kiss_rise_mm
                if dd[:k].max() < rise or dd[k + 1 :].max() < rise:
                    continue
                if not any(self._seg_kind(b, j) == "move" for b, js in ((a, ja), (c, jc)) for j in js):
                    continue
                t_k = a.ts[ja[k]]
                if any(br.t_lo <= t_k + 3 * self._dt for b in (a, c) for br in b.breaks):
                    continue  # a bend of either path near then is not explained yet: that decides first
                key = frozenset((a.id, c.id))
                if any(kk == key and abs(tt - t_k) <= 3.5 * self._dt for kk, tt in self._contacts):
                    continue
                # the approach: both paths up to the closest frame, run on to where the centres are a diameter
                # apart (a kiss that bends a path visibly is timed on the paths before it)
                sel = slice(max(0, k - 5), k + 1)
                t_arr = np.array([a.ts[x] for x in ja[sel]])
                fa = fit_path(t_arr, np.array([a.xy[x] for x in ja[sel]]))
                fc = fit_path(t_arr, np.array([c.xy[y] for y in jc[sel]]))
                t_c = solve_root(_gap_between(fa, fc, D), a.ts[ja[k - 1]], t_k)
                if t_c is None and dd[k] > near:  # they met after the closest frame, before the next
                    t_c = solve_root(_gap_between(fa, fc, D), t_k, a.ts[ja[k + 1]])
                if t_c is None:  # never quite a diameter apart (noise): the vertex of the closest three
                    t3 = np.array([a.ts[x] for x in ja[k - 1 : k + 2]])
                    c2, c1, _ = np.polyfit(t3 - t_k, dd[k - 1 : k + 2], 2)
                    t_c = t_k + (float(np.clip(-c1 / (2 * c2), t3[0] - t_k, t3[2] - t_k)) if c2 > 0 else 0.0)
                first, second = (a, c) if np.linalg.norm(fa.vel(t_c)) >= np.linalg.norm(fc.vel(t_c)) else (c, a)
                self._contact(first.id, second.id, t_c, (fa.at(t_c) + fc.at(t_c)) / 2, 0.6, out, chain=False)

    def _kiss_screen(self, live: list[_Ball], moving: dict[str, bool], w: int, far: float) -> set[tuple[int, int]]:
        """The pairs (indices into ``live``) that ``_kisses`` would reject on their distances alone, found for
        all pairs at once: those of two balls with all ``w`` samples kept in the same frames, whose closest
        frame is farther than ``far`` or too near either end of the window. The same arithmetic as the pair
        test (the same frames, differences and square roots), so the same pairs."""
        k_max = w - 1 - self.s.kiss_after
        # the balls with no rejected sample in the window (the others are judged pair by pair), grouped by
        # their window's frames (in time order, no two alike)
        full = [i for i, b in enumerate(live) if min(b.sid[-w:]) >= 0]
        if len(full) < 2:
            return set()
        ts = np.array([live[i].ts_arr[len(live[i].ts) - w : len(live[i].ts)] for i in full])
        frames = np.rint(ts / self._dt).astype(np.int64)
        rising = np.all(frames[:, 1:] > frames[:, :-1], axis=1)
        groups: dict[bytes, list[int]] = {}
        for r, i in enumerate(full):
            if rising[r]:
                groups.setdefault(frames[r].tobytes(), []).append(i)
        out: set[tuple[int, int]] = set()
        for members in groups.values():
            pairs = [
                (members[p], members[q])
                for p in range(len(members))
                for q in range(p + 1, len(members))
                if moving[live[members[p]].id] or moving[live[members[q]].id]
            ]
            if not pairs:
                continue
            xy = np.array([live[i].xy_arr[len(live[i].ts) - w : len(live[i].ts)] for i in members])  # (balls, w, 2)
            row = {i: r for r, i in enumerate(members)}
            ra = np.array([row[i] for i, _ in pairs])
            rc = np.array([row[j] for _, j in pairs])
            diff = xy[ra] - xy[rc]
            dd = np.sqrt(diff[:, :, 0] * diff[:, :, 0] + diff[:, :, 1] * diff[:, :, 1])
            k = np.argmin(dd, axis=1)
            reject = (dd[np.arange(len(pairs)), k] > far) | (k < 2) | (k > k_max)
            out.update(pr for pr, r in zip(pairs, reject.tolist(), strict=True) if r)
        return out

    def _moved_in_window(self, b: _Ball, w: int) -> bool:
        """Is any kept sample (not a rejected outlier) of the ball's last ``w`` in a moving segment?"""
        sids = {sid for sid in b.sid[-w:] if sid >= 0}
        return any(self._seg_kind_of(b, sid) == "move" for sid in sids)

    def _approach_gap(self, a: _Ball, c: _Ball, ja: list[int], jc: list[int], k: int) -> float:
        """The least distance between the centres of ``a`` and ``c`` from the frame before their closest (index
        ``k`` of the common frames ``ja``, ``jc``) to the one after, on straight paths fitted to their approach
        up to the closest frame: a glancing hit between frames leaves no frame with the two close."""
        sel = slice(max(0, k - 5), k + 1)
        t_arr = np.array([a.ts[x] for x in ja[sel]])
        fa = fit_path(t_arr, np.array([a.xy[x] for x in ja[sel]]), quadratic_from=7)
        fc = fit_path(t_arr, np.array([c.xy[y] for y in jc[sel]]), quadratic_from=7)
        u = np.linspace(a.ts[ja[k - 1]], a.ts[ja[k + 1]], 17)
        return float(min(np.linalg.norm(fa.at(x) - fc.at(x)) for x in u))

    def _seg_kind(self, b: _Ball, j: int) -> str:
        return self._seg_kind_of(b, b.sid[j])

    def _seg_kind_of(self, b: _Ball, sid: int) -> str:
        return self._segs[sid].kind

    def _contact(
        self, a: str, b: str, t: float, pos: np.ndarray, conf: float, out: list[Event], chain: bool = True
    ) -> None:
        if a == b:
            return
        key = frozenset((a, b))
        for k, tt in self._contacts:
            if k == key and abs(tt - t) <= 2.5 * self._dt:
                return
        last = max((tt for k, tt in self._contacts if k == key and tt < t), default=None)
        if last is not None and not self._parted(self.balls[a], self.balls[b], last, t):
            return  # the two have stayed together since they last touched (one pushing the other): one contact
        self._contacts.append((key, t))
        self.balls[a].last_event_t = t
        self.balls[b].last_event_t = t
        self._shot_last_t = max(self._shot_last_t, t)
        out.append(self._event("contact", t, balls=(a, b), pos=_pt(pos), confidence=conf))
        if chain:
            self._propagate(a, b, t, out)

    def _kept_frames(self, b: _Ball, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """The ball's samples ``lo`` to ``hi`` (not rejected outliers), one per frame, as (sample indices, frame
        numbers): two samples a jittery clock rounds to one frame, the first stands for it."""
        kept = lo + np.flatnonzero(np.array(b.sid[lo:hi], dtype=np.int64) >= 0)
        frames = np.rint(b.ts_arr[kept] / self._dt).astype(np.int64)
        # (a window may hold no kept sample at all: a ball hidden, or shaken off its fit, all that time)
        first = np.diff(frames, prepend=frames[:1] - 1) != 0
        return kept[first], frames[first]

    def _parted(self, a: _Ball, b: _Ball, t0: float, t1: float) -> bool:
        """Whether ``a`` and ``b`` were seen apart (centres more than a diameter and ``parted_mm``) in a frame
        between ``t0`` and ``t1``, or not seen together at all then (so not known to have stayed together)."""

        def window(o: _Ball) -> tuple[np.ndarray, np.ndarray]:
            lo, hi = np.searchsorted(o.ts_arr[: len(o.ts)], [t0, t1], side="right")
            kept, frames = self._kept_frames(o, int(lo), int(hi))
            return frames, o.xy_arr[kept]

        fa, xa = window(a)
        fb, xb = window(b)
        _, ia, ib = np.intersect1d(fa, fb, return_indices=True)
        if len(ia) < 2:
            return True
        gaps = np.linalg.norm(xa[ia] - xb[ib], axis=1) - self.table.ball_diameter_mm
        return bool(gaps.max() > self.s.parted_mm)

    def _frozen_cluster(self, ball: str, t: float) -> list[str]:
        """The balls resting at ``t`` that touch ``ball`` directly or through other touching balls."""
        D = self.table.ball_diameter_mm
        rest = {
            k: o.rest_pos
            for k, o in self.balls.items()
            if o.on_table and o.rest_pos is not None and (k == ball or self._resting_at(o, t))
        }
        if ball not in rest:
            return [ball]
        out, frontier = [ball], [ball]
        while frontier:
            cur = frontier.pop()
            for k, p in rest.items():
                if k not in out and float(np.linalg.norm(p - rest[cur])) <= D + self.s.frozen_tol_mm:
                    out.append(k)
                    frontier.append(k)
        return out

    def _propagate(self, hitter: str, hit: str, t: float, out: list[Event]) -> None:
        """A hit on a ball of a frozen cluster passes through the whole cluster: every pair of touching balls
        in it is in contact at that instant (as the physics resolves it), though most of them do not visibly
        move, so these contacts are inferred from the rest positions (lower confidence)."""
        if not self._resting_at(self.balls[hit], t):
            return
        cluster = self._frozen_cluster(hit, t)
        if len(cluster) < 2:
            return
        D = self.table.ball_diameter_mm
        origin = self.balls[hit].rest_pos
        assert origin is not None
        # nearer the struck ball first, so each pair reads (pusher, pushed)
        cluster.sort(key=lambda k: float(np.linalg.norm(self.balls[k].rest_pos - origin)))
        # A cluster's balls leave their places over a few frames, so a later contact in it (its balls seen to
        # part) may find some of them still resting: the pairs the push already went through are not new.
        recent = {k for k, tt in self._contacts if abs(tt - t) <= self.s.chain_repeat_s}
        for i, a in enumerate(cluster):
            pa = self.balls[a].rest_pos
            for c in cluster[i + 1 :]:
                pc = self.balls[c].rest_pos
                if pa is None or pc is None or float(np.linalg.norm(pa - pc)) > D + self.s.frozen_tol_mm:
                    continue
                if frozenset((a, c)) not in recent:
                    self._contact(a, c, t, (pa + pc) / 2, 0.6, out, chain=False)

    def _resting_at(self, b: _Ball, t: float) -> bool:
        """Was the ball resting just before ``t`` (its last sample by then in a resting segment)?"""
        pb = self._path_before(b, t - 0.5 * self._dt)
        return pb is not None and not pb[1] and b.rest_pos is not None

    # ---- segment ends: lines ----------------------------------------------------------------------------
    def _close_move(self, b: _Ball, end: tuple[float, np.ndarray], out: list[Event]) -> None:
        self._close_move_seg(b, b.seg, end, out)

    def _close_move_seg(
        self, b: _Ball, seg: _Seg, end: tuple[float, np.ndarray], out: list[Event], settle: bool = False
    ) -> tuple[list[float], list[np.ndarray], float] | None:
        """The path ``seg`` ends at ``end``: its grazes and line crossings. ``settle``: it ends in rest, so its
        lines wait for where the ball settles (``_settle``): returned instead are its samples up to its last
        moving one and its extra margin from rest."""
        if seg.kind != "move" or seg.end_t is not None:
            return None
        seg.end_t, seg.end_p = end[0], np.asarray(end[1])
        good = [i for i in seg.idx if b.sid[i] >= 0]
        ts = [seg.start_t] + [b.ts[i] for i in good] + [seg.end_t]
        ps = [seg.start_p] + [b.xy[i] for i in good] + [seg.end_p]
        self._grazes(b, ts, ps, out)
        # a ball resting on a line (a rack's middle row on the long line) is measured a millimetre or so off it
        before = _seg_before(b, seg)
        rest_margin = self.s.line_packed_margin_mm if seg.packed else self.s.line_rest_margin_mm
        from_rest = rest_margin - self.s.line_margin_mm if before is not None and before.kind == "rest" else 0.0
        if settle and len(ts) > 2:
            return ts[:-1], ps[:-1], from_rest
        self._path_lines(b, ts, ps, from_rest, out)
        return None

    def _settle(self, now: float, out: list[Event], force: bool) -> None:
        """The lines and rest touches of the paths that ended in rest, for balls resting ``line_settle_s`` since
        (or no longer resting, or ``force``: the shot ends)."""
        for b in self.balls.values():
            st = b.settling
            if st is None:
                continue
            if force or st.rest is not b.seg or now - b.ts[st.rest.idx[0]] >= self.s.line_settle_s - 1e-9:
                self._settle_ball(b, out)

    def _settle_ball(self, b: _Ball, out: list[Event]) -> None:
        """A stopped path's line crossings, judged on its samples, the detections while it crept to rest, and
        the median of the last few of those (where it settled) as its end."""
        st, b.settling = b.settling, None
        if st is None:
            return
        n = max(1, round(self.s.line_settle_s / self._dt))
        idx = st.rest.idx[:n]
        ts = st.ts + [b.ts[i] for i in idx]
        ps = st.ps + [b.seen.get(i, b.xy[i]) for i in idx]
        keep = 4 * self.s.window + len(idx)  # the path's last moving samples and the settling ones
        self._rest_touch(b, ts[1:][-keep:], ps[1:][-keep:], out)
        end = np.median(np.array(ps[-max(1, min(5, len(idx))) :]), axis=0)
        self._path_lines(b, ts, [*ps[:-1], end], st.from_rest, out)

    def _path_lines(self, b: _Ball, ts: list[float], ps: list[np.ndarray], from_rest: float, out: list[Event]) -> None:
        """The lines a path (samples ``ts``, ``ps``, from its start to its end) crossed."""
        for name, axis, val in self._lines:
            s0, s1 = ps[0][axis] - val, ps[-1][axis] - val
            over = _excursions(np.array([q[axis] for q in ps]) - val, self.s.line_excursion_mm)
            if len(over) >= 2:  # over the line and back (or more) inside one straight path: a slow jostle
                for k, sa, sb in over:
                    self._line_cross(b, name, axis, val, ts, ps, k, sa, sb, out)
                continue
            if s0 * s1 >= 0 or min(abs(s0) - from_rest, abs(s1)) < self.s.line_margin_mm:
                continue  # no crossing, or a path starting or ending on the line (001 2.1.6: on is not over)
            # the first sample past the line
            k = next(j for j in range(1, len(ps)) if (ps[j][axis] - val) * s0 <= 0)
            self._line_cross(b, name, axis, val, ts, ps, k, s0, s1, out)

    def _line_cross(
        self,
        b: _Ball,
        name: str,
        axis: int,
        val: float,
        ts: list[float],
        ps: list[np.ndarray],
        k: int,
        s0: float,
        s1: float,
        out: list[Event],
    ) -> None:
        """A crossing of line ``name`` between samples ``k - 1`` and ``k`` (the first past it), from a side
        ``s0`` mm off it to one ``s1`` off: timed on a local fit around it."""
        lo, hi = max(0, k - 4), min(len(ps), k + 4)
        f = fit_path(np.array(ts[lo:hi]), np.array(ps[lo:hi]), quadratic_from=7)
        lo_t, hi_t = ts[k - 1] - 0.5 * self._dt, ts[k] + 0.5 * self._dt
        root = solve_root(_gap_to_line(f, axis, val), lo_t, hi_t)
        if root is None:
            root = ts[k - 1] + (ts[k] - ts[k - 1]) * (s0 / (s0 - (ps[k][axis] - val)) if ps[k][axis] != val else 1.0)
        near = min(abs(s0), abs(s1)) < self.table.ball_radius_mm / 4
        direction = ("+" if s1 > s0 else "-") + ("x" if axis == 0 else "y")
        conf = 0.6 if near else 0.95
        out.append(self._event("line_cross", root, ball=b.id, line=name, direction=direction, confidence=conf))

    def _grazes(self, b: _Ball, ts: list[float], ps: list[np.ndarray], out: list[Event]) -> None:
        """Cushion touches too glancing to bend the path visibly: the distance to the nose line falls to one
        radius and rises again (a V) inside one straight segment (a long one may hold several)."""
        if len(ps) < 7:
            return
        R = self.table.ball_radius_mm
        arr = np.array(ps)
        for cu in self.table.cushions.values():
            n = np.array(cu.inward)
            rel = arr - np.array(cu.start)
            off = rel @ n - R
            # Beside the cushion only (to half a radius past its ends): a path that comes off a jaw starts
            # behind the nose line's end, and its samples there would join one dip with a touch just after.
            along = rel @ np.array(cu.direction)
            beside = (along >= -0.5 * R) & (along <= cu.length_mm + 0.5 * R)
            for k, before, after in _valleys(off, self.s.graze_tol_mm, beside):
                if not (3 <= k <= len(ps) - 4):
                    continue
                hinge = self._hinge(ts, off, k, beside)
                rolled = min(before, after) < off[k] + 10.0 and not self._bounced(hinge)
                if rolled and not self._arrived(hinge, before - off[k], off[k + 1 : k + 1 + self._arrive_n]):
                    continue  # rolling along the cushion, not touching it once (a V: off it before and after)
                self._graze(b, cu, ts, arr, k, hinge, out)
        self._jaw_grazes(b, ts, arr, out)

    def _jaw_grazes(self, b: _Ball, ts: list[float], arr: np.ndarray, out: list[Event]) -> None:
        """Jaw touches too slow or glancing to bend the path visibly: a V of the distance to a jaw's surface (its
        rounded tip or face) down to ``jaw_graze_tol_mm``, judged on the samples within ``jaw_graze_reach_mm`` of
        the pocket's mouth."""
        R = self.table.ball_radius_mm
        for pk in self.table.pockets.values():
            near = np.hypot(*(arr - np.array(pk.mouth_center)).T) <= self.s.jaw_graze_reach_mm
            if int(near.sum()) < 3:
                continue
            for jaw in pk.jaws:
                off = np.full(len(arr), np.inf)
                off[near] = [jaw.distance(_pt(q)) - R for q in arr[near]]
                for k, before, after in _valleys(off, self.s.jaw_graze_tol_mm, near):
                    if not (3 <= k <= len(arr) - 4):
                        continue
                    hinge = self._hinge(ts, off, k, near)
                    if min(before, after) < off[k] + 10.0 and not self._bounced(hinge):
                        continue
                    q = _pt(arr[k])
                    beside = [self.table.cushions[j.cushion] for j in pk.jaws]
                    if any(cu.offset(q) - R < off[k] and not self._past_flat(cu, cu.along(q)) for cu in beside):
                        continue  # beside a cushion's flat nose and nearer it: that cushion's graze, if any
                    tc = hinge.t if hinge is not None else ts[k]
                    if not self._touched_near(b.id, tc, 4 * self._dt):
                        out.append(self._cushion(b.id, tc, jaw_cushion(pk.name), _pt(arr[k]), 0.6))

    def _graze(
        self,
        b: _Ball,
        cu: Cushion,
        ts: list[float],
        arr: np.ndarray,
        k: int,
        hinge: Hinge | None,
        out: list[Event],
    ) -> None:
        """The touch of ``cu`` at the bottom (sample ``k``) of a V of the distance to its nose line."""
        n = np.array(cu.inward)
        if any(e.type == "cushion" and e.ball == b.id and abs((e.t or 0) - ts[k]) < 4 * self._dt for e in out):
            return
        if self._touched_near(b.id, ts[k], 4 * self._dt):
            return
        tc = hinge.t if hinge is not None else ts[k]
        # the centre at the touch, between the samples either side of it (the lowest one can be half a frame off,
        # and at a jaw's tip that decides which of the cushion and the jaw it touched)
        c = _at(ts, arr, tc)
        al = cu.along(_pt(c))
        if not (0 <= al <= cu.length_mm):
            return
        if self._hugs(b, cu, tc):
            return
        jaw = self._tip_touched(cu, al)
        if jaw is not None:  # a centre past the flat nose: the graze was of the jaw's rounded tip
            name, p = jaw_cushion(jaw.pocket), c
        else:
            name, p = cu.name, c - n * cu.offset(_pt(c))  # the point of the nose line it touched
        out.append(self._cushion(b.id, tc, name, _pt(p), 0.6))

    def _beyond_flat(self, cu: Cushion, al: float) -> float:
        """How far (mm) a centre at ``al`` along ``cu`` lies past its flat nose, over the rounded tip of a jaw."""
        flat_lo, flat_hi = self.table.cushion_flats[cu.name]
        return max(0.0, flat_lo - al, al - flat_hi)

    def _past_flat(self, cu: Cushion, al: float) -> bool:
        """Whether a centre at ``al`` along ``cu`` lies past its flat nose by more than ``tip_past_mm``: at a
        jaw's rounded tip."""
        return self._beyond_flat(cu, al) > self.s.tip_past_mm

    def _tip_touched(self, cu: Cushion, al: float) -> Jaw | None:
        """The jaw whose rounded tip a ball touching ``cu``'s nose line at ``al`` touched instead: where the centre
        lies past the flat nose by more than ``tip_past_mm``, the jaw at that end."""
        if not self._past_flat(cu, al):
            return None
        jaws = [j for pk in cu.pockets for j in self.table.pockets[pk].jaws if j.cushion == cu.name]
        return min(jaws, key=lambda j: abs(cu.along(j.nose_end) - al), default=None)

    def _hinge(self, ts: list[float], off: np.ndarray, k: int, keep: np.ndarray | None = None) -> Hinge | None:
        """The touch time of a V (or an L: a stop against the cushion) of the distance ``off`` to a nose line
        whose lowest sample is ``k``: the corner, within ``hinge_reach`` samples of ``k``, of a hinge fitted to
        ``hinge_side`` samples either side (those with ``keep``, where given)."""
        lo, hi = max(0, k - self.s.hinge_side), min(len(ts), k + self.s.hinge_side + 1)
        r = self.s.hinge_reach
        t_lo, t_hi = ts[max(0, k - r)], ts[min(len(ts) - 1, k + r)]
        sel = np.arange(lo, hi) if keep is None else lo + np.flatnonzero(keep[lo:hi])
        return fit_hinge(np.asarray(ts)[sel], np.asarray(off)[sel], t_lo, t_hi)

    def _arrived(self, hinge: Hinge | None, rise_before: float, after: np.ndarray) -> bool:
        """A ball that came to a cushion and rolls on along it (an L of its distance to the nose line, not a V):
        it came from at least 10 mm off, falling faster than noise (``bounce_min_mm_s``), and its samples over
        the next ``arrive_s`` (``after``, three at least) stay within ``hug_mm`` of touching it."""
        return (
            self.s.arrive_s > 0
            and hinge is not None
            and rise_before >= 10.0
            and hinge.before <= -self.s.bounce_min_mm_s
            and len(after) == self._arrive_n
            and float(np.max(np.abs(after))) <= self.s.hug_mm
        )

    @property
    def _arrive_n(self) -> int:
        return max(3, round(self.s.arrive_s / self._dt))

    def _bounced(self, hinge: Hinge | None) -> bool:
        """A slow ball that rebounds off a cushion only a few millimetres before it stops: its distance to the
        nose line (``hinge``) falls and then rises, each faster than noise makes it seem to (``bounce_min_mm_s``),
        or falls steeply (``steep_fall_mm_s``) and then rises at all (``steep_rise_mm_s``)."""
        if hinge is None:
            return False
        steep = hinge.before <= -self.s.steep_fall_mm_s and hinge.after >= self.s.steep_rise_mm_s
        return steep or (hinge.before <= -self.s.bounce_min_mm_s and hinge.after >= self.s.bounce_min_mm_s)

    # ---- losses and reappearances -------------------------------------------------------------------------
    def _lost(self, loss: Loss, out: list[Event]) -> None:
        b = self.balls.get(loss.id)
        if b is None:
            return
        b.on_table = False
        b.pending = None
        dt = self._dt
        t_ev = loss.last_t + 0.5 * dt
        p_ev = np.array(loss.last_pos)
        good = [i for i in b.seg.idx if b.sid[i] >= 0] if b.segs else []
        f = self._fit(b, good) if b.segs and b.seg.kind == "move" and len(good) >= 2 else None
        if loss.kind == "pot" and loss.pocket is not None:
            b.potted = True
            pk = self.table.pockets[loss.pocket]
            if f is not None:
                # the ball drops once its centre is pot_depth past the mouth line (the near edge of the hole)
                pd = self.s.pot_depth_fraction * self.table.ball_radius_mm
                depth0 = pk.depth(_pt(f.at(loss.last_t))) - pd
                if depth0 < 0:
                    root = solve_root(lambda u: pk.depth(_pt(f.at(u))) - pd, loss.last_t, loss.last_t + 0.3, steps=60)
                else:
                    root = solve_root(lambda u: pk.depth(_pt(f.at(u))) - pd, f.t0 - dt, loss.last_t, steps=60)
                if root is not None:
                    t_ev = root
                    if float(np.linalg.norm(f.vel(loss.last_t))) < self.s.slow_drop_mm_s:
                        # a ball rattling in the jaws drops from near rest: gone from the next frame on, it fell by
                        # then, whenever its creep run on would reach the hole (a faster ball's path says when)
                        t_ev = min(root, loss.last_t + dt)
                    p_ev = f.at(t_ev)
            if f is not None:
                self._jaw_touch(b, pk, f, loss.last_t - 2 * dt, t_ev, out)
            self._rattle(b, pk, t_ev, out)
            if b.segs and b.seg.kind == "move":
                self._close_move(b, (t_ev, p_ev), out)
            shot = self.shot if self.shot >= 0 else None
            out.append(self._event("pot", t_ev, ball=b.id, pocket=loss.pocket, confidence=loss.confidence, shot=shot))
            if self.shot_active:
                self._shot_last_t = max(self._shot_last_t, t_ev)
        else:
            if b.segs and b.seg.kind == "move":
                self._close_move(b, (t_ev, p_ev), out)
            out.append(self._event("off_table", t_ev, ball=b.id, pos=_pt(p_ev), confidence=loss.confidence))
            if self.shot_active:
                self._shot_last_t = max(self._shot_last_t, t_ev)

    def _rest_touch(self, b: _Ball, ts: list[float], ps: list[np.ndarray], out: list[Event]) -> None:
        """A slow ball that rolls into a cushion and stops against it barely rebounds, so no kink shows: its
        last samples (``ts``, ``ps``: its path's last moving ones, then its detections as it settled) reach one
        radius from the nose line (within the touch tolerance), having moved toward it."""
        R = self.table.ball_radius_mm
        if len(ts) < 4:
            return
        pts = np.array(ps)
        for cu in self.table.cushions.values():
            off = (pts - np.array(cu.start)) @ np.array(cu.inward) - R
            # the first sample against the cushion (within a millimetre of where its last samples lie, or of the
            # nearest one): a ball that stays there touched it when it got there
            level = min(float(np.median(off[-5:])), float(off.min()) + self.s.rest_touch_plateau_mm)
            k = int(np.flatnonzero(off <= level + self.s.rest_touch_plateau_mm)[0])
            if (
                off[k] > self.s.jaw_touch_mm
                or off[0] - off[k] < 3.0
                or not (0 <= cu.along(_pt(pts[k])) <= cu.length_mm)
            ):
                continue
            if self._touched_near(b.id, ts[k], 6 * self._dt):
                continue
            f = fit_path(np.array(ts[max(0, k - self.s.window) : k + 1]), pts[max(0, k - self.s.window) : k + 1])
            hinge = self._hinge(ts, off, k)  # the corner of approach and rebound (or rest), where there are both
            if hinge is not None:
                tc = hinge.t
            else:
                root = solve_root(_gap_to_cushion(f, cu, R), ts[max(0, k - 3)], ts[k] + self._dt)
                tc = root if root is not None else ts[k]
            if self._hugs(b, cu, tc):
                continue
            touch = f.at(tc) - np.array(cu.inward) * R
            out.append(self._cushion(b.id, tc, cu.name, _pt(touch), 0.55))
            return

    def _jaw_touch(self, b: _Ball, pk: Pocket, f: PathFit, lo: float, hi: float, out: list[Event]) -> None:
        """A ball dropping into a narrow pocket brushes a jaw on the way in: its path comes within a radius
        (plus the path's uncertainty) of the jaw segment just before the drop."""
        R = self.table.ball_radius_mm
        if hi <= lo:
            return
        for jaw in pk.jaws:
            name = jaw_cushion(pk.name)
            t_min = closest_time(_gap_to_jaw(f, jaw, 0.0), lo, hi)
            d_min = jaw.distance(_pt(f.at(t_min)))
            if d_min > R + self.s.jaw_gap_mm:
                continue
            if any(e.type == "cushion" and e.ball == b.id and e.cushion == name for e in out):
                continue
            # touching where the path reaches one radius; a path that only grazes it touches at its closest
            root = solve_root(_gap_to_jaw(f, jaw, R), lo, t_min) if d_min < R else None
            tc = root if root is not None else t_min
            out.append(self._cushion(b.id, tc, name, _pt(f.at(tc)), 0.6))
            return

    def _rattle(self, b: _Ball, pk: Pocket, t_drop: float, out: list[Event]) -> None:
        """A ball that rattled between the jaw faces on its way down touched them in turn: the touches of the
        bouncing fit of its sideways offsets over its last samples between the faces (``tracking.rattle``),
        those not already found."""
        R, dt = self.table.ball_radius_mm, self._dt
        face = pk.depth(pk.jaws[0].face_start)
        k = len(b.ts)
        while k > 0 and pk.depth(_pt(b.xy[k - 1])) >= face:
            k -= 1
        if len(b.ts) - k < self.s.rattle.min_samples:
            return
        ts = np.array(b.ts[k:])
        xy = np.array(b.xy[k:])
        lateral = np.array([pk.lateral(_pt(p)) for p in xy])
        depth = np.array([pk.depth(_pt(p)) for p in xy])
        play = (pk.mouth_width_mm - 2 * R) / 2
        for tc, side in rattle_touches(ts, lateral, play, ts[0] - dt, t_drop, self.s.rattle):
            if self._touched_near(b.id, tc, dt, inclusive=True):
                continue
            centre = pk.point(float(np.interp(tc, ts, depth)), side * play)
            out.append(self._cushion(b.id, tc, jaw_cushion(pk.name), centre, 0.5))

    def _reappeared(self, re: Reappearance, out: list[Event]) -> None:
        # A hidden resting ball came back elsewhere: someone moved it.
        out.append(self._event("disturbed", re.t, ball=re.id, pos=re.new_pos, confidence=0.8))

    # ---- shots --------------------------------------------------------------------------------------------
    def _check_shot_end(self, tf: TrackerFrame, out: list[Event]) -> None:
        self._tracker_frame = tf
        if not self.shot_active:
            return
        busy = any((not o.resting) and o.quality >= self.s.ghost_below for o in tf.balls) or any(
            b.breaks for b in self.balls.values()
        )
        if busy:
            self._quiet_since = None
            return
        if self._quiet_since is None:
            self._quiet_since = tf.t
        if tf.t - self._quiet_since >= self.s.shot_end_hold_s:
            self._settle(tf.t, out, force=True)
            self._nudges(out)
            out.append(self._shot_end_event(self._shot_last_t))
            self.shot_active = False

    def _nudges(self, out: list[Event]) -> None:
        """Balls the tracker kept resting that end the shot ``nudge_min_mm`` or more from where it found them
        (the means of their detections over ``shot_end_hold_s``: before the stroke, or once they had settled if
        they stopped in this shot, and at its end), pushed by a moving ball whose path came to touching
        distance of that place from the far side: contacts at confidence 0.55 (inferred, never seen), read as
        the shot ends, before its ``shot_end``."""
        if self._stroke is None:
            return
        t_s = self._stroke[1]
        hold = self.s.shot_end_hold_s
        shot_pairs = {k for k, tt in self._contacts if tt >= t_s - self._dt}
        for b in list(self.balls.values()):
            if not (b.on_table and b.segs and b.seg.kind == "rest"):
                continue
            if b.seg.start_t < t_s:  # resting since before the stroke
                since = t_s
                p0 = self._rest_mean(b, t_s - hold, t_s)
            else:  # stopped in this shot: where it settled (it may creep a few millimetres as it does)
                since = b.seg.start_t + self.s.line_settle_s + hold
                p0 = self._rest_mean(b, since - hold, since)
            p1 = self._rest_mean(b, b.ts[-1] - hold, b.ts[-1] + 1.0)
            if p0 is None or p1 is None:
                continue
            move = p1 - p0
            if float(np.hypot(*move)) < self.s.nudge_min_mm:
                continue
            met = {k for k in self.balls if frozenset((k, b.id)) in shot_pairs}
            pusher = self._reached_by(b, p0, move, since, math.inf, met)
            if pusher is not None:
                mid, t_c, q = pusher
                self._contact(mid, b.id, t_c, (q + p0) / 2, 0.55, out, chain=False)

    def _still_going(self, b: _Ball, t_s: float, speed: float) -> bool:
        """A ball seen setting off in a shot with nothing to have set it off, just after it was hit (within
        ``regone_hit_s``) or about when it stopped in this shot (within ``regone_stop_s``, slower than a struck
        ball): the same motion going on (a hit seen in two pieces; a slow rebound or creep the tracker took for
        rest), not a ball touched by hand."""
        hit = b.last_event_t is not None and 0.0 <= t_s - b.last_event_t <= self.s.regone_hit_s
        # (a creep's start, run back from its path, may come before the stop that its rest was dated from)
        in_shot = self._stroke is not None and b.stop_t is not None and b.stop_t > self._stroke[1]
        stop = in_shot and abs(t_s - b.stop_t) <= self.s.regone_stop_s  # type: ignore[operator]
        return hit or (stop and speed < self.s.start_speed_mm_s)

    def _lost_hitter(self, b: _Ball, q: np.ndarray, t_s: float) -> str | None:
        """The moving ball, last seen within ``unseen_strike_s`` before ``t_s`` (not since), that could have been
        at ``q`` then: at its last speed it covers the distance (plus two diameters for a bounce on the way).
        The nearest, in that measure."""
        best, best_r = None, 1.0
        for m in self.balls.values():
            if m is b or not m.on_table or not m.ts:
                continue
            i = bisect.bisect_right(m.ts, t_s + 1e-9) - 1
            if i < 1 or m.sid[i] < 0 or self._segs[m.sid[i]].kind != "move":
                continue
            gap = t_s - m.ts[i]
            if not 0.5 * self._dt < gap <= self.s.unseen_strike_s:  # its last sample by t_s: unseen since
                continue
            sel = [j for j in self._segs[m.sid[i]].idx if j <= i][-4:]
            if len(sel) < 2:
                continue
            v = (m.xy[sel[-1]] - m.xy[sel[0]]) / max(m.ts[sel[-1]] - m.ts[sel[0]], 1e-6)
            reach = float(np.hypot(*v)) * gap + 2 * self.table.ball_diameter_mm
            r = float(np.hypot(*(m.xy[i] - q))) / reach
            if r < best_r:
                best, best_r = m.id, r
        return best

    def _reached_by(
        self, b: _Ball, p: np.ndarray, v: np.ndarray, lo: float, hi: float, skip: set[str] | None = None
    ) -> tuple[str, float, np.ndarray] | None:
        """The moving ball whose path first came to touching distance (plus ``nudge_touch_mm``) of ``p``, where
        ``b`` rested, between ``lo`` and ``hi``, from the side ``b`` then left away from (``v``, within
        ``nudge_angle_deg``): a slow hit, where the start of ``b``'s creep off its place is too uncertain to
        look for its hitter at one moment, or one the tracker kept resting (``_nudges``). Balls in ``skip`` are
        not looked at. Its id, the time and where it was (``_first_reach``)."""
        reach = self.table.ball_diameter_mm + self.s.nudge_touch_mm
        best: tuple[float, str, float, np.ndarray] | None = None
        speed = float(np.hypot(*v))
        for m in self.balls.values():
            if m is b or speed < 1e-6 or (skip and m.id in skip):
                continue
            hit = self._first_reach(m, p, reach, lo)
            if hit is None or hit[0] > hi:
                continue
            n = p - hit[1]
            cos = float(n @ v) / max(float(np.hypot(*n)) * speed, 1e-9)
            if cos >= math.cos(math.radians(self.s.nudge_angle_deg)) and (best is None or cos > best[0]):
                best = (cos, m.id, hit[0], hit[1])
        return None if best is None else best[1:]

    def _rest_mean(self, b: _Ball, lo: float, hi: float) -> np.ndarray | None:
        """The mean of a resting ball's detections between ``lo`` and ``hi`` (its current rest segment)."""
        pts = [b.seen[j] for j in b.seg.idx if lo <= b.ts[j] <= hi and j in b.seen]
        return np.mean(pts, axis=0) if len(pts) >= 3 else None

    def _first_reach(self, m: _Ball, p: np.ndarray, reach: float, since: float) -> tuple[float, np.ndarray] | None:
        """When ``m``, moving after ``since``, first came within ``reach`` of point ``p``: the time its fitted path
        was a diameter from ``p`` (the closest point if it never got that near), and where it was then."""
        clear = self.table.ball_diameter_mm + self.s.nudge_clear_mm
        i0 = bisect.bisect_left(m.ts, since)
        idx = [j for j in range(i0, len(m.ts)) if m.sid[j] >= 0 and self._segs[m.sid[j]].kind == "move"]
        for k, j in enumerate(idx):
            if float(np.hypot(*(m.xy[j] - p))) > reach:
                continue
            # Its straight approach over nudge_fit_s, from samples far enough off the other ball that their images
            # do not touch (touching balls' edges push their measured centres apart, which would time the touch
            # late), run on to where it is a diameter from ``p``.
            far = [i for i in idx[: k + 1] if m.sid[i] == m.sid[j] and float(np.hypot(*(m.xy[i] - p))) > clear]
            sel = [i for i in far if m.ts[i] >= m.ts[far[-1]] - self.s.nudge_fit_s] if far else []
            if len(sel) < 3:
                # no approach to fit: it met it when first seen there, if it had just set off
                return (m.ts[j], m.xy[j]) if self._set_off_beside(m, j, i0) else None
            f = fit_path(
                np.array([m.ts[i] for i in sel]), np.array([m.xy[i] for i in sel]), quadratic_from=len(sel) + 1
            )
            lo, hi = m.ts[sel[0]], m.ts[j] + self.s.nudge_run_frames * self._dt
            D = self.table.ball_diameter_mm
            t_c = solve_root(_gap_to_point(f, p, D), lo, hi)
            if t_c is None:
                t_c = closest_time(_gap_to_point(f, p, 0.0), lo, hi)
            return t_c, f.at(t_c)
        return None

    def _set_off_beside(self, m: _Ball, j: int, i0: int) -> bool:
        """Whether sample ``j`` is among ``m``'s first three on a leg that began at sample ``i0`` or later, set
        off from rest or turned by a hit a frame before (hit beside a ball, or running on from one hit into the
        next): not a ball back in sight after a blur."""
        seg = self._segs[m.sid[j]]
        before = _seg_before(m, seg)
        if before is None:
            return False
        first = [i for i in seg.idx if m.sid[i] >= 0]
        seen = [i for i in before.idx if m.sid[i] >= 0]
        turned = bool(seen) and m.ts[seen[-1]] >= m.ts[first[0]] - 1.5 * self._dt
        return first.index(j) < 3 and first[0] >= i0 and (before.kind == "rest" or turned)

    def _shot_end_event(self, t: float) -> Event:
        positions = {k: _pt(o.rest_pos) for k, o in self.balls.items() if o.on_table and o.rest_pos is not None}
        return self._event("shot_end", t, positions=positions, confidence=0.95)

    # ---- records --------------------------------------------------------------------------------------------
    def _cushion(self, ball: str, t: float, name: str, pos: tuple[float, float], confidence: float) -> Event:
        """A cushion (or jaw) touch, kept in ``_cushion_times`` so that no other reading finds it again."""
        self._cushion_times.append((ball, t))
        return self._event("cushion", t, ball=ball, cushion=name, pos=pos, confidence=confidence)

    def _touched_near(self, ball: str, t: float, within: float, inclusive: bool = False) -> bool:
        """Whether a touch of ``ball`` was already found within ``within`` seconds of ``t``."""
        return any(
            bb == ball and (abs(tt - t) <= within if inclusive else abs(tt - t) < within)
            for bb, tt in self._cushion_times
        )

    def _event(
        self, kind: str, t: float, confidence: float = 1.0, shot: int | str | None = "auto", **kw: object
    ) -> Event:
        t = max(float(t), 0.0)
        i = bisect.bisect_left(self._times, t)
        cands = [j for j in (i - 1, i) if 0 <= j < len(self._times)]
        frame = min(cands, key=lambda j: abs(self._times[j] - t)) if cands else 0
        frame_no = self._frames[frame] if cands else 0
        if shot == "auto":
            shot = self.shot if self.shot_active or kind == "shot_end" else None
        if self.shot_active and shot == self.shot and kind not in ("shot_start", "shot_end"):
            # the shot ends no sooner than its last event (a touch timed on a hinge's corner may come a moment
            # after the time the ball was found to stop): the referee closes the shot at its end
            self._shot_last_t = max(self._shot_last_t, t)
        conf = float(min(max(confidence, 0.0), 1.0))
        return Event(
            type=kind,  # type: ignore[arg-type]
            t=round(t, 6),
            frame=frame_no,
            shot=shot,  # type: ignore[arg-type]
            confidence=round(conf, 3),
            review=conf < self.s.review_below,
            **kw,  # type: ignore[arg-type]
        )


def _in_shots(out: list[Event]) -> list[Event]:
    """The events in time order, without the lines, cushions and contacts of balls moved between shots (by hand:
    their ``disturbed`` says so; the rules judge such events only within a shot)."""
    out = [e for e in out if e.shot is not None or e.type not in ("line_cross", "cushion", "contact")]
    out.sort(key=lambda e: e.t or 0.0)
    return out


def _excursions(off: np.ndarray, margin: float) -> list[tuple[int, float, float]]:
    """The changes of side along a path's samples, ``off`` their signed distances to a line: for each, the first
    sample past the line, the deepest offset on the side left and on the side reached. A side counts from a
    sample ``margin`` beyond the line, read as the median of it and its neighbours (one stray detection is no
    side)."""
    if len(off) < 3:
        return []
    smooth = np.concatenate([off[:1], np.median(np.stack([off[:-2], off[1:-1], off[2:]]), axis=0), off[-1:]])
    runs: list[list[float]] = []  # [side, deepest offset, first index, last index] of each side in turn
    for j, v in enumerate(smooth.tolist()):
        side = 1.0 if v >= margin else -1.0 if v <= -margin else 0.0
        if side == 0.0:
            continue
        if runs and runs[-1][0] == side:
            run = runs[-1]
            run[1] = v if abs(v) > abs(run[1]) else run[1]
            run[3] = j
        else:
            runs.append([side, v, j, j])
    out = []
    for a, b in pairwise(runs):
        lo, hi = int(a[3]), int(b[2])
        k = next((i for i in range(lo + 1, hi + 1) if off[i] * b[0] > 0), hi)
        out.append((k, a[1], b[1]))
    return out


def _seg_before(b: _Ball, seg: _Seg) -> _Seg | None:
    """The segment of ``b`` before ``seg`` (None for its first, or one not among its segments)."""
    k = next((j for j, sg in enumerate(b.segs) if sg is seg), 0)
    return b.segs[k - 1] if k > 0 else None


def _newest_in(b: _Ball, seg: _Seg, k: int) -> list[int]:
    """The newest ``k`` (or fewer) samples of ``seg`` still in it (not since rejected), oldest first: the tail of
    ``[i for i in seg.idx if b.sid[i] == seg.sid]``, read from the end."""
    out: list[int] = []
    for i in reversed(seg.idx):
        if b.sid[i] == seg.sid:
            out.append(i)
            if len(out) == k:
                break
    out.reverse()
    return out


def _valleys(off: np.ndarray, depth: float, where: np.ndarray | None = None) -> list[tuple[int, float, float]]:
    """The bottoms of the dips of ``off`` to ``depth`` or below (index; only samples ``where`` count, if given),
    each with the highest ``off`` between it and the dip before it, and between it and the next (or the ends)."""
    low = np.flatnonzero((off <= depth) if where is None else (off <= depth) & where)
    if len(low) == 0:
        return []
    runs = np.split(low, np.flatnonzero(np.diff(low) > 1) + 1)  # each dip: a run of samples at or below depth
    ks = [int(r[np.argmin(off[r])]) for r in runs]
    bounds = [0, *ks, len(off) - 1]
    out = []
    for j, k in enumerate(ks):
        lo, hi = bounds[j], bounds[j + 2]
        before = float(off[lo:k].max()) if k > lo else float(off[k])
        after = float(off[k + 1 : hi + 1].max()) if hi > k else float(off[k])
        out.append((k, before, after))
    return out


def _at(ts: list[float], arr: np.ndarray, t: float) -> np.ndarray:
    """The point at time ``t`` on the polyline of samples ``arr`` (N x 2) at times ``ts``."""
    return np.array([np.interp(t, ts, arr[:, 0]), np.interp(t, ts, arr[:, 1])])


def _both_ways(root: float | None, back_gap: Callable[[float], float], new: PathFit, lo: float) -> float | None:
    """A mirror bounce: the outgoing path ``new``, run back, meets the surface (``back_gap``: its gap to it) when
    the incoming one did (``root``). Each is off where the break between them fell a sample late or early (a
    sample after the bounce on the incoming path makes it late), so the touch is the mean of the two, where both
    meet it (and the outgoing path has three samples at least). The path run back is searched from its start
    backwards (the last root before it): run on through a jaw, it meets the jaw's surface a second time, earlier,
    from inside the rail."""
    back = solve_root(back_gap, lo, new.t0, last=True) if new.n >= 3 and root is not None else None
    return root if back is None or root is None else 0.5 * (root + back)


def _gap_to_point(path: PathFit, q: np.ndarray, dist: float) -> Callable[[float], float]:
    return lambda u: float(np.linalg.norm(path.at(u) - q)) - dist


def _gap_between(a: PathFit, b: PathFit, dist: float) -> Callable[[float], float]:
    return lambda u: float(np.linalg.norm(a.at(u) - b.at(u))) - dist


def _gap_to_cushion(path: PathFit, cu: Cushion, radius: float) -> Callable[[float], float]:
    return lambda u: cu.offset(_pt(path.at(u))) - radius


def _gap_to_jaw(path: PathFit, jaw: Jaw, radius: float) -> Callable[[float], float]:
    return lambda u: jaw.distance(_pt(path.at(u))) - radius


def _gap_to_line(path: PathFit, axis: int, value: float) -> Callable[[float], float]:
    return lambda u: float(path.at(u)[axis]) - value


def _pt(a: np.ndarray | tuple[float, float] | None) -> tuple[float, float]:
    if a is None:
        return (math.nan, math.nan)
    return (round(float(a[0]), 2), round(float(a[1]), 2))
