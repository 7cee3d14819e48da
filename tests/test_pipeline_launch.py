"""The pipeline follows a ball struck from rest into a blur the detector cannot see (api.launch_watch)."""

from __future__ import annotations

import numpy as np
import pytest

from api.pipeline import Pipeline
from tests.test_vision_streaks import _calibration, _frame

FPS = 60.0


@pytest.mark.slow
def test_a_ball_struck_hard_from_rest_is_followed_through_its_blur() -> None:
    cal = _calibration()
    p0, v = np.array([700.0, 900.0]), np.array([9000.0, -1000.0])
    still = (2900.0, 300.0)
    stroke = 12
    path = [p0 + v * max(i - stroke, 0) / FPS for i in range(stroke + 9)]
    frames = [
        _frame(cal, [(tuple(p), tuple(v) if i > stroke else (0.0, 0.0)), (still, (0.0, 0.0))], FPS, 0.5)
        for i, p in enumerate(path)
    ]
    known = {"cue": (float(p0[0]), float(p0[1])), "1": still}

    def run(streaks: bool) -> Pipeline:
        pipe = Pipeline(cal, known_ids=known, streaks=streaks)
        for i, f in enumerate(frames):
            pipe.step(f, i, i / FPS)
        return pipe

    on, off = run(True), run(False)
    assert on.launches.count >= 4
    rows = {r.frame: (r.x, r.y) for r in on.track_rows(smoothed=False) if r.ball == "cue"}
    errs = [float(np.hypot(*(np.array(rows[f]) - path[f]))) for f in range(stroke + 1, len(path)) if f in rows]
    assert len(errs) >= 6 and max(errs) < 6.0, errs
    # without the streak measurements the detector alone loses it: its track stays at its place
    off_rows = {r.frame: (r.x, r.y) for r in off.track_rows(smoothed=False) if r.ball == "cue"}
    last = max(off_rows)
    assert float(np.hypot(*(np.array(off_rows[last]) - path[last]))) > 100.0
