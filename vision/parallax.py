"""Ball-centre image pixels <-> the cloth point below the ball: the parallax of a ball's height.

A ball's centre is one radius above the cloth. The ray from the camera through the image of that centre
meets the cloth beyond the ball (about 12 mm at a 20 degree view). ``Calibration.ball_px_to_table`` cuts
that ray at the centre's height from the camera pose the calibration implies; this module adds the
inverse (where a resting ball's centre appears) and the ball's apparent radius, which the detectors and
their benchmark need.
"""

from __future__ import annotations

import numpy as np

from calibration.mapping import Calibration, CalibrationError
from vision import view_kernels


def camera_centre_mm(cal: Calibration) -> np.ndarray:
    """The camera's optical centre in the table frame (z < 0: above the cloth)."""
    return np.asarray(cal.camera_centre_mm(), dtype=np.float64)


def lens_arrays(cal: Calibration) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float, np.ndarray]:
    """The calibration as the compiled mapping (``vision.view_kernels``) takes it: the homography (cloth ->
    undistorted px), its inverse, the camera matrix, ``k1``, ``k2`` and the camera centre (kept with the
    calibration, which does not change)."""
    cached = cal.__dict__.get("_lens_arrays")
    if cached is None:
        h = np.ascontiguousarray(cal.homography, dtype=np.float64)
        cached = (
            h, np.ascontiguousarray(np.linalg.inv(h)), np.ascontiguousarray(cal.camera_matrix, dtype=np.float64),
            float(cal.k1), float(cal.k2), camera_centre_mm(cal),
        )  # fmt: skip
        cal.__dict__["_lens_arrays"] = cached
    out: tuple[np.ndarray, np.ndarray, np.ndarray, float, float, np.ndarray] = cached
    return out


def ball_px_to_table(cal: Calibration, px: np.ndarray, radius_mm: float | None = None) -> np.ndarray:
    """Table mm (N x 2) of the cloth points below balls whose centres are imaged at ``px`` (N x 2): what
    ``Calibration.ball_px_to_table`` gives, by the compiled mapping."""
    pts = np.ascontiguousarray(px, dtype=np.float64).reshape(-1, 2)
    r = cal.table.ball_radius_mm if radius_mm is None else float(radius_mm)
    _, hinv, k, k1, k2, cam = lens_arrays(cal)
    if -cam[2] <= r:
        raise CalibrationError("camera below the ball centre height: cannot correct parallax")
    out: np.ndarray = view_kernels.ball_px_to_table(hinv, k, k1, k2, cam, r, pts)
    return out


def _height_ratio(cal: Calibration, radius_mm: float | None) -> tuple[np.ndarray, float]:
    r = cal.table.ball_radius_mm if radius_mm is None else float(radius_mm)
    c = camera_centre_mm(cal)
    return c, (-c[2] - r) / -c[2]  # a ball centre's distance to the camera, relative to its ray's cloth point


def ray_cloth_point(cal: Calibration, xy_mm: np.ndarray, radius_mm: float | None = None) -> np.ndarray:
    """Where the ray from the camera through the centre of a ball resting at ``xy_mm`` meets the cloth."""
    pts = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    c, s = _height_ratio(cal, radius_mm)
    return np.asarray(c[:2] + (pts - c[:2]) / s)


def table_to_ball_px(cal: Calibration, xy_mm: np.ndarray, radius_mm: float | None = None) -> np.ndarray:
    """Image pixels of the centres of balls resting at table points ``xy_mm`` (the inverse of the above)."""
    pts = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    return cal.table_to_image(ray_cloth_point(cal, pts, radius_mm))


def ball_radius_px(cal: Calibration, on_cloth: np.ndarray, radius_mm: float | None = None) -> np.ndarray:
    """Apparent radius (px) of balls whose centre rays meet the cloth at ``on_cloth`` (N x 2 mm): the
    ball's radius, scaled to the cloth point's distance, measured through the mapping along the table
    axis the view foreshortens least (a sphere's outline is not foreshortened)."""
    r = cal.table.ball_radius_mm if radius_mm is None else float(radius_mm)
    _, s = _height_ratio(cal, radius_mm)
    p = np.asarray(on_cloth, dtype=np.float64).reshape(-1, 2)
    a = cal.table_to_image(p)
    bx = cal.table_to_image(p + np.array([r / s, 0.0]))
    by = cal.table_to_image(p + np.array([0.0, r / s]))
    return np.asarray(np.maximum(np.linalg.norm(bx - a, axis=1), np.linalg.norm(by - a, axis=1)))


def toward_camera_px(cal: Calibration, on_cloth: np.ndarray, min_tan: float = 0.2) -> np.ndarray:
    """Unit image vectors (N x 2) pointing from balls (centre rays meeting the cloth at ``on_cloth``) toward
    the camera, where the view is oblique enough (tan of the angle from vertical over ``min_tan``) for a
    nearer ball to hide part of a farther one's rim; zero vectors elsewhere."""
    p = np.asarray(on_cloth, dtype=np.float64).reshape(-1, 2)
    c = camera_centre_mm(cal)
    to_cam = c[:2] - p
    dist = np.linalg.norm(to_cam, axis=1)
    out = np.zeros_like(p)
    sel = dist / max(-c[2], 1e-9) > min_tan
    if sel.any():
        step = p[sel] + 10.0 * to_cam[sel] / dist[sel, None]
        d = cal.table_to_image(step) - cal.table_to_image(p[sel])
        out[sel] = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    return out


def view_geometry(
    cal: Calibration, on_cloth: np.ndarray, radius_mm: float | None = None, min_tan: float = 0.2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``cal.table_to_image(on_cloth)``, ``ball_radius_px`` and ``toward_camera_px`` of the same points at
    once, by the compiled mapping (the same values as the three calls, to rounding)."""
    r = cal.table.ball_radius_mm if radius_mm is None else float(radius_mm)
    _, s = _height_ratio(cal, radius_mm)
    h, _, k, k1, k2, cam = lens_arrays(cal)
    p = np.ascontiguousarray(on_cloth, dtype=np.float64).reshape(-1, 2)
    px, radius, toward = view_kernels.view_geometry(h, k, k1, k2, cam, r / s, min_tan, p)
    return px, radius, toward
