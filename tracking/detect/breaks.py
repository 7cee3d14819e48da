"""Explaining the breaks of the paths, in causal order: a resting ball set moving (``shots``, ``contacts``) or a
moving ball's kink (a cushion, a jaw or a ball, whichever explains it best), and a finished path's grazes and
line crossings once it has ended. The caller of the detectors: it builds their records (``segments``), hands
their candidates to the resolver and makes the state changes their readings lead to (a path's start and end,
the shot's start, a pending start, an unseen ball's waypoint)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from calibration.contract import Event, jaw_pocket
from tracking.detect import contacts, cushions, lines, resolve, segments, shots
from tracking.detect.candidate import Candidate, confidence
from tracking.detect.geometry import (
    as_pt,
)
from tracking.detect.segments import Ball, Break, Kink, KinkReading, PathView, Seg, SettledPath
from tracking.detect.settings import CushionSettings
from tracking.trajectory import PathFit

if TYPE_CHECKING:
    from tracking.extractor import EventExtractor


def explain_breaks(ex: EventExtractor, out: list[Event], force: bool) -> None:
    ready: list[tuple[float, Ball, Break]] = []
    waiting = []  # (last old sample, last new one) of the breaks not ready yet
    now = ex.times[-1] if ex.times else 0.0
    for b in ex.balls.values():
        keep = []
        # a ball out of sight longer than a hidden ball rolls (``hidden_roll_s``) adds nothing to its path
        unseen = bool(b.ts) and now - b.ts[-1] > ex.s.shots.hidden_roll_s
        for br in b.breaks:
            n = len([i for i in br.new.idx if b.sid[i] >= 0])
            closed = br.new is not b.seg or b.seg.kind == "rest" or not b.on_table or unseen
            if n >= ex.s.segments.new_path_samples or ((force or closed) and n >= 1):
                ready.append((br.t_hi, b, br))  # by first sighting: a ball that ran unseen comes last
            else:
                keep.append(br)
                waiting.append((br.t_lo, b.ts[br.new.idx[-1]] if br.new.idx else br.t_hi))
        b.breaks = keep
    # (a ball still in sight gathers its path in a few frames; one gone from sight is waited for a few frames)
    lows = [lo for lo, last in waiting if now - last <= ex.s.segments.order_wait_frames * ex.dt]
    if lows and not force:
        # A break still waiting for its path happened after its ball's last sample on the old one: nothing
        # first seen after that is explained before it (it may be what set that off).
        hold = round(min(lows) / ex.dt)
        for t_hi, b, br in ready:
            if round(t_hi / ex.dt) > hold:
                b.breaks.append(br)
        ready = [r for r in ready if round(r[0] / ex.dt) <= hold]
    # Breaks first seen in the same frame are taken outwards from the struck ball: what it hit is the cause
    # of the rest (a rack's balls all seen set off in the frame after the break).
    # The struck ball's own break counts from its last sample before it (its hit is what sets the others off,
    # though it may be seen again only after them).
    near = struck_pos(ex)
    struck = ex.stroke[0] if ex.stroke is not None and ex.shot_active else None
    ready.sort(
        key=lambda r: (
            round((r[2].t_lo if r[1].id == struck else r[0]) / ex.dt),
            distance_from(r[1], near),
        )
    )
    for _, b, br in ready:
        if ex.pending is not None and ex.pending.ball != b.id:
            ex.judge_pending(out, force=True)  # another ball set off or bent: the pending one was struck
        if br.kind == "start":
            explain_start(ex, b, br, out)
        else:
            explain_kink(ex, b, br, out)


def struck_pos(ex: EventExtractor) -> np.ndarray | None:
    """Where the struck ball was last seen (None between shots)."""
    if ex.stroke is None or not ex.shot_active:
        return None
    b = ex.balls.get(ex.stroke[0])
    return b.xy[-1] if b is not None and b.xy else None


def distance_from(b: Ball, p: np.ndarray | None) -> float:
    return 0.0 if p is None or not b.xy else float(np.linalg.norm(b.xy[-1] - p))


def explain_start(ex: EventExtractor, b: Ball, br: Break, out: list[Event]) -> None:
    """A resting ball set moving: what set it off, then a cushion it touched before it was seen moving."""
    explain_set_off(ex, b, br, out)
    if br.t_hi - br.t_lo <= 2.5 * ex.dt:
        bounce_off_start(ex, b, br, out)


def bounce_off_start(ex: EventExtractor, b: Ball, br: Break, out: list[Event]) -> None:
    """The cushion a ball hit from rest touched before it was first seen moving (``cushions.bounce_off_start``),
    read off its hit given out just now and its first paths away."""
    dt = ex.dt
    hit = resolve.contact_between(ex.contacts, b.id, br.t_lo - 3 * dt, br.t_hi + dt)
    if hit is None:
        return
    other, t_hit = hit
    pb = segments.path_before(ex, ex.balls[other], t_hit)
    if pb is None:
        return
    paths = cushions.paths_out(segments.path_samples(b, br.new), t_hit, ex.s.segments.window)
    a = br.new.start_p
    hitter = cushions.hitter_at_touch(pb[0], a, t_hit, ex.table.ball_diameter_mm, dt) if pb[1] else pb[0].at(t_hit)
    start_speed = ex.s.shots.start_speed_mm_s
    c = cushions.bounce_off_start(b.id, a, hitter, t_hit, paths, ex.table, ex.s.cushions, start_speed, dt)
    if c is not None:
        ex.give(c, out)


def explain_set_off(ex: EventExtractor, b: Ball, br: Break, out: list[Event]) -> None:
    """What set a resting ball moving (the break ``br``): when it left its place (its path run back to it, or
    where a creep sped up), then, unless that was jitter or is already explained, an unseen striker, the shot's
    start between shots, or its hitter in a shot."""
    dt = ex.dt
    a = br.new.start_p
    view = segments.set_off_view(ex, b, br, ex.s.shots.creep_back_s)
    left = shots.set_off(view, ex.s.shots, ex.s.segments, dt, ex.meas_sigma_mm, ex.table.ball_diameter_mm)
    new, t_s, crept, speed = view.path, left.t, left.crept, left.speed
    br.new.start_t = t_s
    if not left.moved:
        if br.new is b.seg and b.on_table and ex.times[-1] - br.t_hi < ex.s.shots.slow_start_wait_s:
            b.breaks.append(br)  # still moving off, slowly: looked at again as it gets farther
        return  # detection jitter (a blurred or half-hidden ball), not a ball set moving (a steady creep is)
    unseen = br.t_hi - br.t_lo > 4 * dt  # it left its place out of sight
    if unseen and back_in_sight(b, br, dt):
        return  # back in sight after moving unseen; its start was already accounted for
    if resolve.set_off_explained(b.last_event_t, t_s, crept is not None, dt):
        return  # already explained (a contact found from the hitter's side, or a chain)
    if struck_unseen(ex, b, br, new, t_s, speed, crept, out):
        return
    if unseen and shots.stalled(*segments.back_in_sight_view(ex, b, br), ex.table.ball_diameter_mm, ex.s.shots):
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
    heading = first_step(view, 3.0 * ex.meas_sigma_mm)
    best = find_hitter(ex, b, br, a, t_s, crept)
    if best is None:
        set_off_unhit(ex, b, br, new, t_s, speed, out, heading)
        return
    _, other, t_c, conf = best
    o = ex.balls[other]
    pb = segments.path_before(ex, o, t_c)
    q = pb[0].at(t_c) if pb is not None else a
    mid = (np.asarray(q) + a) / 2
    ex.give_contact(other, b.id, t_c, mid, conf, out)


def first_step(view: segments.SetOffView, noise_mm: float) -> np.ndarray | None:
    """The way a ball set off left its place: to its first sample clear of the measurement noise (``noise_mm``).
    In a cluster it may be hit again a frame later, so a path fitted over its first samples can point where a
    second touch sent it; its first step was taken before that. None if it has no such sample."""
    steps = view.new_xy - view.place
    far = np.linalg.norm(steps, axis=1) > noise_mm
    return steps[int(np.argmax(far))] if far.any() else None


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
    gone = next(r for r in left if r.ball == striker)
    hit = contacts.unseen_hit(gone, segments.frozen_places(ex, b.id, t_s), t_s, ex.table.ball_diameter_mm, ex.dt)
    if hit is None:
        return False
    hit_by_unseen(ex, hit, out)
    return True


def hit_by_unseen(ex: EventExtractor, hit: contacts.UnseenHit, out: list[Event]) -> None:
    """The unseen striker's hit (``contacts.unseen_hit``) given out: it starts the shot (if none is in play) and
    hits; its run is a straight leg from its place to that contact, on which the lines it crossed are solved,
    and the path it comes back on starts there."""
    s_ball = ex.balls[hit.striker]
    if not ex.shot_active:
        ex.start_shot(hit.striker, hit.t_gone, hit.place, confidence("struck_unseen"), out)
    conf = confidence("unseen_hit")
    ex.give_contact(hit.striker, hit.target, hit.t, hit.pos, conf, out, evidence="unseen_hit")
    close_move_seg(ex, s_ball, Seg(-1, "move", hit.t_gone, hit.place.copy()), (hit.t, hit.centre), out)
    s_ball.waypoint = (hit.t, hit.centre)
    s_ball.last_event_t = hit.t
    if s_ball.unseen_seg is not None and s_ball.unseen_seg.end_t is None:
        s_ball.unseen_seg.start_t, s_ball.unseen_seg.start_p = hit.t, hit.centre.copy()


def find_hitter(
    ex: EventExtractor, b: Ball, br: Break, a: np.ndarray, t_s: float, crept: float | None, moving_only: bool = False
) -> tuple[float, str, float, float] | None:
    """``contacts.find_hitter`` on the other balls' paths before the contact (not after)."""
    others = segments.approaches(ex, b.id, min(br.t_lo, t_s + ex.dt))
    D, s = ex.table.ball_diameter_mm, ex.s.contacts
    return contacts.find_hitter(others, a, t_s, br.t_lo, br.t_hi, crept, D, s, ex.dt, moving_only=moving_only)


