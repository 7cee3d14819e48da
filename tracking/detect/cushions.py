"""Cushion and jaw touches: bounces off a cushion before the ball was seen moving, grazes (a V of the distance
to a nose line or a jaw's surface inside one straight path), stops against a cushion, jaw touches on the way
into a pocket and a rattle between the jaw faces."""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Iterator
from itertools import islice

import numpy as np

from calibration.contract import jaw_cushion
from calibration.table import Cushion, Jaw, Pocket, TableModel
from tracking.detect.candidate import Candidate, Evidence, confidence
from tracking.detect.geometry import (
    as_pt,
    both_ways,
    gap_to_cushion,
    gap_to_jaw,
    gap_to_point,
    polyline_at,
    valleys,
)
from tracking.detect.segments import Kink, KinkReading, PathView, Trail
from tracking.detect.settings import CushionSettings
from tracking.rattle import RattleSettings, rattle_touches
from tracking.trajectory import Hinge, PathFit, closest_time, fit_hinge, fit_path, solve_root

# a path in fitted to within this of the ball's last sample before a break (the detections' noise, a couple
# of sigma) follows the ball to the touch; farther off, it bends where the ball did not
FIT_FOLLOWS_MM = 3.0


def kink_readings(k: Kink, samples: PathView, table: TableModel, s: CushionSettings, dt: float) -> list[KinkReading]:
    """The cushions that explain a kink: the centre at the bend within ``cushion_tol_mm`` of one radius from the
    nose line (to half a radius past its ends), moving into it and then away from it (faster than 20 mm/s more:
    a bounce, not noise). A mirror bounce is timed on the paths in and out: the mean of where each meets the
    nose line. A ball rolling along the cushion (``hugs``, on the ball's ``samples`` from ``hug_s`` before the
    kink's window to its end) does not touch it anew."""
    R = table.ball_radius_mm
    out = []
    for cu in table.cushions.values():
        n = np.array(cu.inward)
        off = cu.offset(as_pt(k.p)) - R
        al = cu.along(as_pt(k.p))
        if float(k.v_old @ n) >= 0 or float(k.v_new @ n) <= float(k.v_old @ n) + 20.0:
            continue
        if abs(off) > s.cushion_tol_mm or not (-0.5 * R <= al <= cu.length_mm + 0.5 * R):
            c = unseen_touch(k, cu, table, s)
            if c is not None and not hugs(samples, cu, c.t, s, dt, R):
                out.append(c)
            continue
        root = both_ways(
            solve_root(gap_to_cushion(k.into, cu, R), k.lo_into, k.hi), gap_to_cushion(k.new, cu, R), k.new, k.lo_into
        )
        tc = root if root is not None else k.t
        if hugs(samples, cu, tc, s, dt, R):
            continue
        pc = k.into.at(tc) - n * R
        # a centre beyond the flat nose touches the rounded jaw tip there, not the nose line: past it by a
        # few millimetres the jaw explains it better. Where along the nose it touched is where the centre was at
        # the touch (``centre_at``): the paths in and out meet farther on where the ball came in steeply, or met
        # the other cushion of a corner a frame later
        along = cu.along(as_pt(centre_at(k, samples, cu, R, dt, tc)))
        score = abs(off) / s.cushion_tol_mm + beyond_flat(table, cu, along) / 4.0
        out.append(KinkReading(score, "cushion", cu.name, tc, pc, abs(off)))
    return out


