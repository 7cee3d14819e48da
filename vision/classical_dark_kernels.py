"""Dark balls the cloth mask reads as shadow, proposed by their shape on the coarse grid.

A black ball on a cloth of a like hue is the cloth colour scaled down, as a shadow is: per pixel the cloth
model cannot tell the two apart (``vision.cloth``: only what is darker than ``dark_k`` is not cloth, so such a
ball leaves two or three coarse cells, too few for a blob). Their shapes differ: a ball's shadow is a crescent
or a smear attached to the ball that casts it, while a ball is a dark disc of the ball's imaged size standing
alone on lit cloth. On the coarse grid's brightness relative to the cloth (``k``) a matched filter at ball
scale looks for such discs: inside 0.8 of the ball's radius most cells (not all: a black ball's lit top and
its number's spot are bright) are much darker than the ring of cloth at 1.2-1.6 radii around it (the ring's
own mean is the local cloth level, so a light fall-off across the table cancels), and that ring is clean cloth
(nothing not-cloth, nothing dark: no ball or shadow joined to it). Radii are measured on the ellipse a ball's
outline makes on the cloth plane: stretched by the view's obliquity (``stretch``) along the direction away
from the camera.
"""

from __future__ import annotations

import math

import numba
import numpy as np

# Inside the disc (0.8 of the ball's radius) a cell is dark under this fraction of the ring's cloth level; a
# shadow cast by overhead light onto the cloth reads 0.4-0.8, a black ball 0.2-0.4 (k against the cloth).
DARK_REL = 0.55
INNER = 0.8  # the disc's test cells lie inside this many ball radii (clear of the rim's mixed cells)
# A disc is tried only at cells this dark against the cloth model's colour (a black ball reads 0.2-0.4; the
# light's fall-off across a table stays above 0.7).
SEED_K = 0.5
RING_DIRTY = 0.1  # at most this share of the ring may be not-cloth or dark: a ball beside a shadow fills more
RING = (1.2, 1.6)  # the ring of cloth around it, in ball radii (clear of the rim and of a touching ball's inside)


@numba.njit(cache=True, nogil=True)
def dark_discs(
    k: np.ndarray,
    fg: np.ndarray,
    dark_ok: np.ndarray,
    stretch: np.ndarray,
    cam_col: float,
    cam_row: float,
    radius: float,
    seed_k: float,
    dark_rel: float,
    min_fill: float,
    max_ring_dirty: float,
) -> np.ndarray:
    """Dark discs of a ball's size on the coarse grid: rows (col, row, fill, dirt) of the cells where the share ``fill``
    of the disc's cells (within ``INNER`` radii) darker than ``dark_rel`` times the ring's mean brightness is at least
    ``min_fill``, and where at most ``max_ring_dirty`` of the ring's cells (``RING`` radii, all of them where
    ``dark_ok``) are not-cloth (``fg``) or that dark (``dirt``: their share). Only cells darker than ``seed_k`` (against
    the cloth) where ``dark_ok`` are tried; of any two within a ball's radius the one of more fill is kept (ties: the
    first in row-major order). ``k``: float32 brightness against the cloth; ``stretch``: the view's stretch of the cloth
    plane at each cell, along the direction from the camera's foot (``cam_col``, ``cam_row``, grid cells); ``radius``:
    the ball's radius in cells."""
    h, w = k.shape
    found = []
    # The ring's cells as the first pass meets them (brightness, not-cloth), for the dirt count once the ring's
    # cloth level is known: sized for the widest ring (the largest stretch).
    side = 2 * (math.ceil(RING[1] * radius * max(float(stretch.max()) if stretch.size else 1.0, 1.0)) + 1) + 1
    ring_k = np.empty(side * side, np.float32)
    ring_fg_cell = np.empty(side * side, np.bool_)
    for y in range(h):
        for x in range(w):
            if k[y, x] >= seed_k or dark_ok[y, x] == 0:
                continue
            s = stretch[y, x]
            ux = x - cam_col
            uy = y - cam_row
            n = math.sqrt(ux * ux + uy * uy)
            if n > 1e-9:
                ux /= n
                uy /= n
            else:
                ux, uy = 1.0, 0.0
            # The tests in the order that rejects most seeds soonest (the result is that of all of them): the ring
            # on the cloth where darkness may be a ball, its not-cloth share, the disc's fill, the ring's dark share.
            reach = math.ceil(RING[1] * radius * s) + 1
            ring_sum = 0.0
            ring_n = 0
            ring_fg = 0
            off = False
            for dy in range(-reach, reach + 1):
                yy = y + dy
                for dx in range(-reach, reach + 1):
                    xx = x + dx
                    e = _ellipse(dx, dy, ux, uy, s) / radius
                    if e < RING[0] or e > RING[1]:
                        continue
                    if yy < 0 or yy >= h or xx < 0 or xx >= w or dark_ok[yy, xx] == 0:
                        off = True  # the ring runs off the cloth where darkness may be a ball (a pocket, the rail)
                        break
                    ring_sum += k[yy, xx]
                    ring_k[ring_n] = k[yy, xx]
                    ring_fg_cell[ring_n] = fg[yy, xx] != 0
                    ring_n += 1
                    if fg[yy, xx] != 0:
                        ring_fg += 1
                if off:
                    break
            if off or ring_n == 0 or ring_fg > max_ring_dirty * ring_n:
                continue
            level = ring_sum / ring_n
            cut = dark_rel * level
            inner = 0
            dark = 0
            near = math.ceil(INNER * radius * s)  # an offset longer than this lies beyond INNER radii (s >= 1)
            for dy in range(-near, near + 1):
                yy = y + dy
                for dx in range(-near, near + 1):
                    xx = x + dx
                    if _ellipse(dx, dy, ux, uy, s) > INNER * radius:
                        continue
                    inner += 1
                    if k[yy, xx] < cut:  # (inside the ring, so on the grid and where darkness may be a ball)
                        dark += 1
            fill = dark / max(inner, 1)
            if fill < min_fill:
                continue
            dirty = 0
            for i in range(ring_n):
                if ring_fg_cell[i] or ring_k[i] < cut:
                    dirty += 1
            if dirty <= max_ring_dirty * ring_n:
                found.append((float(x), float(y), fill, dirty / ring_n))
    if len(found) == 0:
        return np.empty((0, 4))
    cand = np.array(found)
    # The best of any two within a ball's radius (on the grid): two balls' centres lie a diameter apart.
    order = np.argsort(-cand[:, 2], kind="mergesort")
    keep = np.zeros(len(cand), np.bool_)
    r2 = radius * radius
    for a in range(len(order)):
        i = order[a]
        clear = True
        for b in range(a):
            j = order[b]
            if keep[j]:
                dx = cand[i, 0] - cand[j, 0]
                dy = cand[i, 1] - cand[j, 1]
                if dx * dx + dy * dy <= r2:
                    clear = False
                    break
        keep[i] = clear
    return cand[keep]


@numba.njit(cache=True, nogil=True, inline="always")
def _ellipse(dx: float, dy: float, ux: float, uy: float, s: float) -> float:
    """The length of offset (dx, dy) on the cloth plane with its part along (ux, uy) divided by ``s``: the
    distance a ball's stretched outline measures as a circle's."""
    a = (dx * ux + dy * uy) / s
    b = -dx * uy + dy * ux
    return math.sqrt(a * a + b * b)