def struck_between_shots(
    ex: EventExtractor, b: Ball, br: Break, new: PathFit, t_s: float, speed: float, out: list[Event]
) -> None:
    """A resting ball set moving at ``t_s`` (path ``new``) with no shot in play: struck (the shot starts, or waits
    to tell a push by hand, ``judge_pending``) if faster than ``start_speed_mm_s``, else disturbed."""
    a = br.new.start_p
    fast = speed
    if br.new.idx and gave_its_speed(ex, b, br.new.idx[0], br.t_lo):
        # a ball only slows on the cloth, or by giving its speed to a ball it hits: one that did so between two
        # frames (slow after) left at least as fast as it went from its last detection at rest to its first
        # sighting off it, less three sigmas of two detections' noise
        i, j = br.new.idx[0], bisect.bisect_left(b.ts, br.t_lo - 1e-9)
        way = float(np.linalg.norm(b.xy[i] - b.seen.get(j, b.xy[j]))) - 3.0 * math.sqrt(2.0) * ex.meas_sigma_mm
        fast = max(speed, way / max(b.ts[i] - br.t_lo, ex.dt))
    if fast >= ex.s.shots.start_speed_mm_s:
        # a struck ball frozen to others sets them off together: the struck one is the rearmost
        vhat = new.vel(t_s) / max(speed, 1e-9)
        places, resting = segments.resting_places(ex, br.t_lo)
        moving = {k for k, o in ex.balls.items() if o.segs and o.seg.kind == "move"}
        first = contacts.struck_ball(b.id, vhat, places, resting, moving, ex.table.ball_diameter_mm, ex.s.contacts)
        fb = ex.balls[first]
        fpos = fb.rest_pos if fb.rest_pos is not None else a
        conf = confidence("struck", samples=new.n, speed_mm_s=speed)
        if first == b.id and fast < ex.s.shots.push_max_speed_mm_s and ex.pending is None:
            ex.pending = shots.PendingStart(b.id, t_s, np.array(fpos, dtype=float), conf, speed)
        else:
            ex.start_shot(fb.id, t_s, fpos, conf, out)
    else:
        c = Candidate("disturbed", (b.id,), None, t_s, as_pt(a), 0.0, "slow_set_off", confidence("slow_set_off"))
        ex.give(c, out)