def centre_at(k: Kink, samples: PathView, cu: Cushion, radius_mm: float, dt: float, tc: float) -> np.ndarray:
    """Where the ball's centre was as it touched ``cu`` at ``tc``: on the path in, where that passes within
    ``FIT_FOLLOWS_MM`` of the last sample before the break (``samples``: the ball's samples around the kink);
    else that sample run on straight at the path in's heading to one radius from the nose line. A path in fitted
    over a window that holds an earlier bounce, or the blurred frame of this one, bends where the ball did not;
    the sample is a frame or two from the touch at most (at 2 m/s, 67 mm a frame), over which the ball runs
    straight. The path in at ``tc`` where the ball is not heading into ``cu``, or no sample is that near."""
    i = bisect.bisect_left(samples.ts, k.t_lo - 1e-6)
    if i >= len(samples.ts) or samples.ts[i] - k.t_lo > 1e-6:
        return k.into.at(tc)
    q = np.asarray(samples.ps[i], dtype=float)
    vn = float(k.v_old @ np.array(cu.inward))
    if float(np.linalg.norm(k.into.at(k.t_lo) - q)) <= FIT_FOLLOWS_MM or vn >= 0.0:
        return k.into.at(tc)
    run = -(cu.offset(as_pt(q)) - radius_mm) / vn  # seconds from the sample to the touching line
    return q + k.v_old * run if abs(run) <= 2.0 * dt else k.into.at(tc)


def unseen_touch(k: Kink, cu: Cushion, table: TableModel, s: CushionSettings) -> KinkReading | None:
    """A touch of ``cu`` where the kink's paths do not meet near its nose line: the path in, run on from the last
    sample in, reaches one radius from the nose line (beside its flat nose) before the ball is seen again (the
    first sample out), and the ball comes on slower into it, or away. A ball cannot pass through a cushion, so it
    touched it there, unseen: at 30 fps a ball at 3 m/s covers 100 mm a frame, and where it is lost from sight
    for frames after the touch (then hit by a ball), or its sample of the bounce frame is blurred to tens of
    millimetres off, the paths either side meet far from the nose line. Scored at the tolerance's edge: any
    bounce whose paths meet at a surface explains the kink better."""
    R = table.ball_radius_mm
    gap = gap_to_cushion(k.into, cu, R)
    if gap(k.t_last) <= 0.0:
        return None  # already at or past the nose line at the last sample in: not run into it after that
    tc = solve_root(gap, k.t_last, k.t_hi)
    if tc is None:
        return None
    centre = k.into.at(tc)
    if beyond_flat(table, cu, cu.along(as_pt(centre))) > 0.0 or not (0.0 <= cu.along(as_pt(centre)) <= cu.length_mm):
        return None  # at a jaw's rounded tip or a pocket's mouth: the ball may have gone on past the nose line
    n = np.array(cu.inward)
    return KinkReading(1.0, "cushion", cu.name, tc, centre - n * R, 0.0)


def jaw_kink_readings(k: Kink, table: TableModel, s: CushionSettings) -> list[KinkReading]:
    """The jaws that explain a kink: the centre at the bend within ``cushion_tol_mm`` of one radius from a jaw's
    surface; scored a fifth of a tolerance worse than a cushion as near (a jaw's rounded tip is short)."""
    R = table.ball_radius_mm
    out = []
    for pk in table.pockets.values():
        for jaw in pk.jaws:
            dj = jaw.distance(as_pt(k.p)) - R
            if k.new.n < 2 and solve_root(gap_to_jaw(k.into, jaw, R), k.t_lo, k.t_hi) is not None:
                # One sample out: where the paths meet is unknown (``k.p`` is the path in run on half a frame,
                # past a fast ball's turn). A path in that reaches the jaw's touching distance between the last
                # sample in and the first out met the jaw there, and the ball turned where it met it.
                dj = 0.0
            if abs(dj) > s.cushion_tol_mm:
                continue
            root = both_ways(
                solve_root(gap_to_jaw(k.into, jaw, R), k.lo_into, k.hi), gap_to_jaw(k.new, jaw, R), k.new, k.lo_into
            )
            tc = root if root is not None else k.t
            score = 0.2 + abs(dj) / s.cushion_tol_mm
            out.append(KinkReading(score, "cushion", jaw_cushion(pk.name), tc, k.into.at(tc), abs(dj)))
    return out


def hugs(samples: PathView, cu: Cushion, t: float, s: CushionSettings, dt: float, radius_mm: float) -> bool:
    """Whether the ball (its ``samples``, covering the ``hug_s`` before ``t``) kept touching ``cu`` (within
    ``hug_mm``) at every sample over the ``hug_s`` before ``t``: rolling along it, or frozen to it, it did not
    come to it at ``t``."""
    lo = bisect.bisect_left(samples.ts, t - s.hug_s)
    hi = bisect.bisect_right(samples.ts, t)
    offs = [cu.offset(as_pt(p)) - radius_mm for p in samples.ps[lo:hi]]
    return len(offs) >= max(3, round(s.hug_s / dt) - 1) and max(abs(o) for o in offs) <= s.hug_mm


