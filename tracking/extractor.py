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
from dataclasses import dataclass, field, replace

import numpy as np

from calibration.table import TableModel
from tracking.detect import breaks, contacts, pots, segments, shots
from tracking.detect.resolve import in_shots
from tracking.detect.segments import Ball, Seg, Settling
from tracking.detect.shots import PendingStart
from tracking.events import Event
from tracking.rattle import RattleSettings
from tracking.tracker import Loss, TrackerFrame
from tracking.trajectory import fit_path


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


class EventExtractor:
    """Feed ``update(TrackerFrame)`` per frame; it returns the events decided in that frame.

    It holds the streaming state: every ball's samples and segments (``tracking.detect.segments``), the shot in
    play, and the touches given out so far; the detectors (``tracking.detect``) read and extend it."""

    def __init__(self, table: TableModel, settings: ExtractorSettings | None = None) -> None:
        self.table = table
        self.s = settings or ExtractorSettings()
        self.balls: dict[str, Ball] = {}
        self.shot = -1
        self.shot_active = False
        self.quiet_since: float | None = None
        self.shot_last_t = 0.0  # latest stop or pot of the current shot
        self.stroke: tuple[str, float, np.ndarray] | None = None  # the struck ball, when and where it was struck
        self.frames: list[int] = []
        self.times: list[float] = []
        self.dt = 1 / 60
        self.sid = 0
        self.segs: dict[int, Seg] = {}  # every ball's segments by their (unique) sid
        self.rest_sums: dict[int, tuple[int, np.ndarray]] = {}  # rest sid -> (samples, running sums of x, y)
        self.contacts: list[tuple[frozenset[str], float]] = []
        self.deferred: list[Event] = []
        self.pending: PendingStart | None = None
        # the cushion touches given out: (ball, time, cushion or jaw, decision), for the resolver
        self.cushion_times: list[tuple[str, float, str | None, int]] = []
        self.decision = 0  # counts the calls of update and finish: the events of one call are one decision
        self.lines = [(n, 0 if ln.axis == "x" else 1, ln.value_mm) for n, ln in table.lines.items() if n != "back"]

    def update(self, tf: TrackerFrame) -> list[Event]:
        self.decision += 1
        if self.times:
            self.dt = 0.8 * self.dt + 0.2 * max(tf.t - self.times[-1], 1e-4)
        self.frames.append(tf.frame)
        self.times.append(tf.t)
        out: list[Event] = self.deferred
        self.deferred = []
        for obs in tf.balls:
            if obs.quality < self.s.ghost_below:
                continue  # not a ball: a blob the detector sees only now and then (a hand, the cue tip)
            b = self.balls.get(obs.id)
            if b is not None and b.potted and self.shot_active:
                continue  # a potted ball comes back only when respotted, between shots: not a blob mid-shot
            if b is None:
                b = self.balls[obs.id] = Ball(obs.id)
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
            pots.lost(self, loss, out)
        for re in tf.reappeared:
            shots.reappeared(self, re, out)
        if self.pending is not None:
            shots.judge_pending(self, out, force=False)
        breaks.explain_breaks(self, out, force=False)
        if self.shot_active:
            contacts.kisses(self, tf.t, out)
        breaks.settle(self, tf.t, out, force=False)
        shots.check_shot_end(self, tf, out)
        return in_shots(out)

    def finish(self, losses: tuple[Loss, ...] = ()) -> list[Event]:
        """End of the stream; ``losses``: the tracker's last decisions (``Tracker.finish``)."""
        self.decision += 1
        out: list[Event] = []
        if self.pending is not None:
            shots.judge_pending(self, out, force=True)
        for loss in losses:
            pots.lost(self, loss, out)
        for b in self.balls.values():
            if b.pending is not None:
                b.pending = None
        breaks.explain_breaks(self, out, force=True)
        for b in self.balls.values():
            if b.segs and b.seg.kind == "move" and b.seg.idx:
                breaks.close_move(self, b, segments.end_of(self, b), out)
        breaks.settle(self, math.inf, out, force=True)
        if self.shot_active and self.times:
            contacts.nudges(self, out)
            out.append(shots.shot_end_event(self, self.shot_last_t or self.times[-1]))
            self.shot_active = False
        return in_shots(out)

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
        seg = self.segs[sid]
        if seg.kind == "rest":
            # The mean of the segment's detections within rest_smooth_s: a still ball's noise averages out, and a
            # ball that creeps (settling in a pocket mouth) or is nudged by less than the rest radius is
            # followed. Segments only grow, so their running sums are reused until the segment gets another
            # sample (tracks.csv asks once per row: recomputing them made a long clip's rows quadratic).
            n = len(seg.idx)
            cached = self.rest_sums.get(sid)
            if cached is None or cached[0] != n:
                a = np.array([b.seen.get(j, b.xy[j]) for j in seg.idx])
                cached = (n, np.vstack([np.zeros((1, 2)), np.cumsum(a, axis=0)]))
                self.rest_sums[sid] = cached
            k = bisect.bisect_left(seg.idx, i)
            half = max(1, round(self.s.rest_smooth_s / self.dt))
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

    def _add_rest(self, b: Ball, t: float, p: np.ndarray, out: list[Event]) -> None:
        if not b.segs:
            segments.new_seg(self, b, "rest", t, p)
        elif b.seg.kind == "move":
            b.pending = None
            stop_t, stop_p = segments.stop_of(self, b, p)
            path = breaks.close_move_seg(self, b, b.seg, (stop_t, stop_p), out, settle=True)
            b.stop_t = stop_t
            self.shot_last_t = max(self.shot_last_t, stop_t)
            rest = segments.new_seg(self, b, "rest", stop_t, p)
            if path is not None:
                breaks.settle_ball(self, b, out)  # an earlier stop not judged yet (set moving again at once)
                b.settling = Settling(*path, rest)
        segments.push(self, b, t, p, b.seg)
        b.rest_pos = p

    def _add_move(self, b: Ball, t: float, p: np.ndarray, kinked: bool) -> None:
        segments.add_move_sample(self, b, t, p, kinked)
        if not self.shot_active and not b.checked_unseen_start and all(sg.kind == "move" for sg in b.segs):
            good = [i for i in range(len(b.ts)) if b.sid[i] >= 0]
            if len(good) >= 3:
                b.checked_unseen_start = True
                shots.first_seen_moving(self, b, good[:4])

    def rename(self, mapping: dict[str, str]) -> None:
        """The balls called by the keys of ``mapping`` are called by its values from now on (an operator's
        correction): their records move with them."""
        moved = {new: self.balls.pop(old) for old, new in mapping.items() if old in self.balls}
        for new, b in moved.items():
            b.id = new
            self.balls[new] = b
        self.contacts = [(frozenset(mapping.get(k, k) for k in key), t) for key, t in self.contacts]
        self.cushion_times = [(mapping.get(k, k), t, o, d) for k, t, o, d in self.cushion_times]
        if self.stroke is not None:
            self.stroke = (mapping.get(self.stroke[0], self.stroke[0]), *self.stroke[1:])
        if self.pending is not None:
            self.pending = replace(self.pending, ball=mapping.get(self.pending.ball, self.pending.ball))