def gave_its_speed(ex: EventExtractor, b: Ball, i: int, t_lo: float) -> bool:
    """Whether ``b`` (last seen at rest at ``t_lo``, first seen off its place in sample ``i``) stopped because it gave
    its speed to a ball it hit: a ball resting, at ``t_lo``, within a hit's reach of where ``b`` was seen in that
    sighting or the two frames after it was seen off its own place by then (it hit it before its next sighting, and
    the ball hit is seen moving a frame later). Where no ball near set off, a ball seen still after a jump did not
    cover that jump at a stroke's speed: a track moved onto another ball's detection."""
    reach = ex.table.ball_diameter_mm + ex.s.contacts.contact_tol_mm
    noise = 3.0 * math.sqrt(2.0) * ex.meas_sigma_mm
    t_end = b.ts[i] + 2.5 * ex.dt
    way = np.array(b.xy[i : bisect.bisect_right(b.ts, t_end)]).reshape(-1, 2)
    for o in ex.balls.values():
        if o.id == b.id or not o.on_table or not o.ts:
            continue
        j = bisect.bisect_right(o.ts, t_lo + 1e-9) - 1  # its last sample by b's last sighting at rest
        if j < 0 or float(np.min(np.linalg.norm(way - o.xy[j], axis=1))) > reach:
            continue
        for k in range(j + 1, bisect.bisect_right(o.ts, t_end)):
            if float(np.linalg.norm(o.seen.get(k, o.xy[k]) - o.xy[j])) > noise:
                return True
    return False


