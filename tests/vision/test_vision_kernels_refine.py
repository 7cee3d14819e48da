"""The compiled refinement kernel (``vision.refine_kernels``) agrees with the numpy reference
(``tests/refine_support.py``) on rendered balls, and its bilinear samples are OpenCV's float-map arithmetic
(two lerps along x, one along y, in float32, rounded half to even, the border replicated)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import render
from tests.refine_support import refine_centres_numpy
from vision.cloth import ClothModel
from vision.parallax import ball_radius_px, ray_cloth_point
from vision.rectify import TableRectifier
from vision.refine import _rays, _score_array, refine_centres
from vision.refine_kernels import _ball_scores

pytest.importorskip("models.synth.balls")

R = TableModel().ball_radius_mm


@pytest.fixture(scope="module")
def scene():
    balls = [(600.0, 700.0), (1500.0, 300.0), (1500.0 + 2 * R, 300.0), (R, 600.0), (2500.0, 1000.0)]
    balls += [(1900.0 + 2 * R * i + R * (j % 2), 800.0 + 1.75 * R * j) for j in range(3) for i in range(3 - j)]
    frame = render(balls, size=(1920, 1080), tilt_deg=18.0, k1=-0.03, seed=4)
    img = frame.image.copy()
    x, y = frame.px[4]
    img[int(y + 5) : int(y + 60), int(x - 50) : int(x + 50)] = (120, 150, 210)  # an arm over a ball
    cloth = ClothModel()
    rect = TableRectifier(frame.calibration, 0.15)
    cloth.initialise(rect.rectify(img), rect.surface)
    radius = ball_radius_px(frame.calibration, ray_cloth_point(frame.calibration, frame.pos))
    return frame, img, cloth, radius


@pytest.mark.parametrize("toward", [False, True])
def test_kernel_matches_the_numpy_reference_on_rendered_balls(scene, toward):
    frame, img, cloth, radius = scene
    rng = np.random.default_rng(11)
    starts = frame.px + rng.uniform(-3.0, 3.0, frame.px.shape)
    n = len(starts)
    opts = {
        "dark_counts": np.arange(n) % 4 != 3,
        "toward_camera": np.tile([0.0, -1.0], (n, 1)) if toward else None,
        "valley_scale": 0.94,
    }
    got = refine_centres(img, starts, radius, cloth, **opts)
    ref = refine_centres_numpy(img, starts, radius, cloth, **opts)
    assert np.abs(got.px - ref.px).max() < 0.01
    np.testing.assert_allclose(got.edge_fraction, ref.edge_fraction)
    np.testing.assert_allclose(got.support, ref.support)
    np.testing.assert_allclose(got.radius, ref.radius, rtol=1e-6)
    np.testing.assert_allclose(got.colour, ref.colour, atol=0.05)
    # The fits moved the starts (the comparison is not of untouched input).
    assert np.linalg.norm(got.px - starts, axis=1).max() > 1.0
    assert np.linalg.norm(got.px[0] - frame.px[0]) < 0.3  # the lone ball


def test_kernel_samples_are_float32_bilinear_with_a_replicated_border(scene):
    _, img, cloth, _ = scene
    rays = _rays(24, 20)
    m = len(rays.rdx)
    buf = np.empty((10, m), np.float32)
    corners = np.empty((3, m), np.int64)
    pix = np.empty((3, m), np.uint64)
    h, w = img.shape[:2]
    # The last: samples on the frame's last pixels, whose 8-byte row reads would run past its end.
    for cx, cy, r in [(700.3, 500.7, 15.2), (3.2, 2.9, 14.0), (w - 2.5, h - 4.1, 16.0), (w - 0.7, h - 0.6, 12.0)]:
        _ball_scores(img, cx, cy, r, rays.rdx, rays.rdy, _score_array(cloth), True, np.float32(-1.0),
                     np.float32(0.0), buf, corners, pix)  # fmt: skip
        x = (cx + r * rays.rdx).astype(np.float32)
        y = (cy + r * rays.rdy).astype(np.float32)
        x0, y0 = np.floor(x), np.floor(y)
        fx, fy = (x - x0)[:, None], (y - y0)[:, None]
        xa, xb = np.clip(x0.astype(int), 0, w - 1), np.clip(x0.astype(int) + 1, 0, w - 1)
        ya, yb = np.clip(y0.astype(int), 0, h - 1), np.clip(y0.astype(int) + 1, 0, h - 1)
        a, b = img[ya, xa].astype(np.float32), img[ya, xb].astype(np.float32)
        c, d = img[yb, xa].astype(np.float32), img[yb, xb].astype(np.float32)
        top, bot = a + fx * (b - a), c + fx * (d - c)
        want = np.rint(top + fy * (bot - top))
        np.testing.assert_array_equal(buf[:3].T, want)
        # The grey row is the mean of the channels; the score is capped at 2.
        np.testing.assert_allclose(buf[9], want.mean(axis=1), atol=1e-3)
        assert buf[8].max() <= 2.0 and buf[8].min() >= 0.0
