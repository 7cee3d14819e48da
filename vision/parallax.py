"""Ball-centre image pixels <-> the cloth point below the ball: the parallax of a ball's height.

A ball's centre is one radius above the cloth. The ray from the camera through the image of that centre
meets the cloth beyond the ball (about 12 mm at a 20 degree view). ``Calibration.ball_px_to_table`` cuts
that ray at the centre's height from the camera pose the calibration implies; this module adds the
inverse (where a resting ball's centre appears) and the ball's apparent radius, which the detectors and
their benchmark need.
"""

from __future__ import annotations

import numpy as np

from calibration.mapping import Calibration


def camera_centre_mm(cal: Calibration) -> np.ndarray:
    """The camera's optical centre in the table frame (z < 0: above the cloth)."""
    return np.asarray(cal.camera_centre_mm(), dtype=np.float64)


def ball_px_to_table(cal: Calibration, px: np.ndarray, radius_mm: float | None = None) -> np.ndarray:
    """Table mm (N x 2) of the cloth points below balls whose centres are imaged at ``px`` (N x 2)."""
    return np.asarray(cal.ball_px_to_table(np.asarray(px, dtype=np.float64).reshape(-1, 2), radius_mm))


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
    once, from one mapping of all the points they need (the same values as the three calls)."""
    r = cal.table.ball_radius_mm if radius_mm is None else float(radius_mm)
    c, s = _height_ratio(cal, radius_mm)
    p = np.asarray(on_cloth, dtype=np.float64).reshape(-1, 2)
    n = len(p)
    to_cam = c[:2] - p
    dist = _norm_rows(to_cam)
    sel = dist / max(-c[2], 1e-9) > min_tan
    step = p + 10.0 * to_cam / np.where(sel, dist, 1.0)[:, None]
    img = cal.table_to_image(np.concatenate([p, p + np.array([r / s, 0.0]), p + np.array([0.0, r / s]), step]))
    a = img[:n]
    # The offsets of the three mapped points from the centre's image: radius along x, along y, toward the camera.
    d = img[n:].reshape(3, n, 2) - a
    lengths = _norm_rows(d.reshape(3 * n, 2)).reshape(3, n)
    radius = np.maximum(lengths[0], lengths[1])
    toward = np.where(sel[:, None], d[2] / np.maximum(lengths[2], 1e-9)[:, None], 0.0)
    return a, radius, toward


def _norm_rows(a: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(a, axis=1)`` of an (N, 2) array (the same values: root of the summed squares)."""
    out: np.ndarray = np.sqrt(np.add.reduce(a * a, axis=1))
    return out
