"""Shot start and end: a ball struck between shots, one pushed by hand (``disturbed``), a ball set moving with
nothing seen to hit it, and the shot's end once every ball has rested."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Literal

import numpy as np

from calibration.contract import Event, Point
from tracking.detect import contacts, resolve, segments
from tracking.detect.candidate import Candidate, confidence
from tracking.detect.geometry import (
    as_pt,
)
from tracking.detect.segments import Ball, Break, PathView
from tracking.detect.settings import ShotSettings
from tracking.tracker import Reappearance
from tracking.trajectory import PathFit, closest_time, fit_hinge, fit_path

if TYPE_CHECKING:
    from tracking.extractor import EventExtractor


def first_seen_moving(first: PathView, s: ShotSettings) -> float | None:
    """A ball first seen already moving (``first``: its first samples) with no shot in play was struck out of
    sight (under the player's arm), where it is faster than twice ``start_speed_mm_s`` (no hand sends a ball so
    fast): the shot starts with it, timed at its first sighting (flagged for review). That time, or None."""
    f = fit_path(np.array(first.ts), np.array(first.ps))
    if float(np.linalg.norm(f.vel(f.t0))) < 2 * s.start_speed_mm_s:
        return None
    return f.t0


def shot_start(
    ball: str, t: float, place: Point, conf: float, rests: Mapping[str, Point], last_places: Mapping[str, Point]
) -> Candidate:
    """The shot's start: ``ball`` struck at ``t`` from ``place``, with where every ball on the table rests
    (``rests``) or, never seen still (half hidden, its detections unsteady), where it was last seen
    (``last_places``)."""
    positions = dict(rests)
    positions.setdefault(ball, place)
    for k, p in last_places.items():
        positions.setdefault(k, p)
    return Candidate("shot_start", (ball,), None, t, None, 0.0, "struck", conf, positions=positions)


PendingVerdict = Literal["hand_push", "struck", "wait"]


def judge_pending(
    p: PendingStart, stop_t: float | None, busy: bool, on_table: bool, now: float, force: bool, s: ShotSettings
) -> PendingVerdict:
    """A ball set off slowly between shots (``p``), pushed by hand or struck? ``stop_t``: when it stopped, if it
    rests now after stopping since it set off; ``busy``: any ball's path bent or another ball moving. Pushed by
    hand if it stopped, alone, too soon for a struck ball (within ``push_stop_s``: a struck ball rolls on, the
    cloth slowing it by only 0.1-0.3 m/s2); struck once that is sure (it stopped later, another ball moves, it
    left the table, ``2 * push_stop_s`` passed, or ``force``: the stream ends or another ball's break is
    explained); else wait."""
    if stop_t is not None and not busy:
        took = max(stop_t - p.t, 1e-3)
        if took <= s.push_stop_s:
            return "hand_push"
    if force or stop_t is not None or busy or not on_table or now - p.t > 2 * s.push_stop_s:
        return "struck"
    return "wait"


def hand_push(p: PendingStart) -> Candidate:
    """The ``disturbed`` of a ball pushed by hand between shots (``judge_pending``)."""
    return Candidate("disturbed", (p.ball,), None, p.t, as_pt(p.pos), 0.0, "hand_push", confidence("hand_push"))


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
    if unseen and back_in_sight(b, br, dt):
        return  # back in sight after moving unseen; its start was already accounted for
    if resolve.set_off_explained(ex, b.id, t_s, crept=crept is not None):
        return  # already explained (a contact found from the hitter's side, or a chain)
    if struck_unseen(ex, b, br, new, t_s, speed, crept, out):
        return
    if unseen and stalled(*segments.back_in_sight_view(ex, b, br), ex.table.ball_diameter_mm, ex.s.shots):
        return  # back in sight far off and at once still: not a ball run from its place (a hand, the cue's tip)
    if not ex.shot_active and unseen and speed >= ex.s.shots.start_speed_mm_s:
        # it ran unseen from its place and its first contact is not known yet: the shot starts with it, when
        # its path run back passes its place (within a diameter: it ran straight from there; a few degrees
        # off over half a metre is that far), else at its last sight there
        straight = br.t_lo <= t_s and float(np.linalg.norm(new.at(t_s) - a)) <= ex.table.ball_diameter_mm
        ex.start_shot(b.id, t_s if straight else br.t_lo + 0.5 * dt, a, confidence("struck_unseen"), out)
        b.unseen_seg = br.new  # its path starts where it hits something, once that is known
        return
    if not ex.shot_active:
        struck_between_shots(ex, b, br, new, t_s, speed, out)
        return
    best = find_hitter(ex, b, br, a, t_s, crept)
    if best is None:
        set_off_unhit(ex, b, br, new, t_s, speed, out)
        return
    _, other, t_c, conf = best
    o = ex.balls[other]
    pb = segments.path_before(ex, o, t_c)
    q = pb[0].at(t_c) if pb is not None else a
    mid = (np.asarray(q) + a) / 2
    contacts.give_contact(ex, other, b.id, t_c, mid, conf, out)


def back_in_sight(b: Ball, br: Break, dt: float) -> bool:
    """Whether ``b``, back in sight after leaving its place unseen (the break ``br``), was struck as it left (its
    last touch given out no earlier than a frame before its last sample there): its path starts then (or where it
    was known to be, its waypoint), and its start is already accounted for."""
    if b.last_event_t is None or b.last_event_t < br.t_lo - dt:
        return False
    br.new.start_t = b.last_event_t  # it left its place when it was struck, unseen
    if b.waypoint is not None:
        br.new.start_t, br.new.start_p = b.waypoint[0], b.waypoint[1].copy()
    return True


def struck_unseen(
    ex: EventExtractor,
    b: Ball,
    br: Break,
    new: PathFit,
    t_s: float,
    speed: float,
    crept: float | None,
    out: list[Event],
) -> bool:
    """Whether a ball that vanished from its place just before (``contacts.unseen_striker``) set ``b`` off: struck
    too fast to be seen (or under the player's arm), it hit ``b``'s cluster (``contacts.hit_by_unseen``); not where
    a ball seen moving reaches ``b`` then (what vanished was something else: a hand, the cue's tip)."""
    a = br.new.start_p
    left = segments.left_rests(ex, b.id)
    striker = contacts.unseen_striker(left, t_s, a, new.vel(t_s), ex.s.segments.start_min_mm, ex.s.contacts, ex.dt)
    if (
        striker is None
        or speed < ex.s.shots.start_speed_mm_s
        or ex.balls[striker].waypoint is not None
        or find_hitter(ex, b, br, a, t_s, crept, moving_only=True)
    ):
        return False
    contacts.hit_by_unseen(ex, ex.balls[striker], b, t_s, out)
    return True


def find_hitter(
    ex: EventExtractor, b: Ball, br: Break, a: np.ndarray, t_s: float, crept: float | None, moving_only: bool = False
) -> tuple[float, str, float, float] | None:
    """``contacts.find_hitter`` on the other balls' paths before the contact (not after)."""
    others = segments.approaches(ex, b.id, min(br.t_lo, t_s + ex.dt))
    D, s = ex.table.ball_diameter_mm, ex.s.contacts
    return contacts.find_hitter(others, a, t_s, br.t_lo, br.t_hi, crept, D, s, ex.dt, moving_only=moving_only)


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
    the measurement noise: a blurred or half-hidden ball's detections jitter that far) and did not come straight
    back to it (``back_at_place``)."""
    a = br.new.start_p
    idx = [i for i in br.new.idx if b.sid[i] >= 0]
    off = [float(np.linalg.norm(b.xy[i] - a)) for i in idx]
    moved = max(off, default=0.0)
    s = ex.s.segments
    if moved < (s.start_min_mm if crept else max(s.start_min_mm, 6 * s.meas_sigma_mm)):
        return False
    far = idx[int(np.argmax(off))]
    later = [i for i in range(far + 1, len(b.xy)) if b.sid[i] >= 0][:2]
    after = [float(np.linalg.norm(b.xy[i] - a)) for i in later]
    resting = bool(later) and ex.segs[b.sid[later[0]]].kind == "rest"
    return not back_at_place(after, s.meas_sigma_mm, resting)


def back_at_place(after: Sequence[float], sigma_mm: float, resting: bool) -> bool:
    """Whether a ball seen off its resting place came back to it: its next samples (``after``: each one's
    distance from that place): the next two within three times the measurement noise of it, or the next one
    where the tracker holds it at rest again there (``resting``). A ball set moving rolls away from its place; the
    cloth only slows it, and a cushion or ball that turned it could not send it back onto the same spot within a
    frame or two. One detection off and the next ones back where they were is a displaced blob (a highlight, a
    shadow merged with the ball), not a start."""
    n = 1 if resting else 2
    return len(after) >= n and max(after[:n]) <= 3.0 * sigma_mm


def struck_between_shots(
    ex: EventExtractor, b: Ball, br: Break, new: PathFit, t_s: float, speed: float, out: list[Event]
) -> None:
    """A resting ball set moving at ``t_s`` (path ``new``) with no shot in play: struck (the shot starts, or waits
    to tell a push by hand, ``judge_pending``) if faster than ``start_speed_mm_s``, else disturbed."""
    a = br.new.start_p
    if speed >= ex.s.shots.start_speed_mm_s:
        # a struck ball frozen to others sets them off together: the struck one is the rearmost
        vhat = new.vel(t_s) / max(speed, 1e-9)
        places, resting = segments.resting_places(ex, br.t_lo)
        moving = {k for k, o in ex.balls.items() if o.segs and o.seg.kind == "move"}
        first = contacts.struck_ball(b.id, vhat, places, resting, moving, ex.table.ball_diameter_mm, ex.s.contacts)
        fb = ex.balls[first]
        fpos = fb.rest_pos if fb.rest_pos is not None else a
        conf = confidence("struck", samples=new.n, speed_mm_s=speed)
        if first == b.id and speed < ex.s.shots.push_max_speed_mm_s and ex.pending is None:
            ex.pending = PendingStart(b.id, t_s, np.array(fpos, dtype=float), conf, speed)
        else:
            ex.start_shot(fb.id, t_s, fpos, conf, out)
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
    st = segments.stroke_view(ex)
    D, start_speed = ex.table.ball_diameter_mm, ex.s.shots.start_speed_mm_s
    hit = None
    if st is not None:
        hit = contacts.hit_at_stroke(st, b.id, a, new, t_s, br.t_lo, br.t_hi, D, ex.s.contacts, start_speed, dt)
    if hit is not None:
        striker, t_c, pos, t_stroke = hit
        contacts.give_contact(ex, striker, b.id, t_c, pos, confidence("stroke_hit"), out, evidence="stroke_hit")
        if t_stroke is not None:
            retime_shot_start(ex, striker, t_stroke, out)
        return
    if still_going(b.stop_t, ex.stroke[1] if ex.stroke is not None else None, t_s, speed, ex.s.shots):
        return
    lo = t_s - ex.s.shots.nudge_back_s
    runs = segments.moving_samples(ex, lo)
    reached = contacts.reached_by(runs, b.id, a, new.vel(br.t_hi), lo, br.t_hi + dt, D, ex.s.contacts, dt)
    if reached is not None:
        striker, t_c, q = reached
        mid = (q + a) / 2
        contacts.give_contact(ex, striker, b.id, t_c, mid, confidence("slow_hit"), out, evidence="slow_hit")
        return
    if speed > ex.s.shots.touch_max_speed_mm_s:
        # faster than a hand sends a ball: a ball lost from sight hit it (at 30 fps a 4 m/s ball may
        # go unseen for 7 frames after a cushion), the one that could have been where its hitter was
        u = new.vel(t_s) / speed
        last = segments.last_seen(ex, b.id, t_s)
        lost = contacts.lost_hitter(last, a - u * D, t_s, D, ex.s.contacts, dt)
        if lost is not None:
            pos = a - u * (D / 2)
            contacts.give_contact(ex, lost, b.id, t_s, pos, confidence("lost_hit"), out, evidence="lost_hit")
        return
    resolve.give(ex, Candidate("disturbed", (b.id,), None, t_s, as_pt(a), 0.0, "unhit", confidence("unhit")), out)


def stalled(first: PathView, others: Sequence[np.ndarray], diameter_mm: float, s: ShotSettings) -> bool:
    """Whether a ball that came back into sight (``first``: its first four kept samples, on whatever paths) stopped
    dead within two frames of its first step, with no other ball near (``others``: where each other ball on the
    table was last seen): a rolling ball slows by a few m/s2 at most, so its second and third steps keep most of
    its first's length unless it hits something (a stun shot into a cluster stops it dead beside a ball)."""
    if len(first.ts) < 3:
        return False
    ts, ps = first.ts, first.ps
    steps = [float(np.linalg.norm(ps[k] - ps[i])) / max(ts[k] - ts[i], 1e-6) for i, k in pairwise(range(len(ts)))]
    if steps[0] < s.start_speed_mm_s or max(steps[1:]) >= 0.3 * steps[0]:
        return False
    p, reach = ps[1], 2 * diameter_mm
    return not any(float(np.hypot(*(q - p))) < reach for q in others)


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


def still_going(stop_t: float | None, stroke_t: float | None, t_s: float, speed: float, s: ShotSettings) -> bool:
    """A ball seen setting off at ``t_s`` in a shot struck at ``stroke_t`` with nothing to have set it off, about
    when it stopped in this shot (``stop_t``, within ``regone_stop_s``), slower than a struck ball: the same
    motion going on (a slow rebound or creep the tracker took for rest), not a ball touched by hand. (One set off
    within three frames of its last contact is already explained before this is asked.)"""
    # (a creep's start, run back from its path, may come before the stop that its rest was dated from)
    if stroke_t is None or stop_t is None or stop_t <= stroke_t:
        return False
    return abs(t_s - stop_t) <= s.regone_stop_s and speed < s.start_speed_mm_s


def quiet_long_enough(quiet_since: float, now: float, s: ShotSettings) -> bool:
    """Whether every ball has rested (none moving, no break waiting to be explained) since ``quiet_since`` for
    ``shot_end_hold_s`` at ``now``: a rolling ball never stands still that long, so the shot is over."""
    return now - quiet_since >= s.shot_end_hold_s


def shot_end(t: float, rests: Mapping[str, Point]) -> Candidate:
    """The shot's end at ``t`` (when its last ball stopped, dropped or touched something), with where every ball on
    the table rests (``rests``)."""
    return Candidate("shot_end", (), None, t, None, 0.0, "all_rest", confidence("all_rest"), positions=dict(rests))


@dataclass
class PendingStart:
    """A ball set off between shots that may yet turn out pushed by hand rather than struck."""

    ball: str
    t: float  # when it left its place
    pos: np.ndarray  # where it rested
    confidence: float
    speed: float  # as it left
