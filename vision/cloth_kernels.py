"""The compiled loop of ``vision.cloth.ClothModel.foreground_mask``: every pixel's brightness and chroma
against the cloth colour and its not-cloth test, in one pass (the arithmetic ``cv2.transform`` and the
comparisons do, value for value on the OpenCV build this was measured on)."""

from __future__ import annotations

import numba
import numpy as np

from vision.kernel_ops import fma32


@numba.njit(cache=True, nogil=True)
def foreground_kernel(
    bgr: np.ndarray,
    surface: np.ndarray,
    dark_ok: np.ndarray,
    y0: int,
    x0: int,
    basis: np.ndarray,
    chroma_thr: np.float32,
    bright_k: np.float32,
    dark_k: np.float32,
) -> np.ndarray:
    """uint8 0/255: pixels of ``bgr`` on ``surface`` whose chroma residual exceeds ``chroma_thr``, brighter
    than ``bright_k`` times the cloth, or darker than ``dark_k`` times it where ``dark_ok``; ``bgr``'s pixel
    (i, j) has the masks' values at (y0 + i, x0 + j); ``bgr`` must be C-contiguous. ``basis``: the 3 x 3
    float32 rows (brightness, two chroma directions) of ``ClothModel.basis``."""
    h, w = bgr.shape[0], bgr.shape[1]
    out = np.zeros((h, w), np.uint8)
    b00, b01, b02 = basis[0, 0], basis[0, 1], basis[0, 2]
    b10, b11, b12 = basis[1, 0], basis[1, 1], basis[1, 2]
    b20, b21, b22 = basis[2, 0], basis[2, 1], basis[2, 2]
    p0 = np.empty(w, np.float32)
    p1 = np.empty(w, np.float32)
    p2 = np.empty(w, np.float32)
    flat = bgr.reshape(-1)
    for i in range(h):
        row = flat[i * w * 3 : (i + 1) * w * 3]
        srow = surface[y0 + i, x0 : x0 + w]
        drow = dark_ok[y0 + i, x0 : x0 + w]
        orow = out[i]
        # One row's channels as float32 planes (a loop per channel over the flat row: loops that vectorise,
        # where one loop over the pixels' three channels does not), then the test over them.
        for j in range(w):
            p0[j] = row[3 * j]
        for j in range(w):
            p1[j] = row[3 * j + 1]
        for j in range(w):
            p2[j] = row[3 * j + 2]
        for j in range(w):
            v0 = p0[j]
            v1 = p1[j]
            v2 = p2[j]
            k = _transform3(v0, v1, v2, b00, b01, b02)
            e1 = _transform3(v0, v1, v2, b10, b11, b12)
            e2 = _transform3(v0, v1, v2, b20, b21, b22)
            chroma = np.float32(np.sqrt(np.float32(e1 * e1) + np.float32(e2 * e2)))
            fg = (chroma > chroma_thr) | (k > bright_k) | ((k < dark_k) & (drow[j] != 0))
            orow[j] = np.uint8(255) if fg & (srow[j] != 0) else np.uint8(0)
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _transform3(
    v0: np.float32, v1: np.float32, v2: np.float32, m0: np.float32, m1: np.float32, m2: np.float32
) -> np.float32:
    """One row of ``cv2.transform`` (1 x 3) as this OpenCV build computes it: fma(m2, v2, fma(m0, v0, m1 v1))."""
    return fma32(m2, v2, fma32(m0, v0, m1 * v1))


@numba.njit(cache=True, nogil=True)
def _extreme_2x2(src: np.ndarray, take_max: bool) -> np.ndarray:
    """Each pixel's minimum (or maximum) over itself and its neighbours up, left and up-left; neighbours off the
    image are left out."""
    h, w = src.shape
    out = np.empty((h, w), np.uint8)
    for y in range(h):
        for x in range(w):
            v = src[y, x]
            if x > 0:
                v = max(v, src[y, x - 1]) if take_max else min(v, src[y, x - 1])
            if y > 0:
                v = max(v, src[y - 1, x]) if take_max else min(v, src[y - 1, x])
                if x > 0:
                    v = max(v, src[y - 1, x - 1]) if take_max else min(v, src[y - 1, x - 1])
            out[y, x] = v
    return out


@numba.njit(cache=True, nogil=True)
def open_2x2(src: np.ndarray) -> np.ndarray:
    """``cv2.morphologyEx(src, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))``: an erosion, then a dilation, each
    over the pixel and its neighbours up, left and up-left (the 2 x 2 kernel's anchor is its lower right
    cell), pixels off the image counting as 255 for the erosion and 0 for the dilation."""
    return _extreme_2x2(_extreme_2x2(src, False), True)


@numba.njit(cache=True, nogil=True)
def opened_foreground(
    bgr: np.ndarray,
    surface: np.ndarray,
    dark_ok: np.ndarray,
    y0: int,
    x0: int,
    basis: np.ndarray,
    chroma_thr: np.float32,
    bright_k: np.float32,
    dark_k: np.float32,
) -> np.ndarray:
    """``foreground_kernel``'s mask opened by ``open_2x2``: what the detector's fine grid looks at."""
    return open_2x2(foreground_kernel(bgr, surface, dark_ok, y0, x0, basis, chroma_thr, bright_k, dark_k))


@numba.njit(cache=True, nogil=True)
def masked_median_bgr(bgr: np.ndarray, mask: np.ndarray, step: int) -> tuple[np.ndarray, int]:
    """Per channel, the median (float64; the mean of the two middle values for an even count, as
    ``np.median``) of the uint8 pixels of ``bgr`` on every ``step``-th row and column where ``mask`` is set,
    counted in a histogram; and how many pixels that is."""
    hist = np.zeros((3, 256), np.int64)
    n = 0
    for y in range(0, bgr.shape[0], step):
        for x in range(0, bgr.shape[1], step):
            if mask[y, x] > 0:
                n += 1
                for c in range(3):
                    hist[c, bgr[y, x, c]] += 1
    out = np.zeros(3)
    if n == 0:
        return out, 0
    lo = (n - 1) // 2  # the middle value's rank (0-based), and the next one's for an even count
    hi = n // 2
    for c in range(3):
        seen = 0
        v_lo = -1
        v_hi = -1
        for v in range(256):
            seen += hist[c, v]
            if v_lo < 0 and seen > lo:
                v_lo = v
            if seen > hi:
                v_hi = v
                break
        out[c] = (v_lo + v_hi) / 2.0
    return out, n
