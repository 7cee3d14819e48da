"""A frame whose detections guided measurement changed (a streak or a launch put in for a fast ball) keeps every
other detection's look: the tracker starts a weakly scored ball that looks like one on it as the video opens,
whether or not a fast ball is in the same frame."""

from __future__ import annotations

import numpy as np

from api.pipeline import Pipeline, _with_measurements
from calibration.table import TableModel, TableSpec
from vision.detections import BALL, Detections

POOL = TableSpec(length_mm=2540, width_mm=1270, ball_diameter_mm=57.15, corner_mouth_mm=114.3, middle_mouth_mm=128.6)


def _dets(pos: list[tuple[float, float]], conf: list[float], p_ball: list[float]) -> Detections:
    n = len(pos)
    return Detections(
        px=np.array(pos, dtype=float) / 4.0,
        pos_mm=np.array(pos, dtype=float),
        radius_px=np.full(n, 7.0),
        confidence=np.array(conf, dtype=float),
        cls=np.full(n, BALL, dtype=np.int64),
        colour=np.full((n, 3), 60.0),
        p_ball=np.array(p_ball, dtype=float),
    )


def test_measurements_keep_the_looks_of_the_detections_they_keep() -> None:
    dets = _dets([(500.0, 400.0), (900.0, 700.0), (1500.0, 300.0)], [0.45, 0.9, 0.6], [0.98, 0.7, 0.1])
    keep = np.array([True, True, False])  # the third was a fast ball's fragment, replaced by its streak
    m = _with_measurements(dets, keep, [(np.array([1520.0, 310.0]), 0.8, BALL, np.full(3, 60.0))])
    assert m.p_ball is not None and len(m.p_ball) == len(m.pos_mm) == 3
    assert np.allclose(m.p_ball[:2], [0.98, 0.7])
    assert np.isnan(m.p_ball[2]), "a streak measurement is no look the classifier judged"


def test_a_dark_ball_that_looks_like_one_starts_a_track_in_a_guided_frame() -> None:
    # A dark ball scored 0.45 by its rim, p(ball) 0.98 by its look, beside a fast ball whose streak replaced
    # the detector's circle in every frame: as the video opens it starts a track on its look.
    def run(guided: bool) -> set[str]:
        pipe = Pipeline(table=TableModel(POOL), game="eight")
        for i in range(12):
            fast = (300.0 + 40.0 * i, 900.0)
            dets = _dets([(1200.0, 500.0), fast], [0.45, 0.9], [0.98, 0.95])
            if guided:
                dets = _with_measurements(
                    dets, np.array([True, False]), [(np.array(fast), 0.9, BALL, np.full(3, 60.0))]
                )
            pipe.step_detections(dets, i, i / 30.0)
        return {
            b.id for b in (pipe.last.balls if pipe.last else ()) if np.hypot(b.pos[0] - 1200.0, b.pos[1] - 500.0) < 10
        }

    assert run(False), "the dark ball starts on its look in plain frames"
    assert run(True), "and in frames that guided measurement changed"
