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
from dataclasses import replace

import numpy as np

from calibration.contract import UNSTATED_FPS, Event
from calibration.table import TableModel
from tracking.detect import breaks, contacts, lines, pots, resolve, segments, shots
from tracking.detect.candidate import Candidate, Evidence, confidence
from tracking.detect.geometry import as_pt
from tracking.detect.resolve import in_shots
from tracking.detect.segments import Ball, Seg, Settling
from tracking.detect.settings import ExtractorSettings
from tracking.detect.shots import PendingStart
from tracking.kalman import FilterSettings
from tracking.tracker import BallObs, Loss, TrackerFrame
from tracking.trajectory import fit_path


class EventExtractor:
    """Feed ``update(TrackerFrame)`` per frame; it returns the events decided in that frame.

    It holds the streaming state: every ball's samples and segments (``tracking.detect.segments``), the shot in
    play, and the touches given out so far; the detectors (``tracking.detect``) read and extend it. The resolver's
    state change is here (``give``, ``record_event``): ``tracking.detect.resolve`` holds only its pure rule."""

    def __init__(
        self,
        table: TableModel,
        settings: ExtractorSettings | None = None,
        meas_sigma_mm: float | None = None,
        frame_dt: float | None = None,
    ) -> None:
        """``frame_dt``: the stream's frame interval (s, one over the frame rate its source states; None where
        it states none: ``calibration.contract.UNSTATED_FPS``'s), the start of the running mean of the
        timestamps' intervals (``dt``)."""
        self.table = table
        self.s = settings or ExtractorSettings()
        # the detections' noise (one sigma, mm), the tracker filter's own (the pipeline sets it from the view):
        # a stop is read from the samples more than four of these off the resting point, and a ball back within
        # a few of them of its place never left it. Larger: stops timed early; smaller: noise read as motion
        self.meas_sigma_mm = FilterSettings.meas_sigma_mm if meas_sigma_mm is None else meas_sigma_mm
        self.balls: dict[str, Ball] = {}
        self.shot = -1
        self.shot_active = False
        self.quiet_since: float | None = None
        self.shot_last_t = 0.0  # latest stop or pot of the current shot
        self.stroke: tuple[str, float, np.ndarray] | None = None  # the struck ball, when and where it was struck
        self.frames: list[int] = []
        self.times: list[float] = []
        self.dt = 1 / UNSTATED_FPS if frame_dt is None else float(frame_dt)
        self.sid = 0
        self.segs: dict[int, Seg] = {}  # every ball's segments by their (unique) sid
        self.rest_sums: dict[int, tuple[int, np.ndarray]] = {}  # rest sid -> (samples, running sums of x, y)
        self.contacts: list[tuple[frozenset[str], float]] = []
        self.deferred: list[Event] = []
        self.pending: PendingStart | None = None
        # the cushion touches given out: (ball, time, cushion or jaw, decision), for the resolver
        self.cushion_times: list[tuple[str, float, str | None, int]] = []
        self.decision = 0  # counts the calls of update and finish: the events of one call are one decision
        self.lines = lines.table_lines(table)

    def update(self, tf: TrackerFrame) -> list[Event]:
        self.decision += 1
        if self.times:
            self.dt = 0.8 * self.dt + 0.2 * max(tf.t - self.times[-1], 1e-4)
        self.frames.append(tf.frame)
        self.times.append(tf.t)
        out: list[Event] = self.deferred
        self.deferred = []
        for obs in tf.balls:
            self._observe(obs, tf.t, out)
        for loss in tf.losses:
            self._lost(loss, out)
        for re in tf.reappeared:
            # a hidden resting ball came back elsewhere: someone moved it
            conf = confidence("moved_hidden")
            self.give(Candidate("disturbed", (re.id,), None, re.t, re.new_pos, 0.0, "moved_hidden", conf), out)
        if self.pending is not None:
            self.judge_pending(out, force=False)
        breaks.explain_breaks(self, out, force=False)
        if self.shot_active:
            windows = segments.sample_windows(self, tf.t, self.s.contacts.kiss_window)
            for c in contacts.kisses(windows, self.dt, self.table.ball_diameter_mm, self.s.contacts):
                self.give(c, out)
        breaks.settle(self, out)
        self._check_shot_end(tf, out)
        return in_shots(out)

    def give(self, c: Candidate, out: list[Event]) -> bool:
        """``c`` as an event in ``out`` unless it reads a touch already given out (``resolve.same_touch``); True if
        it was given out. The resolver's state change: the touch is recorded here (its contacts, its cushion
        touches, the balls' last touch, the shot's last event)."""
        given = resolve.Given(tuple(self.contacts), tuple(self.cushion_times), self.decision)
        since = None
        if c.kind == "contact" and c.balls[0] != c.balls[1]:
            last = resolve.last_touch(given, c)
            if last is not None:
                since = segments.pair_track(self, self.balls[c.balls[0]], self.balls[c.balls[1]], last, c.t)
        if resolve.same_touch(c, given, since, self.s.contacts, self.table.ball_diameter_mm, self.dt):
            return False
        if c.kind not in ("cushion", "contact"):
            out.append(self.event_of(c))
            return True
        if c.kind == "cushion":
            self.cushion_times.append((c.balls[0], c.t, c.obstacle, self.decision))
            out.append(
                self.record_event(
                    "cushion", c.t, ball=c.balls[0], cushion=c.obstacle, pos=c.pos, confidence=c.confidence
                )
            )
            return True
        a, b = c.balls
        self.contacts.append((frozenset(c.balls), c.t))
        self.balls[a].last_event_t = c.t
        self.balls[b].last_event_t = c.t
        self.shot_last_t = max(self.shot_last_t, c.t)
        out.append(self.record_event("contact", c.t, balls=(a, b), pos=c.pos, confidence=c.confidence))
        return True

    def event_of(self, c: Candidate) -> Event:
        """The event of a candidate that is no touch (a line crossing, a ball leaving the table, a shot's start or
        end, a ball moved by hand)."""
        ball = c.balls[0] if c.balls else None
        if c.kind == "line_cross":
            return self.record_event(
                c.kind, c.t, ball=ball, line=c.obstacle, direction=c.direction, confidence=c.confidence
            )
        if c.kind == "pot":
            # a pot between shots (a ball rolling in after the shot's end) is the last shot's
            last = self.shot if self.shot >= 0 else None
            return self.record_event(c.kind, c.t, ball=ball, pocket=c.obstacle, confidence=c.confidence, shot=last)
        if c.kind == "shot_start":
            return self.record_event(c.kind, c.t, ball=ball, positions=c.positions, confidence=c.confidence)
        if c.kind == "shot_end":
            return self.record_event(c.kind, c.t, positions=c.positions, confidence=c.confidence)
        shot: str | None = None if c.evidence in resolve.BETWEEN_SHOTS else "auto"
        return self.record_event(c.kind, c.t, ball=ball, pos=c.pos, confidence=c.confidence, shot=shot)

    def record_event(
        self, kind: str, t: float, confidence: float = 1.0, shot: int | str | None = "auto", **kw: object
    ) -> Event:
        """The event of ``kind`` at ``t`` in this stream (``resolve.make_event`` at the frame nearest ``t``);
        ``shot`` "auto": the shot in play (a ``shot_end``: the shot it ends), else none. The state change: the shot
        in play ends no sooner than its last event."""
        t = max(float(t), 0.0)
        frame = resolve.nearest_frame(self.times, self.frames, t)
        if shot == "auto":
            shot = self.shot if self.shot_active or kind == "shot_end" else None
        if self.shot_active and shot == self.shot and kind not in ("shot_start", "shot_end"):
            # the shot ends no sooner than its last event (a touch timed on a hinge's corner may come a moment
            # after the time the ball was found to stop): the referee closes the shot at its end
            self.shot_last_t = max(self.shot_last_t, t)
        return resolve.make_event(kind, t, frame, shot, confidence, self.s.review_below, **kw)

    def start_shot(self, ball: str, t: float, place: np.ndarray, conf: float, out: list[Event] | None) -> None:
        """A new shot, ``ball`` struck at ``t`` from ``place`` (``shots.shot_start``); ``out`` None: its events go
        out with the next frame's. A ball struck while frozen to others pushes them at once (``contacts.chains``)."""
        self.shot += 1
        self.shot_active = True
        self.quiet_since = None
        self.shot_last_t = t
        sink = self.deferred if out is None else out
        rests = segments.rest_positions(self.balls, at=t)
        c = shots.shot_start(ball, t, as_pt(place), conf, rests, segments.last_places(self.balls))
        self.give(c, sink)
        self.balls[ball].last_event_t = t
        self.stroke = (ball, t, np.asarray(place, dtype=float).copy())
        self.propagate(ball, ball, t, sink)

    def give_contact(
        self,
        a: str,
        b: str,
        t: float,
        pos: np.ndarray,
        conf: float,
        out: list[Event],
        chain: bool = True,
        evidence: Evidence = "hit",
        t_seen: float | None = None,
        residual_mm: float = 0.0,
    ) -> None:
        """A contact of ``a`` (the hitter) with ``b`` at ``t`` for the resolver; given out, and ``chain``, the hit
        passes on through ``b``'s frozen cluster (``propagate``)."""
        cand = Candidate("contact", (a, b), None, t, as_pt(pos), residual_mm, evidence, conf, t_seen=t_seen)
        if self.give(cand, out) and chain:
            self.propagate(a, b, t, out)

    def propagate(self, hitter: str, hit: str, t: float, out: list[Event]) -> None:
        """The pushes through ``hit``'s frozen cluster (``contacts.chains``, along ``contacts.push_direction`` from
        the hitter's path just before ``t``), for the resolver; passed on no further (every pair of the cluster is
        read here already)."""
        cluster = segments.resting_cluster(self, hit, t)
        push = None
        if cluster and hitter != hit:  # a ball struck by the cue: no ball's path before then gives the push
            pb = segments.path_before(self, self.balls[hitter], t)
            push = contacts.push_direction(pb[0] if pb is not None else None, cluster[0].pos, t)
        for c in contacts.chains(cluster, t, self.table.ball_diameter_mm, self.s.contacts, push):
            self.give(c, out)

    def _lost(self, loss: Loss, out: list[Event]) -> None:
        """The tracker decided a ball is gone (``pots.lost`` reads how): it leaves the table; the jaw it touched on
        the way in (the first not already given out), its rattle, the end of its path, then its ``pot`` or
        ``off_table``."""
        b = self.balls.get(loss.id)
        if b is None:
            return
        b.on_table = False
        b.pending = None
        if b.breaks:
            # what set it moving, or bent its path, came before its drop: explained first (off the table, its
            # breaks are ready), so that the hit that started the shot comes before the pot, which then falls in
            # that shot, with the ball on the table at its start
            breaks.explain_breaks(self, out, force=False)
        gone = pots.lost(loss, segments.lost_view(self, b), self.table, self.s.pots, self.s.cushions, self.dt)
        if gone.event.kind == "pot":
            b.potted = True
        next((c for c in gone.jaws if self.give(c, out)), None)
        for c in gone.rattles:
            self.give(c, out)
        if b.segs and b.seg.kind == "move":
            breaks.close_move(self, b, (gone.t, gone.pos), out)
        self.give(gone.event, out)
        if self.shot_active:
            self.shot_last_t = max(self.shot_last_t, gone.t)

    def judge_pending(self, out: list[Event], force: bool) -> None:
        """The ball set off slowly between shots (``pending``): pushed by hand or struck (``shots.judge_pending``),
        once that is sure; ``force``: now."""
        p = self.pending
        assert p is not None
        b = self.balls[p.ball]
        others = any(o is not b and (o.breaks or (o.segs and o.seg.kind == "move")) for o in self.balls.values())
        stopped = b.on_table and b.segs and b.seg.kind == "rest" and b.stop_t is not None and b.stop_t > p.t
        now = self.times[-1] if self.times else p.t
        busy = bool(others or b.breaks)
        verdict = shots.judge_pending(p, b.stop_t if stopped else None, busy, b.on_table, now, force, self.s.shots)
        if verdict == "wait":
            return
        self.pending = None
        if verdict == "hand_push":
            self.give(shots.hand_push(p), out)
        else:
            self.start_shot(b.id, p.t, p.pos, p.confidence, out)

    def _check_shot_end(self, tf: TrackerFrame, out: list[Event]) -> None:
        """The shot ends once every ball has rested ``shot_end_hold_s`` (``shots.quiet_long_enough``): none seen
        moving (a blob below ``ghost_below`` is no ball) and no break waiting to be explained."""
        if not self.shot_active:
            return
        busy = any(self._may_roll(o, tf.t) for o in tf.balls) or any(b.breaks for b in self.balls.values())
        if busy:
            self.quiet_since = None
            return
        if self.quiet_since is None:
            self.quiet_since = tf.t
        if shots.quiet_long_enough(self.quiet_since, tf.t, self.s.shots):
            breaks.settle(self, out)
            self._end_shot(self.shot_last_t, out)

    def _may_roll(self, o: BallObs, t: float) -> bool:
        """Whether ``o`` may be rolling at ``t``: a ball seen moving, or one hidden while it moved and last seen
        within ``hidden_roll_s`` (a blob below ``ghost_below`` is no ball)."""
        if o.resting or o.quality < self.s.ghost_below:
            return False
        b = self.balls.get(o.id)
        return o.meas is not None or b is None or not b.ts or t - b.ts[-1] <= self.s.shots.hidden_roll_s

    def _end_shot(self, t: float, out: list[Event]) -> None:
        """The shot in play ends at ``t``: its nudges are read, then its ``shot_end``."""
        if self.stroke is not None:
            t_s = self.stroke[1]
            touched = {k for k, tt in self.contacts if tt >= t_s - self.dt}
            s = self.s
            found = contacts.nudges(
                segments.rest_spells(self),
                segments.moving_samples(self, t_s),
                t_s,
                touched,
                self.table.ball_diameter_mm,
                s.contacts,
                s.shots.shot_end_hold_s,
                self.dt,
            )
            for c in found:
                self.give(c, out)
        out.append(self.event_of(shots.shot_end(t, segments.rest_positions(self.balls))))
        self.shot_active = False

    def _observe(self, obs: BallObs, t: float, out: list[Event]) -> None:
        """One ball's observation in the frame at ``t``: a sample of its segments."""
        if obs.quality < self.s.ghost_below:
            return  # not a ball: a blob the detector sees only now and then (a hand, the cue tip)
        b = self.balls.get(obs.id)
        if b is not None and b.potted and self.shot_active:
            return  # a potted ball comes back only when respotted, between shots: not a blob mid-shot
        if b is None:
            b = self.balls[obs.id] = Ball(obs.id)
        b.on_table = True
        b.potted = False
        if obs.meas is None:
            if b.rest_pos is None and obs.resting:
                b.rest_pos = np.array(obs.pos)  # known at its place (a rack, the operator), not seen yet
            return
        if obs.resting:
            self._add_rest(b, t, np.array(obs.pos), out)
            b.seen[len(b.ts) - 1] = np.array(obs.meas)
        else:
            self._add_move(b, t, np.array(obs.meas), obs.kinked)

    def finish(self, losses: tuple[Loss, ...] = ()) -> list[Event]:
        """End of the stream; ``losses``: the tracker's last decisions (``Tracker.finish``)."""
        self.decision += 1
        out: list[Event] = []
        if self.pending is not None:
            self.judge_pending(out, force=True)
        for loss in losses:
            self._lost(loss, out)
        for b in self.balls.values():
            if b.pending is not None:
                b.pending = None
        breaks.explain_breaks(self, out, force=True)
        for b in self.balls.values():
            if b.segs and b.seg.kind == "move" and b.seg.idx:
                breaks.close_move(self, b, segments.end_of(self, b), out)
        breaks.settle(self, out)
        if self.shot_active and self.times:
            self._end_shot(self.shot_last_t or self.times[-1], out)
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
            half = max(1, round(self.s.segments.rest_smooth_s / self.dt))
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
                first = good[:4]
                view = segments.PathView(b.id, tuple(b.ts[j] for j in first), tuple(b.xy[j] for j in first))
                t0 = shots.first_seen_moving(view, self.s.shots)
                if t0 is not None:
                    self.start_shot(b.id, t0, b.xy[first[0]], confidence("struck_unseen"), None)

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
