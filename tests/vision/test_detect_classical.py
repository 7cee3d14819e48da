"""The classical detector on rendered frames with known centres, and frames that must give no balls."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import match_errors, render
from vision.classical import ClassicalDetector
from vision.detections import CUE
from vision.detector import make_detector

pytest.importorskip("models.synth.balls")

TABLE = TableModel()
R = TABLE.ball_radius_mm


def _detect(frame, name="classical"):
    return make_detector(name, frame.calibration).detect(frame.image)


@pytest.mark.parametrize(("tilt", "k1", "size"), [(0.0, 0.0, (1920, 1080)), (15.0, -0.06, (1280, 720))])
def test_racked_pyramid_gives_fifteen_centres_and_the_cue_ball(tilt, k1, size):
    balls = [*TABLE.rack_positions(), (700.0, 900.0)]
    frame = render(balls, cue_index=15, size=size, tilt_deg=tilt, k1=k1)
    dets = _detect(frame)
    err, missed, extra = match_errors(dets.pos_mm, frame.pos, R / 2)
    assert (missed, extra) == (0, 0)
    assert np.median(err) < 2.0 and err.max() < 5.0
    cue = dets.pos_mm[dets.cls == CUE]
    assert len(cue) == 1 and np.linalg.norm(cue[0] - frame.pos[15]) < R / 2


def test_balls_by_cushions_in_a_pocket_mouth_and_frozen_together():
    L, W = TABLE.length_mm, TABLE.width_mm
    mouth = TABLE.pockets["middle-right"].mouth_center
    balls = [
        (R, 600.0),  # frozen to the house cushion
        (1200.0, R),  # frozen to the left cushion
        (mouth[0], mouth[1] - 5.0),  # half inside the middle pocket's mouth
        (2500.0, 900.0),
        (2500.0 + 2 * R, 900.0),  # frozen pair
        (L - R - 150.0, W - R),
    ]
    frame = render(balls, size=(1920, 1080), tilt_deg=8.0)
    dets = _detect(frame)
    err, missed, extra = match_errors(dets.pos_mm, frame.pos, R / 2)
    assert (missed, extra) == (0, 0)
    assert np.median(err) < 2.0


def test_parallax_is_corrected_in_a_tilted_view():
    frame = render([(1000.0, 500.0), (2600.0, 1300.0)], size=(1920, 1080), tilt_deg=25.0)
    dets = _detect(frame)
    err, missed, _ = match_errors(dets.pos_mm, frame.pos, R / 2)
    assert missed == 0 and err.max() < 3.0
    # Without the correction the cloth point under the ray through the centre is well over 10 mm away.
    raw = frame.calibration.image_to_table(dets.px)
    assert match_errors(raw, frame.pos, 3 * R)[0].min() > 8.0


def test_all_black_frame_gives_no_balls():
    frame = render([], size=(1280, 720))
    det = make_detector("classical", frame.calibration)
    for _ in range(3):
        assert len(det.detect(np.zeros_like(frame.image))) == 0


def test_frame_without_a_table_gives_no_balls():
    frame = render([], size=(1280, 720))
    rng = np.random.default_rng(3)
    room = cv2.GaussianBlur(rng.integers(0, 255, frame.image.shape, dtype=np.uint8), (0, 0), 6)
    room = cv2.normalize(room, np.empty_like(room), 0, 255, cv2.NORM_MINMAX)
    det = make_detector("classical", frame.calibration)
    assert len(det.detect(room)) == 0
    assert len(det.detect(np.full_like(frame.image, 128))) == 0


def test_frame_full_of_an_arm_gives_no_phantom_balls():
    from models.synth.occluders import SKIN_BGR, SLEEVE_BGR, draw_player

    frame = render([(2200.0, 900.0)], size=(1280, 720), tilt_deg=10.0)
    img = frame.image.copy()
    cam = frame.camera
    # A sleeve and a hand over most of the table, and a player striking a ball that is not there.
    sleeve = cam.project(np.array([[-200.0, 200.0], [1900.0, 500.0], [2000.0, 1500.0], [-200.0, 1700.0]]))
    cv2.fillPoly(img, [np.round(sleeve).astype(np.int32)], SLEEVE_BGR)
    hand = cam.project(
        np.array([[1900.0 + 90 * math.cos(a), 1000.0 + 70 * math.sin(a)] for a in np.linspace(0, 6.28, 24)])
    )
    cv2.fillPoly(img, [np.round(hand).astype(np.int32)], SKIN_BGR)
    draw_player(img, cam, (3000.0, 400.0), 200.0, R, 0.3, 1)
    dets = make_detector("classical", frame.calibration).detect(img)
    # Only the one real ball (left uncovered) may be found.
    _, missed, extra = match_errors(dets.pos_mm, frame.pos, R / 2)
    assert extra == 0 and missed == 0


def test_cloth_model_adapts_slowly_to_a_change_of_light():
    frame = render([(1500.0, 800.0), (2500.0, 400.0)], size=(1280, 720))
    det = ClassicalDetector(frame.calibration, adapt_every=1)
    det.detect(frame.image)
    assert det.cloth.colour is not None
    before = det.cloth.colour.copy()
    darker = cv2.convertScaleAbs(frame.image, alpha=0.8)
    for _ in range(10):
        dets = det.detect(darker)
        assert len(dets) == 2
    moved = np.linalg.norm(det.cloth.colour - before)
    target = np.linalg.norm(0.2 * before)
    assert 0.2 * target < moved < 0.8 * target  # on its way, not jumped
