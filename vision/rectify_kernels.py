"""The compiled loop of ``vision.rectify.TableRectifier.rectify_nearest``: each grid cell copies the frame
pixel nearest its point (the values ``cv2.remap`` with ``INTER_NEAREST`` and a constant black border gives)."""

from __future__ import annotations

import numba
import numpy as np

from vision.kernel_ops import prefetch

PREFETCH_AHEAD = 64  # cells: a cold frame's pixels for the cells this far ahead are requested early


@numba.njit(cache=True, nogil=True)
def gather_nearest(frame: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The grid (``index``'s shape, 3 channels) of the frame pixels at ``index``: flat offsets of each
    cell's pixel in the C-contiguous uint8 BGR ``frame``, -1 for a cell whose pixel lies off the frame
    (black). The pixels of the cells further on are prefetched: a frame just decoded is mostly not in the
    cache, and the cells' pixels lie scattered over a few hundred of its rows."""
    h, w = index.shape
    out = np.empty((h, w, 3), np.uint8)
    src = frame.reshape(-1)
    dst = out.reshape(-1)
    flat = index.reshape(-1)
    n = flat.shape[0]
    for p in range(n):
        if p + PREFETCH_AHEAD < n and flat[p + PREFETCH_AHEAD] >= 0:
            prefetch(src, flat[p + PREFETCH_AHEAD])
        q = flat[p]
        if q >= 0:
            dst[3 * p] = src[q]
            dst[3 * p + 1] = src[q + 1]
            dst[3 * p + 2] = src[q + 2]
        else:
            dst[3 * p] = 0
            dst[3 * p + 1] = 0
            dst[3 * p + 2] = 0
    return out


@numba.njit(cache=True, nogil=True)
def stack_windows(
    frame: np.ndarray,
    m1: np.ndarray,
    m2: np.ndarray,
    surface: np.ndarray,
    dark_ok: np.ndarray,
    ox: np.ndarray,
    oy: np.ndarray,
    size: int,
    out_m1: np.ndarray,
    out_m2: np.ndarray,
    out_surface: np.ndarray,
    out_dark: np.ndarray,
) -> None:
    """Copy the ``size`` x ``size`` windows at grid origins (``ox``, ``oy``) of the fine grid's remap maps
    (``m1``: CV_16SC2 pixel, ``m2``: interpolation index) and masks into the stacks ``out_*``, window ``i``
    at rows ``i * (size + 1)`` on (the row after each is left alone). The two frame rows each cell's bilinear
    sample reads are prefetched on the way, for the ``cv2.remap`` of the stack that follows."""
    fh, fw = frame.shape[0], frame.shape[1]
    src = frame.reshape(-1)
    for k in range(ox.shape[0]):
        x0 = ox[k]
        y0 = oy[k]
        r0 = k * (size + 1)
        for i in range(size):
            for j in range(size):
                px = np.int64(m1[y0 + i, x0 + j, 0])
                py = np.int64(m1[y0 + i, x0 + j, 1])
                out_m1[r0 + i, j, 0] = m1[y0 + i, x0 + j, 0]
                out_m1[r0 + i, j, 1] = m1[y0 + i, x0 + j, 1]
                out_m2[r0 + i, j] = m2[y0 + i, x0 + j]
                out_surface[r0 + i, j] = surface[y0 + i, x0 + j]
                out_dark[r0 + i, j] = dark_ok[y0 + i, x0 + j]
                if 0 <= px < fw and 0 <= py < fh - 1:
                    prefetch(src, (py * fw + px) * 3)
                    prefetch(src, ((py + 1) * fw + px) * 3)
