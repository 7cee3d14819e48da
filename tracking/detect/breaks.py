"""Explaining the breaks of the paths, in causal order: a resting ball set moving (``shots``, ``contacts``) or a
moving ball's kink (a cushion, a jaw or a ball, whichever explains it best), and a finished path's grazes and
line crossings once it has ended."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from calibration.contract import Event, jaw_pocket
from calibration.table import Pocket
from tracking.detect import contacts, cushions, lines, resolve, segments, shots
from tracking.detect.candidate import Candidate, confidence
from tracking.detect.geometry import (
    as_pt,
)
from tracking.detect.segments import Ball, Break, Kink, PathView, Seg, seg_before
from tracking.trajectory import PathFit, intersect_paths

if TYPE_CHECKING:
    from tracking.extractor import EventExtractor


def explain_breaks(ex: EventExtractor, out: list[Event], force: bool) -> None:
    ready: list[tuple[float, Ball, Break]] = []
    waiting = []  # (last old sample, last new one) of the breaks not ready yet
    for b in ex.balls.values():
        keep = []
        for br in b.breaks:
            n = len([i for i in br.new.idx if b.sid[i] >= 0])
            closed = br.new is not b.seg or b.seg.kind == "rest" or not b.on_table
            if n >= ex.s.segments.new_path_samples or ((force or closed) and n >= 1):
                ready.append((br.t_hi, b, br))  # by first sighting: a ball that ran unseen comes last
            else:
                keep.append(br)
                waiting.append((br.t_lo, b.ts[br.new.idx[-1]] if br.new.idx else br.t_hi))
        b.breaks = keep
    now = ex.times[-1] if ex.times else 0.0
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
        cushions.bounce_off_start(ex, b, br, out)


def explain_set_off(ex: EventExtractor, b: Ball, br: Break, out: list[Event]) -> None:
    """What set a resting ball moving (the break ``br``): when it left its place (its path run back to it, or
    where a creep sped up), then, unless that was jitter or is already explained, an unseen striker, the shot's
    start between shots, or its hitter in a shot."""
    dt = ex.dt
    a = br.new.start_p
    view = segments.set_off_view(ex, b, br, ex.s.shots.creep_back_s)
    left = shots.set_off(view, ex.s.shots, ex.s.segments, dt)
    new, t_s, crept, speed = view.path, left.t, left.crept, left.speed
    br.new.start_t = t_s
    if not left.moved:
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
    contacts.give_contact(ex, hit.striker, hit.target, hit.t, hit.pos, conf, out, evidence="unseen_hit")
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
            ex.pending = shots.PendingStart(b.id, t_s, np.array(fpos, dtype=float), conf, speed)
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
    if shots.still_going(b.stop_t, ex.stroke[1] if ex.stroke is not None else None, t_s, speed, ex.s.shots):
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


def retime_shot_start(ex: EventExtractor, ball: str, t: float, out: list[Event]) -> None:
    """The shot's start, not yet given out, moved to the stroke time solved from its first contact."""
    for k, e in enumerate(out):
        if e.type == "shot_start" and e.shot == ex.shot and e.ball == ball:
            c = Candidate("shot_start", (ball,), None, t, None, 0.0, "struck", e.confidence, positions=e.positions)
            out[k] = resolve.event_of(ex, c)
            if ex.stroke is not None:
                ex.stroke = (ball, t, ex.stroke[2])
            return


