"""The compiled not-cloth pass (``vision.cloth_kernels``) gives ``ClothModel.foreground_mask_cv2``'s mask
(OpenCV's transform, magnitude and comparisons) value for value, on a rendered table's grid and on slices
of it (the boxes the detector passes are views), and ``fma32`` rounds once."""

from __future__ import annotations

import cv2
import numba
import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import render
from vision.cloth import ClothModel
from vision.cloth_kernels import masked_median_bgr, open_2x2
from vision.kernel_ops import fma32
from vision.rectify import TableRectifier

pytest.importorskip("models.synth.balls")

R = TableModel().ball_radius_mm


@pytest.fixture(scope="module")
def grid():
    balls = [(600.0, 700.0), (1500.0, 300.0), (1500.0 + 2 * R, 300.0), (R, 600.0), (2500.0, 1000.0)]
    frame = render(balls, size=(1280, 720), tilt_deg=15.0, k1=-0.02, seed=2, lighting="uneven")
    img = frame.image.copy()
    img[300:360, 200:420] = (20, 20, 25)  # a dark patch (a shadow or a black object)
    img[100:130, 800:900] = (240, 240, 250)  # a bright one
    rect = TableRectifier(frame.calibration, 0.15)
    cloth = ClothModel()
    bgr = rect.rectify(img)
    cloth.initialise(bgr, rect.surface)
    return bgr, rect, cloth


def test_compiled_mask_equals_the_opencv_one(grid):
    bgr, rect, cloth = grid
    got = cloth.foreground_mask(bgr, rect.surface, rect.dark_ok)
    ref = cloth.foreground_mask_cv2(bgr, rect.surface, rect.dark_ok)
    assert got.dtype == np.uint8 and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)
    assert 0 < np.count_nonzero(got) < 0.2 * got.size  # balls and patches found, the cloth not
    for ys, xs in [(slice(5, 70), slice(30, 141)), (slice(0, 40), slice(0, 33))]:
        np.testing.assert_array_equal(
            cloth.foreground_mask(bgr[ys, xs], rect.surface[ys, xs], rect.dark_ok[ys, xs]),
            cloth.foreground_mask_cv2(bgr[ys, xs], rect.surface[ys, xs], rect.dark_ok[ys, xs]),
        )
        # The same patch with the whole grid's masks and its offset.
        np.testing.assert_array_equal(
            cloth.foreground_mask_at(np.ascontiguousarray(bgr[ys, xs]), rect.surface, rect.dark_ok, ys.start, xs.start),
            cloth.foreground_mask_cv2(bgr[ys, xs], rect.surface[ys, xs], rect.dark_ok[ys, xs]),
        )


def test_compiled_mask_follows_the_model_thresholds(grid):
    bgr, rect, cloth = grid
    strict = ClothModel(colour=cloth.colour.copy(), chroma_min=60.0, chroma_rel=0.6, bright_k=2.5, dark_k=0.05)
    got = strict.foreground_mask(bgr, rect.surface, rect.dark_ok)
    np.testing.assert_array_equal(got, strict.foreground_mask_cv2(bgr, rect.surface, rect.dark_ok))
    assert np.count_nonzero(got) < np.count_nonzero(cloth.foreground_mask(bgr, rect.surface, rect.dark_ok))


@numba.njit
def _fma_many(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = fma32(a[i], b[i], c[i])
    return out


def test_fma32_is_one_rounding_of_the_exact_sum():
    rng = np.random.default_rng(5)
    a, b, c = (rng.normal(0, 100, 10000).astype(np.float32) for _ in range(3))
    exact = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
    got = _fma_many(a, b, c)
    assert np.count_nonzero(got != exact) <= 2  # float64 sums are exact bar rare double roundings
    assert np.count_nonzero(got != a * b + c) > 100  # unlike two float32 roundings


def test_opening_is_opencvs():
    """``open_2x2`` is ``cv2.morphologyEx`` with a 2 x 2 square (its anchor and its borders included)."""
    rng = np.random.default_rng(5)
    square = np.ones((2, 2), np.uint8)
    changed = 0
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(1, 50, 2))
        mask = np.where(rng.uniform(0, 1, (h, w)) < rng.choice([0.2, 0.5, 0.8, 0.97]), 255, 0).astype(np.uint8)
        want = cv2.morphologyEx(mask, cv2.MORPH_OPEN, square)
        np.testing.assert_array_equal(open_2x2(mask), want)
        changed += int(not np.array_equal(want, mask))
    assert changed > 150


def test_opened_foreground_is_the_mask_then_the_opening(grid):
    bgr, rect, cloth = grid
    for y0, y1, x0, x1 in [(0, rect.size[1], 0, rect.size[0]), (40, 120, 100, 260)]:
        part = bgr[y0:y1, x0:x1]
        mask = cloth.foreground_mask_at(part, rect.surface, rect.dark_ok, y0, x0)
        want = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        got = cloth.opened_foreground_at(part, rect.surface, rect.dark_ok, y0, x0)
        np.testing.assert_array_equal(got, want)
        assert np.count_nonzero(got) > 0


def test_masked_median_is_numpys():
    """The cloth model's adaptation takes ``np.median`` of the cloth pixels (every 4th row and column) from
    histograms: the same values, odd and even counts alike."""
    rng = np.random.default_rng(9)
    for k in range(150):
        h, w = (int(v) for v in rng.integers(1, 60, 2))
        bgr = rng.integers(0, 256, (h, w, 3)).astype(np.uint8)
        if k % 2:
            bgr = (bgr // 40 * 40).astype(np.uint8)  # many equal values
        mask = np.where(rng.uniform(0, 1, (h, w)) < rng.choice([0.05, 0.5, 1.0]), 255, 0).astype(np.uint8)
        pix = bgr[::4, ::4][mask[::4, ::4] > 0]
        got, n = masked_median_bgr(bgr, mask, 4)
        assert n == len(pix)
        if n:
            np.testing.assert_array_equal(got, np.median(pix.astype(np.float64), axis=0))


def test_the_chroma_basis_cross_products_are_numpys():
    """The cloth model's basis takes its cross products written out: ``np.cross``'s values, exactly."""
    from vision.cloth import _cross

    rng = np.random.default_rng(5)
    for _ in range(200):
        a, b = rng.normal(size=3) * 100.0, rng.normal(size=3)
        np.testing.assert_array_equal(_cross(a, b), np.cross(a, b))
