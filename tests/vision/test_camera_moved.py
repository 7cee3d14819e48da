"""A camera bumped while the picture was away (a graphics wipe): when the table is back it is not where the
calibration puts it, so the observer calibrates again on that frame and goes on with the balls where they were.
A rendered table (the calibration bench's renderer) and the same picture shifted, drawn in the test."""

from __future__ import annotations

import cv2
import numpy as np

from api.bench.calibration import Condition, render_condition
from api.pipeline import Pipeline
from calibration.auto import auto_calibrate

SIZE = (960, 540)
SHIFT = (60, 40)  # px: the camera bumped


def _frames() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    img, _, _ = render_condition(Condition("tilt 15", tilt_deg=15), SIZE, np.random.default_rng(3))
    m = np.float32([[1, 0, SHIFT[0]], [0, 1, SHIFT[1]]])
    shifted = cv2.warpAffine(img, m, SIZE, borderMode=cv2.BORDER_REPLICATE)
    wipe = np.full_like(img, (150, 40, 20))
    return img, shifted, wipe


def _observe(after: np.ndarray) -> tuple[Pipeline, dict, dict]:
    img, _, wipe = _frames()
    cal = auto_calibrate(img)
    pipe = Pipeline(cal, game="russian71")
    for i, f in enumerate([img] * 4 + [wipe] * 2):
        pipe.step(f, i, i / 30.0)
    before = dict(pipe.balls)
    for i in range(6, 10):
        pipe.step(after, i, i / 30.0)
    return pipe, before, dict(pipe.balls)


def _same_places(before: dict, after: dict, tol_mm: float) -> bool:
    b = np.array(sorted(before.values()))
    a = np.array(sorted(after.values()))
    return len(a) == len(b) and all(np.hypot(*(a - p).T).min() < tol_mm for p in b)


def test_a_table_shifted_after_a_wipe_is_calibrated_again_and_the_balls_stay() -> None:
    img, shifted, _ = _frames()
    pipe, before, after = _observe(shifted)
    assert pipe.paused == [(4, 5)]
    assert pipe.recalibrated == [6]
    old = auto_calibrate(img)
    assert pipe.calibration is not None
    for name, (u, v) in old.corners_px.items():
        nu, nv = pipe.calibration.corners_px[name]
        assert abs(nu - u - SHIFT[0]) < 3.0 and abs(nv - v - SHIFT[1]) < 3.0, name
    assert len(before) >= 12
    assert _same_places(before, after, 10.0)
    assert not [e for e in pipe.events if e.type in ("pot", "off_table")]


def test_the_same_table_back_after_a_wipe_is_not_calibrated_again() -> None:
    img, _, _ = _frames()
    pipe, before, after = _observe(img)
    assert pipe.paused == [(4, 5)]
    assert pipe.recalibrated == []
    assert _same_places(before, after, 3.0)
