"""Straight, decelerating ball paths: fitting detections between events and solving event times on them.

Between two events a ball moves along a straight line with a slowly changing speed, so each coordinate is
a low-order polynomial of time over a short window: linear for a few samples, quadratic (constant
deceleration) for more. Events are found where such a fit stops predicting the next detection; their
sub-frame times are solved on the fits (a cushion where the incoming path is one radius from the nose line,
a contact where two incoming paths are one diameter apart).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PathFit:
    """``p(t) = c0 + c1 (t - t_ref) + c2 (t - t_ref)^2`` per axis, valid around [t0, t1]."""

    t_ref: float
    cx: tuple[float, float, float]
    cy: tuple[float, float, float]
    t0: float
    t1: float
    rms_mm: float = 0.0
    n: int = 0

    def at(self, t: float) -> np.ndarray:
        u = t - self.t_ref
        return np.array(
            [self.cx[0] + self.cx[1] * u + self.cx[2] * u * u, self.cy[0] + self.cy[1] * u + self.cy[2] * u * u]
        )

    def vel(self, t: float) -> np.ndarray:
        u = t - self.t_ref
        return np.array([self.cx[1] + 2 * self.cx[2] * u, self.cy[1] + 2 * self.cy[2] * u])

    @staticmethod
    def still(p: np.ndarray, t0: float, t1: float) -> PathFit:
        return PathFit(t0, (float(p[0]), 0.0, 0.0), (float(p[1]), 0.0, 0.0), t0, t1, 0.0, 1)


def fit_path(ts: np.ndarray, xy: np.ndarray, quadratic_from: int = 6) -> PathFit:
    """Least-squares fit of samples ``xy`` (N x 2) at times ``ts``; linear below ``quadratic_from`` samples
    (a ball with follow or draw may speed up after a contact, so the quadratic term is left free)."""
    ts = np.asarray(ts, dtype=float)
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    n = len(ts)
    if n == 0:
        raise ValueError("no samples to fit")
    t_ref = float(ts[-1])
    if n == 1:
        return PathFit.still(xy[0], float(ts[0]), float(ts[0]))
    u = ts - t_ref
    deg = 2 if n >= quadratic_from else 1
    a = np.vander(u, deg + 1, increasing=True)
    coef, *_ = np.linalg.lstsq(a, xy, rcond=None)
    full = np.zeros((3, 2))
    full[: deg + 1] = coef
    res = xy - a @ coef
    rms = float(np.sqrt(np.mean(np.sum(res * res, axis=1)))) if n > deg + 1 else 0.0
    return PathFit(
        t_ref,
        (float(full[0, 0]), float(full[1, 0]), float(full[2, 0])),
        (float(full[0, 1]), float(full[1, 1]), float(full[2, 1])),
        float(ts[0]),
        float(ts[-1]),
        rms,
        n,
    )


def solve_root(f: Callable[[float], float], lo: float, hi: float, steps: int = 24) -> float | None:
    """A root of ``f`` in [lo, hi]: scan for the first sign change, then bisect. None if there is none."""
    if hi <= lo:
        return None
    grid = np.linspace(lo, hi, steps + 1)
    vals = [f(float(g)) for g in grid]
    for i in range(steps):
        a, b = vals[i], vals[i + 1]
        if a == 0:
            return float(grid[i])
        if a * b < 0:
            x0, x1, f0 = float(grid[i]), float(grid[i + 1]), a
            for _ in range(40):
                m = 0.5 * (x0 + x1)
                fm = f(m)
                if f0 * fm <= 0:
                    x1 = m
                else:
                    x0, f0 = m, fm
            return 0.5 * (x0 + x1)
    return None


def closest_time(f: Callable[[float], float], lo: float, hi: float, steps: int = 24) -> float:
    """The time in [lo, hi] where ``f`` (a distance) is smallest (grid search, then golden refinement)."""
    grid = np.linspace(lo, hi, steps + 1)
    vals = [f(float(g)) for g in grid]
    i = int(np.argmin(vals))
    a, b = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, steps)])
    g = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        c, d = b - g * (b - a), a + g * (b - a)
        if f(c) < f(d):
            b = d
        else:
            a = c
    return 0.5 * (a + b)


def intersect_paths(old: PathFit, new: PathFit, lo: float, hi: float) -> float:
    """Time of a kink between an incoming and an outgoing path: where the two fitted paths come closest."""
    return closest_time(lambda t: float(np.linalg.norm(old.at(t) - new.at(t))), lo, hi)
