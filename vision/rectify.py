"""The table frame as an image: the playing field resampled from the camera frame at a few px per mm.

``TableRectifier`` precomputes, once per calibration, the pixel of the recorded (distorted) frame that
every cell of a table-aligned grid comes from, as OpenCV fixed-point maps, so each frame is rectified by
one ``cv2.remap``. Grid pixel (i, j) is the cloth point x = (j + 0.5) / s - margin, y = (i + 0.5) / s -
margin (mm), with s = ``px_per_mm``. It also holds masks of the grid: the playing surface, and the part
of it where a dark blob may be a ball (not a pocket's hole).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.mapping import Calibration
from vision.rectify_kernels import gather_nearest


@dataclass(frozen=True)
class TableRectifier:
    calibration: Calibration
    px_per_mm: float = 0.2
    margin_mm: float = 40.0
    size: tuple[int, int] = field(init=False)  # (width, height) of the grid
    _maps: tuple[np.ndarray, np.ndarray] = field(init=False, repr=False)
    _nearest: np.ndarray = field(init=False, repr=False)
    _nearest_flat: dict[tuple[int, int], np.ndarray] = field(init=False, repr=False, default_factory=dict)
    surface: np.ndarray = field(init=False, repr=False)  # uint8 0/255: cloth (field + margin) that maps into the frame
    dark_ok: np.ndarray = field(init=False, repr=False)  # uint8 0/255: where a dark blob may be a ball

    def __post_init__(self) -> None:
        t = self.calibration.table
        s, m = self.px_per_mm, self.margin_mm
        w = math.ceil((t.length_mm + 2 * m) * s)
        h = math.ceil((t.width_mm + 2 * m) * s)
        jj, ii = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        xy = np.column_stack([((jj + 0.5) / s - m).ravel(), ((ii + 0.5) / s - m).ravel()])
        px = self.calibration.table_to_image(xy).astype(np.float32)
        mx, my = px[:, 0].reshape(h, w), px[:, 1].reshape(h, w)
        iw, ih = self.calibration.image_size
        inside = (mx >= 0) & (mx <= iw - 1) & (my >= 0) & (my <= ih - 1)
        m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        object.__setattr__(self, "size", (w, h))
        object.__setattr__(self, "_maps", (m1, m2))
        object.__setattr__(self, "_nearest", cv2.convertMaps(mx, my, cv2.CV_16SC2, nninterpolation=True)[0])
        object.__setattr__(self, "surface", np.where(inside, 255, 0).astype(np.uint8))
        # Dark blobs count as balls only on the cloth proper: inside the field, away from the corner
        # pockets' holes beyond their mouth lines (the middle pockets' holes lie outside the field).
        dark = np.zeros((h, w), np.uint8)
        poly = self.table_to_grid(np.array(self._cloth_polygon(), dtype=np.float64))
        cv2.fillPoly(dark, [np.round(poly).astype(np.int32)], 255)
        object.__setattr__(self, "dark_ok", cv2.bitwise_and(dark, self.surface))

    def _cloth_polygon(self) -> list[tuple[float, float]]:
        t = self.calibration.table
        c = t.spec.corner_mouth_mm / math.sqrt(2.0)
        L, W = t.length_mm, t.width_mm
        return [(c, 0), (L - c, 0), (L, c), (L, W - c), (L - c, W), (c, W), (0, W - c), (0, c)]

    @property
    def maps(self) -> tuple[np.ndarray, np.ndarray]:
        """The fixed-point ``cv2.remap`` maps of the grid (``CV_16SC2`` and its interpolation table): a
        slice of both rectifies that part of the grid alone, to the same values."""
        return self._maps

    def rectify(self, frame_bgr: np.ndarray) -> np.ndarray:
        return cv2.remap(frame_bgr, self._maps[0], self._maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def rectify_nearest(self, frame_bgr: np.ndarray) -> np.ndarray:
        """The grid from the frame pixel nearest each cell's point (one frame row per grid row: fewer
        memory reads than ``rectify``'s bilinear samples, for a quick look). A uint8 BGR frame is read by
        one compiled loop (``vision.rectify_kernels``), the same values as ``cv2.remap``'s."""
        frame = np.ascontiguousarray(frame_bgr)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            return cv2.remap(frame, self._nearest, None, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)  # type: ignore[call-overload]
        return gather_nearest(frame, self._nearest_index(frame.shape[0], frame.shape[1]))

    def _nearest_index(self, h: int, w: int) -> np.ndarray:
        """Flat offsets (int64, -1 off the frame) of each cell's nearest pixel in an h x w BGR frame (kept
        for the last frame size)."""
        cached = self._nearest_flat.get((h, w))
        if cached is not None:
            return cached
        xs = self._nearest[..., 0].astype(np.int64)
        ys = self._nearest[..., 1].astype(np.int64)
        inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        index = np.where(inside, (ys * w + xs) * 3, -1)
        self._nearest_flat.clear()
        self._nearest_flat[(h, w)] = index
        return index

    def grid_to_table(self, ij: np.ndarray) -> np.ndarray:
        """Table mm of grid coordinates given as (col, row) = (u, v) pixel positions, sub-pixel."""
        p = np.asarray(ij, dtype=np.float64).reshape(-1, 2)
        return (p + 0.5) / self.px_per_mm - self.margin_mm

    def table_to_grid(self, xy_mm: np.ndarray) -> np.ndarray:
        p = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        return (p + self.margin_mm) * self.px_per_mm - 0.5