def bounce_off_start(
    ball: str,
    a: np.ndarray,
    hitter: np.ndarray,
    t_hit: float,
    paths: Iterable[tuple[float, PathFit]],
    table: TableModel,
    s: CushionSettings,
    start_speed_mm_s: float,
    dt: float,
) -> Candidate | None:
    """A ball hit from rest at ``a`` at ``t_hit`` (the hitter's centre then at ``hitter``) toward a cushion a few
    centimetres away touches it before it is first seen moving (at 3 m/s a ball covers 50 mm in a frame): the hit
    sends it along the line of centres, into the cushion, yet its first path moves away from it (``paths``: its
    paths away, from ``paths_out``; the first sample may be the blurred frame of the bounce, or before it, so the
    first two are tried). The touch (``bounce_before``), or None."""
    u = a - hitter
    u = u / max(float(np.linalg.norm(u)), 1e-9)  # the way the hit sends it
    for _, path in islice(paths, 2):
        c = bounce_before(ball, a, u, t_hit, path, path.t0, table, s, start_speed_mm_s, dt)
        if c is not None:
            return c
    return None


def hitter_at_touch(path: PathFit, a: np.ndarray, t_hit: float, diameter_mm: float, dt: float) -> np.ndarray:
    """Where a moving hitter's centre was when it touched the resting ball at ``a``: where its path into the hit
    (``path``) first comes one diameter from ``a`` within a frame of the hit's given time ``t_hit`` (else where
    it comes nearest). The hit sends the ball along their line of centres then; the given time may be a fraction
    of a frame off, and at 3 m/s a third of a 30 fps frame carries the hitter 30 mm on, which turns the line of
    centres of a thin hit by tens of degrees."""
    gap = gap_to_point(path, a, diameter_mm)
    lo, hi = t_hit - dt, t_hit + dt
    root = solve_root(gap, lo, hi)
    return path.at(root if root is not None else closest_time(gap, lo, hi))


def bounce_before(
    ball: str,
    a: np.ndarray,
    u: np.ndarray,
    t_hit: float,
    new: PathFit,
    t_first: float,
    table: TableModel,
    s: CushionSettings,
    start_speed_mm_s: float,
    dt: float,
) -> Candidate | None:
    """``bounce_off_start`` for a ball hit at ``t_hit`` from ``a`` along ``u`` (a unit vector) whose path ``new``
    is first seen at ``t_first``: the touch, or None. Slower than ``start_speed_mm_s``, nothing bounced."""
    R = table.ball_radius_mm
    v = new.vel(t_first)
    speed = float(np.linalg.norm(v))
    if speed < start_speed_mm_s:
        return None
    cos_max = math.cos(math.radians(s.bounce_angle_deg))
    for cu in table.cushions.values():
        n = np.array(cu.inward)
        if float(u @ n) >= 0.0 or float(v @ n) <= 0.0:
            continue  # not sent into it, or not coming away from it
        # the first sample away may be the frame of the touch itself, its centre within noise of the nose line
        # on either side: the path run back meets it up to half a frame after that sample
        root = solve_root(gap_to_cushion(new, cu, R), t_hit - 0.5 * dt, t_first + 0.5 * dt)
        if root is None:
            continue
        p = new.at(root)
        if not (0.0 <= cu.along(as_pt(p)) <= cu.length_mm):
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
        evidence: Evidence = "bounce_before"
        return Candidate("cushion", (ball,), cu.name, root, as_pt(p - n * R), 0.0, evidence, confidence(evidence))
    return None


