"""The classical detector's vote accumulator and its windows' edge zones, against plain reference versions:
votes gathered into a padded accumulator are the in-bounds votes of each edge pixel, and the stacked
edge-zone masks clear exactly the cut sides of each window."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import top_down_calibration
from vision.classical import ClassicalDetector
from vision.classical_kernels import sobel_3x3

TABLE = TableModel()


@pytest.fixture(scope="module")
def detector() -> ClassicalDetector:
    return ClassicalDetector(top_down_calibration((1280, 720), TABLE))


def _votes_reference(det: ClassicalDetector, gray: np.ndarray, near_fg: np.ndarray) -> np.ndarray:
    """Each edge pixel's votes one by one, those falling off the image dropped."""
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    thr = det.settings.edge_threshold
    h, w = gray.shape
    acc = np.zeros((h, w), np.float64)
    for y, x in zip(*np.nonzero((mag > thr) & (near_fg > 0)), strict=True):
        m = mag[y, x]
        ux, uy = gx[y, x] / m, gy[y, x] / m
        wgt = min(float(m) / (4 * thr), 1.0)
        for s in det._vote_steps:
            xi = int(np.rint(np.float32(x) + s * ux))
            yi = int(np.rint(np.float32(y) + s * uy))
            if 0 <= xi < w and 0 <= yi < h:
                acc[yi, xi] += wgt
    return acc.astype(np.float32)


def test_votes_equal_the_in_bounds_votes_of_each_edge_pixel(detector):
    h, w = 40, 56
    img = np.zeros((h, w), np.uint8)
    r = detector.radius_grid
    # Balls cut by every side of the box (their votes partly fall off it) and one inside it.
    for cx, cy in [(2.0, 20.0), (28.0, 1.5), (54.0, 30.0), (30.0, 38.5), (25.0, 18.0)]:
        cv2.circle(img, (int(cx * 16), int(cy * 16)), int(r * 16), 200, -1, cv2.LINE_AA, 4)
    gray = cv2.GaussianBlur(img, (3, 3), 0)
    near = np.full_like(gray, 255)
    near[:, 40:44] = 0  # a band where edges do not vote
    got = detector._votes(gray, near)
    ref = _votes_reference(detector, gray, near)
    assert got.shape == (h, w) and got.dtype == np.float32
    assert ref.sum() > 0
    np.testing.assert_allclose(got, ref, atol=1e-4)


@pytest.mark.parametrize("shape", [(1, 1), (1, 6), (2, 2), (7, 1), (23, 31)])
def test_the_votes_gradient_is_opencvs_sobel_at_every_pixel(shape):
    """The vote kernel takes the 3 x 3 Sobel gradient itself, at the pixels that vote: the values
    ``cv2.Sobel`` gives (its mirrored border included), exactly."""
    gray = np.random.default_rng(7).integers(0, 256, shape).astype(np.uint8)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    got = np.array([[sobel_3x3(gray, y, x) for x in range(shape[1])] for y in range(shape[0])], np.float32)
    np.testing.assert_array_equal(got[..., 0], gx)
    np.testing.assert_array_equal(got[..., 1], gy)


def test_votes_of_a_box_without_edges_are_zero(detector):
    gray = np.full((20, 30), 90, np.uint8)
    got = detector._votes(gray, np.full_like(gray, 255))
    assert got.shape == (20, 30) and not got.any()
