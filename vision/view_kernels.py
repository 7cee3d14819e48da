"""Compiled mapping between the cloth (table mm) and the recorded frame, for the detectors' per-ball geometry.

The same arithmetic as ``calibration.mapping.Calibration``: the homography, then the radial lens model
``k1, k2`` (``distort_px``), and back: OpenCV's ``undistortPoints`` (five fixed-point iterations with the
camera matrix as the new projection, which is what ``cv2.undistortPoints`` does by default), then the inverse
homography. ``vision.parallax`` passes a calibration's arrays once (``lens_arrays``); the tests compare every
function with the ``Calibration`` methods.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_UNDISTORT_ITERATIONS = 5  # cv2.undistortPoints' default criteria: 5 iterations, no tolerance test


@numba.njit(cache=True, nogil=True, inline="always")
def _to_image(h: np.ndarray, k: np.ndarray, k1: float, k2: float, x: float, y: float) -> tuple[float, float]:
    """Distorted image pixel of the cloth point (x, y) mm."""
    q0 = x * h[0, 0] + y * h[0, 1] + h[0, 2]
    q1 = x * h[1, 0] + y * h[1, 1] + h[1, 2]
    q2 = x * h[2, 0] + y * h[2, 1] + h[2, 2]
    u = q0 / q2
    v = q1 / q2
    if k1 != 0.0 or k2 != 0.0:
        xn = (u - k[0, 2]) / k[0, 0]
        yn = (v - k[1, 2]) / k[1, 1]
        r2 = xn * xn + yn * yn
        s = 1.0 + k1 * r2 + k2 * r2 * r2
        u = xn * s * k[0, 0] + k[0, 2]
        v = yn * s * k[1, 1] + k[1, 2]
    return u, v


@numba.njit(cache=True, nogil=True, inline="always")
def _to_cloth(hinv: np.ndarray, k: np.ndarray, k1: float, k2: float, u: float, v: float) -> tuple[float, float]:
    """Cloth point (mm) of the distorted image pixel (u, v)."""
    if k1 != 0.0 or k2 != 0.0:
        x0 = (u - k[0, 2]) * (1.0 / k[0, 0])  # OpenCV multiplies by the reciprocal focal lengths
        y0 = (v - k[1, 2]) * (1.0 / k[1, 1])
        x = x0
        y = y0
        for _ in range(_UNDISTORT_ITERATIONS):
            r2 = x * x + y * y
            icdist = 1.0 / (1.0 + (k2 * r2 + k1) * r2)
            if icdist < 0.0:
                x = x0
                y = y0
                break
            x = x0 * icdist
            y = y0 * icdist
        u = x * k[0, 0] + k[0, 2]
        v = y * k[1, 1] + k[1, 2]
    q0 = u * hinv[0, 0] + v * hinv[0, 1] + hinv[0, 2]
    q1 = u * hinv[1, 0] + v * hinv[1, 1] + hinv[1, 2]
    q2 = u * hinv[2, 0] + v * hinv[2, 1] + hinv[2, 2]
    return q0 / q2, q1 / q2


@numba.njit(cache=True, nogil=True)
def table_to_image(h: np.ndarray, k: np.ndarray, k1: float, k2: float, pts: np.ndarray) -> np.ndarray:
    """Distorted image pixels (N x 2) of cloth points (N x 2 mm): ``Calibration.table_to_image``."""
    out = np.empty((pts.shape[0], 2))
    for i in range(pts.shape[0]):
        out[i, 0], out[i, 1] = _to_image(h, k, k1, k2, pts[i, 0], pts[i, 1])
    return out


@numba.njit(cache=True, nogil=True)
def image_to_table(hinv: np.ndarray, k: np.ndarray, k1: float, k2: float, px: np.ndarray) -> np.ndarray:
    """Cloth points (N x 2 mm) of distorted image pixels (N x 2): ``Calibration.image_to_table``."""
    out = np.empty((px.shape[0], 2))
    for i in range(px.shape[0]):
        out[i, 0], out[i, 1] = _to_cloth(hinv, k, k1, k2, px[i, 0], px[i, 1])
    return out


@numba.njit(cache=True, nogil=True)
def ball_px_to_table(
    hinv: np.ndarray, k: np.ndarray, k1: float, k2: float, cam: np.ndarray, radius_mm: float, px: np.ndarray
) -> np.ndarray:
    """Cloth points (N x 2 mm) below balls whose centres are imaged at ``px``: the ray through each meets the
    cloth at ``image_to_table``; it is cut at the centre's height instead (camera centre ``cam``, z < 0,
    more than ``radius_mm`` above the cloth)."""
    height = -cam[2]
    f = (height - radius_mm) / height
    out = np.empty((px.shape[0], 2))
    for i in range(px.shape[0]):
        gx, gy = _to_cloth(hinv, k, k1, k2, px[i, 0], px[i, 1])
        out[i, 0] = cam[0] + f * (gx - cam[0])
        out[i, 1] = cam[1] + f * (gy - cam[1])
    return out


@numba.njit(cache=True, nogil=True)
def view_geometry(
    h: np.ndarray,
    k: np.ndarray,
    k1: float,
    k2: float,
    cam: np.ndarray,
    reach_mm: float,
    min_tan: float,
    pts: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ball-centre rays meeting the cloth at ``pts`` (N x 2 mm): their image pixels, the balls' apparent
    radius (px: the larger image length of ``reach_mm`` along x and along y, the radius scaled to the cloth
    point's distance) and unit image vectors toward the camera where the view's tan from vertical is over
    ``min_tan`` (zero elsewhere); see ``vision.parallax.view_geometry``."""
    n = pts.shape[0]
    px = np.empty((n, 2))
    radius = np.empty(n)
    toward = np.zeros((n, 2))
    height = max(-cam[2], 1e-9)
    for i in range(n):
        x = pts[i, 0]
        y = pts[i, 1]
        u, v = _to_image(h, k, k1, k2, x, y)
        px[i, 0] = u
        px[i, 1] = v
        ux, uy = _to_image(h, k, k1, k2, x + reach_mm, y)
        vx, vy = _to_image(h, k, k1, k2, x, y + reach_mm)
        radius[i] = max(math.sqrt((ux - u) ** 2 + (uy - v) ** 2), math.sqrt((vx - u) ** 2 + (vy - v) ** 2))
        tx = cam[0] - x
        ty = cam[1] - y
        dist = math.sqrt(tx * tx + ty * ty)
        if dist / height > min_tan:
            sx, sy = _to_image(h, k, k1, k2, x + 10.0 * tx / dist, y + 10.0 * ty / dist)
            dx = sx - u
            dy = sy - v
            length = max(math.sqrt(dx * dx + dy * dy), 1e-9)
            toward[i, 0] = dx / length
            toward[i, 1] = dy / length
    return px, radius, toward
