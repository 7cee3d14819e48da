"""Putting balls back on the table: exact positions in table millimetres, never overlapping a ball.

Two procedures cover the ten games:

* :func:`spot_on_line` (001 2.2.7, 2.5.3, 2.6.4, 2.8.2, 2.9.6, 2.10.3, 2.11.7): the back spot (third point);
  if it is taken, on the longitudinal line as close as possible to, but not frozen to, the blocking ball on
  the back-cushion side; if that part of the line is taken, on the centre-spot side. Several balls go
  frozen together in the order given (the Russian games give ascending numbers, digest A16), the first
  nearest the spot.
* :func:`spot_at_back_cushion` (001 2.4.6, 2.7.7): frozen to the middle of the back cushion; if taken,
  frozen to the back cushion as close as possible to the blocking ball, on the side the referee chooses
  (default: away from the cue ball, digest A17).

"Not frozen" leaves ``gap_mm`` between surfaces (more than the frozen tolerance of the table model).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from calibration.table import TableModel
from rules.shot import Point

EPS = 1e-6


class SpottingError(ValueError):
    """No free place on the table for a ball (cannot happen with 16 balls on a full table)."""


def _free(p: Point, occupied: Iterable[Point], min_dist: float) -> bool:
    return all(math.dist(p, q) >= min_dist - EPS for q in occupied)


def _gap(table: TableModel, gap_mm: float | None) -> float:
    return 2.0 * table.spec.frozen_tolerance_mm if gap_mm is None else gap_mm


def spot_on_line(
    table: TableModel,
    balls: Sequence[str],
    occupied: Mapping[str, Point],
    gap_mm: float | None = None,
) -> list[tuple[str, Point]]:
    """Positions for ``balls`` on the longitudinal line from the back spot (see module docstring)."""
    if not balls:
        return []
    D, R = table.ball_diameter_mm, table.ball_radius_mm
    clear = D + _gap(table, gap_mm)
    xs, y = table.spots["pyramid"]
    others = list(occupied.values())
    n = len(balls)
    x_max = table.length_mm - R
    x_min = R

    def chain(x0: float, step: float) -> list[Point] | None:
        pts = [(x0 + k * step, y) for k in range(n)]
        if any(not (x_min - EPS <= p[0] <= x_max + EPS) for p in pts):
            return None
        need = D if x0 == xs else clear
        if not _free(pts[0], others, need):
            return None
        if any(not _free(p, others, clear) for p in pts[1:]):
            return None
        return pts

    # Where a ball next to the line blocks, the nearest x just clear of it on each side.
    beyond, before = [xs], [xs]
    for q in others:
        dy = abs(q[1] - y)
        if dy < clear:
            dx = math.sqrt(clear * clear - dy * dy)
            beyond.append(q[0] + dx)
            before.append(q[0] - dx)
    for x0 in sorted(x for x in beyond if x >= xs - EPS):  # toward the back cushion
        pts = chain(x0, D)
        if pts is not None:
            return list(zip(balls, pts, strict=True))
    for x0 in sorted((x for x in before if x <= xs + EPS), reverse=True):  # toward the centre spot
        pts = chain(x0, -D)
        if pts is not None:
            return list(zip(balls, pts, strict=True))
    # No room for them together: one at a time, each as near the spot as the line allows.
    out: list[tuple[str, Point]] = []
    placed = dict(occupied)
    for b in balls:
        ((b2, p),) = spot_on_line_single(table, b, placed, clear)
        out.append((b2, p))
        placed[b2] = p
    return out


def spot_on_line_single(
    table: TableModel, ball: str, occupied: Mapping[str, Point], clear: float
) -> list[tuple[str, Point]]:
    R = table.ball_radius_mm
    xs, y = table.spots["pyramid"]
    others = list(occupied.values())
    candidates = [xs]
    for q in others:
        dy = abs(q[1] - y)
        if dy < clear:
            dx = math.sqrt(clear * clear - dy * dy)
            candidates += [q[0] + dx, q[0] - dx]
    ok = [x for x in candidates if R - EPS <= x <= table.length_mm - R + EPS and _free((x, y), others, clear)]
    if not ok:
        raise SpottingError(f"no free place on the longitudinal line for ball {ball}")
    back = [x for x in ok if x >= xs - EPS]
    x = min(back) if back else max(ok)
    return [(ball, (x, y))]


def spot_at_back_cushion(
    table: TableModel,
    balls: Sequence[str],
    occupied: Mapping[str, Point],
    prefer: str = "right",
) -> list[tuple[str, Point]]:
    """Positions frozen to the back (pyramid) cushion, nearest its middle (see module docstring).
    ``prefer`` is the side ("left": toward y = 0, "right": toward y = W) taken when the middle is taken
    and both sides have room."""
    D = table.ball_diameter_mm
    cu = table.cushions["pyramid"]
    x = table.back_cushion_middle[0]
    y_lo, y_hi = cu.start[1], cu.end[1]
    ym = table.width_mm / 2
    placed = dict(occupied)
    out: list[tuple[str, Point]] = []
    for b in balls:
        others = list(placed.values())
        cands = [ym]
        for q in others:
            dx = abs(q[0] - x)
            if dx < D:
                dy = math.sqrt(D * D - dx * dx)
                cands += [q[1] + dy, q[1] - dy]
        free = [c for c in cands if y_lo - EPS <= c <= y_hi + EPS and _free((x, c), others, D)]
        if not free:
            raise SpottingError(f"no free place at the back cushion for ball {b}")
        sign = 1.0 if prefer == "right" else -1.0

        def key(c: float, sign: float = sign) -> tuple[float, int]:
            return (round(abs(c - ym), 6), 0 if (c - ym) * sign >= 0 else 1)

        yb = min(free, key=key)
        out.append((b, (x, yb)))
        placed[b] = (x, yb)
    return out


def side_away_from(table: TableModel, cue: Point | None) -> str:
    """Digest A17: the referee's default side for back-cushion spotting, away from the cue ball."""
    if cue is None:
        return "right"
    return "left" if cue[1] > table.width_mm / 2 else "right"
