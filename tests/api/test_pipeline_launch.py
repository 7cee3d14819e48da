"""The pipeline follows a ball struck from rest into a blur the detector cannot see (tracking.guided)."""

from __future__ import annotations

import numpy as np
import pytest

from api.pipeline import Pipeline
from tests.vision.test_vision_streaks import _calibration, _frame
from vision.classical import ClassicalDetector

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

    def run(streaks: bool, detector: ClassicalDetector | None = None) -> Pipeline:
        pipe = Pipeline(cal, known_ids=known, streaks=streaks, detector=detector)
        for i, f in enumerate(frames):
            pipe.step(f, i, i / FPS)
        return pipe

    # The control measures what the streaks add over the detector's own view of the blur, so it is the plain
    # detector: the learned classifier's p(ball) lifts a blurred ball's confidence, which is not under test.
    on, off = run(True), run(False, ClassicalDetector(cal, ball_classifier=False))
    assert on.guided is not None and on.guided.launches.count >= 4
    rows = {r.frame: (r.x, r.y) for r in on.track_rows(smoothed=False) if r.ball == "cue"}
    errs = [float(np.hypot(*(np.array(rows[f]) - path[f]))) for f in range(stroke + 1, len(path)) if f in rows]
    assert len(errs) >= 6 and max(errs) < 6.0, errs
    # without the streak measurements the plain detector's weak blur is taken only from the second blurred frame
    # on (tracking.gates.struck_away: one sighting cannot tell a ball from a hand), so at the first the track is
    # still at its place, a frame's run (150 mm) behind the ball, and it trails the blur by centimetres after
    off_rows = {r.frame: (r.x, r.y) for r in off.track_rows(smoothed=False) if r.ball == "cue"}
    off_errs = [float(np.hypot(*(np.array(off_rows[f]) - path[f]))) for f in range(stroke + 1, stroke + 4)]
    assert off_errs[0] > 100.0 and min(off_errs) > 6.0, off_errs


@pytest.mark.slow
def test_a_struck_ball_followed_into_a_hit_does_not_take_the_streak_of_the_ball_it_hit() -> None:
    """At 30 fps the cue ball, struck into a blur, runs straight into ball 1 and stops dead; ball 1 goes on at
    its speed, a blur too. Followed by its streak, the cue ball is looked for where its old path leads, which
    is where ball 1's streak now is: that streak is ball 1's (struck from rest), not a second measurement of the
    cue ball. Ball 1 is tracked along its path, the cue ball stays where it stopped."""
    fps = 30.0
    cal = _calibration()
    d = 2 * 34.0
    p0, v = np.array([700.0, 900.0]), np.array([4500.0, 0.0])
    stroke, hit = 10, 16  # frames: struck after the 10th, ball 1 hit between the 15th and the 16th
    stop = p0 + v * (hit - 0.5 - stroke) / fps
    p1 = stop + np.array([d, 0.0])
    still = (2900.0, 300.0)

    def cue(i: int) -> tuple[np.ndarray, np.ndarray]:
        if i <= stroke:
            return p0, np.zeros(2)
        return (p0 + v * (i - stroke) / fps, v) if i < hit else (stop, np.zeros(2))

    def one(i: int) -> tuple[np.ndarray, np.ndarray]:
        return (p1, np.zeros(2)) if i < hit else (p1 + v * (i - hit + 0.5) / fps, v)

    n = hit + 6
    frames = [
        _frame(cal, [(tuple(p), tuple(u)) for p, u in (cue(i), one(i))] + [(still, (0.0, 0.0))], fps, 0.5)
        for i in range(n)
    ]
    known = {"cue": (float(p0[0]), float(p0[1])), "1": (float(p1[0]), float(p1[1])), "2": still}
    pipe = Pipeline(cal, known_ids=known, streaks=True)
    for i, f in enumerate(frames):
        pipe.step(f, i, i / fps)
    pipe.finish()
    rows = {(r.frame, r.ball): np.array([r.x, r.y]) for r in pipe.track_rows(smoothed=False)}
    after = range(hit + 1, n)
    one_err = [float(np.hypot(*(rows[(i, "1")] - one(i)[0]))) for i in after if (i, "1") in rows]
    assert len(one_err) >= 4 and max(one_err) < 10.0, one_err
    cue_err = [float(np.hypot(*(rows[(i, "cue")] - stop))) for i in after if (i, "cue") in rows]
    assert cue_err and max(cue_err) < 10.0, cue_err


def test_a_ball_whose_first_blurred_frame_broke_its_rest_is_still_looked_for_from_its_place() -> None:
    """At 30 fps a ball struck hard shows once as a short blur beside its place (its measurement a dozen
    millimetres off, past the tracker's rest gate: no longer resting), then is gone into a streak the detector
    misses. The watch looks for that streak from where it rested, as for a ball lost straight from rest."""
    from tracking.guided import LaunchWatch
    from tracking.tracker import BallObs, TrackerFrame, TrackState

    fps = 30.0
    cal = _calibration()
    p0, v = np.array([700.0, 900.0]), np.array([4500.0, -600.0])
    still = (2900.0, 300.0)
    other = BallObs("1", still, still, (0.0, 0.0), True, TrackState.CONFIRMED)
    place = (float(p0[0]), float(p0[1]))
    rested = TrackerFrame(9, 9 / fps, (BallObs("cue", place, place, (0.0, 0.0), True, TrackState.CONFIRMED), other))
    blur = (place[0] + 12.0, place[1] - 1.5)  # the first blurred frame, measured a dozen millimetres on
    cue = BallObs("cue", blur, blur, (360.0, -45.0), False, TrackState.CONFIRMED)
    at = p0 + v * 1.5 / fps  # the frame after: a streak the detector misses
    frame = _frame(cal, [(tuple(at), tuple(v)), (still, (0.0, 0.0))], fps, 0.5)

    def fixes(left_at: int) -> list:
        watch = LaunchWatch(cal, 12000.0)
        watch.observe(rested)
        left = TrackerFrame(left_at, left_at / fps, (cue, other))
        watch.observe(left)
        return watch.fixes(frame, left, np.array([still]), (left_at + 1) / fps)

    found = fixes(10)
    assert [f.id for f in found] == ["cue"]
    assert float(np.hypot(*(found[0].pos_mm - at))) < 15.0
    # a ball that left its rest longer ago (not resting for two frames now) is not looked for from there
    assert fixes(12) == []
