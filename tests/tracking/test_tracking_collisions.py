"""Ids through collisions and between shots: what rendered breaks and strokes showed the tracker getting wrong.

Each case is the frame-by-frame geometry seen on a rendered scene, reduced to its few balls."""

from __future__ import annotations

import numpy as np

from api.pipeline import Pipeline
from calibration.table import TableModel
from tests.tracking.records import dets as frame_dets

TABLE = TableModel()
Y = 889.0


def _feed(pipe: Pipeline, frames: list[list[tuple[tuple[float, float], float]]], fps: float) -> None:
    for i, dets in enumerate(frames):
        pipe.step_detections(frame_dets([p for p, _ in dets], [c for _, c in dets]), i, i / fps)


def _after(
    frames: list[list[tuple[tuple[float, float], float]]], known: dict[str, tuple[float, float]], fps: float
) -> dict:
    """Where each ball is after the frames (its id: its tracker observation)."""
    pipe = Pipeline(table=TABLE, known_ids=known)
    _feed(pipe, frames, fps)
    assert pipe.last is not None
    return pipe.last.by_id()


def test_a_struck_ball_does_not_take_a_detection_beyond_a_ball_still_in_its_way() -> None:
    """At 30 fps the struck ball covers 300 mm a frame. It hits the apex ball (which barely moves, pushing
    into the rack) and comes back off it; the ball behind the apex sets off, and its detection lies where the
    struck ball was predicted. The struck ball cannot have passed through the apex ball to get there."""
    fps = 30.0
    apex, behind = (2676.0, Y), (2676.0 + 68.0, Y)
    frames: list[list[tuple[tuple[float, float], float]]] = []
    for _ in range(30):  # at rest
        frames.append([((700.0, Y), 0.95), (apex, 0.8), (behind, 0.8)])
    for k in range(1, 7):  # 300 mm a frame, up to 100 mm short of the apex
        frames.append([((700.0 + 300.0 * k, Y + 0.5), 0.9), (apex, 0.8), (behind, 0.8)])
    # the frame after the contact: the struck ball back off the apex, the apex pushed 4 mm, the one behind gone
    # on to where the struck ball was predicted
    frames.append([((2600.0, Y + 10.0), 0.9), ((2679.0, Y + 2.0), 0.8), ((2800.0, Y), 0.8)])
    frames.append([((2585.0, Y + 20.0), 0.9), ((2680.0, Y + 3.0), 0.8), ((2856.0, Y), 0.8)])
    got = _after(frames, {"cue": (700.0, Y), "12": apex, "7": behind}, fps)
    assert got["cue"].pos[0] < 2640.0, got["cue"]
    assert got["7"].pos[0] > 2820.0, got["7"]


def test_a_struck_ball_predicted_into_a_resting_ball_does_not_take_its_detection() -> None:
    """The struck ball, measured close to the apex the frame before, is predicted on into the apex's place; the
    apex's detection there is a few millimetres off its place, and the struck ball's own, back off the apex, is
    80 mm short of the prediction. The prediction past a ball it must have hit means nothing (swapped, the
    apex would have leapt towards the ball that hit it, and the struck ball stopped dead in the apex's place)."""
    fps = 60.0
    apex = (2676.0, Y)
    frames: list[list[tuple[tuple[float, float], float]]] = []
    for _ in range(30):
        frames.append([((700.0, Y), 0.95), (apex, 0.75)])
    for k in range(1, 13):  # 158 mm a frame: the last one 0.1 mm short of where the next lands on the apex
        frames.append([((2518.6 - 158.0 * (12 - k), Y + 2.0), 0.8), (apex, 0.75)])
    frames.append([((2597.0, Y + 10.0), 0.77), ((2672.6, Y + 4.6), 0.73)])
    frames.append([((2577.0, Y + 22.0), 0.77), ((2660.0, Y + 16.0), 0.73)])
    got = _after(frames, {"16": (700.0, Y), "12": apex}, fps)
    assert got["16"].pos[0] < 2590.0, got["16"]
    assert got["12"].pos[0] > 2650.0, got["12"]


def test_a_resting_ball_hidden_by_the_arm_between_shots_does_not_jump_to_the_hand() -> None:
    """Between shots the player's arm comes over a resting ball: the detector loses the ball and sees the
    hand as a weak ball-sized blob 170 mm away. The ball stays where it rests."""
    fps = 60.0
    ball = (3362.0, 1416.0)
    frames: list[list[tuple[tuple[float, float], float]]] = []
    for _ in range(60):
        frames.append([((600.0, 400.0), 0.95), (ball, 0.9)])
    for k in range(20):  # the hand moves in over 20 frames; the ball is hidden under the arm
        frames.append([((600.0, 400.0), 0.95), ((3189.0 - 10.0 * k, 1409.0 - 5.0 * k), 0.38)])
    known = {"cue": (600.0, 400.0), "14": ball}
    pipe = Pipeline(table=TABLE, known_ids=known)
    _feed(pipe, frames, fps)
    assert pipe.last is not None
    b = pipe.last.by_id()["14"]
    assert np.hypot(b.pos[0] - ball[0], b.pos[1] - ball[1]) < 5.0, b
    pipe.finish()
    assert not [e for e in pipe.sorted_events() if e.type in ("shot_start", "disturbed") and e.ball == "14"]


def test_a_bridge_hand_resting_on_the_cloth_between_shots_is_not_a_new_ball() -> None:
    """Before a stroke the bridge hand rests on the cloth for a second: a weak, still, ball-sized blob. It is
    not a ball placed on the table (which would take a new id and could start the shot or make contacts)."""
    fps = 60.0
    frames: list[list[tuple[tuple[float, float], float]]] = []
    for i in range(200):
        dets = [((600.0, 400.0), 0.95), ((2000.0, 900.0), 0.95)]
        if 60 <= i < 180:
            dets.append(((490.0, 727.0), 0.58))
        frames.append(dets)
    pipe = Pipeline(table=TABLE, known_ids={"cue": (600.0, 400.0), "1": (2000.0, 900.0)})
    _feed(pipe, frames, fps)
    assert pipe.last is not None
    assert sorted(pipe.last.by_id()) == ["1", "cue"]
    # a ball really placed there (a clear detection) is taken as one
    pipe = Pipeline(table=TABLE, known_ids={"cue": (600.0, 400.0), "1": (2000.0, 900.0)})
    _feed(pipe, [[*d[:2], ((490.0, 727.0), 0.95)] if i >= 60 else d for i, d in enumerate(frames)], fps)
    assert pipe.last is not None
    assert len(pipe.last.by_id()) == 3
