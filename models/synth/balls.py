"""Balls drawn as the camera sees them: ray-traced spheres at their 3-D centres, a radius above the cloth.

Every pixel near a ball is traced back through the lens (the camera's radial ``k1, k2`` inverted once per
camera into a per-pixel ray map) and intersected with the sphere, so the silhouette, its position and the
parallax of a tilted camera are exact; each pixel is supersampled (``ss`` x ``ss`` rays) for anti-aliased
edges. Shading: ambient + Lambert from a lamp above the table + a Blinn-Phong highlight. Object balls
carry their number on two opposite sides of the ball; the numbers turn with the ball as it rolls. Motion
blur: a moving ball is drawn at several instants across the exposure and the coverages are averaged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel

IVORY_BGR = (212, 230, 240)
CUE_BGR = (40, 165, 232)  # a distinct (yellow-orange) cue ball
INK_BGR = (38, 34, 30)
LIGHT_DIR = np.array([0.12, -0.08, -1.0]) / np.linalg.norm([0.12, -0.08, -1.0])  # toward the lamp (z up = -)


@dataclass(frozen=True)
class BallStyle:
    colour_bgr: tuple[int, int, int] = IVORY_BGR
    number: str | None = None


class RayMap:
    """Per-pixel viewing rays of a camera: normalised undistorted image coordinates of pixel centres."""

    def __init__(self, camera: CameraModel) -> None:
        self.camera = camera
        w, h = camera.image_size
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        k = camera.camera_matrix
        xd, yd = (u - k[0, 2]) / k[0, 0], (v - k[1, 2]) / k[1, 1]
        k1, k2 = float(camera.dist_coeffs[0]), float(camera.dist_coeffs[1])
        ratio = undistort_ratio(np.hypot(xd, yd), k1, k2)
        und = np.stack([xd * ratio, yd * ratio], axis=-1)
        und = und.reshape(h, w, 2)
        self.xn = und[..., 0].astype(np.float32)
        self.yn = und[..., 1].astype(np.float32)
        self.rot = camera.rotation
        self.t = np.asarray(camera.tvec, dtype=np.float64)
        self.centre = camera.centre_mm
        self.focal = float(camera.camera_matrix[0, 0])

    def rays(self, x0: int, y0: int, x1: int, y1: int, ss: int) -> tuple[np.ndarray, np.ndarray]:
        """Normalised ray coordinates (ss*ss, h, w) of sub-pixel samples in the box [x0, x1) x [y0, y1)."""
        h, w = self.xn.shape
        xa, ya = max(x0 - 1, 0), max(y0 - 1, 0)
        xb, yb = min(x1 + 1, w), min(y1 + 1, h)
        X, Y = self.xn[ya:yb, xa:xb].astype(np.float64), self.yn[ya:yb, xa:xb].astype(np.float64)
        dxu = np.gradient(X, axis=1) if X.shape[1] > 1 else np.zeros_like(X)
        dyv = np.gradient(Y, axis=0) if Y.shape[0] > 1 else np.zeros_like(Y)
        dxv = np.gradient(X, axis=0) if X.shape[0] > 1 else np.zeros_like(X)
        dyu = np.gradient(Y, axis=1) if Y.shape[1] > 1 else np.zeros_like(Y)
        sl = (slice(y0 - ya, y0 - ya + (y1 - y0)), slice(x0 - xa, x0 - xa + (x1 - x0)))
        X, Y, dxu, dyv, dxv, dyu = (a[sl] for a in (X, Y, dxu, dyv, dxv, dyu))
        offs = (np.arange(ss) + 0.5) / ss - 0.5
        ou, ov = np.meshgrid(offs, offs)
        ou, ov = ou.reshape(-1, 1, 1), ov.reshape(-1, 1, 1)
        return X + ou * dxu + ov * dxv, Y + ou * dyu + ov * dyv


def undistort_ratio(rd: np.ndarray, k1: float, k2: float) -> np.ndarray:
    """r / r_d for the radial model r_d = r (1 + k1 r^2 + k2 r^4), solved by Newton's method from r = r_d."""
    if k1 == 0.0 and k2 == 0.0:
        return np.ones_like(rd)
    r = rd.copy()
    for _ in range(20):
        r2 = r * r
        f = r * (1 + k1 * r2 + k2 * r2 * r2) - rd
        df = 1 + 3 * k1 * r2 + 5 * k2 * r2 * r2
        r -= f / np.where(np.abs(df) < 1e-9, 1e-9, df)
        if float(np.max(np.abs(f))) < 1e-12:
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rd > 1e-12, r / rd, 1.0)


