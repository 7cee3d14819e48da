"""Ball-ball contacts: the hitter of a ball set off, a kink one diameter from another ball, touches too thin to
bend either path (kisses), pushes through frozen clusters and nudges the tracker kept resting."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tracking.detect import segments
from tracking.detect.candidate import Candidate, confidence
from tracking.detect.geometry import (
    as_pt,
    gap_between,
    gap_to_point,
)
from tracking.detect.segments import (
    Approach,
    Kink,
    KinkReading,
    LastSeen,
    LeftRest,
    MovingSamples,
    Neighbour,
    PairTrack,
    RestingBall,
    RestSpell,
    SampleWindow,
    StrokeView,
)
from tracking.detect.settings import ContactSettings
from tracking.trajectory import PathFit, closest_time, fit_path, solve_root

# A true hit's two estimates of its instant (the hitter's arrival, the ball's departure) agree within a frame and a
# half: each is run back or on from its own path, to half a frame or so.
HIT_TOL_FRAMES = 1.5


def find_hitter(
    others: Sequence[Approach],
    a: np.ndarray,
    t_s: float,
    t_lo: float,
    t_hi: float,
    crept: float | None,
    diameter_mm: float,
    s: ContactSettings,
    dt: float,
    moving_only: bool = False,
) -> tuple[float, str, float, float] | None:
    """The ball that set a ball resting at ``a`` off at about ``t_s`` (its last resting sample at ``t_lo``, its
    first moving one at ``t_hi``; ``crept``: where a slow creep off its place began), as (score, its id, contact
    time, confidence): a moving ball whose incoming path (``others``: every other ball's path before then)
    reaches one diameter from ``a`` then, or (unless ``moving_only``) a frozen neighbour just hit or starting.
    None if no ball explains it."""
    D = diameter_mm
    best: tuple[float, str, float, float] | None = None  # (score, other, t, conf)
    for o in others:
        path = o.path
        if o.moving:
            root = solve_root(gap_to_point(path, a, D), min(t_lo, t_s) - 2 * dt, t_hi + 0.5 * dt)
            if root is None:
                gap = abs(float(np.linalg.norm(path.at(t_s) - a)) - D)
                if gap > s.contact_tol_mm:
                    continue
                root, score = t_s, 1.0 + gap / s.contact_tol_mm
            else:
                score = abs(root - t_s) / dt
                slow = abs(root - t_s) * float(np.linalg.norm(path.vel(root))) <= s.contact_tol_mm
                if score > 3.0 and not (crept is not None and slow):
                    continue  # (a slow ball creeping into another: frames off, but millimetres)
                score = min(score, 3.0)
            conf = confidence("hit", score / HIT_TOL_FRAMES, path.n, float(np.linalg.norm(path.vel(root))))
            if best is None or score < best[0]:
                # two estimates of one instant, each from one ball's path: its arrival and the other's
                # departure (on the rendered suite's detections the first came a third of a frame late on
                # average, the second half a frame early: their mean is nearer than either)
                best = (score, o.ball, 0.5 * (root + t_s), conf)
        elif not moving_only:
            d = float(np.linalg.norm(path.at(t_s) - a))
            recent = o.last_event_t is not None and abs(o.last_event_t - t_s) <= 2.5 * dt
            starting = o.move_start_t is not None and abs(o.move_start_t - t_s) <= 2.5 * dt
            if d <= D + s.frozen_tol_mm and (recent or starting):
                te = o.last_event_t if recent and o.last_event_t is not None else t_s
                score = 2.0 + (d - D) / s.frozen_tol_mm
                if best is None or score < best[0]:
                    best = (score, o.ball, max(te, t_lo - dt), confidence("frozen_hit", score - 2.0))
    return best


def kink_readings(
    k: Kink, others: list[Neighbour], diameter_mm: float, s: ContactSettings, dt: float
) -> list[KinkReading]:
    """The balls that explain a kink: one whose path (seen within 6 frames) is a diameter, within
    ``contact_tol_mm``, from the bending ball at the bend; timed where the two paths in are a diameter apart.
    Else a resting ball the bending ball's path in reached between its samples (``swept_reading``)."""
    D = diameter_mm
    out = []
    for o in others:
        path = o.path
        if path.t1 < k.t - 6 * dt:
            continue
        d = float(np.linalg.norm(path.at(k.t) - k.p))
        if abs(d - D) > s.contact_tol_mm:
            continue
        root = solve_root(gap_between(k.old, path, D), k.lo, k.hi)
        if o.path_to_last is not None:
            # two rolling balls, and the incoming path took in samples from after the hit (the other ball's
            # may have too): time it on the paths up to the sample before them
            r2 = solve_root(gap_between(k.into, o.path_to_last, D), k.lo_into, k.hi)
            if r2 is not None and (root is None or r2 < root):  # samples after a hit make it late
                root, path = r2, o.path_to_last
        tc = root if root is not None else k.t
        if not closing(k.old, path, tc):
            continue  # moving apart along their line of centres: neither can push the other
        score = abs(d - D) / s.contact_tol_mm
        out.append(KinkReading(score, "ball", o.ball, tc, (k.old.at(tc) + path.at(tc)) / 2, abs(d - D)))
    if not out:
        swept = swept_reading(k, others, D, s, dt)
        if swept is not None:
            out.append(swept)
    return out


def closing(a: PathFit, b: PathFit, t: float) -> bool:
    """Whether two balls on paths ``a`` and ``b`` close on each other along their line of centres at ``t``: a
    ball pushes another only where it comes at it (a ball passing one it is leaving, a few millimetres off,
    bends on something else)."""
    n = b.at(t) - a.at(t)
    return float((a.vel(t) - b.vel(t)) @ n) > 0.0


# A struck ball takes the striker's speed along their line of centres (equal masses, nearly elastic); the striker
# keeps at most what its spin gives back along it, 2/7 of it for a rolling ball's follow. Half leaves room for
# the noise of a path fitted over a few samples.
FOLLOW_SHARE = 0.5
# The path in a sweep runs on: two samples give a speed and heading with no check on either (one may be the
# blurred frame of the hit that set the ball off); three show whether it ran straight.
SWEEP_MIN_SAMPLES = 3


def swept_reading(
    k: Kink, others: Sequence[Neighbour], diameter_mm: float, s: ContactSettings, dt: float
) -> KinkReading | None:
    """The resting ball (of ``others``) that a fast ball hit between two of its samples, bending its path
    (``k``), read from the motion between the samples: at 25-30 fps a ball at 3 m/s runs 100-120 mm, two
    diameters, between frames, so neither sample nor the corner of the paths in and out need lie a diameter
    from the ball it hit (spin curves the path out, which moves the corner). The path in (of
    ``SWEEP_MIN_SAMPLES`` or more), swept from its last sample to the first sample out, reaches one diameter
    from the ball's place (or comes within ``contact_tol_mm`` of that) at the contact, within a frame and a
    half of the corner: the first resting ball it so reaches (it cannot run through one to reach another).
    That ball lay ahead (the path in closing on it along their line of centres) and took the striker's speed
    along that line (the path out keeps at most ``FOLLOW_SHARE`` of it), and is not seen still at its place
    after the contact where that speed would have carried it off. Timed at the contact; scored, as the corner
    readings are, by the distance along the path in between the contact and the corner, in tolerances."""
    D = diameter_mm
    if k.into.n < SWEEP_MIN_SAMPLES:
        return None
    lo, hi = k.t_last, k.t_hi
    first: tuple[float, Neighbour, np.ndarray] | None = None
    for o in others:
        if o.moving:
            continue
        a = o.path.at(k.t)
        t_c = solve_root(gap_to_point(k.into, a, D), lo, hi)
        if t_c is None:
            t_c = closest_time(gap_to_point(k.into, a, 0.0), lo, hi)
        if abs(float(np.linalg.norm(a - k.into.at(t_c))) - D) <= s.contact_tol_mm and (first is None or t_c < first[0]):
            first = (t_c, o, a)
    if first is None:
        return None
    t_c, o, a = first
    if abs(k.t - t_c) > HIT_TOL_FRAMES * dt:
        return None
    c = k.into.at(t_c)
    n = (a - c) / max(float(np.linalg.norm(a - c)), 1e-9)
    v_in = k.into.vel(t_c)
    v_n = float(v_in @ n)  # the speed the struck ball takes along the line of centres
    if v_n <= 0.0 or float(k.v_new @ n) > FOLLOW_SHARE * v_n:
        return None
    # still at its place where it would have been carried more than two tolerances off (cloth takes off under
    # 0.2 m/s in the tenth of a second this looks at): not the ball hit
    later = o.ts_after > t_c
    carried = v_n * (o.ts_after[later] - t_c)
    stayed = np.linalg.norm(o.xy_after[later] - a, axis=1) < s.contact_tol_mm
    if bool(np.any(stayed & (carried > 2 * s.contact_tol_mm))):
        return None
    gap = abs(float(np.linalg.norm(a - c)) - D)
    score = abs(k.t - t_c) * float(np.linalg.norm(v_in)) / s.contact_tol_mm
    return KinkReading(score, "ball", o.ball, t_c, (c + a) / 2, gap)


def find_pusher(
    ball: str,
    vhat: np.ndarray,
    places: Mapping[str, np.ndarray],
    resting: Collection[str],
    diameter_mm: float,
    s: ContactSettings,
) -> str:
    """The ball struck when ``ball``, frozen to others, set off along ``vhat``: a frozen neighbour squarely
    behind it (``vhat`` along their line of centres, within ``push_angle_deg``, as a push sends it) pushed it, and
    that one may have been pushed by the one behind it. ``places``: where the balls on the table rest;
    ``resting``: those resting then. The struck ball itself barely moves in a push through a frozen ball: it may
    not yet be seen leaving its place."""
    reach = diameter_mm + s.frozen_tol_mm
    cos_max = math.cos(math.radians(s.push_angle_deg))
    cur, seen = ball, {ball}
    while True:
        p = places.get(cur)
        if p is None:
            return cur
        behind = None
        frozen = {k: q for k, q in places.items() if k == cur or k in resting}
        for k in segments.touching(cur, frozen, reach):
            if k in seen:
                continue
            q = places[k]
            d = float(np.linalg.norm(p - q))
            if d <= reach and float((p - q) @ vhat) > cos_max * d:
                behind = k
                break
        if behind is None:
            return cur
        cur = behind
        seen.add(cur)


def struck_ball(
    ball: str,
    vhat: np.ndarray,
    places: Mapping[str, np.ndarray],
    resting: Collection[str],
    moving: Collection[str],
    diameter_mm: float,
    s: ContactSettings,
) -> str:
    """The ball struck when ``ball`` set off along ``vhat`` between shots: a struck ball frozen to others sets them
    off together (``moving``: the balls on a moving path now), so the struck one is the rearmost of them, or the
    frozen ball behind it that pushed it (``find_pusher``)."""
    frozen = {k: q for k, q in places.items() if k == ball or k in resting}
    cluster = segments.touching(ball, frozen, diameter_mm + s.frozen_tol_mm)
    set_off = [k for k in cluster if k in moving and k in places]
    first = min(set_off, key=lambda k: float(places[k] @ vhat)) if set_off else ball
    return find_pusher(first, vhat, places, resting, diameter_mm, s)


def hit_at_stroke(
    st: StrokeView,
    ball: str,
    a: np.ndarray,
    new: PathFit,
    t_s: float,
    t_lo: float,
    t_hi: float,
    diameter_mm: float,
    s: ContactSettings,
    start_speed_mm_s: float,
    dt: float,
) -> tuple[str, float, np.ndarray, float | None] | None:
    """A ball resting at ``a`` set moving (its last resting sample at ``t_lo``, its first moving one at ``t_hi``,
    its path ``new``, leaving at ``t_s``) in the first frames of a shot by the struck ball (``st``), which hit it
    before it was ever seen moving (at 25 fps a ball one diameter away is hit within a frame of the stroke): the
    struck ball's place at the stroke plus the path it has run by the ball's first moving sample reaches one
    diameter (plus the contact tolerance) from it, and the ball leaves away from it. Returns (the struck ball,
    the contact time, the contact point, and the stroke time where it can be solved)."""
    if st.ball == ball:
        return None
    t0, p0 = st.t0, st.p0
    # within frames of the stroke: of its time as solved, or of the struck ball's last sample at its place (a
    # struck ball that barely moves after the hit has its stroke run back too early)
    rested = st.rest_ts[st.rest_ts <= t_hi]
    left = float(rested.max()) if len(rested) else t0
    if t_lo > max(t0, left) + 3 * dt:
        return None
    D = diameter_mm
    away = a - p0
    dist = float(np.linalg.norm(away))
    v_b = new.vel(t_s)
    if dist < 1e-6 or float(away @ v_b) <= 0:
        return None  # it leaves toward the struck ball's place, not away from it
    # the path the struck ball ran up to the ball's first moving sample (a polyline through its samples)
    after = int(np.searchsorted(st.ts, t0, side="right"))
    upto = int(np.searchsorted(st.ts, t_hi + 1e-9, side="right"))
    run = [p0] + [st.xy[i] for i in range(after, upto) if st.kept[i]]
    travel = float(sum(np.linalg.norm(run[i + 1] - run[i]) for i in range(len(run) - 1)))
    if dist - D > travel + s.contact_tol_mm:
        return None
    # the ball leaves its place at the contact: the time is where its outgoing path, run back, is nearest its
    # place (the struck ball's incoming leg was never seen); the struck ball's centre is then one diameter
    # behind it along its new direction (the line of centres)
    u = v_b / max(float(np.linalg.norm(v_b)), 1e-9)
    t_c = min(max(t_s, t0, t_lo - dt), t_hi)
    return st.ball, t_c, a - u * (D / 2), stroke_time(st, upto, a - u * D, v_b, t_c, start_speed_mm_s)


def stroke_time(
    st: StrokeView, first: int, c: np.ndarray, v_b: np.ndarray, t_c: float, start_speed_mm_s: float
) -> float | None:
    """When the struck ball (``st``), never seen before its first contact, was struck: its incoming velocity is
    the sum of both balls' outgoing ones (equal masses), run back over its leg from its place to the
    contact centre ``c``; no earlier than its last resting sample. ``first``: its first sample after."""
    nxt = [i for i in range(max(first - 1, 0), len(st.ts)) if st.kept[i]]
    rest = st.rest_ts[st.rest_ts <= t_c]
    if len(nxt) < 2 or not len(rest):
        return None
    i, k = nxt[0], nxt[1]
    v_s = (st.xy[k] - st.xy[i]) / max(float(st.ts[k] - st.ts[i]), 1e-6)
    speed = float(np.linalg.norm(v_s + v_b))
    if speed < start_speed_mm_s:
        return None
    return min(max(t_c - float(np.linalg.norm(c - st.p0)) / speed, float(rest.max())), t_c)


@dataclass(frozen=True)
class UnseenHit:
    """A striker nobody saw run from its place into a frozen cluster (``unseen_hit``): when it left its place,
    the ball of the cluster it hit, the contact's time and touch point, and the striker's centre then."""

    striker: str
    t_gone: float  # half a frame after its last sample at its place
    place: np.ndarray  # where it rested
    target: str
    t: float
    pos: np.ndarray  # the touch: a radius from the target toward the striker's place
    centre: np.ndarray  # the striker's centre at the touch: a diameter from the target, on the same line


def unseen_hit(
    striker: LeftRest, cluster: Sequence[RestingBall], t_s: float, diameter_mm: float, dt: float
) -> UnseenHit | None:
    """``striker`` (``unseen_striker``) left its resting place unseen and set a ball moving at ``t_s``: it hit the
    ball of that ball's frozen cluster (``cluster``: the ball set off, then the balls resting against it) nearest
    to where it came from, along the line from its place (a straight run: nothing was seen to turn it). None
    where the cluster holds no ball but the striker."""
    sp = striker.rest_pos
    hit = [r for r in cluster if r.ball != striker.ball]
    if not hit:
        return None
    target = min(hit, key=lambda r: float(np.linalg.norm(r.pos - sp)))
    q = target.pos
    u = (sp - q) / max(float(np.linalg.norm(sp - q)), 1e-9)
    pos = q + u * (diameter_mm / 2.0)
    centre = q + u * diameter_mm
    return UnseenHit(striker.ball, striker.gone_t + 0.5 * dt, sp, target.ball, t_s, pos, centre)


def unseen_striker(
    left: Sequence[LeftRest],
    t_s: float,
    a: np.ndarray,
    v: np.ndarray,
    start_min_mm: float,
    s: ContactSettings,
    dt: float,
) -> str | None:
    """A resting ball that vanished (``left``: every other ball's last rest and its samples since) within
    ``unseen_strike_s`` before a ball at ``a`` started along ``v`` at ``t_s``, from a place behind that direction
    of travel: the struck ball, unseen while it ran (blur, or under the player's arm). The latest to vanish."""
    best, best_t = None, -math.inf
    for o in left:
        # its samples after its rest, but those still within a few millimetres of its place: the first
        # blurred frame of a hard stroke shows it barely moved, then it is gone
        away = np.array([float(np.linalg.norm(p - o.rest_pos)) > start_min_mm for p in o.after_xy], dtype=bool)
        later = o.after_ts[away]
        if len(later) and later[0] < t_s - 0.5 * dt:
            continue  # it was seen moving before b started: not unseen
        if np.any(~away & (o.after_ts > t_s - 1.5 * dt)):
            continue  # still seen at its place as b started (seen too seldom to make a rest): not the striker
        if not (t_s - s.unseen_strike_s <= o.gone_t <= t_s - 1.5 * dt):
            continue
        if float((a - o.rest_pos) @ v) <= 0:
            continue
        if o.gone_t > best_t:
            best, best_t = o.ball, o.gone_t
    return best


def kisses(windows: Sequence[SampleWindow], dt: float, diameter_mm: float, s: ContactSettings) -> list[Candidate]:
    """Touches too thin to bend either path visibly (two balls rolling side by side, a feathered cut): over
    the last ``kiss_window`` frames (``windows``: each ball's) the centres came within a diameter (plus the
    measurement noise) and were farther apart, by ``kiss_rise_mm``, both before and after. Judged on the frames
    in which both balls were seen, at least one of them moving."""
    w = s.kiss_window
    D = diameter_mm
    near = D + s.kiss_tol_mm
    # A pair is judged only if one of the two was moving in some kept sample of the window (the last test
    # of ``kiss_pair``, on the pair's common frames, which are among those): two balls at rest all along are
    # skipped at once.
    moving = [bool(v.moving.any()) for v in windows]
    if not any(moving):
        return []
    # each ball's window: its kept samples, one per frame (indices into the window), their frame numbers and
    # positions, and how far it went over the window
    win: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, float]] = {}

    def window(i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        got = win.get(i)
        if got is None:
            v = windows[i]
            kept = np.flatnonzero(v.kept)
            keep, frames = segments.one_per_frame(kept, v.ts[kept], dt)
            got = win[i] = (frames, v.xy[keep], keep, float(np.linalg.norm(v.xy[-1] - v.xy[0])))
        return got

    cleared = kiss_screen(windows, moving, near + 2 * D, dt, s)
    out = []
    for i, a in enumerate(windows):
        for j in range(i + 1, len(windows)):
            c = windows[j]
            if not (moving[i] or moving[j]) or (i, j) in cleared:
                continue
            na, xa, ia, travel_a = window(i)
            nc, xc, ic, travel_c = window(j)
            if float(np.linalg.norm(a.xy[-1] - c.xy[-1])) > near + max(w * 20.0, 2 * (travel_a + travel_c)):
                continue  # too far apart now to have been close in the window
            _, ka, kc = np.intersect1d(na, nc, assume_unique=True, return_indices=True)
            if len(ka) < s.kiss_after + 4:
                continue
            ja, jc = ia[ka].tolist(), ic[kc].tolist()
            diff = xa[ka] - xc[kc]
            dd = np.sqrt(diff[:, 0] * diff[:, 0] + diff[:, 1] * diff[:, 1])
            kiss = kiss_pair(a, c, ja, jc, dd, dt, D, s)
            if kiss is not None:
                out.append(kiss)
    return out


def kiss_pair(
    a: SampleWindow,
    c: SampleWindow,
    ja: list[int],
    jc: list[int],
    dd: np.ndarray,
    dt: float,
    diameter_mm: float,
    s: ContactSettings,
) -> Candidate | None:
    """Whether ``a`` and ``c`` kissed in the window: ``dd`` their centres' distances in the frames both were
    seen (samples ``ja``, ``jc``). The closest frame must lie ``kiss_after`` frames before the window's end,
    within a diameter plus ``kiss_tol_mm`` (or, met between frames, their approach paths within that), with
    the centres ``kiss_rise_mm`` farther apart before and after, one of them moving, and no bend of either path
    near then still unexplained. The contact, the faster ball first, or None."""
    D = diameter_mm
    near = D + s.kiss_tol_mm
    k = int(np.argmin(dd))
    if dd[k] > near + 2 * D or not (2 <= k <= len(dd) - 1 - s.kiss_after):
        return None  # decided once the breaks of a visible bend (a ball set off slowly) would be
    if dd[k] > near:
        # Not close in any frame: they may have met between frames (the closest frame as far from the
        # touch as they closed in a frame), or their paths bent off just before the closest frame
        # (kiss_bent_mm). On the paths they came in on, did they meet?
        rel = (a.xy[ja[k + 1]] - c.xy[jc[k + 1]]) - (a.xy[ja[k]] - c.xy[jc[k]])
        reach = max(near + s.kiss_bent_mm, math.hypot(near, float(np.linalg.norm(rel))))
        if dd[k] > reach or approach_gap(a, c, ja, jc, k) > near:
            return None
    rise = dd[k] + s.kiss_rise_mm
    if dd[:k].max() < rise or dd[k + 1 :].max() < rise:
        return None
    if not (a.moving[ja].any() or c.moving[jc].any()):
        return None
    t_k = float(a.ts[ja[k]])
    if any(t_lo <= t_k + 3 * dt for v in (a, c) for t_lo in v.unexplained):
        return None  # a bend of either path near then is not explained yet: that decides first
    t_c, fa, fc = kiss_time(a, c, ja, jc, dd, k, near, D)
    first, second = (a, c) if np.linalg.norm(fa.vel(t_c)) >= np.linalg.norm(fc.vel(t_c)) else (c, a)
    pos = as_pt((fa.at(t_c) + fc.at(t_c)) / 2)
    speed = float(max(np.linalg.norm(fa.vel(t_c)), np.linalg.norm(fc.vel(t_c))))
    conf = confidence("kiss", speed_mm_s=speed)  # the closest frame's gap is no residual: they met between frames
    return Candidate("contact", (first.ball, second.ball), None, t_c, pos, 0.0, "kiss", conf, t_seen=t_k)


def kiss_time(
    a: SampleWindow, c: SampleWindow, ja: list[int], jc: list[int], dd: np.ndarray, k: int, near: float, D: float
) -> tuple[float, PathFit, PathFit]:
    """When ``a`` and ``c`` kissed, their closest frame the ``k``-th of their common frames: where their approach
    paths (fitted up to that frame) are a diameter apart, and those paths."""
    t_k = float(a.ts[ja[k]])
    # the approach: both paths up to the closest frame, run on to where the centres are a diameter
    # apart (a kiss that bends a path visibly is timed on the paths before it)
    sel = slice(max(0, k - 5), k + 1)
    t_arr = a.ts[ja[sel]]
    fa = fit_path(t_arr, a.xy[ja[sel]])
    fc = fit_path(t_arr, c.xy[jc[sel]])
    t_c = solve_root(gap_between(fa, fc, D), float(a.ts[ja[k - 1]]), t_k)
    if t_c is None and dd[k] > near:  # they met after the closest frame, before the next
        t_c = solve_root(gap_between(fa, fc, D), t_k, float(a.ts[ja[k + 1]]))
    if t_c is None:  # never quite a diameter apart (noise): the vertex of the closest three
        t3 = a.ts[ja[k - 1 : k + 2]]
        c2, c1, _ = np.polyfit(t3 - t_k, dd[k - 1 : k + 2], 2)
        t_c = t_k + (float(np.clip(-c1 / (2 * c2), t3[0] - t_k, t3[2] - t_k)) if c2 > 0 else 0.0)
    return t_c, fa, fc


def kiss_screen(
    windows: Sequence[SampleWindow], moving: list[bool], far: float, dt: float, s: ContactSettings
) -> set[tuple[int, int]]:
    """The pairs (indices into ``windows``) that ``kiss_pair`` would reject on their distances alone, found for
    all pairs at once: those of two balls with all samples of the window kept in the same frames, whose closest
    frame is farther than ``far`` or too near either end of the window. The same arithmetic as the pair
    test (the same frames, differences and square roots), so the same pairs."""
    w = s.kiss_window
    k_max = w - 1 - s.kiss_after
    # the balls with no rejected sample in the window (the others are judged pair by pair), grouped by
    # their window's frames (in time order, no two alike)
    full = [i for i, v in enumerate(windows) if v.kept.all()]
    if len(full) < 2:
        return set()
    ts = np.array([windows[i].ts for i in full])
    frames = np.rint(ts / dt).astype(np.int64)
    rising = np.all(frames[:, 1:] > frames[:, :-1], axis=1)
    groups: dict[bytes, list[int]] = {}
    for r, i in enumerate(full):
        if rising[r]:
            groups.setdefault(frames[r].tobytes(), []).append(i)
    out: set[tuple[int, int]] = set()
    is_moving = np.array(moving, dtype=bool)
    for members in groups.values():
        idx = np.array(members)
        mv = is_moving[idx]
        r = np.arange(len(members))
        # each pair once (rows into ``members``, in row-major order) with at least one of the two moving
        ra, rc = np.nonzero((r[:, None] < r[None, :]) & (mv[:, None] | mv[None, :]))
        if not len(ra):
            continue
        xy = np.array([windows[i].xy for i in members])  # (balls, w, 2)
        diff = xy[ra] - xy[rc]
        dd = np.sqrt(diff[:, :, 0] * diff[:, :, 0] + diff[:, :, 1] * diff[:, :, 1])
        k = np.argmin(dd, axis=1)
        reject = (dd[np.arange(len(ra)), k] > far) | (k < 2) | (k > k_max)
        out.update(zip(idx[ra[reject]].tolist(), idx[rc[reject]].tolist(), strict=True))
    return out


def approach_gap(a: SampleWindow, c: SampleWindow, ja: list[int], jc: list[int], k: int) -> float:
    """The least distance between the centres of ``a`` and ``c`` from the frame before their closest (index
    ``k`` of the common frames ``ja``, ``jc``) to the one after, on straight paths fitted to their approach
    up to the closest frame: a glancing hit between frames leaves no frame with the two close."""
    sel = slice(max(0, k - 5), k + 1)
    t_arr = a.ts[ja[sel]]
    fa = fit_path(t_arr, a.xy[ja[sel]], quadratic_from=7)
    fc = fit_path(t_arr, c.xy[jc[sel]], quadratic_from=7)
    u = np.linspace(a.ts[ja[k - 1]], a.ts[ja[k + 1]], 17)
    return float(min(np.linalg.norm(fa.at(x) - fc.at(x)) for x in u))


def parted(track: PairTrack, diameter_mm: float, s: ContactSettings) -> bool:
    """Whether two balls (``track``: their centres in the frames both were seen over a span) were seen apart, centres
    more than a diameter and ``parted_mm``, in one of those frames, or seen together in fewer than two (so not
    known to have stayed together: one pushing the other keeps them a diameter apart)."""
    if len(track.frames) < 2:
        return True
    gaps = np.linalg.norm(track.xy_a - track.xy_b, axis=1) - diameter_mm
    return bool(gaps.max() > s.parted_mm)


# A push through a frozen cluster: a pair whose line of centres is 60 degrees off the push passes on half of it
# (the share a chain's reading is allowed to miss by, as a tolerance).
CHAIN_SHARE_TOL = 0.5


def push_direction(hitter: PathFit | None, origin: np.ndarray, t: float) -> np.ndarray | None:
    """The unit direction of the impulse on a ball at ``origin`` hit at ``t`` by a ball on the path ``hitter``
    (its path just before then): from the hitter's centre then to the ball's, the line of centres at the touch
    (equal smooth spheres push each other only along it). None where the hitter's place then is not known."""
    if hitter is None:
        return None
    d = origin - hitter.at(t)
    n = float(np.linalg.norm(d))
    return d / n if n > 1e-6 else None


def chains(
    cluster: Sequence[RestingBall], t: float, diameter_mm: float, s: ContactSettings, push: np.ndarray | None = None
) -> list[Candidate]:
    """A hit at ``t`` on a ball of a frozen cluster (``cluster``: the ball hit first, then the balls resting
    against it directly or through each other) passes through the whole cluster: every pair of touching balls
    in it (centres within a diameter and ``frozen_tol_mm``) is in contact at that instant (as the physics
    resolves it), though most of them do not visibly move, so these contacts are inferred from the rest
    positions (lower confidence). Each pair reads (pusher, pushed): the one nearer the ball hit first. A ball
    hit while moving, or alone, passes nothing on. ``push``: the unit direction of the impulse on the ball hit
    first (``push_direction``), where known: a pair whose pusher it drives square to their line of centres or
    away from the pushed ball is not in contact (the rows of a rack fan apart); not known, every pair is."""
    if len(cluster) < 2:
        return []
    origin = cluster[0].pos
    # nearer the struck ball first, so each pair reads (pusher, pushed)
    order = sorted(cluster, key=lambda r: float(np.linalg.norm(r.pos - origin)))
    out = []
    for i, a in enumerate(order):
        for c in order[i + 1 :]:
            if float(np.linalg.norm(a.pos - c.pos)) > diameter_mm + s.frozen_tol_mm:
                continue
            # the push passes on along a pair's line of centres in the share cos(angle to the push); the share it
            # does not pass on, in CHAIN_SHARE_TOL, is the reading's misfit. Smooth balls press on each other only
            # along their line of centres: a pusher driven square to it or away from it (no share) does not touch
            u = (c.pos - a.pos) / max(float(np.linalg.norm(c.pos - a.pos)), 1e-9)
            if push is not None and float(u @ push) <= 0.0:
                continue
            misfit = (1.0 - float(u @ push)) / CHAIN_SHARE_TOL if push is not None else 0.0
            pos = as_pt((a.pos + c.pos) / 2)
            out.append(Candidate("contact", (a.ball, c.ball), None, t, pos, 0.0, "chain", confidence("chain", misfit)))
    return out


def nudges(
    rests: Sequence[RestSpell],
    runs: Sequence[MovingSamples],
    t_s: float,
    touched: Collection[frozenset[str]],
    diameter_mm: float,
    s: ContactSettings,
    hold_s: float,
    dt: float,
) -> list[Candidate]:
    """Balls the tracker kept resting (``rests``: each one's rest at the shot's end) that end the shot struck at
    ``t_s`` ``nudge_min_mm`` or more from where it found them (the means of their detections over ``hold_s``:
    before the stroke, or once the tracker called them resting if they stopped in this shot, and at its end),
    pushed by a moving ball (``runs``) whose path came to touching distance of that place from the far side, not
    one already in contact with it in this shot (``touched``: the pairs): contacts at a nudge's confidence
    (inferred, never seen), read as the shot ends, before its ``shot_end``."""
    out = []
    for r in rests:
        if r.start_t < t_s:  # resting since before the stroke
            since = t_s
            p0 = r.mean(t_s - hold_s, t_s)
        else:  # stopped in this shot: where it settled (the tracker's rest call waits for that)
            since = r.start_t + hold_s
            p0 = r.mean(since - hold_s, since)
        p1 = r.mean(r.last_t - hold_s, r.last_t + 1.0)
        if p0 is None or p1 is None:
            continue
        move = p1 - p0
        if float(np.hypot(*move)) < s.nudge_min_mm:
            continue
        met = {k for pair in touched if r.ball in pair for k in pair}
        pusher = reached_by(runs, r.ball, p0, move, since, math.inf, diameter_mm, s, dt, skip=met)
        if pusher is not None:
            mid, t_c, q = pusher
            pos = as_pt((q + p0) / 2)
            out.append(Candidate("contact", (mid, r.ball), None, t_c, pos, 0.0, "nudge", confidence("nudge")))
    return out


def lost_hitter(
    last: Sequence[LastSeen], q: np.ndarray, t_s: float, diameter_mm: float, s: ContactSettings, dt: float
) -> str | None:
    """The moving ball (``last``: every other ball's last samples by ``t_s`` on a moving path), last seen within
    ``unseen_strike_s`` before ``t_s`` (not since), that could have been at ``q`` then: at its last speed it
    covers the distance (plus two diameters for a bounce on the way). The nearest, in that measure."""
    best, best_r = None, 1.0
    for m in last:
        gap = t_s - float(m.ts[-1])
        if not 0.5 * dt < gap <= s.unseen_strike_s:  # its last sample by t_s: unseen since
            continue
        if len(m.ts) < 2:
            continue
        v = (m.xy[-1] - m.xy[0]) / max(float(m.ts[-1] - m.ts[0]), 1e-6)
        reach = float(np.hypot(*v)) * gap + 2 * diameter_mm
        r = float(np.hypot(*(m.xy[-1] - q))) / reach
        if r < best_r:
            best, best_r = m.ball, r
    return best


def reached_by(
    runs: Sequence[MovingSamples],
    ball: str,
    p: np.ndarray,
    v: np.ndarray,
    lo: float,
    hi: float,
    diameter_mm: float,
    s: ContactSettings,
    dt: float,
    skip: Collection[str] = (),
) -> tuple[str, float, np.ndarray] | None:
    """The moving ball whose path first came to touching distance (plus ``nudge_touch_mm``) of ``p``, where
    ``ball`` rested, between ``lo`` and ``hi``, from the side ``ball`` then left away from (``v``, within
    ``nudge_angle_deg``): a slow hit, where the start of its creep off its place is too uncertain to look for
    its hitter at one moment, or one the tracker kept resting (``nudges``). ``runs``: every ball's samples on
    moving paths since ``lo`` or earlier; balls in ``skip`` are not looked at. Its id, the time and where it was
    (``first_reach``)."""
    reach = diameter_mm + s.nudge_touch_mm
    best: tuple[float, str, float, np.ndarray] | None = None
    speed = float(np.hypot(*v))
    for m in runs:
        if m.ball == ball or speed < 1e-6 or m.ball in skip:
            continue
        hit = first_reach(m, p, reach, lo, diameter_mm, s, dt)
        if hit is None or hit[0] > hi:
            continue
        n = p - hit[1]
        cos = float(n @ v) / max(float(np.hypot(*n)) * speed, 1e-9)
        if cos >= math.cos(math.radians(s.nudge_angle_deg)) and (best is None or cos > best[0]):
            best = (cos, m.ball, hit[0], hit[1])
    return None if best is None else best[1:]


def first_reach(
    m: MovingSamples, p: np.ndarray, reach: float, since: float, diameter_mm: float, s: ContactSettings, dt: float
) -> tuple[float, np.ndarray] | None:
    """When ``m``, moving after ``since``, first came within ``reach`` of point ``p``: the time its fitted path
    was a diameter from ``p`` (the closest point if it never got that near), and where it was then."""
    D = diameter_mm
    clear = D + s.nudge_clear_mm
    idx = [j for j in range(len(m.ts)) if m.ts[j] >= since]
    for k, j in enumerate(idx):
        if float(np.hypot(*(m.xy[j] - p))) > reach:
            continue
        # Its straight approach over nudge_fit_s, from samples far enough off the other ball that their images
        # do not touch (touching balls' edges push their measured centres apart, which would time the touch
        # late), run on to where it is a diameter from ``p``.
        far = [i for i in idx[: k + 1] if m.leg[i] == m.leg[j] and float(np.hypot(*(m.xy[i] - p))) > clear]
        sel = [i for i in far if m.ts[i] >= m.ts[far[-1]] - s.nudge_fit_s] if far else []
        if len(sel) < 3:
            # no approach to fit: it met it when first seen there, if it had just set off beside it (among the
            # first three samples of a path set off from rest or turned by a hit a frame before, since ``since``:
            # not a ball back in sight after a blur)
            fresh = bool(m.set_off[j]) and m.leg_t0[j] >= since
            return (float(m.ts[j]), m.xy[j]) if fresh else None
        f = fit_path(m.ts[sel], m.xy[sel], quadratic_from=len(sel) + 1)
        lo, hi = float(m.ts[sel[0]]), float(m.ts[j]) + s.nudge_run_frames * dt
        t_c = solve_root(gap_to_point(f, p, D), lo, hi)
        if t_c is None:
            t_c = closest_time(gap_to_point(f, p, 0.0), lo, hi)
        return t_c, f.at(t_c)
    return None