def paths_out(away: PathView, tc: float, window: int) -> Iterator[tuple[float, PathFit]]:
    """The path away from a bounce at ``tc`` (``away``: its kept samples): fitted to ``window`` samples from the
    first sample after the kink, then from the second and the third, each with the time until which the ball was
    seen on its way in (a second touch within a frame or two may come after the first sample or two). Three
    samples or more each."""
    for skip in range(3):
        sel = slice(skip, skip + window)
        ts, ps = away.ts[sel], away.ps[sel]
        if len(ts) < 3:
            return
        t_in = away.ts[skip - 1] if skip else tc
        yield t_in, fit_path(np.array(ts), np.array(ps))


def after_jaw(
    ball: str,
    pk: Pocket,
    paths: list[tuple[float, PathFit]],
    tc: float,
    hi: float,
    table: TableModel,
    s: CushionSettings,
    dt: float,
) -> Candidate | None:
    """The second touch a fraction of a frame after a jaw bounce at ``tc`` (``paths``: the paths away, from
    ``paths_out``; ``hi``: the end of the kink's window): the cushion beside the jaw (``cushion_after_jaw``), else
    the jaw's face after its rounded tip (``jaw_exit``); None where neither."""
    second = cushion_after_jaw(ball, pk, paths, tc, table, s)
    if not second:
        second = jaw_exit(ball, pk, paths, tc, hi, table.ball_radius_mm, s, dt)
    return second or None


def jaw_exit(
    ball: str,
    pk: Pocket,
    paths: list[tuple[float, PathFit]],
    tc: float,
    hi: float,
    radius_mm: float,
    s: CushionSettings,
    dt: float,
) -> Candidate | None:
    """A second touch of a pocket's jaws just after the one at ``tc``. A single bounce leaves the jaw where
    and when the ball met it, so the outgoing path, run back, touches it at ``tc`` too. A ball coming along a
    cushion into a corner jaw meets the rounded tip, turns into the face and bounces off that a fraction of a
    frame later: its outgoing path, run back, leaves the jaws that much later than the incoming one reached
    them (``paths``, from ``paths_out``: after the samples seen before that path, if any)."""
    for skip, (t_in, path) in enumerate(paths):
        lo, top = (tc - dt, hi) if skip == 0 else (t_in, path.t0 + 0.5 * dt)
        exits = [solve_root(gap_to_jaw(path, jaw, radius_mm), lo, top) for jaw in pk.jaws]
        t2 = max((t for t in exits if t is not None), default=None)
        if t2 is None or t2 - tc < s.jaw_exit_frames * dt:
            continue
        evidence: Evidence = "jaw_exit"
        return Candidate(
            "cushion", (ball,), jaw_cushion(pk.name), t2, as_pt(path.at(t2)), 0.0, evidence, confidence(evidence)
        )
    return None


def cushion_after_cushion(
    ball: str,
    cu: Cushion,
    touch: np.ndarray,
    paths: list[tuple[float, PathFit]],
    tc: float,
    table: TableModel,
    s: CushionSettings,
) -> Candidate | None:
    """A ball that bounced off ``cu`` at ``tc`` near a corner (its centre ``touch`` within ``jaw_graze_reach_mm``
    of the mouth of the corner pocket at that end) into the other cushion of the corner and off that within a
    frame or two: ``cushion_after_jaw`` on that cushion alone (``paths``: the paths away, from ``paths_out``).
    The paths in and out of such a double bounce meet past both noses, so the kink reads only the first; the
    cushions of a middle pocket lie on one line, and a ball leaving one does not reach the other."""
    n = np.array(cu.inward)
    for name in cu.pockets:
        pk = table.pockets[name]
        if float(np.linalg.norm(touch - np.array(pk.mouth_center))) > s.jaw_graze_reach_mm:
            continue
        across = [j.cushion for j in pk.jaws if abs(float(np.array(table.cushions[j.cushion].inward) @ n)) < 0.5]
        if across:
            return cushion_after_jaw(ball, pk, paths, tc, table, s, only=across[0]) or None
    return None


