"""A static picture of an empty Russian pyramid table, seen through a ``CameraModel``.

The background every synthetic frame is drawn on: cloth with a felt texture and optional uneven
lighting, the cushion band outside the cushion noses, a wooden rail outside it, six pocket holes cut at
the model's jaws, the drawn marks (three spots, the house line, the Cluster attack-zone marks on the
rail) and an optional dark blob standing for a player leaning over a long cushion.

Use::

    from models.synth.table_render import Occluder, render_table
    img = render_table(camera, table, np.random.default_rng(0))            # BGR uint8, camera.image_size
    img = render_table(camera, table, rng, cloth_bgr=(140, 80, 20),         # blue pool cloth
                       lighting="uneven", marks=True,
                       occluder=Occluder(side="left", x_mm=1200, length_mm=700))

``render_table(camera, table, rng, *, cloth_bgr=CLOTH_GREEN, lighting="even", marks=True,
occluder=None, noise_sigma=2.0, cushion_height_mm=0.0) -> np.ndarray`` returns an ``(h, w, 3)`` uint8
BGR image. ``lighting`` is ``"even"`` (a mild falloff) or ``"uneven"`` (a gradient plus lamp pools, gain
about 0.6..1.2). ``cushion_height_mm > 0`` raises the cushion and rail tops that far above the cloth, the
nose straight above the field's edge: the camera then sees the nose faces of the cushions it is inside
of, and a cushion it is beyond hides the field's edge behind its nose.
Balls are drawn on top by the caller; ``draw_occluder(img, camera, table, occluder)`` draws the player
blob alone, so a scene can draw balls first and the player over them, and ``occluder_mask`` gives its
pixels.

How: the table is painted once, top-down, into a texture in table millimetres (a few tenths of a
millimetre per texture pixel finer than the image needs); every output pixel is traced back through
the lens (radial ``k1, k2`` inverted exactly along the radius) and the pinhole to the cloth plane
``z = 0`` and sampled from the texture with ``cv2.remap``. Everything visible lies in the cloth plane,
so the cushion-nose rectangle lands exactly on ``camera.corners_px(table)`` (with raised cushions, a
second trace to the plane of their tops, blended over 2 x 2 samples per pixel). The per-camera maps are
cached, so rendering many frames from one camera costs one remap and the noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import TableModel

CLOTH_GREEN: tuple[int, int, int] = (38, 118, 28)
CLOTH_BLUE: tuple[int, int, int] = (150, 88, 22)
RAIL_BGR: tuple[int, int, int] = (32, 62, 112)
FLOOR_BGR: tuple[int, int, int] = (48, 46, 44)
MARK_BGR: tuple[int, int, int] = (235, 238, 240)

CUSHION_WIDTH_MM = 50.0  # cushion-nose line to the rail's inner edge, as seen from above
RAIL_WIDTH_MM = 110.0  # the wooden rail outside the cushion
_MARGIN_MM = 320.0  # texture extent beyond the playing field (rail plus some floor)


@dataclass(frozen=True)
class Occluder:
    """A dark blob over a long cushion: a player leaning over the table.

    ``side`` is the long cushion (``"left"``: y = 0, ``"right"``: y = W); the blob is centred at ``x_mm``
    along the table, covers ``length_mm`` of the cushion and reaches ``reach_mm`` into the field."""

    side: Literal["left", "right"] = "left"
    x_mm: float = 1200.0
    length_mm: float = 700.0
    reach_mm: float = 260.0
    bgr: tuple[int, int, int] = (30, 28, 34)

    def polygon_mm(self, table: TableModel, n: int = 48) -> np.ndarray:
        """The blob outline in table mm: a half-ellipse into the field on a body behind the rail."""
        W = table.width_mm
        a = self.length_mm / 2.0
        t = np.linspace(0.0, math.pi, n)
        out = CUSHION_WIDTH_MM + RAIL_WIDTH_MM + 200.0  # the body beyond the rail
        # Field-side edge: an ellipse bulging ``reach_mm`` past the nose; the back side runs beyond the rail.
        xs = np.concatenate([self.x_mm + a * np.cos(t), [self.x_mm - a, self.x_mm + a]])
        inward = np.concatenate([self.reach_mm * np.sin(t), [-out, -out]])
        ys = inward if self.side == "left" else W - inward
        return np.column_stack([xs, ys])


def render_table(
    camera: CameraModel,
    table: TableModel,
    rng: np.random.Generator,
    *,
    cloth_bgr: tuple[int, int, int] = CLOTH_GREEN,
    lighting: Literal["even", "uneven"] = "even",
    marks: bool = True,
    occluder: Occluder | None = None,
    noise_sigma: float = 2.0,
    cushion_height_mm: float = 0.0,
) -> np.ndarray:
    """The empty table as ``camera`` sees it: ``(h, w, 3)`` uint8 BGR (see the module docstring)."""
    if lighting not in ("even", "uneven"):
        raise ValueError(f"lighting must be 'even' or 'uneven', not {lighting!r}")
    if not 0.0 <= cushion_height_mm < 200.0:
        raise ValueError(f"cushion height {cushion_height_mm} mm is outside 0..200")
    maps = _camera_maps(camera, table)
    texture = _texture(table, maps.scale, tuple(int(c) for c in cloth_bgr), marks)
    img = cv2.remap(texture, maps.map_x, maps.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=FLOOR_BGR)  # fmt: skip
    if cushion_height_mm > 0:
        raised = _raised_maps(camera, table, cushion_height_mm, maps.scale)
        top = cv2.remap(texture, raised.map_x, raised.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                        borderValue=FLOOR_BGR)  # fmt: skip
        mix = img.astype(np.float32) * raised.w_ground[:, :, None] + top.astype(np.float32) * raised.w_top[:, :, None]
        img = np.clip(mix, 0, 255).astype(np.uint8)
    gain = _lighting_gain(camera.image_size, rng, lighting)
    out = img.astype(np.float32) * gain[:, :, None]
    if noise_sigma > 0:
        noise = np.empty(out.shape, np.float32)
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        cv2.randn(noise, np.zeros(3), np.full(3, float(noise_sigma)))
        out += noise
    result = np.clip(out, 0, 255).astype(np.uint8)
    if occluder is not None:
        draw_occluder(result, camera, table, occluder)
    return result


def draw_occluder(img: np.ndarray, camera: CameraModel, table: TableModel, occluder: Occluder) -> None:
    """Paint the player blob into ``img`` in place (after the balls, if the player is to hide them)."""
    mask = occluder_mask(camera, table, occluder)
    shade = np.array(occluder.bgr, dtype=np.uint8)
    img[mask] = shade


def occluder_mask(camera: CameraModel, table: TableModel, occluder: Occluder) -> np.ndarray:
    """Boolean ``(h, w)`` mask of the pixels the blob covers."""
    w, h = camera.image_size
    poly = camera.project(occluder.polygon_mm(table), height_mm=0.0)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return mask > 127


# ---- camera maps -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Maps:
    scale: float  # texture px per mm
    map_x: np.ndarray  # float32 (h, w): texture column of each image pixel
    map_y: np.ndarray


_MAP_CACHE: dict[bytes, _Maps] = {}


def _camera_key(camera: CameraModel, table: TableModel) -> bytes:
    parts = [
        np.asarray(camera.image_size, np.float64),
        camera.camera_matrix,
        camera.dist_coeffs,
        camera.rvec,
        camera.tvec,
        np.array([table.length_mm, table.width_mm]),
    ]
    return b"".join(np.ascontiguousarray(p, dtype=np.float64).tobytes() for p in parts)


def _camera_maps(camera: CameraModel, table: TableModel) -> _Maps:
    key = _camera_key(camera, table)
    hit = _MAP_CACHE.get(key)
    if hit is not None:
        return hit
    w, h = camera.image_size
    k = camera.camera_matrix
    fx, fy, cx, cy = k[0, 0], k[1, 1], k[0, 2], k[1, 2]
    k1, k2 = float(camera.dist_coeffs[0]), float(camera.dist_coeffs[1])
    u = (np.arange(w, dtype=np.float32) - np.float32(cx)) / np.float32(fx)
    v = (np.arange(h, dtype=np.float32) - np.float32(cy)) / np.float32(fy)
    xd, yd = np.meshgrid(u, v)
    rd = np.sqrt(xd * xd + yd * yd)
    ratio = _undistort_ratio(rd, k1, k2, float(rd.max()))
    xu, yu = xd * ratio, yd * ratio
    rot = camera.rotation.astype(np.float32)  # world -> camera; a camera ray d_c maps to R^T d_c
    c = camera.centre_mm.astype(np.float32)
    dx = rot[0, 0] * xu + rot[1, 0] * yu + rot[2, 0]
    dy = rot[0, 1] * xu + rot[1, 1] * yu + rot[2, 1]
    dz = rot[0, 2] * xu + rot[1, 2] * yu + rot[2, 2]
    valid = (dz > 1e-6) & np.isfinite(ratio)
    t = np.where(valid, -c[2] / np.where(valid, dz, 1.0), 0.0)
    X = c[0] + t * dx
    Y = c[1] + t * dy
    scale = _texture_scale(camera, table)
    mx = ((X + _MARGIN_MM) * scale).astype(np.float32)
    my = ((Y + _MARGIN_MM) * scale).astype(np.float32)
    mx[~valid] = -10.0
    my[~valid] = -10.0
    maps = _Maps(scale, mx, my)
    if len(_MAP_CACHE) > 16:
        _MAP_CACHE.clear()
    _MAP_CACHE[key] = maps
    return maps


@dataclass(frozen=True)
class _Raised:
    map_x: np.ndarray  # texture coordinates where the ray meets the plane of the cushion and rail tops
    map_y: np.ndarray
    w_top: np.ndarray  # weight of that sample (the cushion/rail top, plus the shaded nose face)
    w_ground: np.ndarray  # weight of the cloth-plane sample


_RAISED_CACHE: dict[bytes, _Raised] = {}


def _rays(camera: CameraModel, w: int, h: int, step: float) -> tuple[np.ndarray, ...]:
    """World ray directions for a grid of pixels ``(i * step, j * step)`` offset to sample centres."""
    k = camera.camera_matrix
    fx, fy, cx, cy = k[0, 0], k[1, 1], k[0, 2], k[1, 2]
    k1, k2 = float(camera.dist_coeffs[0]), float(camera.dist_coeffs[1])
    off = (1.0 - step) / 2.0  # sample centres of a step-by-step subdivision of each pixel
    u = (np.arange(round(w / step), dtype=np.float32) * step - off - np.float32(cx)) / np.float32(fx)
    v = (np.arange(round(h / step), dtype=np.float32) * step - off - np.float32(cy)) / np.float32(fy)
    xd, yd = np.meshgrid(u, v)
    rd = np.sqrt(xd * xd + yd * yd)
    ratio = _undistort_ratio(rd, k1, k2, float(rd.max()))
    xu, yu = xd * ratio, yd * ratio
    rot = camera.rotation.astype(np.float32)
    dx = rot[0, 0] * xu + rot[1, 0] * yu + rot[2, 0]
    dy = rot[0, 1] * xu + rot[1, 1] * yu + rot[2, 1]
    dz = rot[0, 2] * xu + rot[1, 2] * yu + rot[2, 2]
    valid = (dz > 1e-6) & np.isfinite(ratio)
    return dx, dy, np.where(valid, dz, 1.0), valid


def _raised_maps(camera: CameraModel, table: TableModel, height: float, scale: float) -> _Raised:
    """Cushions and rail as a plane ``height`` above the cloth, nose edge above the field boundary.

    A ray that meets that plane outside the field (and inside the rail) shows the cushion or rail top; one
    that passes inside the nose but lands outside the field at cloth level hits the nose's face (drawn as
    the top's colour in shade); the rest shows the cloth or the floor. Weights come from 2 x 2 samples per
    pixel so the nose edge is anti-aliased."""
    key = _camera_key(camera, table) + np.float64(height).tobytes()
    hit = _RAISED_CACHE.get(key)
    if hit is not None:
        return hit
    w, h = camera.image_size
    L, W = table.length_mm, table.width_mm
    outer = CUSHION_WIDTH_MM + RAIL_WIDTH_MM
    c = camera.centre_mm.astype(np.float32)

    def classify(step: float) -> tuple[np.ndarray, ...]:
        dx, dy, dz, valid = _rays(camera, w, h, step)
        t1 = (-height - c[2]) / dz
        t0 = -c[2] / dz
        x1, y1 = c[0] + t1 * dx, c[1] + t1 * dy
        x0, y0 = c[0] + t0 * dx, c[1] + t0 * dy
        in_field_1 = (x1 >= 0) & (x1 <= L) & (y1 >= 0) & (y1 <= W)
        in_field_0 = (x0 >= 0) & (x0 <= L) & (y0 >= 0) & (y0 <= W)
        in_rail_1 = (x1 >= -outer) & (x1 <= L + outer) & (y1 >= -outer) & (y1 <= W + outer)
        top = valid & ~in_field_1 & in_rail_1
        face = valid & in_field_1 & ~in_field_0
        return x1, y1, top, face

    x1, y1, _, _ = classify(1.0)
    _, _, top2, face2 = classify(0.5)
    hh, ww = top2.shape

    def block_mean(a: np.ndarray) -> np.ndarray:
        return a.astype(np.float32).reshape(hh // 2, 2, ww // 2, 2).mean(axis=(1, 3))

    top_w = block_mean(top2)[:h, :w]
    face_w = block_mean(face2)[:h, :w]
    out = _Raised(
        ((x1 + _MARGIN_MM) * scale).astype(np.float32),
        ((y1 + _MARGIN_MM) * scale).astype(np.float32),
        (top_w + 0.45 * face_w).astype(np.float32),
        (1.0 - top_w - face_w).astype(np.float32),
    )
    if len(_RAISED_CACHE) > 8:
        _RAISED_CACHE.clear()
    _RAISED_CACHE[key] = out
    return out


def _undistort_ratio(rd: np.ndarray, k1: float, k2: float, rmax: float) -> np.ndarray:
    """r_u / r_d for distorted normalised radii ``rd``, inverting r_d = r_u (1 + k1 r_u^2 + k2 r_u^4)
    along its monotone branch; NaN where no undistorted radius maps there."""
    if k1 == 0.0 and k2 == 0.0:
        return np.ones_like(rd)
    ru = np.linspace(0.0, 3.0 * rmax + 0.1, 16384)
    rdl = ru * (1 + k1 * ru**2 + k2 * ru**4)
    inc = np.diff(rdl) > 0
    stop = int(np.argmin(inc)) if not inc.all() else len(ru) - 1
    ru, rdl = ru[: stop + 1], rdl[: stop + 1]
    r_u = np.interp(rd, rdl, ru, right=np.nan).astype(np.float32)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(rd > 1e-9, r_u / np.maximum(rd, 1e-9), 1.0)
    return ratio.astype(np.float32)


def _texture_scale(camera: CameraModel, table: TableModel) -> float:
    """Texture px per mm: about 1.5 x the finest image scale over the field, within 0.15..1.2."""
    L, W = table.length_mm, table.width_mm
    pts = np.array([[x, y] for x in (0.0, L / 2, L) for y in (0.0, W / 2, W)], np.float64)
    a = camera.project(pts)
    b = camera.project(pts + np.array([20.0, 0.0]))
    c = camera.project(pts + np.array([0.0, 20.0]))
    s = max(np.linalg.norm(b - a, axis=1).max(), np.linalg.norm(c - a, axis=1).max()) / 20.0
    return float(np.clip(1.5 * s, 0.15, 1.2))


# ---- the top-down texture -----------------------------------------------------------------------------------


_TEXTURE_CACHE: dict[tuple[object, ...], np.ndarray] = {}


def _texture(table: TableModel, scale: float, cloth_bgr: tuple[int, ...], marks: bool) -> np.ndarray:
    """The painted table, cached: it depends only on the table, the scale, the cloth and the marks."""
    key = (table.spec, round(scale, 6), cloth_bgr, marks)
    hit = _TEXTURE_CACHE.get(key)
    if hit is None:
        if len(_TEXTURE_CACHE) > 4:
            _TEXTURE_CACHE.clear()
        hit = _paint_texture(table, scale, np.random.default_rng(7), (cloth_bgr[0], cloth_bgr[1], cloth_bgr[2]), marks)
        _TEXTURE_CACHE[key] = hit
    return hit


def _paint_texture(
    table: TableModel, scale: float, rng: np.random.Generator, cloth_bgr: tuple[int, int, int], marks: bool
) -> np.ndarray:
    L, W = table.length_mm, table.width_mm
    tw = math.ceil((L + 2 * _MARGIN_MM) * scale)
    th = math.ceil((W + 2 * _MARGIN_MM) * scale)
    sh = 4  # fixed-point bits for sub-pixel drawing

    def P(pts: np.ndarray | list[tuple[float, float]]) -> np.ndarray:
        a = (np.asarray(pts, np.float64).reshape(-1, 2) + _MARGIN_MM) * scale
        return np.round(a * (1 << sh)).astype(np.int32)

    def box(d: float) -> np.ndarray:
        """Exact box-filtered coverage (0..255) of the field grown by ``d`` mm on every side."""
        ix = np.arange(tw, dtype=np.float64)
        iy = np.arange(th, dtype=np.float64)
        x0, x1 = (-d + _MARGIN_MM) * scale, (L + d + _MARGIN_MM) * scale
        y0, y1 = (-d + _MARGIN_MM) * scale, (W + d + _MARGIN_MM) * scale
        cx = np.clip(np.minimum(ix + 0.5, x1) - np.maximum(ix - 0.5, x0), 0, 1)
        cy = np.clip(np.minimum(iy + 0.5, y1) - np.maximum(iy - 0.5, y0), 0, 1)
        return np.round(np.outer(cy, cx) * 255).astype(np.uint8)

    tex = np.empty((th, tw, 3), np.uint8)
    tex[:] = FLOOR_BGR
    cw, rw = CUSHION_WIDTH_MM, RAIL_WIDTH_MM
    # Wooden rail with a grain along each side.
    grain = _grain(th, tw, rng)
    _blend(tex, box(cw + rw), np.array(RAIL_BGR, np.float32)[None, None, :] * grain[:, :, None])
    # Cushion band: the cloth colour, shaded (the sloping rubber catches less light), with a lit top strip
    # and a dark strip along the nose.
    cloth = np.array(cloth_bgr, np.float32)
    _blend(tex, box(cw), (cloth * 0.62)[None, None, :])
    _blend(tex, box(cw * 0.7), np.minimum(cloth * 0.85 + 12, 255)[None, None, :])
    _blend(tex, box(cw * 0.35), (cloth * 0.5)[None, None, :])
    # Cloth with a felt texture.
    felt = _felt(th, tw, rng)
    _blend(tex, box(0.0), cloth[None, None, :] * felt[:, :, None])
    # Pockets: the mouth cut through cushion and rail along the jaws, and the hole behind it.
    for pk in table.pockets.values():
        (a, b) = (pk.jaws[0].tip, pk.jaws[1].tip)
        o = np.array(pk.outward)
        reach = cw + rw * 0.55
        cut = [a, tuple(np.array(a) + o * reach), tuple(np.array(b) + o * reach), b]
        r_hole = pk.mouth_width_mm * (0.62 if pk.kind == "corner" else 0.58)
        centre = np.array(pk.mouth_center) + o * (r_hole + 14.0)
        c = P([tuple(centre)])[0]
        cv2.circle(tex, (int(c[0]), int(c[1])), round((r_hole + 12) * scale * (1 << sh)), (40, 40, 44),
                   -1, cv2.LINE_AA, sh)  # fmt: skip
        cv2.circle(tex, (int(c[0]), int(c[1])), round(r_hole * scale * (1 << sh)), (6, 6, 8), -1,
                   cv2.LINE_AA, sh)  # fmt: skip
        cv2.fillPoly(tex, [P(cut)], (12, 12, 14), cv2.LINE_AA, sh)
    if marks:
        _paint_marks(tex, table, P, scale, sh)
    return cv2.GaussianBlur(tex, (0, 0), 0.6)


def _paint_marks(tex: np.ndarray, table: TableModel, P: object, scale: float, sh: int) -> None:
    assert callable(P)
    W = table.width_mm
    for name, (x, y) in table.spots.items():
        r = 7.0 if name != "center" else 5.0
        c = P([(x, y)])[0]
        cv2.circle(tex, (int(c[0]), int(c[1])), max(round(r * scale * (1 << sh)), 1 << sh), MARK_BGR, -1,
                   cv2.LINE_AA, sh)  # fmt: skip
    # The house line, drawn thin across the field (chalk/pencil).
    xh = table.lines["house"].value_mm
    line = P([(xh - 2.0, 0.0), (xh + 2.0, 0.0), (xh + 2.0, W), (xh - 2.0, W)])
    overlay = tex.copy()
    cv2.fillPoly(overlay, [line], MARK_BGR, cv2.LINE_AA, sh)
    cv2.addWeighted(overlay, 0.7, tex, 0.3, 0, dst=tex)
    # Cluster attack-zone marks: short white bars across the rail, perpendicular to the cushion.
    for mark in table.attack_marks.values():
        cu = table.cushions[mark.cushion]
        nx, ny = cu.inward
        dx, dy = cu.direction
        px, py = mark.point
        o0, o1 = -(CUSHION_WIDTH_MM + 15.0), -(CUSHION_WIDTH_MM + RAIL_WIDTH_MM - 25.0)
        hw = 4.0
        quad = [
            (px + nx * o0 - dx * hw, py + ny * o0 - dy * hw),
            (px + nx * o0 + dx * hw, py + ny * o0 + dy * hw),
            (px + nx * o1 + dx * hw, py + ny * o1 + dy * hw),
            (px + nx * o1 - dx * hw, py + ny * o1 - dy * hw),
        ]
        cv2.fillPoly(tex, [P(quad)], MARK_BGR, cv2.LINE_AA, sh)


def _blend(tex: np.ndarray, mask: np.ndarray, colour: np.ndarray) -> None:
    """``tex = tex * (1 - a) + colour * a`` with ``a = mask / 255`` (anti-aliased edges), in place."""
    x0, y0, bw, bh = cv2.boundingRect(mask)
    if bw == 0 or bh == 0:
        return
    a = mask[y0 : y0 + bh, x0 : x0 + bw].astype(np.float32) * np.float32(1 / 255)
    sub = tex[y0 : y0 + bh, x0 : x0 + bw]
    if colour.shape[0] == 1:
        col = np.empty_like(sub)
        col[:] = np.clip(colour.reshape(3), 0, 255).astype(np.uint8)
    else:
        col = np.clip(colour[y0 : y0 + bh, x0 : x0 + bw], 0, 255).astype(np.uint8)
    tex[y0 : y0 + bh, x0 : x0 + bw] = cv2.blendLinear(sub, col, 1.0 - a, a)


def _felt(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A gain around 1: fine fibre noise plus faint large-scale mottling of the cloth."""
    fine = rng.standard_normal((h, w), dtype=np.float32) * 0.035
    coarse = rng.standard_normal((max(h // 40, 2), max(w // 40, 2)), dtype=np.float32)
    coarse = cv2.resize(cv2.GaussianBlur(coarse, (0, 0), 1.5), (w, h), interpolation=cv2.INTER_CUBIC) * 0.03
    return 1.0 + fine + coarse


def _grain(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    streak_x = rng.standard_normal((1, w), dtype=np.float32)
    streak_y = rng.standard_normal((h, 1), dtype=np.float32)
    gx = cv2.GaussianBlur(streak_x, (0, 0), 3.0) * 0.10
    gy = cv2.GaussianBlur(streak_y, (0, 0), 3.0) * 0.10
    return 1.0 + gx + gy + rng.standard_normal((h, w), dtype=np.float32) * 0.03


def _lighting_gain(image_size: tuple[int, int], rng: np.random.Generator, lighting: str) -> np.ndarray:
    """A smooth multiplicative gain over the image: mild vignetting, or a gradient with lamp pools."""
    w, h = image_size
    sw, sh = 64, max(round(64 * h / w), 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx = xx / (sw - 1) - 0.5
    yy = yy / (sh - 1) - 0.5
    gain = 1.0 - 0.12 * (xx * xx + yy * yy) * 2
    mottle = cv2.GaussianBlur(rng.standard_normal((sh, sw)).astype(np.float32), (0, 0), 1.2)
    gain = gain + 0.02 * mottle / max(float(mottle.std()), 1e-6)
    if lighting == "uneven":
        ang = rng.uniform(0, 2 * math.pi)
        gain = gain + 0.22 * (xx * math.cos(ang) + yy * math.sin(ang)) * 2 * 0.8
        for _ in range(int(rng.integers(2, 4))):
            cx, cy = rng.uniform(-0.4, 0.4), rng.uniform(-0.3, 0.3)
            s = rng.uniform(0.12, 0.25)
            gain = gain + rng.uniform(0.08, 0.18) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
        gain = gain - 0.1
    return cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
