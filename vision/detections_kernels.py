"""The compiled value checks of ``vision.detections.Detections``: one pass over a frame's arrays in place of a
dozen small numpy reductions (a detector makes a ``Detections`` every frame)."""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, inline="always")
def _finite(a: np.ndarray) -> bool:
    """Whether every value of ``a`` (any layout) is finite."""
    for v in a.flat:  # noqa: SIM110 (a compiled loop: no generator for all())
        if not math.isfinite(v):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def first_invalid(
    px: np.ndarray,
    pos_mm: np.ndarray,
    radius_px: np.ndarray,
    confidence: np.ndarray,
    cls: np.ndarray,
    colour: np.ndarray,
    n_classes: int,
) -> int:
    """The first check (in ``Detections``' order) that the rows fail, or -1: 0 ``px``, 1 ``pos_mm``, 2
    ``radius_px``, 3 ``confidence`` hold a non-finite value, 5 ``colour`` does, 6 a class code lies outside
    0..n_classes-1, 7 a confidence outside [0, 1], 8 a radius is not positive (float64 arrays, int64 codes)."""
    if not _finite(px):
        return 0
    if not _finite(pos_mm):
        return 1
    if not _finite(radius_px):
        return 2
    if not _finite(confidence):
        return 3
    if not _finite(colour):
        return 5
    for c in cls:
        if c < 0 or c >= n_classes:
            return 6
    for c in confidence:
        if c < 0 or c > 1:
            return 7
    for r in radius_px:
        if r <= 0:
            return 8
    return -1
