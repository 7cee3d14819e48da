"""Line crossings, solved on each finished path: a crossing counts where the path starts and ends clear of the
line (on is not over), or goes over and back inside one path by ``line_excursion_mm`` each way. A pure function
of the path (``segments.PathView``), the lines and the settings, returning ``Candidate`` records."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from calibration.table import TableModel
from tracking.detect.candidate import Candidate, Evidence, confidence
from tracking.detect.geometry import gap_to_line
from tracking.detect.segments import PathView
from tracking.detect.settings import LineSettings
from tracking.trajectory import fit_path, solve_root

# seconds of samples either side of the first one past a line that time the crossing (never fewer than
# ``FIT_MIN`` samples): a ball crossing a line at a shallow angle moves only a fraction of a millimetre a frame
# across it, less than a detection's noise, so the first sample past the line is as often a noisy one as the
# true one; the path fitted through this span places the crossing wherever in it the path meets the line (a
# rolling ball's path over a quarter second is still a smooth curve, quadratic in time)
FIT_HALF_S = 0.13
FIT_MIN = 4


class LineView(NamedTuple):
    """A line of the table as the detector reads it: its name, the axis it is measured on (0: x, 1: y) and where
    it lies on that axis (mm)."""

    name: str
    axis: int
    value_mm: float


def table_lines(table: TableModel) -> tuple[LineView, ...]:
    """The lines a crossing of counts for (the back line is a cushion's, not a line's)."""
    return tuple(LineView(n, 0 if ln.axis == "x" else 1, ln.value_mm) for n, ln in table.lines.items() if n != "back")


def crossings(
    path: PathView, lines: tuple[LineView, ...], s: LineSettings, dt: float, radius_mm: float
) -> list[Candidate]:
    """The lines ``path`` crossed, in the order of ``lines``: where it starts and ends clear of a line
    (``line_margin_mm``, more by ``path.from_rest_mm``), or goes over and back inside it by
    ``line_excursion_mm`` each way, or starts at a kink on a line the ball came to from its other side
    (``through_kink``)."""
    ps = path.ps
    out: list[Candidate] = []
    for line in lines:
        axis, val = line.axis, line.value_mm
        s0, s1 = ps[0][axis] - val, ps[-1][axis] - val
        if abs(s0) < s.line_margin_mm and path.before is not None:
            out += through_kink(path, path.before, line, s.line_margin_mm, dt, radius_mm)
        over = excursions(np.array([q[axis] for q in ps]) - val, s.line_excursion_mm)
        if len(over) >= 2:  # over the line and back (or more) inside one straight path: a slow jostle
            out += [crossing(path, line, k, sa, sb, dt, radius_mm) for k, sa, sb in over]
            continue
        if s0 * s1 >= 0 or min(abs(s0) - path.from_rest_mm, abs(s1)) < s.line_margin_mm:
            continue  # no crossing, or a path starting or ending on the line (001 2.1.6: on is not over)
        # the first sample past the line
        k = next(j for j in range(1, len(ps)) if (ps[j][axis] - val) * s0 <= 0)
        out.append(crossing(path, line, k, s0, s1, dt, radius_mm))
    return out


def through_kink(
    path: PathView, before: PathView, line: LineView, margin: float, dt: float, radius_mm: float
) -> list[Candidate]:
    """A path that starts at a kink on ``line`` (within ``margin``): the ball was moving through the kink, not
    resting on the line, so it came from the side it was last clearly on in the path ``before`` (read after that
    path's start: that is the kink before it, or a resting place neighbours' edges pull) and went to the side
    this path is first clearly on. A crossing where the two differ, once (neither path was clear of the line at
    both ends; a later change of side inside this path is ``excursions``'), timed on the path that first went
    past the line: a fit never spans the bend. A side is read as in ``excursions`` (one stray detection is no
    side); a ball that stays on the line after the kink (it stops on it) is on no side."""
    axis, val = line.axis, line.value_mm
    off_in = np.array([q[axis] for q in before.ps]) - val
    off_out = np.array([q[axis] for q in path.ps]) - val
    side_in = [j for j, v in enumerate(smoothed(off_in)) if j >= 1 and abs(v) >= margin]
    side_out = next((float(v) for j, v in enumerate(smoothed(off_out)) if j >= 1 and abs(v) >= margin), None)
    if not side_in or side_out is None or off_in[side_in[-1]] * side_out > 0:
        return []  # never clearly off the line on one side of the kink, or the same side on both
    j = side_in[-1]
    s0 = float(off_in[j])
    k = next((i for i in range(j + 1, len(off_in)) if off_in[i] * s0 <= 0), None)
    if k is not None:
        return [crossing(before, line, k, s0, side_out, dt, radius_mm)]
    k = next(i for i in range(1, len(off_out)) if off_out[i] * s0 <= 0)
    return [crossing(path, line, k, s0, side_out, dt, radius_mm)]


def crossing(path: PathView, line: LineView, k: int, s0: float, s1: float, dt: float, radius_mm: float) -> Candidate:
    """A crossing of ``line`` between samples ``k - 1`` and ``k`` (the first past it), from a side ``s0`` mm off it
    to one ``s1`` off: timed on the path fitted around it (``FIT_HALF_S``). Less sure where an end came within a
    quarter radius of the line (a ball on the line is not over it)."""
    ts, ps, axis, val = path.ts, path.ps, line.axis, line.value_mm
    half = max(FIT_MIN, round(FIT_HALF_S / dt))
    lo, hi = max(0, k - half), min(len(ps), k + half)
    f = fit_path(np.array(ts[lo:hi]), np.array(ps[lo:hi]), quadratic_from=7)
    root = nearest_root(gap_to_line(f, axis, val), ts[lo], ts[hi - 1], 0.5 * (ts[k - 1] + ts[k]))
    if root is None:
        root = ts[k - 1] + (ts[k] - ts[k - 1]) * (s0 / (s0 - (ps[k][axis] - val)) if ps[k][axis] != val else 1.0)
    clear = min(abs(s0), abs(s1))
    evidence: Evidence = "crossing_near" if clear < radius_mm / 4 else "crossing"
    direction = ("+" if s1 > s0 else "-") + ("x" if axis == 0 else "y")
    conf = confidence(evidence, samples=hi - lo, speed_mm_s=float(np.linalg.norm(f.vel(root))))
    return Candidate("line_cross", (path.ball,), line.name, root, None, clear, evidence, conf, direction=direction)


def excursions(off: np.ndarray, margin: float) -> list[tuple[int, float, float]]:
    """The changes of side along a path's samples, ``off`` their signed distances to a line: for each, the first
    sample past the line, the deepest offset on the side left and on the side reached. A side counts from a
    sample ``margin`` beyond the line, read as the median of it and its neighbours (one stray detection is no
    side)."""
    if len(off) < 3:
        return []
    smooth = smoothed(off)
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


def smoothed(off: np.ndarray) -> np.ndarray:
    """Each sample's offset read as the median of it and its neighbours (the ends as they are)."""
    if len(off) < 3:
        return off
    return np.concatenate([off[:1], np.median(np.stack([off[:-2], off[1:-1], off[2:]]), axis=0), off[-1:]])


def nearest_root(f: Callable[[float], float], lo: float, hi: float, near: float) -> float | None:
    """The root of ``f`` in [lo, hi] nearest ``near`` (a fitted path may meet a line twice in a long span)."""
    before = solve_root(f, lo, near, last=True) if near > lo else None
    after = solve_root(f, near, hi) if hi > near else None
    if before is None or after is None:
        return before if after is None else after
    return before if near - before <= after - near else after
