"""A resting ball's detected centre that jumps in one frame to a new spot and stands there (the fit of a weak ball
landing on one rim or the other) is the ball measured again, not the ball set moving: a ball set moving cannot
lose a step's speed within a frame on the cloth (``tracking.jumps``). A real strike still starts the shot, and a
ball that stops dead against another it ran into (a stun shot) is still a ball that moved."""

from __future__ import annotations

import numpy as np

from api.pipeline import Pipeline
from calibration.contract import Event
from calibration.table import TableModel
from tracking import jumps
from tracking.tracker import Tracker

from .records import dets, feed

FPS = 25.0
CUE = np.array([1000.0, 600.0])
RED = np.array([2200.0, 1100.0])
JUMP = np.array([0.0, 40.0])  # 8 px at 5 mm a pixel: a weak ball's two fits


def _events(frames: list[list[np.ndarray]]) -> list[Event]:
    pipe = Pipeline(table=TableModel(), known_ids={"cue": tuple(CUE), "1": tuple(RED)})
    for i, pts in enumerate(frames):
        pipe.step_detections(dets(pts, cue=[True, False]), i, i / FPS)
    pipe.finish()
    return pipe.sorted_events()


def _stroke(k: int, t0: int) -> np.ndarray:
    """The cue ball struck at frame ``t0`` along +x at 1.2 m/s, slowed by 0.5 m/s2 until it stops."""
    t = max(k - t0, 0) / FPS
    t = min(t, 1200.0 / 500.0)
    return CUE + np.array([1200.0 * t - 0.5 * 500.0 * t * t, 0.0])


def test_a_step_of_1_m_s_then_a_frame_at_rest_is_a_re_measurement() -> None:
    dt, still = 1 / FPS, 5.0  # still: a resting ball's sightings scatter that far
    place, away = np.zeros(2), JUMP
    assert jumps.stood_after(place, away, dt, away + np.array([0.8, -0.5]), dt, still)  # 25 m/s2: no cloth does that
    rolling = away + JUMP * 0.95  # the same step, then rolling on (0.05 of its speed lost: 1.25 m/s2)
    assert not jumps.stood_after(place, away, dt, rolling, dt, still)
    struck = np.array([87.0, 0.0])  # 2.2 m/s, then 2.0 m/s measured: a struck ball, its blur read short
    assert not jumps.stood_after(place, struck, dt, struck + np.array([79.0, 0.0]), dt, still)
    soft = np.array([4.0, 0.0])  # 0.1 m/s, then the same again: a soft roll, within the noise of its last
    assert not jumps.stood_after(place, soft, dt, 2 * soft, dt, still)
    assert not jumps.stood_after(place, away, 5 * dt, away, dt, still)  # unseen for frames before: it may have rolled
    hit = np.array([6.0, 0.0])  # at 60 fps: 0.36 m/s, then 0.2 m/s: a slow hit, each step within the noise
    assert not jumps.stood_after(place, hit, 1 / 60, hit + np.array([3.3, 0.0]), 1 / 60, still)


def test_a_resting_ball_whose_centre_jumps_one_frame_to_a_new_spot_stays_at_rest_there() -> None:
    rng = np.random.default_rng(3)
    frames = []
    for i in range(50):
        p = RED + rng.normal(0.0, 0.5, 2) + (JUMP if i >= 20 else 0.0)
        frames.append((i / FPS, dets([p])))
    out = feed(Tracker(TableModel(), known_ids={"1": tuple(RED)}), frames)
    for f in out[12:]:
        ball = f.by_id()["1"]
        if f.frame == 20:
            continue  # the frame of the step itself reads it set moving: the next one tells
        assert ball.resting, f"frame {f.frame}: not at rest"
        near = RED + (JUMP if f.frame > 20 else 0.0)
        assert float(np.hypot(*(np.array(ball.pos) - near))) < 2.0, f"frame {f.frame}: {ball.pos}"


def test_a_weak_ball_flipping_between_two_fits_opens_no_shot_and_the_real_stroke_does() -> None:
    # the red's fit: on its place to frame 15, then the other rim at 16-17, back at 18, the other rim from 19
    rng = np.random.default_rng(4)
    flips = {16, 17, 19}
    frames = []
    for i in range(90):
        red = RED + rng.normal(0.0, 0.5, 2) + (JUMP if i in flips or i >= 19 else 0.0)
        frames.append([_stroke(i, 40) + rng.normal(0.0, 0.5, 2), red])
    events = _events(frames)
    starts = [e for e in events if e.type == "shot_start"]
    assert [(e.ball, e.frame) for e in starts] == [("cue", 40)], starts
    assert not [e for e in events if e.type == "disturbed"]


def test_a_cue_ball_that_stops_dead_against_a_ball_it_hit_is_held_moving() -> None:
    # stun: the cue ball, 40 mm short of touching the red, struck at 2 m/s at frame 40, hits it 0.02 s later and
    # stops dead there; the red runs on. The cue ball's one step and stop is a real move: the red moved.
    d = TableModel().ball_diameter_mm
    gap, v = 40.0, 2000.0
    red0 = CUE + np.array([d + gap, 0.0])
    t_s = 40 / FPS
    t_c = t_s + gap / v
    frames = []
    for i in range(70):
        t = i / FPS
        cue = CUE + np.array([min(max(t - t_s, 0.0) * v, gap), 0.0])
        run = max(t - t_c, 0.0)
        red = red0 + np.array([0.9 * v * run - 0.5 * 400.0 * run * run, 0.0])
        frames.append([cue, red])
    pipe = Pipeline(table=TableModel(), known_ids={"cue": tuple(CUE), "1": tuple(red0)})
    resting_after_stop = []
    for i, pts in enumerate(frames):
        pipe.step_detections(dets(pts, cue=[True, False]), i, i / FPS)
        if i == 42:
            assert pipe.last is not None
            resting_after_stop.append(pipe.last.by_id()["cue"].resting)
    pipe.finish()
    assert resting_after_stop == [False]  # its stop is the hit's, not a re-measurement: it moved
    events = pipe.sorted_events()
    # (which ball the extractor names struck here, and the contact, are its own reading of a hit within the
    # frame of the stroke: not this rule's)
    assert [e.frame for e in events if e.type == "shot_start"] == [40]
