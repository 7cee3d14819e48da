"""Line crossings, solved on each finished path: a crossing counts where the path starts and ends clear of the
line (on is not over), or goes over and back inside one path by ``line_excursion_mm`` each way."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from calibration.contract import Event
from tracking.detect import resolve
from tracking.detect.candidate import Candidate, Evidence, confidence
from tracking.detect.geometry import (
    gap_to_line,
)
from tracking.detect.segments import Ball
from tracking.trajectory import fit_path, solve_root

if TYPE_CHECKING:
    from tracking.extractor import EventExtractor


def path_lines(
    ex: EventExtractor, b: Ball, ts: list[float], ps: list[np.ndarray], from_rest: float, out: list[Event]
) -> None:
    """The lines a path (samples ``ts``, ``ps``, from its start to its end) crossed."""
    for name, axis, val in ex.lines:
        s0, s1 = ps[0][axis] - val, ps[-1][axis] - val
        over = excursions(np.array([q[axis] for q in ps]) - val, ex.s.lines.line_excursion_mm)
        if len(over) >= 2:  # over the line and back (or more) inside one straight path: a slow jostle
            for k, sa, sb in over:
                line_cross(ex, b, name, axis, val, ts, ps, k, sa, sb, out)
            continue
        if s0 * s1 >= 0 or min(abs(s0) - from_rest, abs(s1)) < ex.s.lines.line_margin_mm:
            continue  # no crossing, or a path starting or ending on the line (001 2.1.6: on is not over)
        # the first sample past the line
        k = next(j for j in range(1, len(ps)) if (ps[j][axis] - val) * s0 <= 0)
        line_cross(ex, b, name, axis, val, ts, ps, k, s0, s1, out)


def line_cross(
    ex: EventExtractor,
    b: Ball,
    name: str,
    axis: int,
    val: float,
    ts: list[float],
    ps: list[np.ndarray],
    k: int,
    s0: float,
    s1: float,
    out: list[Event],
) -> None:
    """A crossing of line ``name`` between samples ``k - 1`` and ``k`` (the first past it), from a side
    ``s0`` mm off it to one ``s1`` off: timed on a local fit around it."""
    lo, hi = max(0, k - 4), min(len(ps), k + 4)
    f = fit_path(np.array(ts[lo:hi]), np.array(ps[lo:hi]), quadratic_from=7)
    lo_t, hi_t = ts[k - 1] - 0.5 * ex.dt, ts[k] + 0.5 * ex.dt
    root = solve_root(gap_to_line(f, axis, val), lo_t, hi_t)
    if root is None:
        root = ts[k - 1] + (ts[k] - ts[k - 1]) * (s0 / (s0 - (ps[k][axis] - val)) if ps[k][axis] != val else 1.0)
    near = min(abs(s0), abs(s1)) < ex.table.ball_radius_mm / 4
    direction = ("+" if s1 > s0 else "-") + ("x" if axis == 0 else "y")
    evidence: Evidence = "crossing_near" if near else "crossing"
    clear = min(abs(s0), abs(s1))
    c = Candidate("line_cross", (b.id,), name, root, None, clear, evidence, confidence(evidence), direction=direction)
    resolve.give(ex, c, out)


def excursions(off: np.ndarray, margin: float) -> list[tuple[int, float, float]]:
    """The changes of side along a path's samples, ``off`` their signed distances to a line: for each, the first
    sample past the line, the deepest offset on the side left and on the side reached. A side counts from a
    sample ``margin`` beyond the line, read as the median of it and its neighbours (one stray detection is no
    side)."""
    if len(off) < 3:
        return []
    smooth = np.concatenate([off[:1], np.median(np.stack([off[:-2], off[1:-1], off[2:]]), axis=0), off[-1:]])
    runs: list[list[float]] = []  # [side, deepest offset, first index, last index] of each side in turn
    for j, v in enumerate(smooth.tolist()):
        side = 1.0 if v >= margin else -1.0 if v <= -margin else 0.0
        if side == 0.0:
            continue
        if runs and runs[-1][0] == side:
            run = runs[-1]
            run[1] = v if abs(v) > abs(run[1]) else run[1]
            run[3] = j
        else:
            runs.append([side, v, j, j])
    out = []
    for a, b in pairwise(runs):
        lo, hi = int(a[3]), int(b[2])
        k = next((i for i in range(lo + 1, hi + 1) if off[i] * b[0] > 0), hi)
        out.append((k, a[1], b[1]))
    return out
