"""What covers the table: a hand (and the arm behind it) is a region, and a ball-like blob on it starts no ball.

Real frames (tests/data/vision: two frames of a tuning clip of overhead pool broadcast footage, scaled to a
third, with the classical detector's detections in them and the one on the player's hand marked by eye)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.pipeline import Pipeline
from calibration.mapping import Calibration
from calibration.table import TableModel, TableSpec
from vision.cover import CoverModel
from vision.detections import BALL, Detections

DATA = Path(__file__).parent.parent / "data" / "vision"
FIXTURE = json.loads((DATA / "hands-clip3.json").read_text(encoding="utf-8"))


def _calibration() -> Calibration:
    f = FIXTURE
    spec = TableSpec(
        length_mm=f["table_mm"][0],
        width_mm=f["table_mm"][1],
        ball_diameter_mm=f["ball_mm"],
        corner_mouth_mm=f["mouths_mm"][0],
        middle_mouth_mm=f["mouths_mm"][1],
    )
    corners = {k: (v[0], v[1]) for k, v in f["corners_px"].items()}
    size = (f["image_size"][0], f["image_size"][1])
    return Calibration.from_corners(
        corners, size, TableModel(spec), camera_matrix=np.array(f["camera_matrix"]), k1=f["k1"]
    )


def _frame(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The frame, its detections' image centres, and which of them lie on the hand."""
    rec = FIXTURE["frames"][name]
    img = cv2.imread(str(DATA / f"{name}.png"))
    assert img is not None
    px = np.array(rec["detections_px"], dtype=float)
    hand = np.zeros(len(px), bool)
    hand[rec["on_the_hand"]] = True
    return img, px, hand


def _detections(cal: Calibration, px: np.ndarray, conf: list[float]) -> Detections:
    n = len(px)
    return Detections(
        px, cal.ball_px_to_table(px), np.full(n, 5.0), np.array(conf), np.full(n, BALL), np.full((n, 3), 200.0)
    )


@pytest.mark.parametrize("name", ["hand-bridge", "hand-rail"])
def test_the_hand_is_cover_and_the_balls_beside_it_are_not(name: str) -> None:
    cal = _calibration()
    img, px, hand = _frame(name)
    model = CoverModel(cal)
    mask = model.update(img, px)
    covered = model.covered(mask, px)
    assert covered[hand].all()
    assert not covered[~hand].any()
    # the cover is the hand and arm, a small part of the picture, not the rail or the cloth
    assert 0.0 < mask.share < 0.02


def test_a_frame_without_the_player_has_no_cover() -> None:
    """The bridge frame with the hand and arm painted over in the rail's and the cloth's colours: nothing left."""
    cal = _calibration()
    img, px, hand = _frame("hand-bridge")
    model = CoverModel(cal)
    model.update(img, px)  # the model learns the table from the frame with the hand in it
    clean = img.copy()
    x, y = px[hand][0]
    cloth = img[int(y) - 25, int(x)].tolist()  # the cloth a little way in from the hand
    cv2.rectangle(clean, (int(x) - 40, int(y) - 8), (int(x) + 30, int(y) + 6), cloth, -1)
    rail = np.median(img[296:304, 345:370].reshape(-1, 3), axis=0).tolist()  # the rail beyond the middle pocket
    cv2.rectangle(clean, (int(x) - 120, int(y) + 7), (int(x) + 30, int(y) + 27), rail, -1)
    mask = model.update(clean, px[~hand])
    assert not mask.cover.any()


def test_no_ball_is_born_on_the_hand() -> None:
    """Observation starts on the bridge frame: the balls are tracked at once, the blob on the hand is not. That
    blob's centre lies past the cushion's nose, where no ball's centre can be, so the tracker refuses it even
    unflagged; the same blob one diameter in on the cloth, where a ball could be, gets a track without the cover
    flag and none with it (so the flag is what stops it there)."""
    cal = _calibration()
    img, px, hand = _frame("hand-bridge")
    conf = FIXTURE["frames"]["hand-bridge"]["confidence"]
    dets = _detections(cal, px, conf)
    model = CoverModel(cal)
    covered = model.covered(model.update(img, px), px)
    on_cloth = dets.pos_mm.copy()
    on_cloth[hand, 1] = cal.table.width_mm - cal.table.ball_diameter_mm
    dets_in = Detections(dets.px, on_cloth, dets.radius_px, dets.confidence, dets.cls, dets.colour)

    def tracked(d: Detections) -> list[tuple[float, float]]:
        pipe = Pipeline(cal, game="eight")
        for i in range(12):
            pipe.step_detections(d, i, i / 25.0)
        return list(pipe.balls.values())

    def near(balls: list[tuple[float, float]], at: np.ndarray) -> bool:
        return any(np.hypot(*(np.array(b) - at)) < 30.0 for b in balls)

    assert dets.pos_mm[hand][0][1] > cal.table.width_mm  # past the nose
    flagged = tracked(dets.with_flags(covered=covered))
    unflagged = tracked(dets)
    assert not near(flagged, dets.pos_mm[hand][0])
    assert not near(unflagged, dets.pos_mm[hand][0])
    assert near(tracked(dets_in), on_cloth[hand][0])
    assert not near(tracked(dets_in.with_flags(covered=covered)), on_cloth[hand][0])
    # every ball the tracker takes without the flag it takes with it
    assert sorted(flagged) == sorted(unflagged)