def cushion_after_jaw(
    ball: str,
    pk: Pocket,
    paths: list[tuple[float, PathFit]],
    tc: float,
    table: TableModel,
    s: CushionSettings,
    only: str | None = None,
) -> Candidate | None:
    """A ball that bounced off a jaw at ``tc`` into the cushion beside it and off that within a frame or two
    (a fast ball in a corner: cushion, jaw, cushion within three frames): its path away from the cushion, run
    back, comes from behind that cushion's nose line, which it met after ``tc`` and after the samples before
    that path (``paths``, from ``paths_out``). Leaving the cushion. The touch, or None (where there is one, no
    second jaw touch is looked for: that path left the cushion, not the jaw). ``only``: that cushion alone."""
    R = table.ball_radius_mm
    for t_in, path in paths:
        for name in {j.cushion for j in pk.jaws if only is None or j.cushion == only}:
            cu = table.cushions[name]
            n = np.array(cu.inward)
            if float(path.vel(path.t0) @ n) <= 0.0:
                continue  # not coming away from it
            t2 = solve_root(gap_to_cushion(path, cu, R), max(t_in, tc), path.t0)
            if t2 is None or past_flat(table, s, cu, cu.along(path.at_xy(t2))):
                continue
            pos = as_pt(path.at(t2) - n * R)
            evidence: Evidence = "cushion_after_jaw"
            return Candidate("cushion", (ball,), name, t2, pos, 0.0, evidence, confidence(evidence))
    return None


def bounce_after_hit(
    ball: str,
    old: PathFit,
    other: PathFit,
    other_moving: bool,
    tc: float,
    new: PathFit,
    t_first: float | None,
    table: TableModel,
    s: CushionSettings,
    start_speed_mm_s: float,
    dt: float,
) -> Candidate | None:
    """A ball hit beside a cushion (``old``: its path into the hit at ``tc``; ``other``: the other ball's) goes
    into the cushion before it is seen again (first at ``t_first``, on ``new``): the hit adds to its velocity the
    other's along their line of centres (equal masses), and where that sends it into the cushion while ``new``
    comes away from it, it touched it (``bounce_before``). The touch, or None."""
    p, q = old.at(tc), other.at(tc)
    n = (q - p) / max(float(np.linalg.norm(q - p)), 1e-9)
    v = old.vel(tc)
    v_o = other.vel(tc) if other_moving else np.zeros(2)
    v_after = v + float((v_o - v) @ n) * n
    speed = float(np.linalg.norm(v_after))
    if speed < start_speed_mm_s or t_first is None:
        return None
    return bounce_before(ball, p, v_after / speed, tc, new, t_first, table, s, start_speed_mm_s, dt)


def grazes(path: PathView, samples: PathView, table: TableModel, s: CushionSettings, dt: float) -> list[Candidate]:
    """Cushion touches too glancing to bend the path visibly: the distance to the nose line falls to one
    radius and rises again (a V) inside one straight path (a long one may hold several); then the same for the
    jaws (``jaw_grazes``). ``samples``: the ball's samples from ``hug_s`` before the path's start to its end
    (a ball rolling along a cushion does not touch it anew, ``hugs``)."""
    ts, ps = list(path.ts), path.ps
    if len(ps) < 7:
        return []
    R = table.ball_radius_mm
    arr = np.array(ps)
    out = []
    for cu in table.cushions.values():
        n = np.array(cu.inward)
        rel = arr - np.array(cu.start)
        off = rel @ n - R
        # Beside the cushion only (to half a radius past its ends): a path that comes off a jaw starts
        # behind the nose line's end, and its samples there would join one dip with a touch just after.
        along = rel @ np.array(cu.direction)
        beside = (along >= -0.5 * R) & (along <= cu.length_mm + 0.5 * R)
        # A path that starts at a kink starts where the paths in and out meet, not at a sample: at a bounce that
        # is the touch before, behind the nose line where the rebound was flattened. A V's sides are fitted
        # without it (through it, a touch a few frames later seems to fall slowly and come late).
        fit = beside.copy()
        fit[0] = fit[0] and path.before is None
        for k, before, after in valleys(off, s.graze_tol_mm, beside):
            if not (3 <= k <= len(ps) - 4):
                continue
            hinge = touch_hinge(s, ts, off, k, fit)
            rolled = min(before, after) < off[k] + 10.0 and not bounced(s, hinge)
            if rolled:
                continue  # rolling along the cushion, not touching it once (a V: off it before and after)
            c = graze(path.ball, samples, cu, ts, arr, k, hinge, table, s, dt)
            if c is not None:
                out.append(c)
    return out + jaw_grazes(path.ball, ts, arr, table, s)


