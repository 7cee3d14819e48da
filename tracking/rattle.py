"""A ball rattling in a pocket's mouth: its sideways motion between the two parallel jaw faces.

A Russian mouth leaves a ball a few millimetres of play between the jaws (2.5 mm a side at a 73 mm corner
mouth, 7.5 at an 83 mm middle one). A ball that comes in at a slant bounces from face to face every one or two
frames on its way to the drop, too often for the path segmenter to see each turn. Its sideways offset from
the pocket axis is a ball between two walls: straight runs at a constant speed, reversed and slowed by the
jaw's restitution at each wall. Fitting that motion to the measured offsets (a grid over the starting offset,
the starting speed and the restitution) gives the touch times; a straight line that fits about as well says
the ball did not rattle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_BOUNCES = 12

# The fit's grid: its resolution, not physics (no rendered suite moved at half or twice any of these steps).
# The jaw's restitution, tried in turn from a dead bounce to a lively one, 0.05 apart: a coarser step lets each
# bounce's speed drift from the true one, so later touches are timed off; a finer one costs only the fit's time.
RESTITUTIONS: tuple[float, ...] = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
# The sideways-speed step (mm/s): 5 mm/s moves a ball 0.08-0.17 mm a frame, far under the measurement noise.
# Coarser: a fast rattle's touches timed off by the step's drift; finer: only the fit's time grows.
SPEED_STEP_MM_S = 5.0
# Starting offsets tried across the play (0.25 mm apart in a corner mouth's 5 mm, 0.75 in a middle one's 15):
# fewer place the first touch off by up to half a step; more cost only the fit's time.
OFFSET_STEPS = 21


@dataclass(frozen=True)
class RattleSettings:
    # the fastest sideways speed (mm/s, across the pocket axis) the fit tries at the first sample: the part of
    # a ball's speed its slant into the mouth carries across it, each face bounce slowing it further. Lower: a
    # ball that came in at a steep slant is fitted too slow and its touches are lost; higher: only the fit's
    # time grows (the grid spans twice this in SPEED_STEP_MM_S steps)
    max_speed_mm_s: float = 800.0
    # sightings in the mouth needed before a rattle is read: two offsets always fit a straight line, a bounce
    # needs a third to show the turn. Fewer: two noisy offsets read as a bounce; more: a quick rattle seen in
    # three frames before the drop is lost
    min_samples: int = 3
    # the bouncing fit's mean square error must be at most this share of a straight line's: a ball that
    # crossed the mouth without touching a face fits a line as well. Higher: noise about a straight run read as
    # touches; lower: a rattle whose bounces the noise blurs is lost
    better_than_straight: float = 0.6


def _bounce(y0: np.ndarray, v0: np.ndarray, ts: np.ndarray, w: float, e: float) -> tuple[np.ndarray, np.ndarray]:
    """Offsets at ``ts`` (from 0) and the wall times of balls starting at ``y0`` with speed ``v0`` at 0 between
    walls at -w and w, each wall reversing the speed and scaling it by ``e``: (n, len(ts)) and (n, MAX_BOUNCES),
    NaN where there are fewer touches."""
    y, v, t = y0.copy(), v0.copy(), np.zeros_like(y0)
    at = np.empty((len(y0), len(ts)))
    walls = np.full((len(y0), MAX_BOUNCES), np.nan)
    for k in range(MAX_BOUNCES + 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            to_wall = np.where(v > 0, (w - y) / v, np.where(v < 0, (-w - y) / v, np.inf))
        t_wall = t + to_wall
        for j, tj in enumerate(ts):
            on = (tj >= t) & ((tj < t_wall) | (k == MAX_BOUNCES))
            at[on, j] = y[on] + v[on] * (tj - t[on])
        if k == MAX_BOUNCES:
            break
        hit = np.isfinite(t_wall)
        walls[:, k] = np.where(hit, t_wall, np.nan)
        y = np.where(hit, np.sign(v) * w, y)
        v = np.where(hit, -e * v, v)
        t = np.where(hit, t_wall, t)
    return at, walls


def rattle_touches(
    ts: np.ndarray, lateral: np.ndarray, play_mm: float, t0: float, t1: float, s: RattleSettings | None = None
) -> list[tuple[float, int]]:
    """``(time, side)`` of each touch of a jaw face (side +1: the face at ``+play_mm``) by a ball measured at
    offsets ``lateral`` (mm, from the pocket axis) at times ``ts`` between the faces, its motion fitted from
    ``t0`` (before the first sample) on; touches after ``t1`` (the drop) are not counted. Empty when fewer than
    ``min_samples`` or when a straight line fits the offsets about as well."""
    s = s or RattleSettings()
    if len(ts) < s.min_samples:
        return []
    rel = np.asarray(ts, dtype=float) - t0
    ys = np.clip(np.asarray(lateral, dtype=float), -play_mm - 1.0, play_mm + 1.0)
    line = np.polyfit(rel, ys, 1)
    straight = float(np.mean((np.polyval(line, rel) - ys) ** 2))
    grid_y, grid_v = np.meshgrid(
        np.linspace(-play_mm, play_mm, OFFSET_STEPS),
        np.arange(-s.max_speed_mm_s, s.max_speed_mm_s + 0.5 * SPEED_STEP_MM_S, SPEED_STEP_MM_S),
    )
    y0, v0 = grid_y.ravel(), grid_v.ravel()
    best: tuple[float, np.ndarray, float] | None = None
    for e in RESTITUTIONS:
        at, walls = _bounce(y0, v0, rel, play_mm, e)
        err = np.mean((at - ys) ** 2, axis=1)
        g = int(np.argmin(err))
        if best is None or err[g] < best[0]:
            best = (float(err[g]), walls[g], float(v0[g]))
    assert best is not None
    err, walls, v_start = best
    if err > s.better_than_straight * straight:
        return []
    out: list[tuple[float, int]] = []
    side = 1 if v_start > 0 else -1
    for tw in walls:
        if not np.isfinite(tw) or t0 + tw > t1:
            break
        out.append((t0 + float(tw), side))
        side = -side
    return out
