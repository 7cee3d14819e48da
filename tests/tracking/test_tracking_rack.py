"""A rack set by hand (balls up to a millimetre apart, the triangle off the spot) is tracked whole from the first
frame: recorded detections of a rendered 720p break, before and after the detector's packed-ball confidence."""

from __future__ import annotations

import json

import numpy as np

from calibration.table import TableModel, TableSpec
from tests.paths import DATA
from tracking.extractor import ExtractorSettings
from tracking.tracker import Tracker, TrackerSettings
from vision.packing import frozen_neighbours, packed_confidence

DATA = json.loads((DATA / "rack-loose-720p60-break-s3.json").read_text(encoding="utf-8"))
TABLE = TableModel(TableSpec(**DATA["table"]))
D = TABLE.ball_diameter_mm


def _frames(packed: bool) -> list[tuple[float, np.ndarray, np.ndarray, np.ndarray]]:
    out = []
    for f in DATA["frames"]:
        pos = np.array(f["pos_mm"])
        conf = np.array(f["detector_confidence"])
        if packed:
            conf = packed_confidence(np.array(f["support"]), conf, frozen_neighbours(pos, D))
        out.append((f["t"], pos, conf, np.array(f["cue"])))
    return out


def _public_per_frame(packed: bool) -> list[int]:
    tracker = Tracker(TABLE)
    ghost = ExtractorSettings().ghost_below
    counts = []
    for i, (t, pos, conf, cue) in enumerate(_frames(packed)):
        tf = tracker.step(i, t, pos, conf, cue)
        counts.append(sum(1 for b in tf.balls if b.quality >= ghost))
    return counts


def test_the_detector_alone_scores_rack_balls_below_a_new_track() -> None:
    _, pos, conf, _ = _frames(packed=False)[0]
    rack = frozen_neighbours(pos, D) >= 2
    assert rack.sum() == 15
    assert np.sum(conf[rack] < TrackerSettings().new_track_confidence) >= 5


def test_packed_balls_are_judged_on_their_visible_rim_and_a_lone_ball_is_not_changed() -> None:
    _, pos, raw, _ = _frames(packed=False)[0]
    _, _, conf, _ = _frames(packed=True)[0]
    rack = frozen_neighbours(pos, D) >= 2
    assert np.all(conf[rack] >= ExtractorSettings().ghost_below)
    assert np.all(conf >= raw)
    assert np.array_equal(conf[~rack], raw[~rack])


def test_every_ball_of_a_loose_rack_is_tracked_from_the_first_frame() -> None:
    assert _public_per_frame(packed=True) == [16] * len(DATA["frames"])
    assert _public_per_frame(packed=False)[0] < 16  # what the packed confidence fixes


def test_tracked_rack_balls_are_where_the_balls_are() -> None:
    tracker = Tracker(TABLE)
    for i, (t, pos, conf, cue) in enumerate(_frames(packed=True)):
        tf = tracker.step(i, t, pos, conf, cue)
    truth = np.array(list(DATA["truth_positions"].values()))
    got = np.array([b.pos for b in tf.balls])
    err = np.linalg.norm(got[:, None, :] - truth[None, :, :], axis=2).min(axis=1)
    # at 720p a pixel covers about 2.8 mm of cloth: every ball within two pixels, most within a millimetre
    assert len(got) == 16 and np.max(err) < 5.6 and np.median(err) < 1.0


def test_a_blob_beside_one_ball_is_not_a_packing() -> None:
    # a hand against one ball: one neighbour at a diameter is any blob beside any ball
    pos = np.array([[1000.0, 800.0], [1000.0 + D, 800.0], [2000.0, 500.0]])
    conf = np.array([0.9, 0.45, 0.9])
    assert np.array_equal(packed_confidence(np.array([0.9, 0.5, 0.9]), conf, frozen_neighbours(pos, D)), conf)
