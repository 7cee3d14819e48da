"""Frames that do not show the table (a graphics wipe, a camera cut) pause the observer: no events from them,
and a ball rolling fast beside a cushion when the picture went away is not called off the table for vanishing."""

from __future__ import annotations

import cv2
import numpy as np

from api.pipeline import Pipeline
from calibration.mapping import Calibration
from calibration.table import TableModel
from tests.drawn_support import overhead_calibration
from tracking.kinematic_sim import SimSettings, simulate_shot
from vision.table_view import TableView

TABLE = TableModel()
SIZE = (960, 540)
DECEL = 1500.0


def _calibration() -> Calibration:
    return overhead_calibration(TABLE, SIZE, 30)


def _draw(cal: Calibration, balls: dict[str, tuple[float, float]]) -> np.ndarray:
    w, h = SIZE
    img = np.full((h, w, 3), (40, 60, 90), np.uint8)
    ring = np.array([cal.corners_px[k] for k in ("house-left", "pyramid-left", "pyramid-right", "house-right")])
    cv2.fillPoly(img, [np.rint(ring).astype(np.int32)], (60, 140, 30))
    r = round(TABLE.ball_radius_mm * cal.px_per_mm())
    for p in balls.values():
        q = cal.table_to_image(np.array([p]))[0]
        cv2.circle(img, (round(q[0]), round(q[1])), r, (235, 235, 235), -1, cv2.LINE_AA)
    return img


def _wipe() -> np.ndarray:
    """A broadcast graphic over the whole picture: a colour panel with ball-sized discs (logos) on it."""
    w, h = SIZE
    img = np.full((h, w, 3), (150, 40, 20), np.uint8)
    for k in range(6):
        cv2.circle(img, (120 + 140 * k, 270), 14, (235, 235, 235), -1, cv2.LINE_AA)
    return img


def _rolling_along_a_cushion() -> tuple[list[tuple[float, dict[str, tuple[float, float]]]], int, int]:
    """The cue ball sent fast along the left long cushion (its centre 60 mm from the nose); the frames, and the
    span a wipe covers: 0.6 s from when it has run 400 mm, at about 1.9 m/s."""
    start = (600.0, 60.0)
    fps = 30
    sim = simulate_shot(
        TABLE, {"cue": start}, "cue", (2200.0, 0.0), fps=fps, tail_s=0.8, settings=SimSettings(decel_mm_s2=DECEL)
    )
    first = next(i for i, (_, b) in enumerate(sim.frames) if b["cue"][0] >= start[0] + 400.0)
    return sim.frames, first, first + int(0.6 * fps)


def _observe(with_wipe: bool) -> tuple[Pipeline, list]:
    cal = _calibration()
    frames, a, b = _rolling_along_a_cushion()
    pipe = Pipeline(cal, game="russian71")
    events = []
    for i, (t, balls) in enumerate(frames):
        img = _wipe() if with_wipe and a <= i <= b else _draw(cal, balls)
        events += pipe.step(img, i, t)
    events += pipe.finish()
    return pipe, events


def test_a_wipe_over_a_ball_rolling_by_a_cushion_is_paused_not_a_ball_off_the_table() -> None:
    _, a, b = _rolling_along_a_cushion()
    pipe, events = _observe(with_wipe=True)
    assert pipe.paused == [(a, b)]
    assert not [e for e in events if e.type in ("pot", "off_table")]
    assert not [e for e in events if e.frame is not None and a <= e.frame <= b and e.type != "shot_end"]
    # the ball is still there when the table is back
    assert len(pipe.balls) == 1


def test_the_table_in_view_is_never_paused() -> None:
    pipe, events = _observe(with_wipe=False)
    assert pipe.paused == []
    assert [e.type for e in events if e.type == "shot_start"] == ["shot_start"]


def test_a_player_over_a_third_of_the_table_is_still_the_table() -> None:
    cal = _calibration()
    view = TableView(cal)
    assert view.check(_draw(cal, {"cue": (800.0, 800.0)}))
    covered = _draw(cal, {"cue": (800.0, 800.0)})
    w, h = SIZE
    cv2.rectangle(covered, (w // 3, 0), (2 * w // 3, h), (70, 90, 150), -1)  # a body across the table
    assert view.check(covered) and 0.55 < view.last_share < 0.75
    assert not view.check(_wipe())
