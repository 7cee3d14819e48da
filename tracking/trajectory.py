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

    def at_xy(self, t: float) -> tuple[float, float]:
        """``at(t)`` as two floats (the same arithmetic, no array)."""
        u = t - self.t_ref
        return (self.cx[0] + self.cx[1] * u + self.cx[2] * u * u, self.cy[0] + self.cy[1] * u + self.cy[2] * u * u)

    def vel(self, t: float) -> np.ndarray:
        u = t - self.t_ref
        return np.array([self.cx[1] + 2 * self.cx[2] * u, self.cy[1] + 2 * self.cy[2] * u])

    @staticmethod
    def still(p: np.ndarray, t0: float, t1: float) -> PathFit:
        return PathFit(t0, (float(p[0]), 0.0, 0.0), (float(p[1]), 0.0, 0.0), t0, t1, 0.0, 1)


def fit_path(ts: np.ndarray, xy: np.ndarray, quadratic_from: int = 6, closed_form: bool = False) -> PathFit:
    """Least-squares fit of samples ``xy`` (N x 2) at times ``ts``; linear below ``quadratic_from`` samples
    (a ball with follow or draw may speed up after a contact, so the quadratic term is left free).

    ``closed_form``: solve the normal equations directly (``_normal_fit``) instead of numpy's SVD solve: the
    same fit to about 1e-10 mm in a third of the time, for the fits read only to judge (is a sample off the
    path?) or to smooth tracks.csv. The fits that time and place events keep the SVD solve, so an event
    coordinate that lies on a rounding boundary (a cushion point one radius from the nose) is unchanged."""
    ts = np.asarray(ts, dtype=float)
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    n = len(ts)
    if n == 0:
        raise ValueError("no samples to fit")
    t_ref = float(ts[-1])
    if n == 1:
        return PathFit.still(xy[0], float(ts[0]), float(ts[0]))
    deg = 2 if n >= quadratic_from else 1
    if closed_form:
        u = [t - t_ref for t in ts.tolist()]
        xs, ys = xy[:, 0].tolist(), xy[:, 1].tolist()
        solved = _normal_fit(u, xs, ys, deg)
        if solved is not None:
            cx, cy = solved
            rms = 0.0
            if n > deg + 1:
                ss = 0.0
                for ui, x, y in zip(u, xs, ys, strict=True):
                    ex = x - (cx[0] + cx[1] * ui + cx[2] * ui * ui)
                    ey = y - (cy[0] + cy[1] * ui + cy[2] * ui * ui)
                    ss += ex * ex + ey * ey
                rms = math.sqrt(ss / n)
            return PathFit(t_ref, cx, cy, float(ts[0]), float(ts[-1]), rms, n)
        # the times do not tell the terms apart (repeated timestamps): the SVD's least-norm fit below
    u_arr = ts - t_ref
    a = np.vander(u_arr, deg + 1, increasing=True)
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


_Coef = tuple[float, float, float]


