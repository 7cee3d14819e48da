"""A pinhole camera with radial distortion over the table: the model behind rendering and parallax.

World frame = the table frame of CONTRACT.md (mm) with ``z`` completing it right-handed, which points
*down* into the cloth (x along the table, y to the right of a person facing the pyramid). The cloth is
``z = 0``; a ball's centre is at ``z = -R``; the camera hangs at negative ``z``.

Camera axes follow OpenCV: the camera looks along its +z, image ``u`` grows to the right and ``v``
downward. ``overhead`` aligns image ``u`` with table ``x``, so the house end is on the left of the image
and the left long cushion (y = 0) along the top, then tilts the view by ``tilt_deg`` from vertical.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table import TableModel


@dataclass(frozen=True)
class CameraModel:
    image_size: tuple[int, int]  # (width, height) in px
    camera_matrix: np.ndarray  # 3x3 intrinsics K
    dist_coeffs: np.ndarray  # OpenCV order (k1, k2, p1, p2, k3); we use k1, k2 only
    rvec: np.ndarray  # Rodrigues rotation, world -> camera
    tvec: np.ndarray  # translation, world -> camera (mm)

    @classmethod
    def overhead(
        cls,
        table: TableModel,
        image_size: tuple[int, int] = (1920, 1080),
        tilt_deg: float = 0.0,
        tilt_azimuth_deg: float = 180.0,
        distance_mm: float = 4000.0,
        k1: float = 0.0,
        k2: float = 0.0,
        fill: float = 0.86,
        target: tuple[float, float] | None = None,
    ) -> CameraModel:
        """A camera aimed at the table centre (or ``target``) from ``distance_mm``, tilted by ``tilt_deg``
        from vertical. ``tilt_azimuth_deg`` gives the direction in the table plane the camera looks along
        when tilted: 0 = toward +x (camera over the house end looking at the pyramid), 90 = toward +y.
        The focal length is chosen so the playing field plus its rails fills ``fill`` of the image."""
        w, h = image_size
        tx, ty = target if target is not None else table.spots["center"]
        t, a = math.radians(tilt_deg), math.radians(tilt_azimuth_deg)
        d = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)])
        centre = np.array([tx, ty, 0.0]) - distance_mm * d
        cam_x = np.array([1.0, 0.0, 0.0]) - d[0] * d
        cam_x /= np.linalg.norm(cam_x)
        cam_y = np.cross(d, cam_x)
        rot = np.stack([cam_x, cam_y, d])
        rvec, _ = cv2.Rodrigues(rot)
        tvec = -rot @ centre
        # Focal length: fit the field plus a rail margin into the image.
        margin = 0.08 * table.width_mm
        L, W = table.length_mm, table.width_mm
        pts = np.array(
            [[-margin, -margin, 0], [L + margin, -margin, 0], [-margin, W + margin, 0], [L + margin, W + margin, 0]]
        )
        cam = (rot @ (pts - centre).T).T
        xn, yn = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
        f = min(fill * w / 2 / np.abs(xn).max(), fill * h / 2 / np.abs(yn).max())
        k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
        dist = np.array([k1, k2, 0.0, 0.0, 0.0])
        return cls((w, h), k, dist, rvec.reshape(3), tvec.reshape(3))

    @property
    def rotation(self) -> np.ndarray:
        rot, _ = cv2.Rodrigues(self.rvec)
        return rot

    @property
    def centre_mm(self) -> np.ndarray:
        """The camera's optical centre in the world frame (z negative: above the cloth)."""
        return -self.rotation.T @ self.tvec

    def project(self, xy_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Image pixels (distorted) of table points ``xy_mm`` (N x 2) at ``height_mm`` above the cloth."""
        xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        z = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(xy),))
        pts = np.column_stack([xy, z])
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.camera_matrix, self.dist_coeffs)
        return px.reshape(-1, 2)

    def corners_px(self, table: TableModel) -> dict[str, list[float]]:
        """The playing-field corners in the image, as CONTRACT.md section 6 writes them."""
        names = list(table.corners)
        px = self.project(np.array([table.corners[n] for n in names]))
        return {n: [float(u), float(v)] for n, (u, v) in zip(names, px, strict=True)}

    def to_json(self) -> dict[str, object]:
        return {
            "image_size": list(self.image_size),
            "camera_matrix": self.camera_matrix.tolist(),
            "dist_coeffs": self.dist_coeffs.tolist(),
            "rvec": self.rvec.tolist(),
            "tvec": self.tvec.tolist(),
        }

    @classmethod
    def from_json(cls, obj: dict[str, object]) -> CameraModel:
        size = obj["image_size"]
        assert isinstance(size, list | tuple)
        return cls(
            (int(size[0]), int(size[1])),
            np.asarray(obj["camera_matrix"], dtype=np.float64).reshape(3, 3),
            np.asarray(obj["dist_coeffs"], dtype=np.float64).reshape(-1),
            np.asarray(obj["rvec"], dtype=np.float64).reshape(3),
            np.asarray(obj["tvec"], dtype=np.float64).reshape(3),
        )
