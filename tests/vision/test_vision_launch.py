"""A ball struck from rest into a blur: its streak found around its resting place (vision.launch)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.mapping import Calibration
from tests.vision.test_vision_streaks import _calibration, _frame
from vision.launch import LaunchFinder, _median_levels, place_is_clear

FPS = 60.0
PLACE = (700.0, 900.0)
PATH = 11000.0 / FPS  # the most a ball covers in a frame
SKIN = np.array([150.0, 170.0, 220.0])


def _struck(frames_after: float, v: tuple[float, float] = (9000.0, -1000.0)) -> tuple[np.ndarray, np.ndarray]:
    """Frame ``frames_after`` frames after a stroke at PLACE (shutter open half the frame), and the ball's
    true centre then."""
    p = np.array(PLACE) + np.array(v) * frames_after / FPS
    return _frame(_calibration(), [((float(p[0]), float(p[1])), v), ((2900.0, 300.0), (0.0, 0.0))], FPS, 0.5), p


@pytest.mark.parametrize("frames_after", [1.0, 2.0, 3.0])
def test_the_streak_of_a_ball_struck_from_its_place_is_found_at_the_ball(frames_after: float) -> None:
    cal = _calibration()
    frame, truth = _struck(frames_after)
    found = LaunchFinder(cal).find(frame, PLACE, 11000.0 * frames_after / FPS, PATH, np.array([[2900.0, 300.0]]))
    assert found is not None
    assert np.hypot(*(np.array(found.pos_mm) - truth)) < 4.0
    u = np.array([9000.0, -1000.0]) / np.hypot(9000.0, -1000.0)
    assert float(np.dot(found.direction, u)) > np.cos(np.radians(2.0))
    assert found.blur_mm == pytest.approx(np.hypot(9000.0, 1000.0) * 0.5 / FPS, rel=0.3)


def test_a_streak_that_does_not_point_back_at_the_place_is_not_the_struck_ball() -> None:
    cal = _calibration()
    # a ball crossing 160 mm ahead of the place, moving across the line to it
    p = (860.0, 900.0)
    frame = _frame(cal, [(p, (0.0, 9000.0))], FPS, 0.5)
    assert LaunchFinder(cal).find(frame, PLACE, 11000.0 / FPS, PATH, np.zeros((0, 2))) is None


def test_a_still_ball_near_the_place_is_not_a_streak() -> None:
    cal = _calibration()
    frame = _frame(cal, [((820.0, 890.0), (0.0, 0.0))], FPS, 0.5)
    assert LaunchFinder(cal).find(frame, PLACE, 11000.0 / FPS, PATH, np.zeros((0, 2))) is None


def test_a_streak_beyond_the_reach_since_the_ball_was_last_seen_is_not_it() -> None:
    cal = _calibration()
    frame, _ = _struck(3.0)
    assert LaunchFinder(cal).find(frame, PLACE, 11000.0 / FPS, PATH, np.array([[2900.0, 300.0]])) is None


def test_the_place_is_clear_once_the_ball_has_gone_not_while_it_is_there_or_covered() -> None:
    cal = _calibration()
    gone, _ = _struck(2.0)
    assert place_is_clear(gone, cal, PLACE)
    there = _frame(cal, [(PLACE, (0.0, 0.0))], FPS, 0.5)
    assert not place_is_clear(there, cal, PLACE)
    covered = there.copy()
    c = cal.table_to_image(np.array([PLACE]))[0]
    ys, xs = np.mgrid[0 : covered.shape[0], 0 : covered.shape[1]]
    hand = np.hypot(xs - c[0] + 10, ys - c[1]) < 45  # a hand over the ball, larger than it
    covered[hand] = SKIN.astype(np.uint8)
    assert not place_is_clear(covered, cal, PLACE)


DATA = Path(__file__).resolve().parents[1] / "data" / "vision"


def _real_dark_streak() -> tuple[Calibration, np.ndarray, dict]:
    """A broadcast frame (1920x1080, 25 fps) two frames after the cue ball struck a dark blue ball on blue cloth
    towards a corner pocket: the crop around its place and its streak, the rest of the frame the crop's edges
    carried on, and the run's own calibration."""
    meta = json.loads((DATA / "launch-dark-streak.json").read_text(encoding="utf-8"))
    cal = Calibration.from_json(meta["calibration"])
    crop = cv2.imread(str(DATA / "launch-dark-streak.png"))
    x0, y0 = meta["origin_px"]
    w, h = cal.image_size
    frame = cv2.copyMakeBorder(crop, y0, h - y0 - crop.shape[0], x0, w - x0 - crop.shape[1], cv2.BORDER_REPLICATE)
    return cal, frame, meta


def test_the_faint_streak_of_a_dark_ball_on_dark_cloth_is_found_along_its_run() -> None:
    cal, frame, meta = _real_dark_streak()
    place = tuple(meta["place_mm"])
    assert place_is_clear(frame, cal, place)
    # as the watch asks: as far as its widest search, a frame's path at 11 m/s and 25 fps
    found = LaunchFinder(cal).find(frame, place, 800.0, 11000.0 / 25.0, np.array([meta["cue_ball_mm"]]))
    assert found is not None
    streak = cal.ball_px_to_table(np.array([meta["streak_centre_px"]], dtype=np.float64))[0]
    assert np.hypot(*(np.array(found.pos_mm) - streak)) < cal.table.ball_radius_mm
    run = (streak - np.array(place)) / np.hypot(*(streak - np.array(place)))
    assert float(np.dot(found.direction, run)) > np.cos(np.radians(5.0))
    # the blur is longer than the ball's diameter (the ball covered more than that with the shutter open)
    assert found.blur_mm > cal.table.ball_diameter_mm


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 1001])
def test_the_cloth_level_read_from_histograms_is_the_median(n: int) -> None:
    # odd and even counts (the mean of the two middle values), one level, and levels at 0 and 255
    rng = np.random.default_rng(n)
    levels = rng.integers(0, 256, size=(n, 3), dtype=np.uint8)
    levels[: n // 3, 2] = 255
    levels[: n // 4, 1] = 0
    assert np.array_equal(_median_levels(levels), np.median(levels, axis=0))
