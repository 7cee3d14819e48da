"""``tableref bench stills``: reading the labelled stills, matching, the snooker rig's millimetre frame, and a
still that does not calibrate."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.bench import stills
from calibration.table import TableModel
from tests.paths import REPO

REALDATA = REPO.parent / "shared" / "realdata"


def test_detections_match_labels_one_to_one_within_half_a_radius() -> None:
    labels = np.array([[100.0, 100.0], [200.0, 100.0]])
    radius = np.array([10.0, 10.0])
    dets = np.array([[103.0, 100.0], [101.0, 101.0], [206.0, 100.0]])  # two near the first; one 6 px off
    pairs = stills.match(dets, labels, radius)
    assert pairs == [(1, 0)]
    assert stills.match(np.zeros((0, 2)), labels, radius) == []


def test_the_given_homography_and_the_mirroring_put_labelled_mm_where_the_calibration_sees_them() -> None:
    table = TableModel(stills.SNOOKER)
    cal = stills.calibration_from_h(table, (1280, 720))
    mm = np.array([[769.17, -243.456], [-500.0, 300.0], [0.0, 0.0], [900.0, 450.0]])
    px = stills._apply(stills.SNOOKER_H, mm)
    ours = stills.to_table_frame(mm, cal, px)
    # The calibration is the homography itself, on the plane it was made for (the ball centres').
    assert np.max(np.linalg.norm(cal.image_to_table(px) - ours, axis=1)) < 0.5
    centre = stills.to_table_frame(np.zeros((1, 2)), cal, px[2:3])
    assert centre[0] == pytest.approx([940.5, 471.5])


def test_snooker_cases_skip_absent_images_and_take_pixels_from_h_where_only_mm_are_given(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "1.png"), np.zeros((720, 1280, 3), np.uint8))
    cases = {"cases": [
        {"image": "./resources/test_detection/x/1.png", "balls": [{"x": 0.0, "y": 0.0}, {"x": 100.0, "y": 50.0}]},
        {"image": "./resources/test_detection/x/2.png", "balls": [{"x": 0.0, "y": 0.0, "pixelX": 1.5, "pixelY": 2.5}]},
    ]}  # fmt: skip
    (tmp_path / "testcases.json").write_text(json.dumps(cases), encoding="utf-8")
    got = stills.snooker_stills(tmp_path)
    assert [s.image.name for s in got] == ["1.png"]
    assert got[0].px[0] == pytest.approx([629.616, 361.620])
    assert got[0].mm is not None and got[0].mm[1] == pytest.approx([100.0, 50.0])


def test_a_still_that_does_not_calibrate_counts_its_balls_missed_or_takes_the_given_h(tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.zeros((720, 1280, 3), np.uint8))
    px = np.array([[300.0, 300.0], [600.0, 400.0]])
    still = stills.Still("blank", blank, px, np.full(2, 15.5), None)
    s = stills.SetScore("padova")
    stills.score_still(still, TableModel(stills.POOL), "classical", s, fallback_h=False)
    assert (s.stills, s.calibrated, s.tp, s.fn, s.fp) == (1, 0, 0, 2, 0)
    assert "not calibrated" in s.notes[0] and "2 balls missed" in s.notes[0]
    s = stills.SetScore("with_halo")
    stills.score_still(still, TableModel(stills.SNOOKER), "classical", s, fallback_h=True)
    assert (s.calibrated, s.given_h, s.tp) == (0, 1, 0) and "given H" in s.notes[0]
    assert "given H" in stills.report([s], "head")


def test_padova_boxes_are_read_as_centres_and_radii(tmp_path: Path) -> None:
    clip = tmp_path / "game9_clip1"
    (clip / "frames").mkdir(parents=True)
    (clip / "bounding_boxes").mkdir()
    cv2.imwrite(str(clip / "frames" / "frame_first.png"), np.zeros((576, 1024, 3), np.uint8))
    (clip / "bounding_boxes" / "frame_first_bbox.txt").write_text("100 200 20 22 1\n300 40 18 18 3\n")
    got = stills.padova_stills(tmp_path)
    assert [s.name for s in got] == ["game9_clip1/first"]
    assert got[0].px.tolist() == [[110.0, 211.0], [309.0, 49.0]]
    assert got[0].radius_px.tolist() == [10.5, 9.0]


@pytest.mark.skipif(not (REALDATA / "snooker-rig-stills").is_dir(), reason="no shared realdata on this machine")
def test_a_real_snooker_still_is_found_and_placed_within_centimetres() -> None:
    folder = REALDATA / "snooker-rig-stills" / "with_projector_on" / "with_halo_2"
    one = [s for s in stills.snooker_stills(folder) if s.image.stem == "5"]
    s = stills.SetScore("with_halo_2")
    stills.score_still(one[0], TableModel(stills.SNOOKER), "classical", s, fallback_h=True)
    assert s.tp >= 10 and s.recall > 0.7
    assert float(np.median(s.err_px)) < 3.0 and float(np.median(s.err_mm)) < 20.0


def test_a_calibration_turned_by_ninety_degrees_is_counted_misshapen() -> None:
    from calibration.mapping import Calibration

    pool = TableModel(stills.POOL)
    lying = {"house-left": (100.0, 100.0), "house-right": (100.0, 600.0),
             "pyramid-left": (1100.0, 100.0), "pyramid-right": (1100.0, 600.0)}  # fmt: skip
    turned = {"house-left": (100.0, 100.0), "house-right": (600.0, 100.0),
              "pyramid-left": (100.0, 600.0), "pyramid-right": (600.0, 600.0)}  # fmt: skip
    assert stills._shape_problem(Calibration.from_corners(lying, (1280, 720), pool)) is None
    problem = stills._shape_problem(Calibration.from_corners(turned, (1280, 720), pool))
    assert problem is not None and "1.00:1" in problem and "2.00:1" in problem
