"""Compiled loops of the classical detector (``vision.classical``): numba kernels for the parts that
were many small numpy calls per frame, each doing exactly what the array code it replaced did."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def vote_kernel(
    gx: np.ndarray,
    gy: np.ndarray,
    mag: np.ndarray,
    near_fg: np.ndarray,
    threshold: float,
    steps: np.ndarray,
    wgt_scale: np.float32,
) -> np.ndarray:
    """The vote accumulator (float32, the image's shape) of the edge pixels (``mag`` over ``threshold``)
    on ``near_fg``: each votes its weight min(mag ``wgt_scale``, 1) at ``steps`` along its unit gradient
    (float32 arithmetic, rounded half to even), the votes falling off the image dropped. The sums run in
    float64 in the order ``np.bincount`` took them (step by step, edge pixels in row-major order)."""
    h, w = mag.shape
    xs = []
    ys = []
    ux = []
    uy = []
    wg = []
    thr = np.float32(threshold)
    one = np.float32(1.0)
    for y in range(h):
        for x in range(w):
            m = mag[y, x]
            if m > thr and near_fg[y, x] != 0:
                xs.append(np.float32(x))
                ys.append(np.float32(y))
                ux.append(gx[y, x] / m)
                uy.append(gy[y, x] / m)
                wg.append(min(m * wgt_scale, one))
    acc = np.zeros((h, w))
    n = len(xs)
    for s in steps:
        for i in range(n):
            xi = int(np.rint(xs[i] + s * ux[i]))
            yi = int(np.rint(ys[i] + s * uy[i]))
            if 0 <= xi < w and 0 <= yi < h:
                acc[yi, xi] += np.float64(wg[i])
    return acc.astype(np.float32)