def explain_kink(ex: EventExtractor, b: Ball, br: Break, out: list[Event]) -> None:
    dt = ex.dt
    before = seg_before(b, br.old)
    short = len([i for i in br.old.idx if b.sid[i] >= 0]) <= ex.s.segments.short_path_samples
    if br.old.unexplained and short and before is not None and before.kind == "move":
        # a path of a sample or two between two kinks nothing explained: one bounce with a stray measurement
        # in it (the blurred frame of a fast bounce), explained from the paths either side
        t_lo = max((b.ts[i] for i in before.idx if b.sid[i] >= 0), default=br.t_lo)
        br = Break("kink", before, br.new, t_lo, br.t_hi)
    old = segments.fit(ex, b, br.old.idx)
    new = segments.fit(ex, b, br.new.idx, head=True)
    t_k = intersect_paths(old, new, br.t_lo - 0.5 * dt, br.t_hi) if new.n >= 2 else br.t_lo + 0.5 * dt
    p_k = old.at(t_k)
    lo, hi = br.t_lo - dt, br.t_hi + 0.5 * dt
    into, t_last = segments.trimmed_before_kink(ex, b, br.old.idx) or (old, br.t_lo)  # for timing a cushion touch
    kink = Kink(b, old, new, into, t_last, t_k, p_k, lo, hi, min(lo, t_last - 0.5 * dt))
    # every explanation, best (lowest score) first: the cushions, the jaws, then the balls, in that order on a tie
    # the ball's samples a touch in the kink's window may look back over (``cushions.hugs``), a frame either way
    samples = segments.samples_between(b, kink.lo_into - ex.s.cushions.hug_s - dt, kink.hi + dt)
    cands = sorted(
        [
            *cushions.kink_readings(kink, samples, ex.table, ex.s.cushions, dt),
            *cushions.jaw_kink_readings(kink, ex.table, ex.s.cushions),
            *contacts.kink_readings(kink, contacts.neighbours(ex, kink), ex.table.ball_diameter_mm, ex.s.contacts, dt),
        ],
        key=lambda c: c.score,
    )
    br.new.start_t, br.new.start_p = t_k, p_k
    close_move_seg(ex, b, br.old, (t_k, p_k), out)
    if not cands:
        br.new.unexplained = True
        return  # nothing explains it
    jaw_first = (
        jaw_pocket(cands[0].name) is not None
        and cands[0].score <= 0.2 + ex.s.cushions.jaw_kink_mm / ex.s.cushions.cushion_tol_mm
    )
    if not b.on_table and new.n < 3 and not jaw_first:
        return  # the ball dropping into a pocket, unless it turned where it met a jaw on the way in
    score, kind, name, tc, pc, residual = cands[0]
    # two explanations of different kinds that fit about equally well make it less sure
    ambiguous = len(cands) > 1 and cands[1].score - score < 0.1 and cands[1].kind != kind
    seen = br.t_hi - br.t_lo <= 1.5 * dt
    speed = float(np.linalg.norm(old.vel(t_k)))
    conf = confidence("kink", score, min(old.n, new.n), speed, seen_through=seen, ambiguous=ambiguous)
    if kind == "cushion":
        resolve.give(ex, Candidate("cushion", (b.id,), name, tc, as_pt(pc), residual, "kink", conf), out)
        jawed = jaw_pocket(name)
        if jawed is not None:
            after_jaw(ex, b, br, ex.table.pockets[jawed], tc, hi, out)
    else:
        o = ex.balls[name]
        pb = segments.path_before(ex, o, tc)
        so = float(np.linalg.norm(pb[0].vel(tc))) if pb is not None and pb[1] else 0.0
        sb = float(np.linalg.norm(old.vel(tc)))
        first, second = (b.id, name) if sb >= so else (name, b.id)
        contacts.give_contact(ex, first, second, tc, pc, conf, out, residual_mm=residual)
        if pb is not None and new.n >= 2:
            cushions.bounce_after_hit(ex, b, old, pb[0], pb[1], tc, new, br, out)


def after_jaw(ex: EventExtractor, b: Ball, br: Break, pk: Pocket, tc: float, hi: float, out: list[Event]) -> None:
    """The second touch a fraction of a frame after a jaw bounce at ``tc``: the cushion beside the jaw, else the
    jaw's face after its rounded tip (``cushions.cushion_after_jaw``, ``cushions.jaw_exit``)."""
    paths = list(cushions.paths_out(ex, b, br, tc))
    second = cushions.cushion_after_jaw(b.id, pk, paths, tc, ex.table, ex.s.cushions)
    if not second:
        second = cushions.jaw_exit(b.id, pk, paths, tc, hi, ex.table.ball_radius_mm, ex.s.cushions, ex.dt)
    if second:
        resolve.give(ex, second, out)


