"""The cloth's colour, and for every pixel how far it is from cloth: the classical detector's first cue.

A pixel is described against the cloth colour ``c`` by its brightness relative to the cloth, ``k`` (the
projection of its BGR vector on ``c``, divided by ``|c|``, so cloth reads ``k = 1``) and its chroma
residual (the part of it orthogonal to ``c``, in BGR units). A shadow on the cloth is the cloth colour
scaled down: ``k < 1`` with a small residual, so it stays "cloth". A ball differs in chroma (coloured or
white balls on a coloured cloth), or is much brighter (a white ball, a highlight) or much darker (a black
ball). The model starts from the median of the surface and then adapts slowly, from pixels it classified
as cloth, to light that changes over a session.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cloth_kernels import foreground_kernel, masked_median_bgr, opened_foreground


@dataclass
class ClothModel:
    colour: np.ndarray | None = None  # BGR float, the cloth's reference colour
    adapt_rate: float = 0.05  # fraction of the new cloth estimate mixed in per frame
    chroma_min: float = 16.0  # chroma residual (BGR units) that is never cloth ...
    chroma_rel: float = 0.22  # ... or this fraction of the cloth's brightness, whichever is larger
    bright_k: float = 1.3  # brighter than this times the cloth: not cloth
    dark_k: float = 0.28  # darker than this times the cloth: not cloth (where dark blobs may be balls)
    min_cloth_fraction: float = 0.45  # a surface less cloth-like than this is not a table (no detections)
    min_brightness: float = 18.0  # a cloth darker than this (BGR norm / sqrt 3) is no usable picture

    def initialise(self, rect_bgr: np.ndarray, surface: np.ndarray) -> None:
        pix = rect_bgr[surface > 0][::7]
        if len(pix) == 0:
            self.colour = np.zeros(3)
            return
        self.colour = np.median(pix.astype(np.float64), axis=0)

    def _basis(self) -> tuple[np.ndarray, float]:
        assert self.colour is not None
        key = self.colour.tobytes()
        cached = self.__dict__.get("_basis_cache")
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        c = np.maximum(self.colour, 1e-3)
        n = float(np.linalg.norm(c))
        e0 = c / n
        # Two unit vectors orthogonal to the cloth colour span its chroma plane (the cross products written
        # out: the model changes every few frames, and np.cross took most of this function's 100 us).
        a = np.array([1.0, 0.0, 0.0]) if abs(e0[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        e1 = _cross(e0, a)
        e1 /= np.linalg.norm(e1)
        e2 = _cross(e0, e1)
        basis = np.stack([e0 / n, e1, e2])
        self.__dict__["_basis_cache"] = (key, basis, n)
        return basis, n

    def basis(self) -> np.ndarray:
        """The 3 x 3 matrix taking a BGR vector to (k, chroma components): rows e0 / |c|, e1, e2."""
        return self._basis()[0]

    def _basis_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows of ``basis`` as float32 1 x 3 matrices (cached per colour)."""
        key = self.colour.tobytes() if self.colour is not None else b""
        cached = self.__dict__.get("_rows_cache")
        if cached is None or cached[0] != key:
            b = self.basis().astype(np.float32)
            cached = (key, (b[0:1].copy(), b[1:2].copy(), b[2:3].copy()))
            self.__dict__["_rows_cache"] = cached
        return cached[1]

    def usable(self) -> bool:
        if self.colour is None:
            return False
        c = self.colour
        return math.sqrt(float(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) / 3.0) >= self.min_brightness

    def describe(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(k, chroma) float32 images (or arrays of samples, last axis BGR) for pixels ``bgr``."""
        f = bgr.astype(np.float32)
        if f.ndim == 3 and f.shape[2] == 3 and f.shape[0] > 1 and f.shape[1] > 1:
            # One single-row cv2.transform per output plane: contiguous planes, no channel split.
            rows = self._basis_rows()
            return cv2.transform(f, rows[0]), cv2.magnitude(cv2.transform(f, rows[1]), cv2.transform(f, rows[2]))
        t2 = f.reshape(-1, 3) @ self.basis().T.astype(np.float32)
        shape = f.shape[:-1]
        return t2[:, 0].reshape(shape), np.hypot(t2[:, 1], t2[:, 2]).reshape(shape)

    def chroma_threshold(self) -> float:
        assert self.colour is not None
        key = (self.colour.tobytes(), self.chroma_min, self.chroma_rel)
        cached = self.__dict__.get("_thr_cache")
        if cached is not None and cached[0] == key:
            return float(cached[1])
        thr = max(self.chroma_min, self.chroma_rel * float(np.linalg.norm(self.colour)) / np.sqrt(3))
        self.__dict__["_thr_cache"] = (key, thr)
        return thr

    def foreground(self, rect_bgr: np.ndarray, surface: np.ndarray, dark_ok: np.ndarray) -> tuple[np.ndarray, float]:
        """A uint8 0/255 mask of not-cloth pixels on the surface and the fraction of the surface that is
        cloth. Also returns nothing more: the caller adapts the model with ``adapt``."""
        mask = self.foreground_mask(rect_bgr, surface, dark_ok)
        n_surface = self.__dict__.get("_surface_count")
        if n_surface is None or n_surface[0] is not surface:  # the count of the surface last seen, kept
            n_surface = (surface, max(int(np.count_nonzero(surface)), 1))
            self.__dict__["_surface_count"] = n_surface
        cloth_fraction = 1.0 - float(np.count_nonzero(mask)) / n_surface[1]
        return mask, cloth_fraction

    def foreground_mask(self, rect_bgr: np.ndarray, surface: np.ndarray, dark_ok: np.ndarray) -> np.ndarray:
        """``foreground``'s mask alone (for windows of the grid, where the cloth fraction means nothing): one
        compiled pass (``vision.cloth_kernels``) of what ``foreground_mask_cv2`` does in OpenCV calls."""
        return self.foreground_mask_at(rect_bgr, surface, dark_ok, 0, 0)

    def foreground_mask_at(
        self, rect_bgr: np.ndarray, surface: np.ndarray, dark_ok: np.ndarray, y0: int, x0: int
    ) -> np.ndarray:
        """``foreground_mask`` of a patch of the grid whose masks are ``surface`` and ``dark_ok`` (the whole
        grid's) from row ``y0``, column ``x0`` on (no slices of the masks to pass: faster)."""
        return foreground_kernel(np.ascontiguousarray(rect_bgr), surface, dark_ok, int(y0), int(x0), *self._mask_args())

    def opened_foreground_at(
        self, rect_bgr: np.ndarray, surface: np.ndarray, dark_ok: np.ndarray, y0: int, x0: int
    ) -> np.ndarray:
        """``foreground_mask_at`` opened by a 2 x 2 square (``cv2.MORPH_OPEN``: specks and one-cell lines
        go), in one compiled call."""
        return opened_foreground(np.ascontiguousarray(rect_bgr), surface, dark_ok, int(y0), int(x0), *self._mask_args())

    def foreground_mask_cv2(self, rect_bgr: np.ndarray, surface: np.ndarray, dark_ok: np.ndarray) -> np.ndarray:
        """``foreground_mask`` in OpenCV calls: the reference the compiled pass is tested against."""
        k, chroma = self.describe(rect_bgr)
        thr = self.chroma_threshold()
        fg = cv2.bitwise_or(
            cv2.compare(chroma, thr, cv2.CMP_GT),  # type: ignore[call-overload]
            cv2.compare(k, self.bright_k, cv2.CMP_GT),  # type: ignore[call-overload]
        )
        dark = cv2.bitwise_and(cv2.compare(k, self.dark_k, cv2.CMP_LT), dark_ok)  # type: ignore[call-overload]
        return cv2.bitwise_and(cv2.bitwise_or(fg, dark), surface)

    def _mask_args(self) -> tuple[np.ndarray, np.float32, np.float32, np.float32]:
        """The mask kernels' model arguments: ``_basis_f32``, the chroma threshold, ``bright_k`` and ``dark_k``
        as float32 (cached per colour and thresholds: a frame asks for them a few times)."""
        key = (
            self.colour.tobytes() if self.colour is not None else b"",
            self.chroma_min, self.chroma_rel, self.bright_k, self.dark_k,
        )  # fmt: skip
        cached = self.__dict__.get("_mask_args_cache")
        if cached is None or cached[0] != key:
            args = (
                self._basis_f32(), np.float32(self.chroma_threshold()), np.float32(self.bright_k),
                np.float32(self.dark_k),
            )  # fmt: skip
            cached = (key, args)
            self.__dict__["_mask_args_cache"] = cached
        out: tuple[np.ndarray, np.float32, np.float32, np.float32] = cached[1]
        return out

    def _basis_f32(self) -> np.ndarray:
        """``basis`` as one contiguous 3 x 3 float32 array (cached per colour)."""
        key = self.colour.tobytes() if self.colour is not None else b""
        cached = self.__dict__.get("_basis_f32_cache")
        if cached is None or cached[0] != key:
            cached = (key, np.ascontiguousarray(self.basis(), dtype=np.float32))
            self.__dict__["_basis_f32_cache"] = cached
        out: np.ndarray = cached[1]
        return out

    def adapt(self, rect_bgr: np.ndarray, cloth_mask: np.ndarray) -> None:
        """Move the reference colour a little toward the median of the pixels now classified as cloth."""
        if self.colour is None:
            return
        new, n = masked_median_bgr(rect_bgr, cloth_mask, 4)  # every 4th row and column, by histograms
        if n < 100:
            return
        self.colour = (1 - self.adapt_rate) * self.colour + self.adapt_rate * new


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.cross`` of two 3-vectors (the same products and differences, in the same order)."""
    a0, a1, a2 = float(a[0]), float(a[1]), float(a[2])
    b0, b1, b2 = float(b[0]), float(b[1]), float(b[2])
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
