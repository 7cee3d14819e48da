"""Shot start and end: a ball struck between shots, one pushed by hand (``disturbed``), a ball set moving with
nothing seen to hit it, and the shot's end once every ball has rested."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from calibration.contract import Event
from tracking.detect import breaks, contacts, resolve, segments
from tracking.detect.candidate import Candidate, confidence
from tracking.detect.geometry import (
    as_pt,
)
from tracking.detect.segments import Ball, Break
from tracking.tracker import Reappearance, TrackerFrame
from tracking.trajectory import PathFit, closest_time, fit_hinge, fit_path

if TYPE_CHECKING:
    from tracking.extractor import EventExtractor


def first_seen_moving(ex: EventExtractor, b: Ball, idx: list[int]) -> None:
    """A ball first seen already moving with no shot in play was struck out of sight (under the
    player's arm): the shot starts with it, timed at its first sighting (flagged for review)."""
    f = fit_path(np.array([b.ts[j] for j in idx]), np.array([b.xy[j] for j in idx]))
    if float(np.linalg.norm(f.vel(f.t0))) < 2 * ex.s.shots.start_speed_mm_s:
        return
    start_shot(ex, b, f.t0, b.xy[idx[0]], confidence("struck_unseen"), None)


def start_shot(ex: EventExtractor, b: Ball, t_s: float, p: np.ndarray, conf: float, out: list[Event] | None) -> None:
    ex.shot += 1
    ex.shot_active = True
    ex.quiet_since = None
    ex.shot_last_t = t_s
    positions = {k: as_pt(o.rest_pos) for k, o in ex.balls.items() if o.on_table and o.rest_pos is not None}
    positions.setdefault(b.id, as_pt(p))
    for k, o in ex.balls.items():
        if o.on_table and k not in positions and o.xy:
            positions[k] = as_pt(o.xy[-1])  # never seen still (half hidden, its detections unsteady): where last seen
    c = Candidate("shot_start", (b.id,), None, t_s, None, 0.0, "struck", conf, positions=positions)
    resolve.give(ex, c, ex.deferred if out is None else out)
    b.last_event_t = t_s
    ex.stroke = (b.id, t_s, np.asarray(p, dtype=float).copy())
    # struck while frozen to other balls: the stroke's push passes through them at once
    contacts.propagate(ex, b.id, b.id, t_s, ex.deferred if out is None else out)


def judge_pending(ex: EventExtractor, out: list[Event], force: bool) -> None:
    """A ball set off slowly between shots (``_pending``): pushed by hand if it stopped too soon for a struck
    ball (``push_*`` settings), else the shot it started, from when it left its place, once that is sure."""
    p = ex.pending
    assert p is not None
    b = ex.balls[p.ball]
    others = any(o is not b and (o.breaks or (o.segs and o.seg.kind == "move")) for o in ex.balls.values())
    stopped = b.on_table and b.segs and b.seg.kind == "rest" and b.stop_t is not None and b.stop_t > p.t
    if stopped and not others and not b.breaks:
        took = max(float(b.stop_t) - p.t, 1e-3)  # type: ignore[arg-type]
        if took <= ex.s.shots.push_stop_s:
            ex.pending = None
            c = Candidate("disturbed", (b.id,), None, p.t, as_pt(p.pos), 0.0, "hand_push", confidence("hand_push"))
            resolve.give(ex, c, out)
            return
    now = ex.times[-1] if ex.times else p.t
    if force or stopped or others or b.breaks or not b.on_table or now - p.t > 2 * ex.s.shots.push_stop_s:
        ex.pending = None
        start_shot(ex, b, p.t, p.pos, p.confidence, out)


def explain_set_off(ex: EventExtractor, b: Ball, br: Break, out: list[Event]) -> None:
    """What set a resting ball moving (the break ``br``): when it left its place (its path run back to it, or
    where a creep sped up), then, unless that was jitter or is already explained, an unseen striker, the shot's
    start between shots, or its hitter in a shot."""
    dt = ex.dt
    a = br.new.start_p
    new = segments.fit(ex, b, br.new.idx, head=True)
    t_s, crept = left_place(ex, b, br, new)
    br.new.start_t = t_s
    speed = float(np.linalg.norm(new.vel(t_s)))
    if not moved_off(ex, b, br, crept is not None):
        if br.new is b.seg and b.on_table and ex.times[-1] - br.t_hi < ex.s.shots.slow_start_wait_s:
            b.breaks.append(br)  # still moving off, slowly: looked at again as it gets farther
        return  # detection jitter (a blurred or half-hidden ball), not a ball set moving (a steady creep is)
    unseen = br.t_hi - br.t_lo > 4 * dt  # it left its place out of sight
    if unseen and b.last_event_t is not None and b.last_event_t >= br.t_lo - dt:
        br.new.start_t = b.last_event_t  # it left its place when it was struck, unseen
        if b.waypoint is not None:
            br.new.start_t, br.new.start_p = b.waypoint[0], b.waypoint[1].copy()
        return  # back in sight after moving unseen; its start was already accounted for
    if resolve.set_off_explained(ex, b.id, t_s, crept=crept is not None):
        return  # already explained (a contact found from the hitter's side, or a chain)
    striker = contacts.unseen_striker(ex, b, t_s, a, new.vel(t_s))
    if (
        striker is not None
        and speed >= ex.s.shots.start_speed_mm_s
        and ex.balls[striker].waypoint is None
        and not contacts.find_hitter(ex, b, br, a, t_s, crept, moving_only=True)
    ):
        # struck too fast to be seen (or under the player's arm), it hit this ball's cluster; not where a
        # ball seen moving reaches it then (what vanished was something else: a hand, the cue's tip)
        contacts.hit_by_unseen(ex, ex.balls[striker], b, t_s, out)
        return
    if unseen and stalled(ex, b, br):
        return  # back in sight far off and at once still: not a ball run from its place (a hand, the cue's tip)
    if not ex.shot_active and unseen and speed >= ex.s.shots.start_speed_mm_s:
        # it ran unseen from its place and its first contact is not known yet: the shot starts with it, when
        # its path run back passes its place (within a diameter: it ran straight from there; a few degrees
        # off over half a metre is that far), else at its last sight there
        straight = br.t_lo <= t_s and float(np.linalg.norm(new.at(t_s) - a)) <= ex.table.ball_diameter_mm
        start_shot(ex, b, t_s if straight else br.t_lo + 0.5 * dt, a, confidence("struck_unseen"), out)
        b.unseen_seg = br.new  # its path starts where it hits something, once that is known
        return
    if not ex.shot_active:
        struck_between_shots(ex, b, br, new, t_s, speed, out)
        return
    best = contacts.find_hitter(ex, b, br, a, t_s, crept)
    if best is None:
        set_off_unhit(ex, b, br, new, t_s, speed, out)
        return
    _, other, t_c, conf = best
    o = ex.balls[other]
    pb = segments.path_before(ex, o, t_c)
    q = pb[0].at(t_c) if pb is not None else a
    mid = (np.asarray(q) + a) / 2
    contacts.give_contact(ex, other, b.id, t_c, mid, conf, out)


def left_place(ex: EventExtractor, b: Ball, br: Break, new: PathFit) -> tuple[float, float | None]:
    """When a resting ball set moving (the break ``br``, its first path ``new``) left its place: where that path,
    run back, is nearest the place, or where a slow ball creeping off sped up (``creep_start``). Returned: that
    time, and the creep's start (None where it did not creep off)."""
    dt = ex.dt
    a = br.new.start_p
    # A ball set off slowly keeps its place (the tracker's anchor) for a few frames before it has moved far
    # enough to break its rest: its path, run back, may reach its place before the last resting sample.
    lo = br.t_lo - ex.s.shots.slow_start_frames * dt
    t_s = closest_time(lambda u: float(np.linalg.norm(new.at(u) - a)), lo, br.t_hi)
    if new.n < 2:
        t_s = 0.5 * (br.t_lo + br.t_hi)
    slow = new.n >= 2 and float(np.linalg.norm(new.vel(br.t_hi))) < ex.s.shots.start_speed_mm_s
    crept = creep_start(ex, b, br) if slow and t_s < lo + 0.5 * dt else None
    return (t_s if crept is None else crept), crept


def moved_off(ex: EventExtractor, b: Ball, br: Break, crept: bool) -> bool:
    """Whether the ball got ``start_min_mm`` from its place on its new path (a ball not seen creeping, six times
    the measurement noise: a blurred or half-hidden ball's detections jitter that far)."""
    a = br.new.start_p
    moved = max((float(np.linalg.norm(b.xy[i] - a)) for i in br.new.idx if b.sid[i] >= 0), default=0.0)
    s = ex.s.segments
    return moved >= (s.start_min_mm if crept else max(s.start_min_mm, 6 * s.meas_sigma_mm))


def struck_between_shots(
    ex: EventExtractor, b: Ball, br: Break, new: PathFit, t_s: float, speed: float, out: list[Event]
) -> None:
    """A resting ball set moving at ``t_s`` (path ``new``) with no shot in play: struck (the shot starts, or waits
    to tell a push by hand, ``judge_pending``) if faster than ``start_speed_mm_s``, else disturbed."""
    a = br.new.start_p
    if speed >= ex.s.shots.start_speed_mm_s:
        # a struck ball frozen to others sets them off together: the struck one is the rearmost
        vhat = new.vel(t_s) / max(speed, 1e-9)
        set_off = [
            k
            for k in segments.frozen_cluster(ex, b.id, br.t_lo)
            if ex.balls[k].segs and ex.balls[k].seg.kind == "move" and ex.balls[k].rest_pos is not None
        ]
        first = min(set_off, key=lambda k: float(ex.balls[k].rest_pos @ vhat)) if set_off else b.id  # type: ignore[operator]
        first = contacts.find_pusher(ex, first, vhat, br.t_lo)
        fb = ex.balls[first]
        fpos = fb.rest_pos if fb.rest_pos is not None else a
        conf = confidence("struck", samples=new.n)
        if first == b.id and speed < ex.s.shots.push_max_speed_mm_s and ex.pending is None:
            ex.pending = PendingStart(b.id, t_s, np.array(fpos, dtype=float), conf, speed)
        else:
            start_shot(ex, fb, t_s, fpos, conf, out)
    else:
        c = Candidate("disturbed", (b.id,), None, t_s, as_pt(a), 0.0, "slow_set_off", confidence("slow_set_off"))
        resolve.give(ex, c, out)


def set_off_unhit(
    ex: EventExtractor, b: Ball, br: Break, new: PathFit, t_s: float, speed: float, out: list[Event]
) -> None:
    """A resting ball set moving at ``t_s`` in a shot with no ball seen to reach it: hit by the struck ball
    before either was seen moving, the same motion going on (``still_going``), hit slowly by a ball that came to
    its place, hit by a ball lost from sight (faster than a hand sends one), or else touched (``disturbed``)."""
    a = br.new.start_p
    dt = ex.dt
    hit = contacts.hit_at_stroke(ex, b, br, a, new, t_s)
    if hit is not None:
        striker, t_c, pos, t_stroke = hit
        contacts.give_contact(ex, striker, b.id, t_c, pos, confidence("stroke_hit"), out, evidence="stroke_hit")
        if t_stroke is not None:
            retime_shot_start(ex, striker, t_stroke, out)
        return
    if still_going(ex, b, t_s, speed):
        return
    reached = contacts.reached_by(ex, b, a, new.vel(br.t_hi), t_s - ex.s.shots.nudge_back_s, br.t_hi + dt)
    if reached is not None:
        striker, t_c, q = reached
        mid = (q + a) / 2
        contacts.give_contact(ex, striker, b.id, t_c, mid, confidence("slow_hit"), out, evidence="slow_hit")
        return
    if speed > ex.s.shots.touch_max_speed_mm_s:
        # faster than a hand sends a ball: a ball lost from sight hit it (at 30 fps a 4 m/s ball may
        # go unseen for 7 frames after a cushion), the one that could have been where its hitter was
        u = new.vel(t_s) / speed
        lost = contacts.lost_hitter(ex, b, a - u * ex.table.ball_diameter_mm, t_s)
        if lost is not None:
            pos = a - u * (ex.table.ball_diameter_mm / 2)
            contacts.give_contact(ex, lost, b.id, t_s, pos, confidence("lost_hit"), out, evidence="lost_hit")
        return
    resolve.give(ex, Candidate("disturbed", (b.id,), None, t_s, as_pt(a), 0.0, "unhit", confidence("unhit")), out)


def stalled(ex: EventExtractor, b: Ball, br: Break) -> bool:
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
    if steps[0] < ex.s.shots.start_speed_mm_s or max(steps[1:]) >= 0.3 * steps[0]:
        return False
    p, reach = b.xy[good[1]], 2 * ex.table.ball_diameter_mm
    near = [o for o in ex.balls.values() if o is not b and o.on_table and o.xy]
    return not any(float(np.hypot(*(o.xy[-1] - p))) < reach for o in near)


def creep_start(ex: EventExtractor, b: Ball, br: Break) -> float | None:
    """When a ball set off slowly really left its place: it creeps off while the tracker still holds it at
    rest, so its detections over the last resting samples (up to ``creep_back_s``) drift away from where
    they sat. If the drift after the last one still at that place (within ``creep_still_mm``) is steady (each
    farther off than the one before, give or take the noise), where its speed jumped (``_creep_hinge``), or
    else halfway from that last one to the next; otherwise None."""
    idx = [i for i in br.old.idx if i in b.seen and b.ts[i] >= br.t_lo - ex.s.shots.creep_back_s]
    if len(idx) < 6:
        return None
    det = np.array([b.seen[i] for i in idx])
    ref = np.median(det[: len(det) // 3], axis=0)
    d = np.linalg.norm(det - ref, axis=1)
    still = np.flatnonzero(d <= ex.s.shots.creep_still_mm)
    if len(still) == 0 or still[-1] >= len(d) - 2:
        return None  # no drift seen before it broke its rest
    k = int(still[-1])
    drift = d[k:]
    if np.any(np.diff(drift) < -ex.s.shots.creep_still_mm):
        return None  # back and forth: noise or a hand, not a ball creeping off
    hinge = creep_hinge(ex, b, br, idx)
    if hinge is not None:
        return hinge  # (a ball already creeping when hit drifts from its place long before it)
    return 0.5 * (b.ts[idx[k]] + b.ts[idx[k + 1]])  # it left between the last sample there and the next


def creep_hinge(ex: EventExtractor, b: Ball, br: Break, idx: list[int]) -> float | None:
    """When a slow ball hit while the tracker held it resting (its detections at ``idx`` of the old segment,
    then the first samples of its path) sped up: the corner of a hinge fitted to how far along its new path
    it was, the old speed before (none, or a creep already under way) and the new one after. None unless
    the new speed is clearly more (twice the old, and ``creep_speedup_mm_s`` over it)."""
    new = [i for i in br.new.idx if b.sid[i] >= 0]
    if len(new) < 3:
        return None
    ts = np.array([b.ts[i] for i in idx + new])
    ps = np.array([b.seen[i] for i in idx] + [b.xy[i] for i in new])
    f = segments.fit(ex, b, new, head=True)
    v = f.vel(b.ts[new[0]])
    speed = float(np.linalg.norm(v))
    if speed < 1e-6:
        return None
    s = (ps - ps[0]) @ (v / speed)
    lo, hi = ts[2], b.ts[new[0]]
    h = fit_hinge(ts, s, lo, hi, steps=max(8, int(np.ceil((hi - lo) / (ex.dt / 8)))))
    if h is None or h.after < 2.0 * max(h.before, 0.0) + ex.s.shots.creep_speedup_mm_s:
        return None
    return h.t


def retime_shot_start(ex: EventExtractor, ball: str, t: float, out: list[Event]) -> None:
    """The shot's start, not yet given out, moved to the stroke time solved from its first contact."""
    for k, e in enumerate(out):
        if e.type == "shot_start" and e.shot == ex.shot and e.ball == ball:
            c = Candidate("shot_start", (ball,), None, t, None, 0.0, "struck", e.confidence, positions=e.positions)
            out[k] = resolve.event_of(ex, c)
            if ex.stroke is not None:
                ex.stroke = (ball, t, ex.stroke[2])
            return


def reappeared(ex: EventExtractor, re: Reappearance, out: list[Event]) -> None:
    # A hidden resting ball came back elsewhere: someone moved it.
    c = Candidate("disturbed", (re.id,), None, re.t, re.new_pos, 0.0, "moved_hidden", confidence("moved_hidden"))
    resolve.give(ex, c, out)


def check_shot_end(ex: EventExtractor, tf: TrackerFrame, out: list[Event]) -> None:
    if not ex.shot_active:
        return
    busy = any((not o.resting) and o.quality >= ex.s.ghost_below for o in tf.balls) or any(
        b.breaks for b in ex.balls.values()
    )
    if busy:
        ex.quiet_since = None
        return
    if ex.quiet_since is None:
        ex.quiet_since = tf.t
    if tf.t - ex.quiet_since >= ex.s.shots.shot_end_hold_s:
        breaks.settle(ex, tf.t, out, force=True)
        contacts.nudges(ex, out)
        out.append(shot_end_event(ex, ex.shot_last_t))
        ex.shot_active = False


def still_going(ex: EventExtractor, b: Ball, t_s: float, speed: float) -> bool:
    """A ball seen setting off in a shot with nothing to have set it off, about when it stopped in this shot
    (within ``regone_stop_s``, slower than a struck ball): the same motion going on (a slow rebound or creep the
    tracker took for rest), not a ball touched by hand. (One set off within three frames of its last contact is
    already explained before this is asked.)"""
    # (a creep's start, run back from its path, may come before the stop that its rest was dated from)
    in_shot = ex.stroke is not None and b.stop_t is not None and b.stop_t > ex.stroke[1]
    stop = in_shot and abs(t_s - b.stop_t) <= ex.s.shots.regone_stop_s  # type: ignore[operator]
    return stop and speed < ex.s.shots.start_speed_mm_s


def shot_end_event(ex: EventExtractor, t: float) -> Event:
    positions = {k: as_pt(o.rest_pos) for k, o in ex.balls.items() if o.on_table and o.rest_pos is not None}
    return resolve.event_of(
        ex, Candidate("shot_end", (), None, t, None, 0.0, "all_rest", confidence("all_rest"), positions=positions)
    )


@dataclass
class PendingStart:
    """A ball set off between shots that may yet turn out pushed by hand rather than struck."""

    ball: str
    t: float  # when it left its place
    pos: np.ndarray  # where it rested
    confidence: float
    speed: float  # as it left