def set_off_unhit(
    ex: EventExtractor,
    b: Ball,
    br: Break,
    new: PathFit,
    t_s: float,
    speed: float,
    out: list[Event],
    heading: np.ndarray | None = None,
) -> None:
    """A resting ball set moving at ``t_s`` in a shot with no ball seen to reach it: hit by the struck ball
    before either was seen moving, the same motion going on (``still_going``), hit slowly by a ball that came to
    its place (from the side it left away from: its ``heading``, its first step, else its path as first seen),
    hit by a ball lost from sight (faster than a hand sends one), or else touched (``disturbed``)."""
    a = br.new.start_p
    dt = ex.dt
    st = segments.stroke_view(ex)
    D, start_speed = ex.table.ball_diameter_mm, ex.s.shots.start_speed_mm_s
    hit = None
    if st is not None:
        hit = contacts.hit_at_stroke(st, b.id, a, new, t_s, br.t_lo, br.t_hi, D, ex.s.contacts, start_speed, dt)
    if hit is not None:
        striker, t_c, pos, t_stroke = hit
        ex.give_contact(striker, b.id, t_c, pos, confidence("stroke_hit"), out, evidence="stroke_hit")
        if t_stroke is not None:
            retime_shot_start(ex, striker, t_stroke, out)
        return
    if shots.still_going(b.stop_t, ex.stroke[1] if ex.stroke is not None else None, t_s, speed, ex.s.shots):
        return
    lo = t_s - ex.s.shots.nudge_back_s
    runs = segments.moving_samples(ex, lo)
    away = heading if heading is not None else new.vel(br.t_hi)
    reached = contacts.reached_by(runs, b.id, a, away, lo, br.t_hi + dt, D, ex.s.contacts, dt)
    if reached is not None:
        striker, t_c, q = reached
        mid = (q + a) / 2
        ex.give_contact(striker, b.id, t_c, mid, confidence("slow_hit"), out, evidence="slow_hit")
        return
    if speed > ex.s.shots.touch_max_speed_mm_s:
        # faster than a hand sends a ball: a ball lost from sight hit it (at 30 fps a 4 m/s ball may
        # go unseen for 7 frames after a cushion), the one that could have been where its hitter was
        u = new.vel(t_s) / speed
        last = segments.last_seen(ex, b.id, t_s)
        lost = contacts.lost_hitter(last, a - u * D, t_s, D, ex.s.contacts, dt)
        if lost is not None:
            pos = a - u * (D / 2)
            ex.give_contact(lost, b.id, t_s, pos, confidence("lost_hit"), out, evidence="lost_hit")
        return
    ex.give(Candidate("disturbed", (b.id,), None, t_s, as_pt(a), 0.0, "unhit", confidence("unhit")), out)


def retime_shot_start(ex: EventExtractor, ball: str, t: float, out: list[Event]) -> None:
    """The shot's start, not yet given out, moved to the stroke time solved from its first contact."""
    for k, e in enumerate(out):
        if e.type == "shot_start" and e.shot == ex.shot and e.ball == ball:
            c = Candidate("shot_start", (ball,), None, t, None, 0.0, "struck", e.confidence, positions=e.positions)
            out[k] = ex.event_of(c)
            if ex.stroke is not None:
                ex.stroke = (ball, t, ex.stroke[2])
            return


