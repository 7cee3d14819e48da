"""The shipped neural detector (ONNX through onnxruntime, no torch) on a rendered frame."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import match_errors
from vision.detector import DetectorError, make_detector
from vision.neural import WEIGHTS

pytest.importorskip("models.synth.balls")
TABLE = TableModel()
R = TABLE.ball_radius_mm


def test_missing_weights_say_how_to_get_them(tmp_path):
    from tests.detect_support import render

    frame = render([(1000.0, 800.0)], size=(1280, 720))
    with pytest.raises(DetectorError, match="train-detector"):
        make_detector("neural", frame.calibration, weights=tmp_path / "none.onnx")


@pytest.mark.skipif(not WEIGHTS.exists(), reason="no neural weights shipped in models/detector")
def test_neural_detector_finds_rendered_balls_and_has_a_model_card():
    from tests.detect_support import render

    card = json.loads(WEIGHTS.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["training"]["epochs"] > 0 and card["data"]["frames"] > 0
    balls = [(600.0, 400.0), (1300.0, 1200.0), (2000.0, 700.0), (2700.0, 1500.0), (3100.0, 300.0)]
    frame = render(balls, cue_index=0, size=(1920, 1080), tilt_deg=10.0)
    dets = make_detector("neural", frame.calibration).detect(frame.image)
    err, missed, extra = match_errors(dets.pos_mm, frame.pos, R / 2)
    assert missed <= 1 and extra <= 1
    assert np.median(err) < 3.0


def test_training_dataset_labels_every_visible_ball_and_holds_out_whole_scenes(tmp_path):
    """``tableref train-detector --data-only``: JPEG frames rectified as ``vision.neural`` sees them,
    one YOLO box per visible ball (class 1 the cue ball), every ``val_every``-th scene in validation."""
    pytest.importorskip("pooltool")  # the training scenes are simulated strokes (the synth extra)
    import cv2

    from models.detector.scenes import training_cases
    from models.detector.train import write_dataset
    from vision.neural import NeuralInput

    spec = NeuralInput()
    cases = [c for c in training_cases(8) if c.scenario in ("random", "frozen-pair")]
    counts = write_dataset(cases, tmp_path, spec, val_every=2)
    images = {p.parent.name: sorted(p.parent.glob("*.jpg")) for p in tmp_path.glob("images/*/*.jpg")}
    assert counts["train"] == len(images["train"]) == 4 and counts["val"] == len(images["val"]) == 4
    assert {p.name.split("-")[0] for p in images["val"]} == {"00001"}  # the second scene, whole
    box = 2 * R * spec.width / (TABLE.length_mm + 2 * spec.margin_mm) * 1.05
    n_boxes = 0
    for img_path in images["train"] + images["val"]:
        img = cv2.imread(str(img_path))
        assert img.shape == (spec.height, spec.width, 3)
        cloth = np.median(img.reshape(-1, 3), axis=0)
        label_path = tmp_path / "labels" / img_path.parent.name / f"{img_path.stem}.txt"
        rows = [line.split() for line in label_path.read_text(encoding="utf-8").splitlines()]
        labels = np.array(rows, dtype=float).reshape(-1, 5)
        assert set(labels[:, 0]) <= {0.0, 1.0} and (labels[:, 0] == 1).sum() <= 1
        assert np.allclose(labels[:, 3] * spec.width, box, rtol=1e-3)
        for _, u, v, _, _ in labels:  # a ball, not cloth, under each box centre
            x, y = int(u * spec.width), int(v * spec.height)
            patch = img[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2].reshape(-1, 3).mean(axis=0)
            assert np.abs(patch - cloth).max() > 40
        n_boxes += len(labels)
    assert counts["balls"] == n_boxes > 8
    assert "train: images/train" in (tmp_path / "data.yaml").read_text(encoding="utf-8")
