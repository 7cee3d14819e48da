"""A ball struck from rest into a blur: its streak found around its resting place (vision.launch)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.test_vision_streaks import _calibration, _frame
from vision.launch import LaunchFinder, place_is_clear

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
