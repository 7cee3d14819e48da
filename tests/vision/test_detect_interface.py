"""The detections container, the detector factory, parallax helpers, the Hough baseline and the CLI."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from api.cli import main
from calibration.camera import CameraModel
from calibration.table import TableModel
from tests.detect_support import calibration_for, match_errors
from vision.detections import CUE, Detections
from vision.detector import Detector, DetectorError, make_detector
from vision.parallax import ball_px_to_table, ball_radius_px, table_to_ball_px, toward_camera_px, view_geometry


def _dets(n: int) -> Detections:
    rng = np.random.default_rng(n)
    return Detections(
        rng.uniform(0, 100, (n, 2)), rng.uniform(0, 3000, (n, 2)), np.full(n, 12.0), np.linspace(0.1, 1, n),
        np.array([CUE] + [0] * (n - 1)) if n else np.zeros(0, np.int64), rng.uniform(0, 255, (n, 3)),
    )  # fmt: skip


def test_container_masks_indexes_and_records():
    d = _dets(5)
    assert len(d) == 5 and len(Detections.empty()) == 0
    keep = d[d.confidence > 0.5]
    assert len(keep) == np.count_nonzero(d.confidence > 0.5)
    assert len(d[0]) == 1 and d[0].class_names == ["cue"]
    recs = d.to_records()
    assert set(recs[0]) == {"px", "pos", "radius_px", "confidence", "cls"}
    assert recs[0]["cls"] == "cue" and recs[1]["cls"] == "ball"
    assert json.loads(json.dumps(recs)) == recs
    assert len(Detections.concatenate([d, keep])) == 5 + len(keep)


@pytest.mark.parametrize(
    "change",
    [
        {"px": np.zeros((3, 3))},
        {"pos_mm": np.zeros((2, 2))},
        {"confidence": np.full(3, 1.5)},
        {"cls": np.full(3, 7)},
        {"radius_px": np.zeros(3)},
        {"px": np.full((3, 2), np.nan)},
        {"pos_mm": np.array([[0.0, 1.0], [np.inf, 0.0], [1.0, 1.0]])},
        {"colour": np.array([[1.0, 2.0, 3.0], [1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])},
        {"confidence": np.array([0.5, -0.1, 0.5])},
        {"cls": np.array([0, -1, 1])},
    ],
)
def test_container_refuses_malformed_arrays(change):
    d = _dets(3)
    fields = {k: getattr(d, k) for k in ("px", "pos_mm", "radius_px", "confidence", "cls", "colour")}
    fields.update(change)
    with pytest.raises(ValueError):
        Detections(**fields)


def _cal(tilt: float = 20.0):
    table = TableModel()
    cam = CameraModel.overhead(table, (1920, 1080), tilt_deg=tilt, k1=-0.05)
    return cam, calibration_for(cam, table), table


def test_parallax_round_trip_and_radius():
    cam, cal, table = _cal()
    pts = np.array([[300.0, 200.0], [1784.5, 889.0], [3300.0, 1600.0]])
    px = cam.project(pts, table.ball_radius_mm)
    assert np.allclose(table_to_ball_px(cal, pts), px, atol=1e-3)
    assert np.allclose(ball_px_to_table(cal, px), pts, atol=1e-3)
    r = ball_radius_px(cal, cal.image_to_table(px))
    edge = cam.project(pts + np.array([0.0, table.ball_radius_mm]), table.ball_radius_mm)
    assert np.allclose(r, np.linalg.norm(edge - px, axis=1), rtol=0.1)


@pytest.mark.parametrize("tilt", [0.0, 25.0])
def test_view_geometry_equals_the_three_separate_mappings(tilt):
    _, cal, _ = _cal(tilt)
    below = cal.camera_centre_mm()[:2]  # the point under the camera: no direction toward it
    pts = np.array([[300.0, 200.0], [1784.5, 889.0], [3300.0, 1600.0], below])
    px, radius, toward = view_geometry(cal, pts)
    assert np.allclose(px, cal.table_to_image(pts), atol=1e-9)
    assert np.allclose(radius, ball_radius_px(cal, pts), atol=1e-9)
    assert np.allclose(toward, toward_camera_px(cal, pts), atol=1e-9)
    assert np.allclose(toward[3], 0.0) and np.allclose(np.linalg.norm(toward[0]), 1.0)


def test_factory_builds_each_detector_and_refuses_unknown_names():
    _, cal, _ = _cal()
    for name in ("classical", "hough"):
        det = make_detector(name, cal)
        assert isinstance(det, Detector) and det.name == name
    with pytest.raises(DetectorError):
        make_detector("sonar", cal)
    with pytest.raises(ValueError):
        make_detector("classical", cal).detect(np.zeros((10, 10, 3), np.uint8))


def test_hough_baseline_finds_isolated_balls():
    pytest.importorskip("models.synth.balls")
    from tests.detect_support import render

    frame = render([(800.0, 500.0), (2000.0, 1200.0), (3000.0, 600.0)], size=(1280, 720))
    dets = make_detector("hough", frame.calibration).detect(frame.image)
    _, missed, _ = match_errors(dets.px, frame.px, 5.0)
    assert missed == 0


def test_detect_command_prints_one_json_object_per_ball(tmp_path, capsys):
    pytest.importorskip("models.synth.balls")
    from tests.detect_support import render

    frame = render([(900.0, 700.0), (2600.0, 1100.0), (3000.0, 300.0)], cue_index=0, size=(1280, 720))
    img, cal = tmp_path / "frame.png", tmp_path / "cal.json"
    cv2.imwrite(str(img), frame.image)
    frame.calibration.save(cal)
    assert main(["detect", str(img), "--calibration", str(cal)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3
    assert sorted(x["cls"] for x in lines) == ["ball", "ball", "cue"]
    found = np.array([x["pos"] for x in lines])
    assert match_errors(found, frame.pos, 10.0)[1] == 0
    assert main(["detect", str(tmp_path / "missing.png"), "--calibration", str(cal)]) == 2
    assert main(["detect", str(img), "--calibration", str(cal), "--detector", "hough"]) == 0