def _normal_fit(u: list[float], xs: list[float], ys: list[float], deg: int) -> tuple[_Coef, _Coef] | None:
    """Least-squares polynomial coefficients (in powers of ``u``) of degree ``deg`` (1 or 2) for both axes, from
    the normal equations in a centred, scaled time ``s = (u - m) / h`` (on [-1, 1] their matrix is well
    conditioned, so this agrees with an SVD solve to rounding), converted back to powers of ``u``. None when
    the times cannot separate the terms."""
    n = len(u)
    m = sum(u) / n
    h = max(abs(ui - m) for ui in u)
    if not h > 0.0:
        return None
    x0, y0 = xs[-1], ys[-1]  # fitted relative to the last sample: smaller sums, less rounding
    s1 = s2 = s3 = s4 = bx0 = bx1 = bx2 = by0 = by1 = by2 = 0.0
    for ui, x, y in zip(u, xs, ys, strict=True):
        s = (ui - m) / h
        ss = s * s
        dx, dy = x - x0, y - y0
        s1 += s
        s2 += ss
        s3 += ss * s
        s4 += ss * ss
        bx0 += dx
        bx1 += s * dx
        bx2 += ss * dx
        by0 += dy
        by1 += s * dy
        by2 += ss * dy
    if deg == 1:
        det = n * s2 - s1 * s1
        if not abs(det) > 1e-12 * n * s2:
            return None
        ax = ((s2 * bx0 - s1 * bx1) / det, (n * bx1 - s1 * bx0) / det, 0.0)
        ay = ((s2 * by0 - s1 * by1) / det, (n * by1 - s1 * by0) / det, 0.0)
    else:
        # the symmetric 3 x 3 system [[n, s1, s2], [s1, s2, s3], [s2, s3, s4]] c = b, by cofactors
        c00 = s2 * s4 - s3 * s3
        c01 = s2 * s3 - s1 * s4
        c02 = s1 * s3 - s2 * s2
        c11 = n * s4 - s2 * s2
        c12 = s1 * s2 - n * s3
        c22 = n * s2 - s1 * s1
        det = n * c00 + s1 * c01 + s2 * c02
        if not abs(det) > 1e-12 * n * s2 * s4:
            return None
        ax = (
            (c00 * bx0 + c01 * bx1 + c02 * bx2) / det,
            (c01 * bx0 + c11 * bx1 + c12 * bx2) / det,
            (c02 * bx0 + c12 * bx1 + c22 * bx2) / det,
        )
        ay = (
            (c00 * by0 + c01 * by1 + c02 * by2) / det,
            (c01 * by0 + c11 * by1 + c12 * by2) / det,
            (c02 * by0 + c12 * by1 + c22 * by2) / det,
        )
    # a + b s + c s^2 with s = (u - m) / h, in powers of u
    k1, k2 = m / h, 1.0 / h

    def back(a: _Coef, base: float) -> _Coef:
        return (
            base + a[0] - a[1] * k1 + a[2] * k1 * k1,
            a[1] * k2 - 2.0 * a[2] * k1 * k2,
            a[2] * k2 * k2,
        )

    return back(ax, x0), back(ay, y0)


def solve_root(f: Callable[[float], float], lo: float, hi: float, steps: int = 24, last: bool = False) -> float | None:
    """A root of ``f`` in [lo, hi]: scan for the first sign change (``last``: the last one, the root nearest
    ``hi``), then bisect. None if there is none."""
    if hi <= lo:
        return None
    grid = np.linspace(lo, hi, steps + 1)
    vals = [f(float(g)) for g in grid]
    for i in reversed(range(steps)) if last else range(steps):
        a, b = vals[i], vals[i + 1]
        if last and b == 0:
            return float(grid[i + 1])
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


@dataclass(frozen=True)
class Hinge:
    """Two straight lines meeting at ``t``: a distance falling at ``before`` and rising at ``after`` (mm/s)."""

    t: float
    before: float
    after: float
    level: float  # the distance at ``t``


def fit_hinge(ts: np.ndarray, d: np.ndarray, lo: float, hi: float, steps: int = 48) -> Hinge | None:
    """Least-squares hinge through samples ``d`` at times ``ts``: ``d = level + before * min(t - tc, 0) +
    after * max(t - tc, 0)``, with the corner ``tc`` searched in [lo, hi]. A ball's distance to a cushion
    through a touch is such a V (a slow bounce: the ball decelerates little in a few frames), and its corner
    is the touch, timed to a fraction of a frame even when the samples around it are noisy. None with fewer
    than two samples on a side."""
    ts = np.asarray(ts, dtype=float)
    d = np.asarray(d, dtype=float)
    best: tuple[float, Hinge] | None = None
    for tc in np.linspace(lo, hi, steps + 1):
        u = ts - tc
        if int((u < 0).sum()) < 2 or int((u > 0).sum()) < 2:
            continue
        a = np.stack([np.ones_like(u), np.minimum(u, 0.0), np.maximum(u, 0.0)], axis=1)
        coef, *_ = np.linalg.lstsq(a, d, rcond=None)
        sse = float(((a @ coef - d) ** 2).sum())
        if best is None or sse < best[0]:
            best = (sse, Hinge(float(tc), float(coef[1]), float(coef[2]), float(coef[0])))
    return None if best is None else best[1]
