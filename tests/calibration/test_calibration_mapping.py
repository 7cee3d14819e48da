"""Image <-> table mapping: round trips through real camera models, parallax, validation, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.mapping import _BLOCK, _BLOCKS_FROM, Calibration, CalibrationError, _apply_h
from calibration.table import TableModel

T = TableModel()
GRID = np.array([(x, y) for x in np.linspace(0, T.length_mm, 15) for y in np.linspace(0, T.width_mm, 9)])


def truth_calibration(cam: CameraModel) -> Calibration:
    return Calibration.from_corners(
        cam.corners_px(T), cam.image_size, T, camera_matrix=cam.camera_matrix,
        k1=float(cam.dist_coeffs[0]), k2=float(cam.dist_coeffs[1]), source="truth",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("size", "tilt", "az", "k1", "k2"),
    [
        ((1280, 720), 0.0, 180.0, 0.0, 0.0),
        ((1920, 1080), 30.0, 180.0, -0.15, 0.03),
        ((1920, 1080), 35.0, 60.0, -0.2, 0.0),
    ],
)
def test_round_trips(size: tuple[int, int], tilt: float, az: float, k1: float, k2: float) -> None:
    cam = CameraModel.overhead(T, size, tilt_deg=tilt, tilt_azimuth_deg=az, k1=k1, k2=k2)
    cal = truth_calibration(cam)
    px = cam.project(GRID)
    # image -> table recovers the cloth points, table -> image the pixels.
    assert np.abs(cal.image_to_table(px) - GRID).max() < 0.05
    assert np.abs(cal.table_to_image(GRID) - px).max() < 0.01
    # and image -> table -> image is the identity on arbitrary pixels of the field.
    back = cal.table_to_image(cal.image_to_table(px + 0.37))
    assert np.abs(back - (px + 0.37)).max() < 0.01


@pytest.mark.parametrize("n", [_BLOCKS_FROM, 3 * _BLOCK + 17])
def test_a_grid_maps_to_the_numbers_of_the_plain_product(n: int) -> None:
    # the blocked product of a large grid gives each point exactly what the one product gives it
    cam = CameraModel.overhead(T, (1920, 1080), tilt_deg=30.0, tilt_azimuth_deg=180.0, k1=-0.15, k2=0.03)
    h = truth_calibration(cam).homography
    pts = np.random.default_rng(n).uniform((-50.0, -50.0), (T.length_mm + 50, T.width_mm + 50), size=(n, 2))
    q = pts @ h[:, :2].T + h[:, 2]
    assert np.array_equal(_apply_h(h, pts), q[:, :2] / q[:, 2:3])


def test_camera_centre_and_ball_parallax() -> None:
    cam = CameraModel.overhead(T, (1920, 1080), tilt_deg=25.0, k1=-0.1)
    cal = truth_calibration(cam)
    assert np.abs(cal.camera_centre_mm() - cam.centre_mm).max() < 1.0
    balls = np.array([[300.0, 200.0], [1784.5, 889.0], [3400.0, 1700.0]])
    px = cam.project(balls, height_mm=T.ball_radius_mm)
    naive = cal.image_to_table(px)
    assert np.linalg.norm(naive - balls, axis=1).max() > 5.0  # the parallax this corrects is real
    assert np.abs(cal.ball_px_to_table(px) - balls).max() < 0.1
    assert cal.ball_px_to_table(np.zeros((0, 2))).shape == (0, 2)


def test_parallax_fallback_without_pose_is_documented_assumption() -> None:
    # A manual calibration of a straight-down view with default intrinsics (focal = image width): the
    # camera is put above the field where the homography says, at the height those intrinsics imply.
    cam = CameraModel.overhead(T, (1920, 1080))
    cal = Calibration.from_corners(cam.corners_px(T), (1920, 1080), T)
    c = cal.camera_centre_mm()
    assert c[:2] == pytest.approx(cam.centre_mm[:2], abs=1.0)
    assert -c[2] == pytest.approx(1920.0 / cal.px_per_mm(), rel=0.01)
    px = cam.project(np.array([[200.0, 150.0]]), height_mm=T.ball_radius_mm)
    err = np.abs(cal.ball_px_to_table(px) - [200.0, 150.0]).max()
    assert err < 3.0  # close, not exact: the assumed height is not the true one
    with_height = Calibration.from_corners(cam.corners_px(T), (1920, 1080), T, camera_height_mm=4000.0)
    assert np.abs(with_height.ball_px_to_table(px) - [200.0, 150.0]).max() < 0.2


def test_json_round_trip_and_resolution_check(tmp_path: Path) -> None:
    cam = CameraModel.overhead(T, (1280, 720), tilt_deg=20.0, k1=-0.1)
    cal = truth_calibration(cam)
    path = tmp_path / "cal.json"
    cal.save(path)
    obj = json.loads(path.read_text())
    assert set(obj["corners_px"]) == {"house-left", "house-right", "pyramid-left", "pyramid-right"}
    assert obj["image_size"] == [1280, 720]
    back = Calibration.load(path, expect_image_size=(1280, 720))
    assert np.abs(back.image_to_table(cam.project(GRID)) - GRID).max() < 0.05
    with pytest.raises(CalibrationError, match="1280x720 frames but these frames are 1920x1080"):
        Calibration.load(path, expect_image_size=(1920, 1080))


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        ({"house-left": (10, 10), "house-right": (10, 600), "pyramid-left": (1200, 10)}, "corners missing"),
        ({"house-left": (10, 10), "house-right": (1200, 600), "pyramid-left": (1200, 10), "pyramid-right": (10, 600)},
         "convex"),
        ({"house-left": (10, 10), "house-right": (10, 40), "pyramid-left": (60, 10), "pyramid-right": (60, 40)},
         "covers only"),
        ({"house-left": (3000, 10), "house-right": (3000, 600), "pyramid-left": (5000, 10),
          "pyramid-right": (5000, 600)}, "outside"),
        ({"house-left": (10, 10), "house-right": (10, 700), "pyramid-left": (100, 10), "pyramid-right": (100, 700)},
         "aspect"),
    ],
)  # fmt: skip
def test_bad_calibrations_are_refused(corners: dict[str, tuple[float, float]], message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        Calibration.from_corners(corners, (1280, 720))


def test_malformed_json(tmp_path: Path) -> None:
    p = tmp_path / "c.json"
    p.write_text("{not json")
    with pytest.raises(CalibrationError, match="not JSON"):
        Calibration.load(p)
    p.write_text(json.dumps({"image_size": [1280, 720]}))
    with pytest.raises(CalibrationError, match="malformed"):
        Calibration.load(p)
    p.write_text(json.dumps({"image_size": [1280, 720], "corners_px": {}, "table": {"length_mm": 9000}}))
    with pytest.raises(CalibrationError, match="table"):
        Calibration.load(p)
