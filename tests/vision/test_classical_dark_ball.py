"""A dark ball lit from above is found at its rim's centre, not at its lit top's.

Real data (tests/data/vision): a 128 x 128 crop of the last frame of a tuning clip of a 9-ft pool table
(1024 x 576, camera high above one end), a dark purple solid ball at rest in the middle, with the calibration
``tableref calibrate`` found for that clip. The ball's centre was marked by eye at (661, 234) px. Inside, the
ball scores only 0.8-0.9 as not-cloth, and on its shaded side the score fades into its shadow over a fifth of a
radius: the rim is found on 7 of 24 rays (the lit top), too few to fit a circle, and the detection stays at its
blob's centroid, 7 px (two thirds of a radius) beyond the ball."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.mapping import Calibration
from vision.classical import ClassicalDetector

DATA = Path(__file__).parent.parent / "data" / "vision"
CROP_AT = (597, 170)  # the crop's top-left pixel in the frame
BALL_PX = np.array([661.0, 234.0])  # the ball's centre, by eye


def _frame() -> np.ndarray:
    """The crop in its place in a frame of the cloth's colour (the median of the crop's border)."""
    crop = cv2.imread(str(DATA / "dark-ball-lit-top.png"))
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    frame = np.empty((576, 1024, 3), np.uint8)
    frame[:] = np.median(border, axis=0).astype(np.uint8)
    x, y = CROP_AT
    frame[y : y + crop.shape[0], x : x + crop.shape[1]] = crop
    return frame


@pytest.mark.xfail(
    strict=True,
    reason="open (issue 34): on a dark ball against the cloth the rim test (a fall of 0.6 in the not-cloth score "
    "within two samples, from over 0.8 inside) finds under 8 of 24 rim points, and from the lit top's blob "
    "centroid fewer than half the inner samples read dark (no vote of rim circles): the centroid is kept",
)
def test_a_dark_ball_is_found_at_its_rim_centre_not_its_lit_top() -> None:
    cal = Calibration.load(DATA / "dark-ball-lit-top-calibration.json", expect_image_size=(1024, 576))
    det = ClassicalDetector(cal).detect(_frame())
    near = np.hypot(*(det.px - BALL_PX).T)
    k = int(np.argmin(near))
    # within a third of the ball's radius of the marked centre (the lit top's centroid: 7 px, 0.65 radius)
    assert near[k] < 0.33 * det.radius_px[k], (det.px[k], det.radius_px[k])
