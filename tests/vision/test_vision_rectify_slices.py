"""The table-frame grid in parts: a slice of the rectifier's maps rectifies that part alone, to the same
values as the whole grid; the nearest-pixel grid is the bilinear one's quick look."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import render
from vision.rectify import TableRectifier
from vision.rectify_kernels import stack_windows

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


def test_stacked_windows_are_the_slices_of_the_maps_and_masks(frame):
    """``stack_windows`` copies each window of the maps and masks to its rows of the stack (the row after
    each untouched); its prefetching changes nothing, also for cells mapped off the frame."""
    rect = TableRectifier(frame.calibration, 0.15, 40.0)
    m1, m2 = rect.maps
    w, h = rect.size
    size = 35
    ox = np.array([0, 200, w - size, 37], np.int64)
    oy = np.array([0, 100, h - size, h - size], np.int64)
    n, rows = len(ox), size + 1
    out = (
        np.full((n * rows, size, 2), 7, np.int16),
        np.full((n * rows, size), 7, np.uint16),
        np.full((n * rows, size), 7, np.uint8),
        np.full((n * rows, size), 7, np.uint8),
    )
    small = np.ascontiguousarray(frame.image[:300, :400])  # most cells map off this frame
    for image in (frame.image, small):
        stack_windows(image, m1, m2, rect.surface, rect.dark_ok, ox, oy, size, *out)
        for k, (x, y) in enumerate(zip(ox, oy, strict=True)):
            r = slice(k * rows, k * rows + size)
            np.testing.assert_array_equal(out[0][r], m1[y : y + size, x : x + size])
            np.testing.assert_array_equal(out[1][r], m2[y : y + size, x : x + size])
            np.testing.assert_array_equal(out[2][r], rect.surface[y : y + size, x : x + size])
            np.testing.assert_array_equal(out[3][r], rect.dark_ok[y : y + size, x : x + size])
            assert (out[2][k * rows + size] == 7).all()
    assert (out[0][..., 0] >= small.shape[1]).any()  # the small frame's case did read cells mapped off it
