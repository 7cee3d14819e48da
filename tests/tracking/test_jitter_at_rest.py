"""A resting ball's detection displaced for one frame (a highlight, a shadow merged with the ball) is no start:
a ball set moving rolls away from its place, it does not come back onto it a frame later."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import shots
from tracking.tracker import Tracker

from .real_records import nearest, run
from .records import dets, feed

RED_PLACE = (1338.4, 446.3)
CUE_PLACE = (1566.4, 448.9)


def test_one_displaced_detection_then_back_on_its_place_leaves_the_ball_at_rest() -> None:
    place = np.array([1000.0, 600.0])
    rng = np.random.default_rng(5)
    frames = []
    for i in range(40):
        p = place + rng.normal(0.0, 0.8, 2) + (np.array([15.0, 0.0]) if i in (20, 30) else 0.0)
        frames.append((i / 30, dets([p])))
    out = feed(Tracker(TableModel(), known_ids={"1": tuple(place)}), frames)
    for f in out[12:]:
        ball = f.by_id()["1"]
        if f.frame not in (20, 30):  # the displaced frames themselves may show it set moving
            assert ball.resting, f"frame {f.frame}: not at rest"
            assert float(np.hypot(*(np.array(ball.pos) - place))) < 2.0


def test_a_ball_that_rolls_on_from_its_place_is_set_moving() -> None:
    place = np.array([1000.0, 600.0])
    frames = [(i / 30, dets([place])) for i in range(20)]
    frames += [(i / 30, dets([place + np.array([15.0 * (i - 19), 0.0])])) for i in range(20, 30)]
    out = feed(Tracker(TableModel(), known_ids={"1": tuple(place)}), frames)
    assert not out[22].by_id()["1"].resting and not out[-1].by_id()["1"].resting


def test_back_at_place_wants_the_next_samples_on_the_spot() -> None:
    sigma = 2.0
    assert shots.back_at_place([0.4, 0.9], sigma, resting=False)
    assert shots.back_at_place([0.4], sigma, resting=True)  # the tracker holds it at rest there again
    assert not shots.back_at_place([0.4], sigma, resting=False)  # one sample could be a stray one
    assert not shots.back_at_place([0.4, 13.4], sigma, resting=False)  # it left after all
    assert not shots.back_at_place([18.0, 25.0], sigma, resting=False)  # rolling on


def test_the_red_jittering_on_its_spot_is_not_struck_and_the_cue_ball_hits_it() -> None:
    _, events = run("red-jitter-before-the-stroke.json")
    rests = next(e.positions for e in events if e.type == "shot_start") or {}  # where every ball rested
    red, cue = nearest(rests, RED_PLACE), nearest(rests, CUE_PLACE)
    assert not [e for e in events if e.type == "disturbed"]  # the red was never touched before the stroke
    starts = [e for e in events if e.type == "shot_start"]
    assert [e.ball for e in starts] == [cue]
    assert 20 <= (starts[0].frame or 0) <= 26
    hit = [e for e in events if e.type == "contact"]
    assert hit and set(hit[0].balls or ()) == {cue, red} and 32 <= (hit[0].frame or 0) <= 35
