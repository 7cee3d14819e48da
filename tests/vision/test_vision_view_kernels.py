"""The compiled cloth <-> frame mapping (``vision.view_kernels``) gives what ``Calibration`` gives: the
homography and lens model forward, OpenCV's ``undistortPoints`` and the inverse homography back, and the
parallax cut of a ball-centre ray."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.mapping import CalibrationError
from calibration.table import TableModel
from tests.detect_support import calibration_for
from vision import view_kernels
from vision.parallax import ball_px_to_table, lens_arrays

TABLE = TableModel()


def _cal(tilt: float, k1: float, k2: float):
    cam = CameraModel.overhead(TABLE, (1920, 1080), tilt_deg=tilt, k1=k1, k2=k2)
    return calibration_for(cam, TABLE)


def _points(n: int = 200) -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.uniform([-60.0, -60.0], [TABLE.length_mm + 60.0, TABLE.width_mm + 60.0], size=(n, 2))


@pytest.mark.parametrize(("tilt", "k1", "k2"), [(0.0, 0.0, 0.0), (25.0, -0.05, 0.0), (12.0, -0.12, 0.03)])
def test_compiled_mapping_equals_the_calibrations(tilt, k1, k2):
    cal = _cal(tilt, k1, k2)
    h, hinv, k, c1, c2, _ = lens_arrays(cal)
    assert (c1, c2) == (cal.k1, cal.k2) and (c1 != 0.0) == (k1 != 0.0)
    pts = _points()
    px = cal.table_to_image(pts)
    np.testing.assert_allclose(view_kernels.table_to_image(h, k, c1, c2, pts), px, rtol=0, atol=1e-9)
    # Back from the image: the undistortion iterates as OpenCV's does, so it agrees to rounding, not just
    # to the round trip's accuracy.
    np.testing.assert_allclose(view_kernels.image_to_table(hinv, k, c1, c2, px), cal.image_to_table(px), atol=1e-9)
    np.testing.assert_allclose(ball_px_to_table(cal, px), cal.ball_px_to_table(px), atol=1e-9)
    np.testing.assert_allclose(ball_px_to_table(cal, px, 26.0), cal.ball_px_to_table(px, 26.0), atol=1e-9)
    assert ball_px_to_table(cal, np.zeros((0, 2))).shape == (0, 2)
    if k1:
        assert np.abs(view_kernels.image_to_table(hinv, k, 0.0, 0.0, px) - pts).max() > 1.0  # the lens matters


def test_parallax_refuses_a_camera_below_the_ball_centres():
    cal = _cal(10.0, 0.0, 0.0)
    height = -lens_arrays(cal)[5][2]
    with pytest.raises(CalibrationError):
        ball_px_to_table(cal, np.array([[900.0, 500.0]]), radius_mm=height + 1.0)
