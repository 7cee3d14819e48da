"""Distances from fitted paths to the table's surfaces, as functions of time for the root finders, and small
polyline helpers shared by the detectors."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from calibration.table import Cushion, Jaw
from tracking.trajectory import PathFit, solve_root

if TYPE_CHECKING:
    pass


def valleys(off: np.ndarray, depth: float, where: np.ndarray | None = None) -> list[tuple[int, float, float]]:
    """The bottoms of the dips of ``off`` to ``depth`` or below (index; only samples ``where`` count, if given),
    each with the highest ``off`` between it and the dip before it, and between it and the next (or the ends)."""
    low = np.flatnonzero((off <= depth) if where is None else (off <= depth) & where)
    if len(low) == 0:
        return []
    runs = np.split(low, np.flatnonzero(np.diff(low) > 1) + 1)  # each dip: a run of samples at or below depth
    ks = [int(r[np.argmin(off[r])]) for r in runs]
    bounds = [0, *ks, len(off) - 1]
    out = []
    for j, k in enumerate(ks):
        lo, hi = bounds[j], bounds[j + 2]
        before = float(off[lo:k].max()) if k > lo else float(off[k])
        after = float(off[k + 1 : hi + 1].max()) if hi > k else float(off[k])
        out.append((k, before, after))
    return out


def polyline_at(ts: list[float], arr: np.ndarray, t: float) -> np.ndarray:
    """The point at time ``t`` on the polyline of samples ``arr`` (N x 2) at times ``ts``."""
    return np.array([np.interp(t, ts, arr[:, 0]), np.interp(t, ts, arr[:, 1])])


def both_ways(root: float | None, back_gap: Callable[[float], float], new: PathFit, lo: float) -> float | None:
    """A mirror bounce: the outgoing path ``new``, run back, meets the surface (``back_gap``: its gap to it) when
    the incoming one did (``root``). Each is off where the break between them fell a sample late or early (a
    sample after the bounce on the incoming path makes it late), so the touch is the mean of the two, where both
    meet it (and the outgoing path has three samples at least). The path run back is searched from its start
    backwards (the last root before it): run on through a jaw, it meets the jaw's surface a second time, earlier,
    from inside the rail."""
    back = solve_root(back_gap, lo, new.t0, last=True) if new.n >= 3 and root is not None else None
    return root if back is None or root is None else 0.5 * (root + back)


def gap_to_point(path: PathFit, q: np.ndarray, dist: float) -> Callable[[float], float]:
    return lambda u: float(np.linalg.norm(path.at(u) - q)) - dist


def gap_between(a: PathFit, b: PathFit, dist: float) -> Callable[[float], float]:
    return lambda u: float(np.linalg.norm(a.at(u) - b.at(u))) - dist


def gap_to_cushion(path: PathFit, cu: Cushion, radius: float) -> Callable[[float], float]:
    return lambda u: cu.offset(as_pt(path.at(u))) - radius


def gap_to_jaw(path: PathFit, jaw: Jaw, radius: float) -> Callable[[float], float]:
    return lambda u: jaw.distance(as_pt(path.at(u))) - radius


def gap_to_line(path: PathFit, axis: int, value: float) -> Callable[[float], float]:
    return lambda u: float(path.at(u)[axis]) - value


def as_pt(a: np.ndarray | tuple[float, float] | None) -> tuple[float, float]:
    if a is None:
        return (math.nan, math.nan)
    return (round(float(a[0]), 2), round(float(a[1]), 2))
