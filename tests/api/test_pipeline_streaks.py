"""The pipeline measures a fast ball by its blur streak where the detector's circle sits at one end of it."""

from __future__ import annotations

import numpy as np
import pytest

from api.pipeline import Pipeline
from tests.vision.test_vision_streaks import _calibration, _frame

FPS = 60.0


def _run(streaks: bool, frames: list[np.ndarray], known: dict[str, tuple[float, float]]) -> Pipeline:
    pipe = Pipeline(_calibration(), known_ids=known, streaks=streaks)
    for i, f in enumerate(frames):
        pipe.step(f, i, i / FPS)
    pipe.finish()
    return pipe


@pytest.mark.slow
def test_a_fast_ball_is_measured_at_its_streak_centre() -> None:
    cal = _calibration()
    p0, v = np.array([700.0, 900.0]), np.array([3000.0, 300.0])
    still = (2900.0, 300.0)
    # rolling at 3 m/s from the first frame, the shutter open 0.9 of the frame: a 45 mm streak (0.66 diameters)
    path = [p0 + v * i / FPS for i in range(30)]
    frames = [_frame(cal, [(tuple(p), tuple(v)), (still, (0.0, 0.0))], FPS, 0.9) for p in path]
    known = {"cue": (float(p0[0]), float(p0[1])), "1": still}
    on, off = _run(True, frames, known), _run(False, frames, known)
    assert on.guided is not None and on.guided.streak_count >= 10 and off.guided is None

    def errors(pipe: Pipeline) -> np.ndarray:
        # the moving ball, whatever id the tracker gave it (the resting one keeps its known id)
        rows = {r.frame: (r.x, r.y) for r in pipe.track_rows(smoothed=False) if r.ball != "1"}
        return np.array([np.hypot(*(np.array(rows[f]) - path[f])) for f in range(4, len(path) - 1) if f in rows])

    e_on, e_off = errors(on), errors(off)
    assert len(e_on) >= 12
    assert np.median(e_on) < 2.0
    assert np.median(e_on) < np.median(e_off)
