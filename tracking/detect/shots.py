"""Shot start and end: how a resting ball left its place, a ball struck between shots, one pushed by hand
(``disturbed``), a ball set moving with nothing seen to hit it, and the shot's end once every ball has rested."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

import numpy as np

from calibration.contract import Point
from tracking import jumps
from tracking.detect.candidate import Candidate, confidence
from tracking.detect.geometry import (
    as_pt,
)
from tracking.detect.segments import PathView, SetOffView
from tracking.detect.settings import SegmentSettings, ShotSettings
from tracking.trajectory import closest_time, fit_hinge, fit_path


def first_seen_moving(first: PathView, s: ShotSettings) -> float | None:
    """A ball first seen already moving (``first``: its first samples) with no shot in play was struck out of
    sight (under the player's arm), where it is faster than twice ``start_speed_mm_s`` (no hand sends a ball so
    fast): the shot starts with it, timed at its first sighting (flagged for review). That time, or None."""
    if stops_dead(first, s):
        return None
    f = fit_path(np.array(first.ts), np.array(first.ps))
    if float(np.linalg.norm(f.vel(f.t0))) < 2 * s.start_speed_mm_s:
        return None
    return f.t0


def stops_dead(first: PathView, s: ShotSettings) -> bool:
    """Whether a thing's first samples (``first``) make a first step at a rolling ball's speed and then none:
    every later step under 0.3 of the first's speed. A rolling ball loses a few m/s2 at most on the cloth, so
    steps that stop dead after the first are a detection that jumped once (a dark ball's centre read with or
    without its shadow), or a ball that ran into another (``stalled`` asks that)."""
    if len(first.ts) < 3:
        return False
    steps = [float(np.linalg.norm(first.ps[k] - first.ps[i])) / max(first.ts[k] - first.ts[i], 1e-6)
             for i, k in pairwise(range(len(first.ts)))]  # fmt: skip
    return steps[0] >= s.start_speed_mm_s and max(steps[1:]) < 0.3 * steps[0]


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


@dataclass(frozen=True)
class SetOff:
    """How a resting ball left its place: when (``t``), where a slow creep off it began (``crept``; None where it
    did not creep off), its speed then on its first path, and whether it got far enough from its place to have
    moved at all (``moved``; else its detections jittered)."""

    t: float
    crept: float | None
    speed: float
    moved: bool


def set_off(
    view: SetOffView, s: ShotSettings, seg: SegmentSettings, dt: float, sigma_mm: float, diameter_mm: float
) -> SetOff:
    """How the resting ball of ``view`` left its place (``left_place``, ``moved_off``; ``sigma_mm``: the
    detections' noise)."""
    t_s, crept = left_place(view, s, dt, diameter_mm)
    speed = float(np.linalg.norm(view.path.vel(t_s)))
    return SetOff(t_s, crept, speed, moved_off(view, crept is not None, seg, sigma_mm))


def left_place(view: SetOffView, s: ShotSettings, dt: float, diameter_mm: float) -> tuple[float, float | None]:
    """When a resting ball set moving (``view``: its place, its last resting and first moving samples, its first
    path) left its place: where that path, run back, is nearest the place, or where a slow ball creeping off sped
    up (``creep_start``). A path that, run back, passes its place a diameter or more off did not run straight
    from it (a touch bent it before it was seen twice): it tells nothing of when the ball left, some time between
    its last sighting at rest and its first away, taken as the middle (as for a path of one sample). Returned:
    that time, and the creep's start (None where it did not creep off)."""
    a, new = view.place, view.path
    # A ball set off slowly keeps its place (the tracker's anchor) for a few frames before it has moved far
    # enough to break its rest: its path, run back, may reach its place before the last resting sample. Not
    # before a resting sample whose detection still sat where they all sat (``still_until``): it had not left.
    lo = view.t_lo - s.slow_start_frames * dt
    still = still_until(view, s)
    if still is not None:
        lo = max(lo, still)
    t_s = closest_time(lambda u: float(np.linalg.norm(new.at(u) - a)), lo, view.t_hi)
    if new.n < 2 or float(np.linalg.norm(new.at(t_s) - a)) >= diameter_mm:
        t_s = 0.5 * (view.t_lo + view.t_hi)
    slow = new.n >= 2 and float(np.linalg.norm(new.vel(view.t_hi))) < s.start_speed_mm_s
    crept = creep_start(view, s, dt) if slow and t_s < lo + 0.5 * dt else None
    return (t_s if crept is None else crept), crept


def still_until(view: SetOffView, s: ShotSettings) -> float | None:
    """The last resting sample of ``view`` whose detection lies within ``creep_still_mm`` of where the ball's
    detections sat (their median over the first third of those kept, as ``creep_start`` reads it), where that is
    its very last one or the one before: the ball was still there then (a ball hit hard after resting, its path
    out bent by a second touch, runs back to nowhere near its place). None otherwise."""
    det = view.rest_seen
    if len(det) < 3:
        return None
    ref = np.median(det[: max(1, len(det) // 3)], axis=0)
    d = np.linalg.norm(det - ref, axis=1)
    for j in (len(d) - 1, len(d) - 2):
        if d[j] <= s.creep_still_mm:
            return float(view.rest_ts[j])
    return None


def moved_off(view: SetOffView, crept: bool, s: SegmentSettings, sigma_mm: float) -> bool:
    """Whether the ball got ``start_min_mm`` from its place on its new path (a ball not seen creeping, six times
    the measurement noise: a blurred or half-hidden ball's detections jitter that far) and did not come straight
    back to it (``back_at_place``)."""
    off = np.linalg.norm(view.new_xy - view.place, axis=1) if len(view.new_xy) else np.zeros(0)
    moved = float(off.max(initial=0.0))
    if moved < (s.start_min_mm if crept else max(s.start_min_mm, 6 * sigma_mm)):
        return False
    after = [float(np.linalg.norm(p - view.place)) for p in view.back_xy]
    return not (back_at_place(after, sigma_mm, view.back_resting) or stood_after_step(view, sigma_mm))


def stood_after_step(view: SetOffView, sigma_mm: float) -> bool:
    """Whether a ball seen one step off its last sighting at rest (``view``: its new path one sample long) stood
    on that spot in the next frame, where the tracker holds it at rest (``tracking.jumps``: a ball set moving
    cannot lose a step's speed within a frame on the cloth; the tracker holds it moving where another ball is
    near that spot, one it may have run into). Its centre was measured again: not a start."""
    if len(view.new_xy) != 1 or not view.back_resting or len(view.back_ts) == 0 or len(view.rest_ts) == 0:
        return False
    t_away, t_seen = float(view.new_ts[0]), float(view.back_ts[0])
    # the step from its last sighting at rest (not from its place, which lags a ball creeping off); the new spot
    # held within four sigmas of the noise (the tracker's anchor gate, the spread of a still ball's sightings)
    before, dt_away = view.rest_seen[-1], t_away - float(view.rest_ts[-1])
    return jumps.stood_after(before, view.new_xy[0], dt_away, view.back_xy[0], t_seen - t_away, 4 * sigma_mm)


def back_at_place(after: Sequence[float], sigma_mm: float, resting: bool) -> bool:
    """Whether a ball seen off its resting place came back to it: its next samples (``after``: each one's
    distance from that place): the next two within three times the measurement noise of it, or the next one
    where the tracker holds it at rest again there (``resting``). A ball set moving rolls away from its place; the
    cloth only slows it, and a cushion or ball that turned it could not send it back onto the same spot within a
    frame or two. One detection off and the next ones back where they were is a displaced blob (a highlight, a
    shadow merged with the ball), not a start."""
    n = 1 if resting else 2
    return len(after) >= n and max(after[:n]) <= 3.0 * sigma_mm


def stalled(first: PathView, others: Sequence[np.ndarray], diameter_mm: float, s: ShotSettings) -> bool:
    """Whether a ball that came back into sight (``first``: its first four kept samples, on whatever paths) stopped
    dead within two frames of its first step, with no other ball near (``others``: where each other ball on the
    table was last seen): a rolling ball slows by a few m/s2 at most, so its second and third steps keep most of
    its first's length unless it hits something (a stun shot into a cluster stops it dead beside a ball)."""
    if not stops_dead(first, s):
        return False
    p, reach = first.ps[1], 2 * diameter_mm
    return not any(float(np.hypot(*(q - p))) < reach for q in others)


def creep_start(view: SetOffView, s: ShotSettings, dt: float) -> float | None:
    """When a ball set off slowly really left its place: it creeps off while the tracker still holds it at
    rest, so its detections over the last resting samples (``view.rest_ts``, up to ``creep_back_s``) drift away
    from where they sat. If the drift after the last one still at that place (within ``creep_still_mm``) is
    steady (each farther off than the one before, give or take the noise), where its speed jumped
    (``creep_hinge``), or else halfway from that last one to the next; otherwise None."""
    if len(view.rest_ts) < 6:
        return None
    det = view.rest_seen
    ref = np.median(det[: len(det) // 3], axis=0)
    d = np.linalg.norm(det - ref, axis=1)
    still = np.flatnonzero(d <= s.creep_still_mm)
    if len(still) == 0 or still[-1] >= len(d) - 2:
        return None  # no drift seen before it broke its rest
    k = int(still[-1])
    drift = d[k:]
    if np.any(np.diff(drift) < -s.creep_still_mm):
        return None  # back and forth: noise or a hand, not a ball creeping off
    hinge = creep_hinge(view, s, dt)
    if hinge is not None:
        return hinge  # (a ball already creeping when hit drifts from its place long before it)
    return float(0.5 * (view.rest_ts[k] + view.rest_ts[k + 1]))  # it left between the last sample there and the next


def creep_hinge(view: SetOffView, s: ShotSettings, dt: float) -> float | None:
    """When a slow ball hit while the tracker held it resting (its detections over the end of its rest, then the
    first samples of its path) sped up: the corner of a hinge fitted to how far along its new path it was, the
    old speed before (none, or a creep already under way) and the new one after. None unless the new speed is
    clearly more (twice the old, and ``creep_speedup_mm_s`` over it)."""
    if len(view.new_ts) < 3:
        return None
    ts = np.concatenate([view.rest_ts, view.new_ts])
    ps = np.vstack([view.rest_seen, view.new_xy])
    t1 = float(view.new_ts[0])
    v = view.path.vel(t1)
    speed = float(np.linalg.norm(v))
    if speed < 1e-6:
        return None
    along = (ps - ps[0]) @ (v / speed)
    lo, hi = ts[2], t1
    h = fit_hinge(ts, along, lo, hi, steps=max(8, int(np.ceil((hi - lo) / (dt / 8)))))
    if h is None or h.after < 2.0 * max(h.before, 0.0) + s.creep_speedup_mm_s:
        return None
    return h.t


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
