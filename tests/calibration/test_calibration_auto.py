"""Automatic calibration on rendered tables with known corners (a few cases of `tableref bench calibration`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from api.bench.calibration import CONDITIONS, Condition, render_condition, score
from calibration.auto import auto_calibrate
from calibration.mapping import CORNER_NAMES

BY_NAME = {c.name: c for c in CONDITIONS}


@pytest.mark.parametrize(
    ("size", "name"),
    [
        ((1920, 1080), "all: 30, barrel, uneven, player"),
        ((1280, 720), "all: 30, barrel, uneven, player"),
        ((1920, 1080), "all, across, blue cloth"),
        ((1280, 720), "house on right"),
        ((1280, 720), "pool 2540x1270, tilt 20"),
    ],
)
def test_auto_calibration_meets_the_targets(size: tuple[int, int], name: str) -> None:
    img, cam, table = render_condition(BY_NAME[name], size, np.random.default_rng(11))
    cal = auto_calibrate(img, table)
    r = score(cal, cam, table)
    assert r["house_ok"] == 1.0  # the house end and the left/right naming are right
    assert r["corner_px"] < 2.0
    assert r["field_max_mm"] < 3.0
    assert 0 < cal.quality["residual_px"] < 0.5
    assert cal.quality["house_end_source"] == "marks"
    assert cal.quality["pockets_seen"] == 6
    assert cal.camera_height_mm is not None and cal.camera_height_mm > 1000


def test_distortion_and_focal_length_are_recovered() -> None:
    cond = Condition("t", tilt_deg=30, k1=-0.15)
    img, cam, table = render_condition(cond, (1920, 1080), np.random.default_rng(2))
    cal = auto_calibrate(img, table)
    f_true = cam.camera_matrix[0, 0]
    assert cal.camera_matrix[0, 0] == pytest.approx(f_true, rel=0.03)
    assert cal.k1 == pytest.approx(-0.15, abs=0.02)
    assert np.abs(cal.camera_centre_mm() - cam.centre_mm).max() < 150.0
    # Without the lens term the corners are still close but the field is visibly bent.
    flat = auto_calibrate(img, table, distortion="none")
    assert score(flat, cam, table)["field_max_mm"] > 2 * score(cal, cam, table)["field_max_mm"]


def test_without_marks_the_default_end_and_the_flip() -> None:
    cond = Condition("turned", turned=True, tilt_deg=10)
    img, cam, table = render_condition(cond, (1280, 720), np.random.default_rng(4))
    # Erase the house line: paint the cloth colour over a band around it.
    hl = table.lines["house"].value_mm
    band = np.array([[hl - 15, 40.0], [hl + 15, 40.0], [hl + 15, table.width_mm - 40], [hl - 15, table.width_mm - 40]])
    poly = np.round(cam.project(band)).astype(np.int32)
    probe = cam.project(np.array([[hl + 60.0, 600.0]]))[0]
    colour = img[int(probe[1]), int(probe[0])].tolist()
    import cv2

    cv2.fillPoly(img, [poly], colour)
    default = auto_calibrate(img, table)
    assert default.quality["house_end_source"] == "default"
    truth = cam.corners_px(table)
    # Default: house on the image's left, but this camera sees it on the right, so the ends are swapped...
    assert math.dist(default.corners_px["house-left"], truth["pyramid-right"]) < 2.0
    # ... and the operator's flip puts them right.
    flipped = auto_calibrate(img, table, flip=True)
    assert all(math.dist(flipped.corners_px[n], truth[n]) < 2.0 for n in CORNER_NAMES)


def test_raised_cushions_seen_from_beyond_the_near_end() -> None:
    # 35 degrees along the table from 4 m: the camera is beyond the house cushion, whose nose (38 mm up)
    # hides the field's edge; told the nose height, the calibration projects that line down.
    cond = BY_NAME["3D cushions, tilt 35, nose 38 given"]
    img, cam, table = render_condition(cond, (1920, 1080), np.random.default_rng(5))
    told = auto_calibrate(img, table, nose_height_mm=38.0)
    r = score(told, cam, table)
    assert r["corner_px"] < 2.0 and r["field_max_mm"] < 3.0
    assert told.quality["nose_offset_mm_max"] > 5.0  # the house side's line was moved
    naive = score(auto_calibrate(img, table), cam, table)
    assert naive["field_max_mm"] > r["field_max_mm"] + 1.0
