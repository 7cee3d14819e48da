"""A calibrated table whose shape contradicts ``--table`` is reported, not silently used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.aspect import aspect_problem, long_pair_by_aspect, measured_aspect, side_ratio_range
from calibration.camera import CameraModel
from calibration.mapping import Calibration, default_camera_matrix
from calibration.table import TableModel, TableSpec
from tests.paths import REPO

CAROM = TableModel(TableSpec(length_mm=2840, width_mm=1420, ball_diameter_mm=61.5))
DEMO = REPO / "api" / "data" / "demo"


def test_straight_down_view_measures_the_table_given() -> None:
    cal = Calibration.from_corners(
        {
            "house-left": (100, 900),
            "house-right": (100, 100),
            "pyramid-left": (1700, 900),
            "pyramid-right": (1700, 100),
        },
        (1920, 1080),
        CAROM,
    )
    assert abs(measured_aspect(cal) - 2.0) < 0.01
    assert aspect_problem(cal) is None


def test_cloth_filling_the_frame_calibrated_turned_is_reported() -> None:
    # the length assigned to the image's short side: the 2:1 cloth measures 0.56:1
    cal = Calibration.from_corners(
        {"house-left": (0, 0), "pyramid-left": (0, 1080), "house-right": (1920, 0), "pyramid-right": (1920, 1080)},
        (1920, 1080),
        CAROM,
    )
    msg = aspect_problem(cal)
    assert msg is not None and "turned by 90 degrees" in msg and "2840x1420" in msg


def test_tilted_rendered_camera_measures_its_table() -> None:
    # the demo clip's camera looks at the table from above one end (perspective): still 2:1
    cal = Calibration.load(DEMO / "camera.json")
    assert abs(measured_aspect(cal) - cal.table.length_mm / cal.table.width_mm) < 0.05
    assert aspect_problem(cal) is None


def _blank_clip(folder: Path, frames: int = 12) -> None:
    """A table with no ball on it, and its exact camera beside it (as a synth scenario folder holds)."""
    w, h = 640, 360
    # a cloth drawn about as long as wide (1.17:1), straight down
    corners = {"house-left": [40, 60], "house-right": [40, 300], "pyramid-left": [320, 60], "pyramid-right": [320, 300]}
    (folder / "camera.json").write_text(json.dumps({"image_size": [w, h], "fps": 30.0, "corners_px": corners}))
    ring = np.array([corners[k] for k in ("house-left", "pyramid-left", "pyramid-right", "house-right")], np.int32)
    vw = cv2.VideoWriter(str(folder / "video.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (w, h))
    for _ in range(frames):
        img = np.full((h, w, 3), (40, 60, 90), np.uint8)
        cv2.fillPoly(img, [ring], (60, 140, 30))
        vw.write(img)
    vw.release()


def test_analyze_says_when_it_tracked_no_ball_and_when_the_table_contradicts(tmp_path: Path) -> None:
    _blank_clip(tmp_path)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "api.cli", "analyze", str(tmp_path / "video.mp4"), "--game", "russian71",
           "--out", str(out), "--quiet", "--table", "2540x1270", "--ball", "57.15"]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert "no ball was tracked in 12 frames" in res.stderr
    assert "measures 1.17:1" in res.stderr and "2540x1270 mm (2.00:1)" in res.stderr
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "no ball was tracked" in report
    assert "measures 1.17:1" in report


POOL = TableModel(TableSpec(length_mm=2540, width_mm=1270, ball_diameter_mm=57.15))
SIZE = (1024, 576)


def _ring(cam: CameraModel) -> np.ndarray:
    """The field's corners in ring order, side 0 (house-left to pyramid-left) along the table's length."""
    c = cam.corners_px(POOL)
    return np.array([c[n] for n in ("house-left", "pyramid-left", "pyramid-right", "house-right")])


def test_straight_down_the_ratio_is_one_number_whatever_the_focal_length() -> None:
    lo, hi = side_ratio_range(_ring(CameraModel.overhead(POOL, SIZE)), default_camera_matrix(SIZE), SIZE)
    assert 1.97 < lo <= hi < 2.03


def test_a_view_along_the_table_leaves_the_ratio_open_but_holds_the_truth() -> None:
    # tilted along the length only: orthogonality says nothing about the focal length, the length's
    # foreshortening depends on it
    cam = CameraModel.overhead(POOL, SIZE, tilt_deg=35, tilt_azimuth_deg=0)
    lo, hi = side_ratio_range(_ring(cam), default_camera_matrix(SIZE), SIZE)
    assert lo < 1.8 and hi > 2.2


def test_an_oblique_view_refuses_the_long_pair_that_contradicts_the_table() -> None:
    # a camera above one end and off to the side, as a spectator's: the image cues named the short ends
    # as the long pair; the measured aspect (about 0.5:1 for that choice) refuses it
    cam = CameraModel.overhead(POOL, SIZE, tilt_deg=50, tilt_azimuth_deg=20, distance_mm=3500)
    ring = _ring(cam)
    k = default_camera_matrix(SIZE)
    lo, hi = side_ratio_range(ring, k, SIZE)
    assert 1.8 < lo <= hi < 2.2  # this view fixes the focal length: the ratio is measured, not assumed
    assert long_pair_by_aspect(ring, k, SIZE, 2.0, preferred=(1, 3)) == ((0, 2), True)
    assert long_pair_by_aspect(ring, k, SIZE, 2.0, preferred=(0, 2)) == ((0, 2), False)


def test_a_cloth_filling_the_frame_is_not_taken_turned() -> None:
    # straight down, no middle pocket in view to say which sides are long (a carom table): the cues'
    # guess of the image's short sides is refused
    ring = np.array([[40.0, 20.0], [1000.0, 20.0], [1000.0, 500.0], [40.0, 500.0]])
    k = default_camera_matrix(SIZE)
    assert long_pair_by_aspect(ring, k, SIZE, 2.0, preferred=(1, 3)) == ((0, 2), True)


def test_where_the_aspect_cannot_tell_the_cues_decide() -> None:
    # a square quadrilateral straight down measures 1:1: both choices contradict a 2:1 table equally
    ring = np.array([[200.0, 40.0], [700.0, 40.0], [700.0, 540.0], [200.0, 540.0]])
    k = default_camera_matrix(SIZE)
    assert long_pair_by_aspect(ring, k, SIZE, 2.0, preferred=(1, 3)) == ((1, 3), False)
    assert long_pair_by_aspect(ring, k, SIZE, 2.0, preferred=(0, 2)) == ((0, 2), False)
