"""``tracking.births``: weak things watched until they hold still or roll on one ball's course, each test on
sightings placed by hand on a real ``TableModel``."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableModel
from tracking.births import ROLLING_ACCEL_MM_S2, BirthWatch, Spot, Window, held_still, on_course
from tracking.tracker_settings import STILL_RADII

TABLE = TableModel()
R = TABLE.ball_radius_mm
FPS = 60.0


def _sightings(path, seconds: float = 1.0) -> np.ndarray:
    """(t, x, y) rows at 60 fps over ``seconds``, the position at each time from ``path(t)``."""
    t = np.arange(0.0, seconds + 1e-9, 1.0 / FPS)
    return np.array([(tt, *path(tt)) for tt in t])


def _rolling(v0: float, decel: float):
    """A ball rolling along x from (1000, 889) at ``v0`` mm/s, slowed by ``decel`` mm/s^2."""
    return lambda t: (1000.0 + v0 * t - 0.5 * decel * t * t, 889.0)


@pytest.mark.parametrize(
    ("path", "on"),
    [
        # rolling resistance slows a ball steadily: one rolling course
        (_rolling(1000.0, 900.0), True),
        # slowing faster than the cloth slows a ball (and never turning back): a hand pulled back, not a ball
        (_rolling(5000.0, 2.0 * ROLLING_ACCEL_MM_S2), False),
        # a hand swaying out and back over the cloth turns back within the window
        (lambda t: (1000.0 + 150.0 * np.sin(2.0 * np.pi * t), 889.0), False),
        # a thing that holds still is a spot's, not a run's
        (lambda t: (1000.0 + 2.0 * np.sin(40.0 * t), 889.0), False),
    ],
    ids=["rolling_ball", "slowing_too_fast", "hand_swaying", "holding_still"],
)
def test_on_course_only_a_path_a_rolling_ball_could_take(path, on: bool) -> None:
    vel = on_course(_sightings(path), R)
    assert (vel is not None) == on
    if on:
        assert vel is not None
        # the velocity now: at the last sighting (1 s in), 1000 - 900 mm/s
        assert np.allclose(vel, [100.0, 0.0], atol=1.0)


def test_on_course_needs_four_sightings() -> None:
    assert on_course(_sightings(_rolling(1000.0, 0.0), seconds=2.0 / FPS), R) is None


@pytest.mark.parametrize(
    ("spread_mm", "still"),
    [(0.9 * STILL_RADII * R, True), (1.1 * STILL_RADII * R, False)],
    ids=["faint_rim_scatter", "beyond_the_still_circle"],
)
def test_held_still_within_the_still_circle(spread_mm: float, still: bool) -> None:
    pts = np.array([[1000.0 + spread_mm, 889.0], [1000.0 - spread_mm, 889.0], [1000.0, 889.0]])
    assert held_still(pts, R) == still


def test_spot_ahead_runs_on_along_its_last_two_sightings() -> None:
    sp = Spot([(0.0, 1000.0, 889.0)], 0.3, 0, None, 0.0)
    assert np.allclose(sp.ahead(0.1), [1000.0, 889.0])  # one sighting: no course yet
    sp.add(1.0 / FPS, np.array([1010.0, 889.0]), 0.3, False, None)
    assert np.allclose(sp.ahead(2.0 / FPS), [1020.0, 889.0])


def _feed_spot(watch: BirthWatch, where: tuple[float, float], frames: int, new: bool) -> list[np.ndarray]:
    """Feeds one weak detection at ``where`` for ``frames`` frames; returns the sightings of each spot that
    proved itself a ball at rest."""
    proven: list[np.ndarray] = []
    dt = 1.0 / FPS
    for k in range(frames):
        t = k * dt
        w = Window(keep_for=2.5 * dt, since=t - 1.0 - 0.5 * dt, frame_dt=dt)
        watch.forget_spots(t, w.keep_for)
        z = np.array([where])
        watch.watch_spots([0], z, np.array([0.3]), np.array([False]), None, t, w, new, lambda sp, p: proven.append(p))
    return proven


def test_a_weak_blob_held_still_for_the_window_is_a_ball_at_rest_once() -> None:
    watch = BirthWatch(TABLE)
    proven = _feed_spot(watch, (1000.0, 889.0), frames=int(1.2 * FPS), new=True)
    assert len(proven) == 1
    assert np.allclose(proven[0].mean(axis=0), [1000.0, 889.0])
    assert len(proven[0]) >= FPS  # every sighting of the window


def test_a_weak_blob_is_not_watched_where_no_ball_can_be_new() -> None:
    # after the opening, with no ball lost, a weak blob starts no spot: a ball cannot appear from nowhere
    watch = BirthWatch(TABLE)
    assert _feed_spot(watch, (1000.0, 889.0), frames=int(1.2 * FPS), new=False) == []
    assert watch.spots == []