def jaw_grazes(ball: str, ts: list[float], arr: np.ndarray, table: TableModel, s: CushionSettings) -> list[Candidate]:
    """Jaw touches too slow or glancing to bend the path visibly: a V of the distance to a jaw's surface (its
    rounded tip or face) down to ``graze_tol_mm``, judged on the samples within ``jaw_graze_reach_mm`` of
    the pocket's mouth."""
    R = table.ball_radius_mm
    out = []
    for pk in table.pockets.values():
        near = np.hypot(*(arr - np.array(pk.mouth_center)).T) <= s.jaw_graze_reach_mm
        if int(near.sum()) < 3:
            continue
        for jaw in pk.jaws:
            off = np.full(len(arr), np.inf)
            off[near] = [jaw.distance(as_pt(q)) - R for q in arr[near]]
            for k, before, after in valleys(off, s.graze_tol_mm, near):
                if not (3 <= k <= len(arr) - 4):
                    continue
                hinge = touch_hinge(s, ts, off, k, near)
                if min(before, after) < off[k] + 10.0 and not bounced(s, hinge):
                    continue
                q = as_pt(arr[k])
                beside = [table.cushions[j.cushion] for j in pk.jaws]
                if any(cu.offset(q) - R < off[k] and not past_flat(table, s, cu, cu.along(q)) for cu in beside):
                    continue  # beside a cushion's flat nose and nearer it: that cushion's graze, if any
                tc = hinge.t if hinge is not None else ts[k]
                name = jaw_cushion(pk.name)
                conf = confidence("jaw_graze", off[k] / s.graze_tol_mm, len(ts), sample_speed(ts, arr, k))
                out.append(Candidate("cushion", (ball,), name, tc, q, float(off[k]), "jaw_graze", conf))
    return out


def graze(
    ball: str,
    samples: PathView,
    cu: Cushion,
    ts: list[float],
    arr: np.ndarray,
    k: int,
    hinge: Hinge | None,
    table: TableModel,
    s: CushionSettings,
    dt: float,
) -> Candidate | None:
    """The touch of ``cu`` at the bottom (sample ``k``) of a V of the distance to its nose line."""
    n = np.array(cu.inward)
    tc = hinge.t if hinge is not None else ts[k]
    # the centre at the touch, between the samples either side of it (the lowest one can be half a frame off,
    # and at a jaw's tip that decides which of the cushion and the jaw it touched)
    c = polyline_at(ts, arr, tc)
    al = cu.along(as_pt(c))
    if not (0 <= al <= cu.length_mm):
        return None
    if hugs(samples, cu, tc, s, dt, table.ball_radius_mm):
        return None
    jaw = jaw_tip(table, s, cu, al)
    if jaw is not None:  # a centre past the flat nose: the graze was of the jaw's rounded tip
        name, p = jaw_cushion(jaw.pocket), c
    else:
        name, p = cu.name, c - n * cu.offset(as_pt(c))  # the point of the nose line it touched
    off = float(cu.offset(as_pt(arr[k]))) - table.ball_radius_mm
    conf = confidence("graze", off / s.graze_tol_mm, len(ts), sample_speed(ts, arr, k))
    return Candidate("cushion", (ball,), name, tc, as_pt(p), off, "graze", conf, t_seen=ts[k])


def sample_speed(ts: list[float], arr: np.ndarray, k: int) -> float:
    """The ball's speed (mm/s) at sample ``k``, from its neighbours either side (a V's lowest sample: its mean
    speed over the touch)."""
    lo, hi = max(k - 1, 0), min(k + 1, len(ts) - 1)
    return float(np.linalg.norm(arr[hi] - arr[lo])) / max(ts[hi] - ts[lo], 1e-9)


