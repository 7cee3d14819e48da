"""Ball-centre image pixels to the cloth point below the ball: the parallax of a ball's height.

A ball's centre is one radius above the cloth. The ray from the camera through the image of that centre
meets the cloth some way beyond the ball (about 12 mm at a 20 degree view). ``calibration.mapping`` gives
``Calibration.ball_px_to_table`` where the calibration engineer has added it; otherwise the camera pose is
recovered here from the calibration's homography and intrinsics (``H ~ K [r1 r2 t]`` for the plane z = 0)
and the ray is cut at the height of the ball centre.
"""

from __future__ import annotations

import numpy as np

from calibration.mapping import Calibration


def camera_centre_mm(cal: Calibration) -> np.ndarray:
    """The camera's optical centre in the table frame (x, y, z with z < 0 above the cloth), implied by the
    calibration's homography and intrinsics. If the calibration knows the camera height, that wins over
    the height the (possibly default) intrinsics imply, keeping the direction of the ray to the camera."""
    cached = cal.__dict__.get("_vision_camera_centre")
    if cached is not None:
        return np.asarray(cached)
    k_inv = np.linalg.inv(cal.camera_matrix)
    m = k_inv @ cal.homography  # ~ [r1 r2 t] up to scale
    lam = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    r1, r2, t = lam * m[:, 0], lam * m[:, 1], lam * m[:, 2]
    if t[2] < 0:  # the table must lie in front of the camera
        r1, r2, t = -r1, -r2, -t
    r3 = np.cross(r1, r2)
    rot = np.column_stack([r1, r2, r3])
    u, _, vt = np.linalg.svd(rot)  # nearest rotation
    rot = u @ vt
    centre = -rot.T @ t
    if centre[2] > 0:  # z points into the cloth: the camera is at negative z
        centre = centre * np.array([1.0, 1.0, -1.0])
    if cal.camera_height_mm:
        centre = np.array([centre[0], centre[1], -float(cal.camera_height_mm)])
    object.__setattr__(cal, "_vision_camera_centre", centre)
    return centre


def ball_px_to_table(cal: Calibration, px: np.ndarray, radius_mm: float | None = None) -> np.ndarray:
    """Table mm (N x 2) of the cloth points below balls whose centres are imaged at ``px`` (N x 2)."""
    pts = np.asarray(px, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    native = getattr(cal, "ball_px_to_table", None)
    if native is not None and radius_mm is None:
        return np.asarray(native(pts), dtype=np.float64).reshape(-1, 2)
    r = cal.table.ball_radius_mm if radius_mm is None else float(radius_mm)
    on_cloth = cal.image_to_table(pts)  # where the ray through the ball centre meets the cloth
    c = camera_centre_mm(cal)
    s = (-c[2] - r) / -c[2]  # fraction of the way from the camera down to the cloth at the ball centre height
    return c[:2] + s * (on_cloth - c[:2])


def table_to_ball_px(cal: Calibration, xy_mm: np.ndarray, radius_mm: float | None = None) -> np.ndarray:
    """Image pixels of the centres of balls resting at table points ``xy_mm`` (the inverse of the above)."""
    pts = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    r = cal.table.ball_radius_mm if radius_mm is None else float(radius_mm)
    c = camera_centre_mm(cal)
    s = (-c[2] - r) / -c[2]
    on_cloth = c[:2] + (pts - c[:2]) / s
    return cal.table_to_image(on_cloth)
