"""Image <-> table mapping: the calibration of one camera view.

A calibration holds the four playing-field corners as seen in the (distorted) image, the lens model
(intrinsics ``K`` and radial ``k1, k2``), and the homography between undistorted pixels and the cloth
plane in table millimetres. It is written and read as JSON (CONTRACT.md section 6a) and validated on
load: a wrong, degenerate or mismatched calibration raises ``CalibrationError`` with a one-line reason.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.table import TableModel, TableSpec, TableSpecError

CORNER_NAMES = ("house-left", "house-right", "pyramid-left", "pyramid-right")


class CalibrationError(ValueError):
    """A calibration that cannot be trusted, with a one-line reason."""


def default_camera_matrix(image_size: tuple[int, int]) -> np.ndarray:
    """Intrinsics with the principal point at the centre and a focal length of one image width
    (about 53 degrees horizontal field of view), used when nothing better is known."""
    w, h = image_size
    return np.array([[float(w), 0.0, w / 2.0], [0.0, float(w), h / 2.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class Calibration:
    image_size: tuple[int, int]
    corners_px: dict[str, tuple[float, float]]
    table: TableModel = field(default_factory=TableModel)
    camera_matrix: np.ndarray = field(default_factory=lambda: np.eye(3))
    k1: float = 0.0
    k2: float = 0.0
    quality: dict[str, Any] = field(default_factory=dict)  # residual_px, residual_mm, ... and where figures came from
    source: str = "manual"  # "manual", "auto", "truth"
    # Height of the camera's optical centre above the cloth (mm), when known: it sets the parallax
    # correction of ball centres (a ball's centre is a radius above the cloth).
    camera_height_mm: float | None = None

    # ---- construction ---------------------------------------------------------------------------------
    @classmethod
    def from_corners(
        cls,
        corners_px: dict[str, Any],
        image_size: tuple[int, int],
        table: TableModel | None = None,
        *,
        camera_matrix: np.ndarray | None = None,
        k1: float = 0.0,
        k2: float = 0.0,
        source: str = "manual",
        quality: dict[str, Any] | None = None,
        camera_height_mm: float | None = None,
    ) -> Calibration:
        """A calibration from the four playing-field corners in image pixels (the manual fallback)."""
        table = table or TableModel()
        k = default_camera_matrix(image_size) if camera_matrix is None else np.asarray(camera_matrix, float)
        corners = {n: (float(corners_px[n][0]), float(corners_px[n][1])) for n in CORNER_NAMES if n in corners_px}
        cal = cls(
            (int(image_size[0]), int(image_size[1])), corners, table, k, float(k1), float(k2),
            dict(quality or {}), source, camera_height_mm,
        )  # fmt: skip
        cal.validate()
        return cal

    # ---- validation ---------------------------------------------------------------------------------
    def validate(self) -> None:
        w, h = self.image_size
        if w < 64 or h < 64:
            raise CalibrationError(f"image size {w}x{h} is too small")
        missing = [n for n in CORNER_NAMES if n not in self.corners_px]
        if missing:
            raise CalibrationError(f"corners missing: {', '.join(missing)}")
        pts = np.array([self.corners_px[n] for n in CORNER_NAMES])
        if not np.all(np.isfinite(pts)):
            raise CalibrationError("corner pixels are not finite numbers")
        margin = 0.5
        if (
            np.any(pts[:, 0] < -margin * w)
            or np.any(pts[:, 0] > (1 + margin) * w)
            or np.any(pts[:, 1] < -margin * h)
            or np.any(pts[:, 1] > (1 + margin) * h)
        ):
            raise CalibrationError(f"corners lie far outside the {w}x{h} image: wrong resolution?")
        # The four corners in ring order must form a convex quadrilateral of reasonable area.
        ring = np.array([self.corners_px[n] for n in ("house-left", "pyramid-left", "pyramid-right", "house-right")])
        cross = []
        for i in range(4):
            a, b, c = ring[i], ring[(i + 1) % 4], ring[(i + 2) % 4]
            cross.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
        if not (all(c > 0 for c in cross) or all(c < 0 for c in cross)):
            raise CalibrationError("corners do not form a convex quadrilateral (swapped or degenerate)")
        area = abs(cv2.contourArea(ring.astype(np.float32)))
        if area < 0.02 * w * h:
            raise CalibrationError(f"the table covers only {100 * area / (w * h):.1f}% of the image")
        long_px = (math.dist(ring[0], ring[1]) + math.dist(ring[2], ring[3])) / 2
        short_px = (math.dist(ring[1], ring[2]) + math.dist(ring[3], ring[0])) / 2
        if short_px <= 0 or not (0.4 <= long_px / short_px <= 6.0):
            raise CalibrationError(
                f"corner distances give an aspect {long_px / max(short_px, 1e-9):.2f}, not a table's ~2"
            )

    # ---- the mapping ----------------------------------------------------------------------------------
    @property
    def dist_coeffs(self) -> np.ndarray:
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    def undistort_px(self, px: np.ndarray) -> np.ndarray:
        pts = np.asarray(px, dtype=np.float64).reshape(-1, 1, 2)
        if self.k1 == 0.0 and self.k2 == 0.0:
            return pts.reshape(-1, 2)
        out = cv2.undistortPoints(pts, self.camera_matrix, self.dist_coeffs, P=self.camera_matrix)
        return out.reshape(-1, 2)

    def distort_px(self, px: np.ndarray) -> np.ndarray:
        pts = np.asarray(px, dtype=np.float64).reshape(-1, 2)
        if self.k1 == 0.0 and self.k2 == 0.0:
            return pts
        k = self.camera_matrix
        xn = (pts[:, 0] - k[0, 2]) / k[0, 0]
        yn = (pts[:, 1] - k[1, 2]) / k[1, 1]
        r2 = xn * xn + yn * yn
        s = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return np.column_stack([xn * s * k[0, 0] + k[0, 2], yn * s * k[1, 1] + k[1, 2]])

    @property
    def homography(self) -> np.ndarray:
        """3x3 mapping table mm (cloth plane) -> undistorted image px."""
        return self._homographies[0]

    @property
    def _homographies(self) -> tuple[np.ndarray, np.ndarray]:
        cached = self.__dict__.get("_h_cache")
        if cached is None:
            src = np.array([self.table.corners[n] for n in CORNER_NAMES], dtype=np.float64)
            dst = self.undistort_px(np.array([self.corners_px[n] for n in CORNER_NAMES]))
            h_t2i = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(np.float64)
            cached = (h_t2i, np.linalg.inv(h_t2i))
            object.__setattr__(self, "_h_cache", cached)
        return cached

    def image_to_table(self, px: np.ndarray) -> np.ndarray:
        """Table mm (N x 2) of image pixels (distorted, as recorded), on the cloth plane."""
        und = self.undistort_px(px)
        return _apply_h(self._homographies[1], und)

    def table_to_image(self, xy_mm: np.ndarray) -> np.ndarray:
        """Image pixels (distorted) of cloth-plane table points (N x 2)."""
        return self.distort_px(_apply_h(self._homographies[0], np.asarray(xy_mm, dtype=np.float64)))

    def px_per_mm(self, xy_mm: tuple[float, float] | None = None) -> float:
        """Local image scale (px per mm) at a table point (the centre by default)."""
        p = np.array(xy_mm if xy_mm is not None else self.table.spots["center"], dtype=np.float64)
        a = self.table_to_image(np.array([p, p + np.array([10.0, 0.0]), p + np.array([0.0, 10.0])]))
        return float((np.linalg.norm(a[1] - a[0]) + np.linalg.norm(a[2] - a[0])) / 20.0)

    # ---- the camera and ball parallax -------------------------------------------------------------------
    def camera_centre_mm(self) -> np.ndarray:
        """The camera's optical centre ``(x, y, z)`` in the table frame (mm; ``z < 0``: above the cloth).

        It is the pose the homography implies for the calibration's intrinsics (``H ~ K [r1 r2 t]``). An
        automatic calibration estimates the focal length where the view is tilted enough to show it; a
        manual one, or a straight-down view, uses the default intrinsics (focal length = image width,
        principal point at the centre): the documented assumption when nothing better is known. A known
        ``camera_height_mm`` replaces the implied height and keeps the implied point below the camera."""
        cached = self.__dict__.get("_centre_cache")
        if cached is not None:
            return np.array(cached)
        m = np.linalg.inv(self.camera_matrix) @ self.homography
        lam = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
        r1, r2, t = lam * m[:, 0], lam * m[:, 1], lam * m[:, 2]
        if t[2] < 0:  # the table lies in front of the camera
            r1, r2, t = -r1, -r2, -t
        u, _, vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
        rot = u @ vt
        centre = -rot.T @ t
        if centre[2] > 0:  # z points down into the cloth: the camera hangs at negative z
            centre = centre * np.array([1.0, 1.0, -1.0])
        if self.camera_height_mm:
            centre = np.array([centre[0], centre[1], -float(self.camera_height_mm)])
        object.__setattr__(self, "_centre_cache", centre)
        return np.array(centre)

    def ball_px_to_table(self, px: np.ndarray, radius_mm: float | None = None) -> np.ndarray:
        """Table mm (N x 2) of the cloth points below balls whose centres are imaged at ``px`` (N x 2).

        A ball's centre is ``radius_mm`` (default: the table's ball radius) above the cloth, so the ray
        through its image meets the cloth beyond the ball; this cuts the ray at the centre's height
        instead, using ``camera_centre_mm``."""
        pts = np.asarray(px, dtype=np.float64).reshape(-1, 2)
        if len(pts) == 0:
            return np.zeros((0, 2))
        r = self.table.ball_radius_mm if radius_mm is None else float(radius_mm)
        ground = self.image_to_table(pts)
        c = self.camera_centre_mm()
        height = -float(c[2])
        if height <= r:
            raise CalibrationError("camera below the ball centre height: cannot correct parallax")
        return c[:2] + (height - r) / height * (ground - c[:2])

    # ---- JSON -----------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        s = self.table.spec
        return {
            "image_size": list(self.image_size),
            "corners_px": {n: list(self.corners_px[n]) for n in CORNER_NAMES},
            "table": {
                "length_mm": s.length_mm,
                "width_mm": s.width_mm,
                "ball_diameter_mm": s.ball_diameter_mm,
                "corner_mouth_mm": s.corner_mouth_mm,
                "middle_mouth_mm": s.middle_mouth_mm,
            },
            "lens": {
                "model": "radial-k1k2",
                "camera_matrix": self.camera_matrix.tolist(),
                "k1": self.k1,
                "k2": self.k2,
            },
            "homography_table_to_image": self.homography.tolist(),
            "camera_height_mm": self.camera_height_mm,
            "quality": self.quality,
            "source": self.source,
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, obj: Any, *, expect_image_size: tuple[int, int] | None = None) -> Calibration:
        """Validate and load; ``expect_image_size`` checks the calibration fits the frames it will map."""
        if not isinstance(obj, dict):
            raise CalibrationError("calibration JSON is not an object")
        try:
            size = (int(obj["image_size"][0]), int(obj["image_size"][1]))
            corners = obj["corners_px"]
            tbl = obj.get("table") or {}
            fields: dict[str, Any] = {
                k: float(v)
                for k, v in tbl.items()
                if k in TableSpec.__dataclass_fields__ and k != "attack_mark_overrides"
            }
            spec = TableSpec(**fields)
            lens = obj.get("lens") or {}
            k = np.asarray(lens["camera_matrix"], dtype=np.float64).reshape(3, 3) if "camera_matrix" in lens else None
            cal = cls.from_corners(
                corners, size, TableModel(spec), camera_matrix=k,
                k1=float(lens.get("k1", 0.0)), k2=float(lens.get("k2", 0.0)),
                source=str(obj.get("source", "manual")), quality=dict(obj.get("quality") or {}),
                camera_height_mm=obj.get("camera_height_mm"),
            )  # fmt: skip
        except CalibrationError:
            raise
        except TableSpecError as exc:
            raise CalibrationError(f"table in calibration: {exc}") from None
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise CalibrationError(f"calibration JSON is malformed ({type(exc).__name__}: {exc})") from None
        if expect_image_size is not None and tuple(expect_image_size) != cal.image_size:
            w, h = cal.image_size
            raise CalibrationError(
                f"calibration is for {w}x{h} frames but these frames are {expect_image_size[0]}x{expect_image_size[1]}"
            )
        return cal

    @classmethod
    def load(cls, path: str | Path, *, expect_image_size: tuple[int, int] | None = None) -> Calibration:
        try:
            obj = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CalibrationError(f"no calibration file at {path}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CalibrationError(f"{path} is not JSON ({exc})") from None
        return cls.from_json(obj, expect_image_size=expect_image_size)


# A grid of points (the detector's and the launch finder's maps: 10^5-10^6 points, at a run's start) is mapped
# in blocks of ``_BLOCK`` rows against a contiguous copy of the 2x3 factor. Each row's numbers are those of the
# one product (the same BLAS kernel, row by row), but a strided factor costs numpy ~0.4 us a point, and one
# product over the whole grid is split by OpenBLAS over both cores, where the other thread waits its turn on a
# busy machine (0.07-0.2 s a grid). Fewer points than ``_BLOCKS_FROM`` keep the plain product: one point takes
# another BLAS routine, and a few are cheap either way.
_BLOCKS_FROM = 256
_BLOCK = 65536


def _apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    if len(p) >= _BLOCKS_FROM and p.flags.c_contiguous:
        m = np.ascontiguousarray(h[:, :2].T)
        q = np.empty((len(p), 3))
        for i in range(0, len(p), _BLOCK):
            np.matmul(p[i : i + _BLOCK], m, out=q[i : i + _BLOCK])
        q += h[:, 2]
    else:
        q = p @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]
