"""Straight-path geometry on the cloth: distances between point sets and whether a path passes a ball.

Between two frames a ball runs (nearly) straight; these tests ask whether that run could have met another
ball. Pure numpy on table millimetres; no track state.
"""

from __future__ import annotations

import numpy as np


def distances(p: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Euclidean distances of the points ``z`` (m x 2) from each of ``p`` (n x 2): n x m, each row the same
    numbers as ``np.linalg.norm(z - p[i], axis=1)``."""
    dx = z[None, :, 0] - p[:, 0:1]
    dy = z[None, :, 1] - p[:, 1:2]
    return np.sqrt(dx * dx + dy * dy)


def paths_through(a: np.ndarray, ends: np.ndarray, q: np.ndarray, width: float) -> np.ndarray:
    """For each straight path from ``a`` to one of ``ends`` (n x 2): does any point of ``q`` (m x 2) lie
    beside it, nearer than ``width``, somewhere between its ends?"""
    d = ends - a
    length = np.hypot(d[:, 0], d[:, 1])
    u = d / np.maximum(length, 1e-9)[:, None]
    w = q - a
    along = w @ u.T  # (m x n)
    perp = np.abs(w[:, :1] * u[:, 1] - w[:, 1:] * u[:, 0])
    return ((along > 0.0) & (along < length) & (perp < width)).any(axis=0)


def near_paths(a: np.ndarray, ends: np.ndarray, q: np.ndarray, width: float) -> np.ndarray:
    """A cheap screen for ``paths_through``: for each track ``k`` (its path starting at ``a[k]``, k x 2) and each
    end ``ends[k, j]`` (k x n x 2; 1 x n x 2: the same ends for every track), could a point of ``q`` lie within
    ``width`` of the path between its ends? A point beside the path within its span is within half its length
    plus ``width`` of its midpoint; the screen allows a micrometre more, so it is True wherever
    ``paths_through`` could be."""
    mx = 0.5 * (a[:, None, 0] + ends[:, :, 0])
    my = 0.5 * (a[:, None, 1] + ends[:, :, 1])
    half = 0.5 * np.hypot(ends[:, :, 0] - a[:, None, 0], ends[:, :, 1] - a[:, None, 1])
    dist = np.hypot(q[None, None, :, 0] - mx[:, :, None], q[None, None, :, 1] - my[:, :, None])
    return (dist < (half + width + 1e-3)[:, :, None]).any(axis=2)


def runs_into(last: np.ndarray, pred: np.ndarray, rest_q: np.ndarray, reach: float) -> np.ndarray:
    """For each ball (its run from where it was last seen, ``last``, to where it is predicted now, ``pred``,
    both n x 2): does that straight run meet a resting ball (``rest_q``: the resting balls' places), its centre
    passing within ``reach`` of one? Its prediction lies on one, or the run passes one (tested exactly only
    where a ball is near the run at all)."""
    n = len(last)
    if not len(rest_q) or not n:
        return np.zeros(n, bool)
    on = np.hypot(rest_q[None, :, 0] - pred[:, 0:1], rest_q[None, :, 1] - pred[:, 1:2]).min(axis=1) < reach
    maybe = near_paths(last, pred[:, None, :], rest_q, reach)[:, 0]
    out = on.copy()
    for r in np.flatnonzero(~on & maybe):
        out[r] = bool(paths_through(last[r], pred[r][None, :], rest_q, reach)[0])
    return out