def explain_kink(ex: EventExtractor, b: Ball, br: Break, out: list[Event]) -> None:
    """A moving ball's path bent (the break ``br``): the cushion, jaw or ball that explains it best
    (``best_reading``), given out, with a second touch a jaw bounce or a hit beside a cushion makes."""
    dt = ex.dt
    br = segments.kink_span(b, br, ex.s.segments.short_path_samples)
    kink = segments.kink_view(ex, b, br)
    # the ball's samples a touch in the kink's window may look back over (``cushions.hugs``), a frame either way
    samples = segments.samples_between(b, kink.lo_into - ex.s.cushions.hug_s - dt, kink.hi + dt)
    # every explanation: the cushions, the jaws, then the balls (in that order on a tie)
    readings = [
        *cushions.kink_readings(kink, samples, ex.table, ex.s.cushions, dt),
        *cushions.jaw_kink_readings(kink, ex.table, ex.s.cushions),
        *contacts.kink_readings(kink, segments.neighbours(ex, kink), ex.table.ball_diameter_mm, ex.s.contacts, dt),
    ]
    br.new.start_t, br.new.start_p = kink.t, kink.p
    close_move_seg(ex, b, br.old, (kink.t, kink.p), out)
    if not readings:
        br.new.unexplained = True
        return  # nothing explains it
    call = best_reading(kink, readings, b.on_table, ex.s.cushions, dt)
    if call is None:
        return
    _, kind, name, tc, pc, residual = call.reading
    if kind == "cushion":
        give = Candidate("cushion", (b.id,), name, tc, as_pt(pc), residual, "kink", call.confidence)
        ex.give(give, out)
        jawed = jaw_pocket(name)
        paths = list(cushions.paths_out(segments.path_samples(b, br.new), tc, ex.s.segments.window))
        if jawed is not None:
            pk = ex.table.pockets[jawed]
            second = cushions.after_jaw(b.id, pk, paths, tc, kink.hi, ex.table, ex.s.cushions, dt)
        else:
            cu = ex.table.cushions[name]
            centre = np.asarray(pc) + np.array(cu.inward) * ex.table.ball_radius_mm
            second = cushions.cushion_after_cushion(b.id, cu, centre, paths, tc, ex.table, ex.s.cushions)
        if second is not None:
            ex.give(second, out)
        return
    pb = segments.path_before(ex, ex.balls[name], tc)
    hitter = hitter_of(b.id, kink.old, name, pb, tc)
    hit = name if hitter == b.id else b.id
    ex.give_contact(hitter, hit, tc, pc, call.confidence, out, residual_mm=residual)
    if pb is not None and kink.new.n >= 2:
        away = segments.path_samples(b, br.new)
        t_first = away.ts[0] if away.ts else None
        start_speed = ex.s.shots.start_speed_mm_s
        c = cushions.bounce_after_hit(
            b.id, kink.old, pb[0], pb[1], tc, kink.new, t_first, ex.table, ex.s.cushions, start_speed, dt
        )
        if c is not None:
            ex.give(c, out)


@dataclass(frozen=True)
class KinkCall:
    """The explanation of a kink given out (``best_reading``) and its confidence."""

    reading: KinkReading
    confidence: float


def best_reading(
    kink: Kink, readings: Sequence[KinkReading], on_table: bool, s: CushionSettings, dt: float
) -> KinkCall | None:
    """The best scored of a kink's explanations (``readings``, in the order cushions, jaws, balls: the first on a
    tie), with its confidence: lower where another kind of touch explains the bend within a tenth as well, or
    the ball went unseen over it. None where there is none, or for a ball that left the table (``on_table``
    false) with fewer than three samples on its path out: it was dropping into a pocket, unless it turned where
    it met a jaw on the way in (a jaw scored within ``jaw_kink_mm`` of touching, in cushion tolerances)."""
    cands = sorted(readings, key=lambda c: c.score)
    if not cands:
        return None
    best = cands[0]
    jaw_first = jaw_pocket(best.name) is not None and best.score <= 0.2 + s.jaw_kink_mm / s.cushion_tol_mm
    if not on_table and kink.new.n < 3 and not jaw_first:
        return None
    ambiguous = len(cands) > 1 and cands[1].score - best.score < 0.1 and cands[1].kind != best.kind
    seen = kink.t_hi - kink.t_lo <= 1.5 * dt
    speed = float(np.linalg.norm(kink.old.vel(kink.t)))
    n = min(kink.old.n, kink.new.n)
    return KinkCall(best, confidence("kink", best.score, n, speed, seen_through=seen, ambiguous=ambiguous))


