"""The compiled per-cell loops of ``vision.cover``: each cell's colour against its own reference colour and its
group's (the cloth, or one ring of the rail), and the running update of both from the cells that match."""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, inline="always")
def _like(b: float, g: float, r: float, rb: float, rg: float, rr: float, dark_k: float, bright_k: float,
          chroma_min: float, chroma_rel: float) -> bool:  # fmt: skip
    """Is the colour (b, g, r) the reference colour (rb, rg, rr) scaled by a shade?"""
    rb, rg, rr = max(rb, 1.0), max(rg, 1.0), max(rr, 1.0)
    n2 = rb * rb + rg * rg + rr * rr
    k = (b * rb + g * rg + r * rr) / n2
    if k < dark_k or k > bright_k:
        return False
    db, dg, dr = b - k * rb, g - k * rg, r - k * rr
    return db * db + dg * dg + dr * dr <= max(chroma_min, chroma_rel * math.sqrt(n2)) ** 2


@numba.njit(cache=True, nogil=True)
def table_like(
    col: np.ndarray, ref: np.ndarray, group: np.ndarray, group_colour: np.ndarray, dark_k: float, bright_k: float,
    chroma_min: float, chroma_rel: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(like its own reference or its group's, like its group's): ny x nx bool, for cell colours ``col``
    (ny x nx x 3) against each cell's reference ``ref`` (same shape) and its group's colour
    (``group_colour[group[j, i]]``); cells of group -1 (not read) are False."""
    ny, nx = col.shape[0], col.shape[1]
    either = np.zeros((ny, nx), np.bool_)
    overall = np.zeros((ny, nx), np.bool_)
    for j in range(ny):
        for i in range(nx):
            gi = group[j, i]
            if gi < 0:
                continue
            b, g, r = col[j, i, 0], col[j, i, 1], col[j, i, 2]
            gc = group_colour[gi]
            o = _like(b, g, r, gc[0], gc[1], gc[2], dark_k, bright_k, chroma_min, chroma_rel)
            overall[j, i] = o
            either[j, i] = o or _like(
                b, g, r, ref[j, i, 0], ref[j, i, 1], ref[j, i, 2], dark_k, bright_k, chroma_min, chroma_rel
            )
    return either, overall


@numba.njit(cache=True, nogil=True)
def learn(
    col: np.ndarray, ref: np.ndarray, group: np.ndarray, group_colour: np.ndarray, where: np.ndarray, rate: float
) -> None:
    """Moves each cell's ``ref`` toward its colour by ``rate`` where ``where``, and each group's colour toward
    the mean colour of its cells there."""
    n_groups = group_colour.shape[0]
    total = np.zeros((n_groups, 3))
    count = np.zeros(n_groups)
    ny, nx = col.shape[0], col.shape[1]
    for j in range(ny):
        for i in range(nx):
            gi = group[j, i]
            if gi < 0 or not where[j, i]:
                continue
            for c in range(3):
                ref[j, i, c] += rate * (col[j, i, c] - ref[j, i, c])
                total[gi, c] += col[j, i, c]
            count[gi] += 1
    for gi in range(n_groups):
        if count[gi] > 0:
            for c in range(3):
                group_colour[gi, c] += rate * (total[gi, c] / count[gi] - group_colour[gi, c])
