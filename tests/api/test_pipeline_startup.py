"""analyze's start-up off the critical path: the detector and the tracking side's maps are built while the
first frames are decoded, each once, and a build that fails is raised in the caller."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import cv2
import numpy as np
import pytest

from api.pipeline import Pipeline
from calibration.mapping import Calibration
from calibration.table import TableModel
from tests.drawn_support import overhead_calibration
from vision.detector import DetectorError

TABLE = TableModel()
SIZE = (960, 540)


def _calibration() -> Calibration:
    return overhead_calibration(TABLE, SIZE, 30)


def _frame(cal: Calibration) -> np.ndarray:
    w, h = SIZE
    img = np.full((h, w, 3), (40, 60, 90), np.uint8)
    ring = np.array([cal.corners_px[k] for k in ("house-left", "pyramid-left", "pyramid-right", "house-right")])
    cv2.fillPoly(img, [np.rint(ring).astype(np.int32)], (60, 140, 30))
    r = round(TABLE.ball_radius_mm * cal.px_per_mm())
    q = cal.table_to_image(np.array([[900.0, 890.0]]))[0]
    cv2.circle(img, (round(q[0]), round(q[1])), r, (235, 235, 235), -1, cv2.LINE_AA)
    return img


def test_the_detector_and_launch_maps_are_built_before_the_first_frame_is_decoded() -> None:
    cal = _calibration()
    pipe = Pipeline(cal, detector_name="hough")
    frame = _frame(cal)
    seen: dict[str, bool] = {}
    built = threading.Event()

    def frames() -> Iterator[tuple[np.ndarray, float]]:
        # a decoder slow on its first frame: the builds go on meanwhile (waited for up to 60 s, never needed
        # where they do; a build started only after the first frame would leave both False)
        for _ in range(600):
            if pipe._detector is not None and pipe.guided is not None and pipe.guided._launches is not None:
                built.set()
                break
            built.wait(0.1)
        seen["detector"] = pipe._detector is not None
        seen["launches"] = pipe.guided is not None and pipe.guided._launches is not None
        for i in range(5):
            yield frame, i / 30.0

    made = []
    n = pipe.run_timed(frames(), progress=lambda i, t: made.append(id(pipe.detector)))
    assert n == 5
    assert seen == {"detector": True, "launches": True}
    assert len(set(made)) == 1  # one detector, built once, for every frame


def test_ahead_and_serial_runs_see_the_same_ball() -> None:
    cal = _calibration()
    frame = _frame(cal)
    rows = []
    for ahead in (True, False):
        pipe = Pipeline(cal)
        pipe.run_timed(((frame, i / 30.0) for i in range(12)), detect_ahead=ahead)
        rows.append([(r.frame, r.ball, r.x, r.y, r.visible) for r in pipe.track_rows()])
    assert rows[0]
    assert rows[0] == rows[1]


def test_a_detector_that_cannot_be_built_is_raised_in_the_caller() -> None:
    cal = _calibration()
    pipe = Pipeline(cal, detector_name="no-such-detector")
    frame = _frame(cal)
    with pytest.raises(DetectorError, match="unknown detector"):
        pipe.run_timed((frame, i / 30.0) for i in range(3))