def hitter_of(ball: str, path: PathFit, other: str, other_path: tuple[PathFit, bool] | None, t: float) -> str:
    """Of two balls touching at ``t`` (``path``: the bent ball's path in; ``other_path``: the other's path before
    then, and whether it moved), the hitter: the faster (the bent ball on a tie)."""
    so = float(np.linalg.norm(other_path[0].vel(t))) if other_path is not None and other_path[1] else 0.0
    return ball if float(np.linalg.norm(path.vel(t))) >= so else other


def close_move(ex: EventExtractor, b: Ball, end: tuple[float, np.ndarray], out: list[Event]) -> None:
    close_move_seg(ex, b, b.seg, end, out)


def close_move_seg(
    ex: EventExtractor, b: Ball, seg: Seg, end: tuple[float, np.ndarray], out: list[Event], settle: bool = False
) -> tuple[list[float], list[np.ndarray], float] | None:
    """The path ``seg`` ends at ``end``: its grazes and line crossings. ``settle``: it ends in rest, so its
    lines wait for where the ball settles (``settle_ball``): returned instead are its samples up to its last
    moving one and its extra margin from rest."""
    if seg.kind != "move" or seg.end_t is not None:
        return None
    seg.end_t, seg.end_p = end[0], np.asarray(end[1])
    ls = ex.s.lines
    path = segments.finished_path(b, seg, ls.line_packed_margin_mm - ls.line_margin_mm)
    # the ball's samples a touch of the path may look back over (``cushions.hugs``), a frame either way
    samples = segments.samples_between(b, path.ts[0] - ex.s.cushions.hug_s - ex.dt, path.ts[-1] + ex.dt)
    for c in cushions.grazes(path, samples, ex.table, ex.s.cushions, ex.dt):
        ex.give(c, out)
    if settle and len(path.ts) > 2:
        return list(path.ts[:-1]), list(path.ps[:-1]), path.from_rest_mm
    path_lines(ex, path, out)
    return None


def settle(ex: EventExtractor, out: list[Event]) -> None:
    """The lines and rest touches of the paths that ended in rest: a ball is called resting once it has stayed
    within ``rest_radius_mm`` for ``rest_window_s``, so where it was first called resting is where it settled."""
    for b in ex.balls.values():
        if b.settling is not None:
            settle_ball(ex, b, out)


def settle_ball(ex: EventExtractor, b: Ball, out: list[Event]) -> None:
    """A stopped path's stop against a cushion and line crossings, judged on its samples and its first resting
    detection, where it settled (``settled_views``)."""
    st, b.settling = b.settling, None
    if st is None:
        return
    dt = ex.dt
    settled = segments.settled_path(b, st, 1)
    tail, whole = settled_views(settled, ex.s.segments.window)
    if len(tail.ts) >= 4:
        # the ball's samples a touch may look back over (``cushions.hugs``): its time is solved up to a frame late
        samples = segments.samples_between(b, tail.ts[0] - ex.s.cushions.hug_s - dt, tail.ts[-1] + 2 * dt)
        touches = cushions.rest_touches(tail, samples, ex.table, ex.s.cushions, ex.s.segments.window, dt)
        next((c for c in touches if ex.give(c, out)), None)  # the first not already found
    path_lines(ex, whole, out)


def settled_views(settled: SettledPath, window: int) -> tuple[PathView, PathView]:
    """A path that ended in rest, read twice: its last moving samples (``4 * window``) and its ``settling``
    resting detections, without its start, for a stop against a cushion; and the whole, ending where it settled
    (the median of the last five at most of those detections: a resting ball's detections scatter by the noise),
    for its line crossings."""
    p = settled.path
    keep = 4 * window + settled.settling
    tail = PathView(p.ball, p.ts[1:][-keep:], p.ps[1:][-keep:])
    end = np.median(np.array(p.ps[-max(1, min(5, settled.settling)) :]), axis=0)
    return tail, PathView(p.ball, p.ts, (*p.ps[:-1], end), p.from_rest_mm, p.before)


def path_lines(ex: EventExtractor, path: PathView, out: list[Event]) -> None:
    """The line crossings of a finished path, through the resolver."""
    for c in lines.crossings(path, ex.lines, ex.s.lines, ex.dt, ex.table.ball_radius_mm):
        ex.give(c, out)