def beyond_flat(table: TableModel, cu: Cushion, al: float) -> float:
    """How far (mm) a centre at ``al`` along ``cu`` lies past its flat nose, over the rounded tip of a jaw."""
    flat_lo, flat_hi = table.cushion_flats[cu.name]
    return max(0.0, flat_lo - al, al - flat_hi)


def past_flat(table: TableModel, s: CushionSettings, cu: Cushion, al: float) -> bool:
    """Whether a centre at ``al`` along ``cu`` lies past its flat nose by more than ``tip_past_mm``: at a
    jaw's rounded tip."""
    return beyond_flat(table, cu, al) > s.tip_past_mm


def jaw_tip(table: TableModel, s: CushionSettings, cu: Cushion, al: float) -> Jaw | None:
    """The jaw whose rounded tip a ball touching ``cu``'s nose line at ``al`` touched instead: where the centre
    lies past the flat nose by more than ``tip_past_mm``, the jaw at that end."""
    if not past_flat(table, s, cu, al):
        return None
    jaws = [j for pk in cu.pockets for j in table.pockets[pk].jaws if j.cushion == cu.name]
    return min(jaws, key=lambda j: abs(cu.along(j.nose_end) - al), default=None)


def touch_hinge(
    s: CushionSettings, ts: list[float], off: np.ndarray, k: int, keep: np.ndarray | None = None
) -> Hinge | None:
    """The touch time of a V (or an L: a stop against the cushion) of the distance ``off`` to a nose line
    whose lowest sample is ``k``: the corner, within ``hinge_reach`` samples of ``k``, of a hinge fitted to
    ``hinge_side`` samples either side (those with ``keep``, where given)."""
    lo, hi = max(0, k - s.hinge_side), min(len(ts), k + s.hinge_side + 1)
    r = s.hinge_reach
    t_lo, t_hi = ts[max(0, k - r)], ts[min(len(ts) - 1, k + r)]
    sel = np.arange(lo, hi) if keep is None else lo + np.flatnonzero(keep[lo:hi])
    return fit_hinge(np.asarray(ts)[sel], np.asarray(off)[sel], t_lo, t_hi)


def bounced(s: CushionSettings, hinge: Hinge | None) -> bool:
    """A slow ball that rebounds off a cushion only a few millimetres before it stops: its distance to the
    nose line (``hinge``) falls and then rises, each faster than noise makes it seem to (``bounce_min_mm_s``),
    or falls steeply (``steep_fall_mm_s``) and then rises at all (``steep_rise_mm_s``)."""
    if hinge is None:
        return False
    steep = hinge.before <= -s.steep_fall_mm_s and hinge.after >= s.steep_rise_mm_s
    return steep or (hinge.before <= -s.bounce_min_mm_s and hinge.after >= s.bounce_min_mm_s)


