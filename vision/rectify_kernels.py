"""The compiled loop of ``vision.rectify.TableRectifier.rectify_nearest``: each grid cell copies the frame
pixel nearest its point (the values ``cv2.remap`` with ``INTER_NEAREST`` and a constant black border gives)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def gather_nearest(frame: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The grid (``index``'s shape, 3 channels) of the frame pixels at ``index``: flat offsets of each
    cell's pixel in the C-contiguous uint8 BGR ``frame``, -1 for a cell whose pixel lies off the frame
    (black)."""
    h, w = index.shape
    out = np.empty((h, w, 3), np.uint8)
    src = frame.reshape(-1)
    dst = out.reshape(-1)
    flat = index.reshape(-1)
    for p in range(flat.shape[0]):
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
