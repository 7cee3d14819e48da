"""A thing first seen "moving" is a ball struck out of sight only if it keeps moving: a ball at rest whose
detection is read once off its place and then steadily on it (a dark ball's centre with or without its
shadow) is no stroke, and the real stroke that follows starts the shot."""

from __future__ import annotations

import numpy as np

from tracking.detect import shots
from tracking.detect.segments import PathView
from tracking.detect.settings import ShotSettings

from .real_records import nearest, run

CUE_PLACE = (2136.0, 503.0)
PURPLE_PLACE = (1378.0, 992.0)
GREEN_PLACE = (1622.0, 870.0)
DT = 1 / 29.97


def _view(xs: list[float]) -> PathView:
    return PathView("b", tuple(k * DT for k in range(len(xs))), tuple(np.array([x, 500.0]) for x in xs))


def test_a_step_then_no_more_steps_is_no_ball_first_seen_moving() -> None:
    s = ShotSettings()
    assert shots.stops_dead(_view([1423.0, 1374.0, 1378.0, 1381.0]), s)
    assert shots.first_seen_moving(_view([1423.0, 1374.0, 1378.0, 1381.0]), s) is None


def test_a_ball_that_rolls_on_is_first_seen_moving() -> None:
    s = ShotSettings()
    xs = [1000.0 - 40.0 * k + 0.5 * k * k for k in range(4)]  # 1.2 m/s, slowing on the cloth
    assert not shots.stops_dead(_view(xs), s)
    t0 = shots.first_seen_moving(_view(xs), s)
    assert t0 is not None and abs(t0) < DT


def test_the_ball_read_off_its_place_is_not_struck_and_the_cue_ball_hits_the_green() -> None:
    _, events = run("real-ball-read-off-its-place-once.json")
    starts = [e for e in events if e.type == "shot_start"]
    assert starts, "no shot start"
    rests = starts[0].positions or {}
    cue, purple = nearest(rests, CUE_PLACE), nearest(rests, PURPLE_PLACE)
    assert [e.ball for e in starts] == [cue]
    assert 5 <= (starts[0].frame or 0) <= 9
    assert purple not in [e.ball for e in events if e.type in ("shot_start", "disturbed")]
    hits = sorted((e for e in events if e.type == "contact" and cue in (e.balls or ())), key=lambda e: e.t or 0.0)
    assert hits and nearest(rests, GREEN_PLACE) in (hits[0].balls or ()) and 22 <= (hits[0].frame or 0) <= 28
