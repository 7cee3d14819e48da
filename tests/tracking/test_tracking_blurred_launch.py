"""A ball struck fast is smeared along its path by the exposure, a streak the ball classifier finds unlike a still
ball; it is still that ball to pair with, while a barred blob seen at one place frame after frame stays no clear
ball (``Tracker._moved_there``), on a record cut from real footage: a pool broadcast's cue ball struck into the
blue 2 (``tests/data/tracking/real-dark-ball-hit-unseen-at-one-second.json``)."""

from __future__ import annotations

import numpy as np

from api.pipeline import Pipeline, no_start
from vision.detections import Detections

from . import real_records

RECORD = "real-dark-ball-hit-unseen-at-one-second.json"
CUE_AT_REST = (1136.0, 1071.0)  # the cue ball's place before the stroke (table mm)
TWO = (1677.0, 623.0)  # the blue 2 at rest, the ball the cue ball hits
STRUCK = 23  # the first frame after the stroke: the cue ball a streak in this frame and the next


def _near(z: np.ndarray, at: tuple[float, float], within: float) -> np.ndarray:
    return np.flatnonzero(np.hypot(z[:, 0] - at[0], z[:, 1] - at[1]) < within)


def _pipe() -> tuple[Pipeline, list]:
    doc, table, frames = real_records.load(RECORD)
    return Pipeline(table=table, meas_sigma_mm=doc["settings"]["meas_sigma_mm"]), frames


def test_the_streaks_are_barred_and_lie_on_the_cue_balls_path() -> None:
    # the case the rule is for: the classifier's bar on the two streaks, a diameter and more a frame apart
    _, frames = _pipe()
    streaks = []
    for i in (STRUCK, STRUCK + 1):
        d = frames[i][1]
        barred = no_start(d)
        assert barred is not None
        on_cloth = (d.pos_mm[:, 1] > 0.0) & (d.pos_mm[:, 1] < 1270.0)
        k = [c for c in np.flatnonzero(barred & on_cloth) if np.hypot(*(d.pos_mm[c] - CUE_AT_REST)) < 600.0]
        assert len(k) == 1 and d.p_ball[k[0]] < 0.05
        streaks.append(d.pos_mm[k[0]])
    steps = np.diff(np.vstack([CUE_AT_REST, *streaks]), axis=0)
    assert np.all(np.hypot(*steps.T) > 2 * 57.15)


def test_the_cue_ball_is_seen_in_flight_and_hits_the_two() -> None:
    pipe, frames = _pipe()
    cue = two = None
    for i, (t, d) in enumerate(frames):
        pipe.step_detections(d, i, t)
        assert pipe.last is not None
        if i == STRUCK - 1:
            cue = next(b.id for b in pipe.last.balls if np.hypot(*(np.array(b.pos) - CUE_AT_REST)) < 10.0)
            two = next(b.id for b in pipe.last.balls if np.hypot(*(np.array(b.pos) - TWO)) < 10.0)
        if i in (STRUCK, STRUCK + 1):
            b = next(b for b in pipe.last.balls if b.id == cue)
            streak = d.pos_mm[_near(d.pos_mm, b.pos, 1.0)]
            assert b.meas is not None and len(streak) == 1, f"frame {i}: the struck cue ball is unseen"
            assert np.hypot(*(np.array(b.pos) - CUE_AT_REST)) > 100.0
    pipe.finish()
    hits = [e for e in pipe.sorted_events() if e.type == "contact" and set(e.balls or ()) == {cue, two}]
    assert hits and abs(hits[0].frame - (STRUCK + 2)) <= 1


def _frame(balls: list[tuple[float, float]], barred: list[bool]) -> Detections:
    z = np.array(balls, dtype=float).reshape(-1, 2)
    n = len(z)
    return Detections(
        z * 0.5 + 20.0, z, np.full(n, 15.0), np.full(n, 0.8), np.zeros(n, np.int64), np.full((n, 3), 200.0),
        np.zeros(n, bool), np.zeros(n, bool), unlike_ball=np.array(barred, bool), p_ball=np.where(barred, 0.05, 0.99),
    )  # fmt: skip


def test_a_still_barred_blob_back_after_missed_frames_stays_no_clear_ball() -> None:
    # Hand-built, 25 fps: a ball at rest and a blob unlike a ball 150 mm from it (a glove laid on the cloth),
    # missed by the detector for five frames; back at its place it is the same still thing, no clear ball,
    # while a blob unlike a ball where nothing was seen is a ball come there, as clear as its confidence.
    _, table, _ = real_records.load(RECORD)
    pipe = Pipeline(table=table, meas_sigma_mm=2.35)
    ball, glove, elsewhere = (1000.0, 600.0), (1150.0, 600.0), (1000.0, 760.0)
    for i in range(20):
        seen = [ball, glove] if i < 12 or i > 16 else [ball]
        d = _frame(seen, [False, True][: len(seen)])
        pipe.step_detections(d, i, i / 25.0)
    d = _frame([ball, glove, elsewhere], [False, True, True])
    barred = no_start(d)
    assert barred is not None
    sc = pipe.tracker.scene(20 / 25.0, d, pipe.pockets.which(d.pos_mm), ~barred)
    assert list(sc.weak) == [False, True, False]