def digit_texture(text: str, size: int = 64) -> np.ndarray:
    """Ink coverage (0..1) of a ball number, centred in a square (Hershey font: built into OpenCV)."""
    img = np.zeros((size * 4, size * 4), np.uint8)
    font, scale, thick = cv2.FONT_HERSHEY_DUPLEX, 4.2 if len(text) == 1 else 3.4, 14
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = ((img.shape[1] - tw) // 2, (img.shape[0] + th) // 2)
    cv2.putText(img, text, org, font, scale, 255, thick, cv2.LINE_AA)
    return cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def rolling_rotation(delta_mm: np.ndarray, radius_mm: float) -> np.ndarray:
    """Rotation (world frame, z down) of a ball rolling without slipping by ``delta_mm`` on the cloth."""
    d = float(np.hypot(delta_mm[0], delta_mm[1]))
    if d < 1e-9:
        return np.eye(3)
    axis = np.cross([delta_mm[0], delta_mm[1], 0.0], [0.0, 0.0, 1.0]) / d  # (v x down) / |v|
    rvec = axis * (d / radius_mm)
    rot, _ = cv2.Rodrigues(rvec.reshape(3, 1))
    return rot


class BallPainter:
    """Draws balls of one radius through one camera."""

    def __init__(self, camera: CameraModel, radius_mm: float, ss: int = 4, shadows: bool = True) -> None:
        self.rays = RayMap(camera)
        self.camera = camera
        self.R = radius_mm
        self.ss = ss
        self.shadows = shadows
        self._digits: dict[str, np.ndarray] = {}
        self.patch_half_angle = math.radians(32.0)

    def _digit(self, text: str) -> np.ndarray:
        if text not in self._digits:
            self._digits[text] = digit_texture(text)
        return self._digits[text]

    def bbox(self, centre_mm: np.ndarray, grow: float = 1.0) -> tuple[int, int, int, int] | None:
        """Pixel box (x0, y0, x1, y1) holding the ball's image; None when off the image or behind."""
        cw = np.array([centre_mm[0], centre_mm[1], -self.R])
        cc = self.rays.rot @ cw + self.rays.t
        if cc[2] <= self.R:
            return None
        u, v = self.camera.project(np.array([centre_mm[:2]]), self.R)[0]
        k = self.camera.dist_coeffs
        r = self.rays.focal * self.R / (cc[2] - self.R) * (1.0 + abs(k[0]) + abs(k[1])) * grow + 3
        w, h = self.camera.image_size
        x0, y0 = max(math.floor(u - r), 0), max(math.floor(v - r), 0)
        x1, y1 = min(math.ceil(u + r) + 1, w), min(math.ceil(v + r) + 1, h)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def sprite(
        self, centre_mm: np.ndarray, style: BallStyle, orient: np.ndarray, box: tuple[int, int, int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Premultiplied colour (h, w, 3) and coverage (h, w) of one ball over ``box``."""
        x0, y0, x1, y1 = box
        X, Y = self.rays.rays(x0, y0, x1, y1, self.ss)
        rot, R = self.rays.rot, self.R
        cc = rot @ np.array([centre_mm[0], centre_mm[1], -R]) + self.rays.t
        c = float(cc @ cc) - R * R
        # Coverage from the sub-pixel rays: a ray hits the sphere where the discriminant is positive.
        b = X * cc[0] + Y * cc[1] + cc[2]
        cov = np.mean(b * b - (X * X + Y * Y + 1.0) * c > 0, axis=0)
        # Colour from the pixel-centre ray (the tangent point for centre rays that just miss).
        Xc = self.rays.xn[y0:y1, x0:x1].astype(np.float64)
        Yc = self.rays.yn[y0:y1, x0:x1].astype(np.float64)
        a = Xc * Xc + Yc * Yc + 1.0
        b = Xc * cc[0] + Yc * cc[1] + cc[2]
        tt = (b - np.sqrt(np.maximum(b * b - a * c, 0.0))) / a
        P = np.stack([tt * Xc, tt * Yc, tt], axis=-1)
        n_c = P - cc
        n_c /= np.linalg.norm(n_c, axis=-1, keepdims=True)
        n_w = n_c @ rot  # rot.T @ n for each pixel
        view = -(P / np.linalg.norm(P, axis=-1, keepdims=True)) @ rot
        diffuse = np.clip(n_w @ LIGHT_DIR, 0.0, 1.0)
        half = LIGHT_DIR + view
        half /= np.linalg.norm(half, axis=-1, keepdims=True)
        spec = np.clip(np.sum(n_w * half, axis=-1), 0.0, 1.0) ** 80
        albedo = np.empty(n_w.shape)
        albedo[:] = np.array(style.colour_bgr, dtype=np.float64) / 255.0
        if style.number:
            self._ink(albedo, n_w @ orient, style.number)
        shade = 0.38 + 0.72 * diffuse
        col = np.clip(albedo * shade[..., None] + 0.85 * spec[..., None], 0.0, 1.0) * 255.0
        return col * cov[..., None], cov

    def _ink(self, albedo: np.ndarray, body: np.ndarray, number: str) -> None:
        """Paint the number (two opposite sides of the ball) into ``albedo`` given body-frame normals."""
        tex = self._digit(number)
        ts = tex.shape[0]
        lim, s = math.cos(self.patch_half_angle), math.sin(self.patch_half_angle)
        ink_c = np.array(INK_BGR, dtype=np.float64) / 255.0
        for sign in (1.0, -1.0):
            on = body[..., 2] * sign > lim
            if not on.any():
                continue
            tu = np.clip(((body[..., 0] * sign) / s * 0.5 + 0.5) * (ts - 1), 0, ts - 1)
            tv = np.clip((body[..., 1] / s * 0.5 + 0.5) * (ts - 1), 0, ts - 1)
            ink = (tex[np.rint(tv).astype(int), np.rint(tu).astype(int)] * on)[..., None]
            albedo *= 1 - ink
            albedo += ink_c * ink

    def shadow(self, centre_mm: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
        """Multiplicative darkening (h, w) of the cloth under a ball: a soft contact shadow."""
        x0, y0, x1, y1 = box
        X = self.rays.xn[y0:y1, x0:x1].astype(np.float64)
        Y = self.rays.yn[y0:y1, x0:x1].astype(np.float64)
        d = np.stack([X, Y, np.ones_like(X)], axis=-1) @ self.rays.rot  # world ray directions
        o = self.rays.centre
        with np.errstate(divide="ignore", invalid="ignore"):
            t = -o[2] / d[..., 2]
        gx, gy = o[0] + t * d[..., 0], o[1] + t * d[..., 1]
        foot = np.asarray(centre_mm[:2], dtype=np.float64) - LIGHT_DIR[:2] / -LIGHT_DIR[2] * self.R
        r2 = ((gx - foot[0]) ** 2 + (gy - foot[1]) ** 2) / (0.95 * self.R) ** 2
        return 1.0 - 0.55 * np.exp(-(r2**1.5))


def composite(frame: np.ndarray, box: tuple[int, int, int, int], premult: np.ndarray, cov: np.ndarray) -> None:
    """Lay a premultiplied sprite over a uint8 BGR frame in place."""
    x0, y0, x1, y1 = box
    region = frame[y0:y1, x0:x1].astype(np.float32)
    out = region * (1.0 - cov[..., None]) + premult
    frame[y0:y1, x0:x1] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


def darken(frame: np.ndarray, box: tuple[int, int, int, int], factor: np.ndarray) -> None:
    x0, y0, x1, y1 = box
    region = frame[y0:y1, x0:x1].astype(np.float32) * factor[..., None]
    frame[y0:y1, x0:x1] = np.clip(region + 0.5, 0, 255).astype(np.uint8)
