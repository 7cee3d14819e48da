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