def rest_touches(
    path: PathView, samples: PathView, table: TableModel, s: CushionSettings, window: int, dt: float
) -> list[Candidate]:
    """A slow ball that rolls into a cushion and stops against it barely rebounds, so no kink shows: its
    last samples (``path``: its path's last moving ones, then its detections as it settled) reach one radius
    from the nose line (within the touch tolerance), having moved toward it. One candidate per cushion so
    reached (the resolver gives out the first not already found); ``samples``: the ball's samples from ``hug_s``
    before the path to a frame after it (a ball rolling along a cushion does not touch it anew, ``hugs``);
    ``window``: the samples a path is fitted to."""
    ts = list(path.ts)
    R = table.ball_radius_mm
    if len(ts) < 4:
        return []
    pts = np.array(path.ps)
    out = []
    for cu in table.cushions.values():
        off = (pts - np.array(cu.start)) @ np.array(cu.inward) - R
        # the first sample against the cushion (within a millimetre of where its last samples lie, or of the
        # nearest one): a ball that stays there touched it when it got there
        level = min(float(np.median(off[-5:])), float(off.min()) + s.rest_touch_plateau_mm)
        k = int(np.flatnonzero(off <= level + s.rest_touch_plateau_mm)[0])
        if off[0] - off[k] < 3.0 or not (0 <= cu.along(as_pt(pts[k])) <= cu.length_mm):
            continue  # it did not come toward this cushion, or reached its line beyond the cushion's ends
        hinge = touch_hinge(s, ts, off, k)  # the corner of approach and rebound (or rest), where there are both
        # how near it came: the corner's level, where it is nearer than that sample (a ball rebounding slowly
        # from the cushion is seen either side of its nearest, at 30 fps a couple of millimetres off)
        near = min(float(off[k]), hinge.level) if hinge is not None else float(off[k])
        if near > s.jaw_touch_mm:
            continue
        f = fit_path(np.array(ts[max(0, k - window) : k + 1]), pts[max(0, k - window) : k + 1])
        if hinge is not None:
            tc = hinge.t
        else:
            root = solve_root(gap_to_cushion(f, cu, R), ts[max(0, k - 3)], ts[k] + dt)
            tc = root if root is not None else ts[k]
        if hugs(samples, cu, tc, s, dt, R):
            continue
        touch = f.at(tc) - np.array(cu.inward) * R
        evidence: Evidence = "rest_touch"
        out.append(
            Candidate(
                "cushion",
                (path.ball,),
                cu.name,
                tc,
                as_pt(touch),
                float(off[k]),
                evidence,
                confidence(evidence, samples=f.n),
                t_seen=ts[k],
            )
        )
    return out


def jaw_touches(
    ball: str, pk: Pocket, f: PathFit, lo: float, hi: float, s: CushionSettings, radius_mm: float
) -> list[Candidate]:
    """A ball dropping into a narrow pocket brushes a jaw on the way in: its path ``f`` comes within a radius
    (plus ``jaw_gap_mm``, the path's uncertainty) of a jaw between ``lo`` and ``hi``. One candidate per jaw so
    near, in the pocket's order (the resolver gives out the first not already found)."""
    R = radius_mm
    if hi <= lo:
        return []
    out = []
    for jaw in pk.jaws:
        name = jaw_cushion(pk.name)
        t_min = closest_time(gap_to_jaw(f, jaw, 0.0), lo, hi)
        d_min = jaw.distance(as_pt(f.at(t_min)))
        if d_min > R + s.jaw_gap_mm:
            continue
        # touching where the path reaches one radius; a path that only grazes it touches at its closest
        root = solve_root(gap_to_jaw(f, jaw, R), lo, t_min) if d_min < R else None
        tc = root if root is not None else t_min
        conf = confidence("jaw_touch", max(d_min - R, 0.0) / s.jaw_gap_mm, f.n, float(np.linalg.norm(f.vel(tc))))
        out.append(Candidate("cushion", (ball,), name, tc, as_pt(f.at(tc)), d_min - R, "jaw_touch", conf))
    return out


def rattle(trail: Trail, pk: Pocket, t_drop: float, radius_mm: float, s: RattleSettings, dt: float) -> list[Candidate]:
    """A ball that rattled between the jaw faces on its way down touched them in turn: the touches of the
    bouncing fit of its sideways offsets over its last samples between the faces (``trail``: all its samples;
    ``tracking.rattle``), up to the drop at ``t_drop``, in time order (the resolver gives out those not already
    found)."""
    face = pk.depth(pk.jaws[0].face_start)
    k = len(trail.ts)
    while k > 0 and pk.depth(as_pt(trail.xy[k - 1])) >= face:
        k -= 1
    if len(trail.ts) - k < s.min_samples:
        return []
    ts, xy = trail.ts[k:], trail.xy[k:]
    lateral = np.array([pk.lateral(as_pt(p)) for p in xy])
    depth = np.array([pk.depth(as_pt(p)) for p in xy])
    play = (pk.mouth_width_mm - 2 * radius_mm) / 2
    out = []
    for tc, side in rattle_touches(ts, lateral, play, ts[0] - dt, t_drop, s):
        centre = pk.point(float(np.interp(tc, ts, depth)), side * play)
        out.append(
            Candidate("cushion", (trail.ball,), jaw_cushion(pk.name), tc, centre, 0.0, "rattle", confidence("rattle"))
        )
    return out