def close_move(ex: EventExtractor, b: Ball, end: tuple[float, np.ndarray], out: list[Event]) -> None:
    close_move_seg(ex, b, b.seg, end, out)


def close_move_seg(
    ex: EventExtractor, b: Ball, seg: Seg, end: tuple[float, np.ndarray], out: list[Event], settle: bool = False
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
    # the ball's samples a touch of the path may look back over (``cushions.hugs``), a frame either way
    samples = segments.samples_between(b, ts[0] - ex.s.cushions.hug_s - ex.dt, ts[-1] + ex.dt)
    for c in cushions.grazes(PathView(b.id, tuple(ts), tuple(ps)), samples, ex.table, ex.s.cushions, ex.dt):
        resolve.give(ex, c, out)
    # a ball resting on a line (a rack's middle row on the long line) is measured a millimetre or so off it
    before = seg_before(b, seg)
    packed = seg.packed and before is not None and before.kind == "rest"
    from_rest = ex.s.lines.line_packed_margin_mm - ex.s.lines.line_margin_mm if packed else 0.0
    if settle and len(ts) > 2:
        return ts[:-1], ps[:-1], from_rest
    path_lines(ex, PathView(b.id, tuple(ts), tuple(ps), from_rest), out)
    return None


def settle(ex: EventExtractor, now: float, out: list[Event], force: bool) -> None:
    """The lines and rest touches of the paths that ended in rest, for balls resting ``line_settle_s`` since
    (or no longer resting, or ``force``: the shot ends)."""
    for b in ex.balls.values():
        st = b.settling
        if st is None:
            continue
        if force or st.rest is not b.seg or now - b.ts[st.rest.idx[0]] >= ex.s.lines.line_settle_s - 1e-9:
            settle_ball(ex, b, out)


def settle_ball(ex: EventExtractor, b: Ball, out: list[Event]) -> None:
    """A stopped path's line crossings, judged on its samples, the detections while it crept to rest, and
    the median of the last few of those (where it settled) as its end."""
    st, b.settling = b.settling, None
    if st is None:
        return
    n = max(1, round(ex.s.lines.line_settle_s / ex.dt))
    idx = st.rest.idx[:n]
    ts = st.ts + [b.ts[i] for i in idx]
    ps = st.ps + [b.seen.get(i, b.xy[i]) for i in idx]
    keep = 4 * ex.s.segments.window + len(idx)  # the path's last moving samples and the settling ones
    last = PathView(b.id, tuple(ts[1:][-keep:]), tuple(ps[1:][-keep:]))
    if len(last.ts) >= 4:
        # the ball's samples a touch may look back over (``cushions.hugs``): its time is solved up to a frame late
        samples = segments.samples_between(b, last.ts[0] - ex.s.cushions.hug_s - ex.dt, last.ts[-1] + 2 * ex.dt)
        touches = cushions.rest_touches(last, samples, ex.table, ex.s.cushions, ex.s.segments.window, ex.dt)
        next((c for c in touches if resolve.give(ex, c, out)), None)  # the first not already found
    end = np.median(np.array(ps[-max(1, min(5, len(idx))) :]), axis=0)
    path_lines(ex, PathView(b.id, tuple(ts), (*ps[:-1], end), st.from_rest), out)


def path_lines(ex: EventExtractor, path: PathView, out: list[Event]) -> None:
    """The line crossings of a finished path, through the resolver."""
    for c in lines.crossings(path, ex.lines, ex.s.lines, ex.dt, ex.table.ball_radius_mm):
        resolve.give(ex, c, out)
