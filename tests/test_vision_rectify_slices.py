"""The table-frame grid in parts: a slice of the rectifier's maps rectifies that part alone, to the same
values as the whole grid; the nearest-pixel grid is the bilinear one's quick look."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import render
from vision.rectify import TableRectifier

pytest.importorskip("models.synth.balls")

TABLE = TableModel()


@pytest.fixture(scope="module")
def frame():
    return render([(900.0, 600.0), (2400.0, 1200.0)], size=(1280, 720), tilt_deg=12.0, k1=-0.05)


def test_a_slice_of_the_maps_rectifies_that_part_of_the_grid_exactly(frame):
    rect = TableRectifier(frame.calibration, 0.15, 40.0)
    whole = rect.rectify(frame.image)
    m1, m2 = rect.maps
    w, h = rect.size
    for y0, y1, x0, x1 in [(0, 35, 0, 35), (100, 141, 200, 247), (h - 30, h, w - 50, w)]:
        part = cv2.remap(frame.image, m1[y0:y1, x0:x1], m2[y0:y1, x0:x1], cv2.INTER_LINEAR)
        assert np.array_equal(part, whole[y0:y1, x0:x1])


def test_nearest_pixel_grid_is_close_to_the_bilinear_one(frame):
    rect = TableRectifier(frame.calibration, 0.075, 40.0)
    near = rect.rectify_nearest(frame.image)
    lin = rect.rectify(frame.image)
    assert near.shape == lin.shape == (rect.size[1], rect.size[0], 3)
    inside = rect.surface > 0
    diff = np.abs(near.astype(int) - lin.astype(int))[inside]
    assert np.median(diff) <= 3 and diff.mean() < 6
    assert not np.array_equal(near, lin)  # a different sampling, not the same call


def test_compiled_nearest_grid_is_opencvs_nearest_remap(frame):
    rect = TableRectifier(frame.calibration, 0.075)
    want = cv2.remap(frame.image, rect._nearest, None, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
    np.testing.assert_array_equal(rect.rectify_nearest(frame.image), want)
    # A smaller frame: cells whose pixel lies off it come out black, as OpenCV's constant border gives.
    part = np.ascontiguousarray(frame.image[: frame.image.shape[0] // 2, : frame.image.shape[1] // 2])
    got = rect.rectify_nearest(part)
    np.testing.assert_array_equal(
        got, cv2.remap(part, rect._nearest, None, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
    )
    assert (got == 0).all(axis=2).mean() > 0.3
