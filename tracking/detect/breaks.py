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
from tracking.trajectory import intersect_paths

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
    shots.explain_set_off(ex, b, br, out)
    if br.t_hi - br.t_lo <= 2.5 * ex.dt:
        cushions.bounce_off_start(ex, b, br, out)


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


def settle(ex: EventExtractor, out: list[Event]) -> None:
    """The lines and rest touches of the paths that ended in rest: a ball is called resting once it has stayed
    within ``rest_radius_mm`` for ``rest_window_s``, so where it was first called resting is where it settled."""
    for b in ex.balls.values():
        if b.settling is not None:
            settle_ball(ex, b, out)


def settle_ball(ex: EventExtractor, b: Ball, out: list[Event]) -> None:
    """A stopped path's line crossings, judged on its samples and its first resting detection (where it
    settled) as its end."""
    st, b.settling = b.settling, None
    if st is None:
        return
    idx = st.rest.idx[:1]
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
