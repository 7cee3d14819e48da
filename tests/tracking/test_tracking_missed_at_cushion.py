"""A rolling ball missed in the very frame it reaches a cushion is reported on the cloth, coming off the cushion,
not a radius or more past the rail on its straight-line prediction.

The tracker bounced a hidden ball's prediction off the cushions only from its second unseen frame: in the frame
it was first missed it was still reported where its straight run would have taken it, beyond the cushion's
touching line (at 30 fps a ball at 2.9 m/s runs 97 mm a frame, so that point lies up to 60 mm past the line).
"""

from __future__ import annotations

from calibration.table import TableModel
from tracking.tracker import Tracker, TrackerFrame

from .records import dets, feed

TABLE = TableModel()
FPS = 30.0
R = TABLE.ball_radius_mm
TOUCH_Y = TABLE.width_mm - R  # where a ball's centre is when it touches the far long cushion


def _run_at_cushion(last_gap_mm: float, miss: int) -> tuple[list[TrackerFrame], float]:
    """Ball 1 rests, then rolls at (2000, 1600) mm/s toward the far long cushion; it is seen in every frame while
    its centre is more than ``last_gap_mm`` short of the touching line, then missed ``miss`` frames. Returns the
    frames and the step (mm) it runs in a frame across the cushion."""
    start = (1500.0, 1000.0)
    tr = Tracker(TABLE, known_ids={"1": start, "cue": (500.0, 400.0)})
    frames = [(i / FPS, dets([start, (500.0, 400.0)], cue=[False, True])) for i in range(30)]
    vx, vy = 2000.0, 1600.0
    k = 1
    t0 = 30 / FPS
    while start[1] + vy * k / FPS < TOUCH_Y - last_gap_mm:
        frames.append((t0 + (k - 1) / FPS, dets([(start[0] + vx * k / FPS, start[1] + vy * k / FPS), (500.0, 400.0)],
                                                cue=[False, True])))  # fmt: skip
        k += 1
    n_seen = len(frames)
    frames += [(t0 + (k - 1 + j) / FPS, dets([(500.0, 400.0)], cue=[True])) for j in range(miss)]
    out = feed(tr, frames)
    return out[n_seen:], vy / FPS


def test_a_ball_missed_the_frame_it_reaches_a_cushion_is_reported_on_the_cloth_coming_off_it() -> None:
    frames, step = _run_at_cushion(last_gap_mm=20.0, miss=1)
    ball = frames[0].by_id()["1"]
    assert ball.meas is None  # predicted, not seen
    # its straight run would put it step - 20 mm past the touching line; it bounced off the cushion instead
    assert step - 20.0 > 30.0
    assert ball.pos[1] <= TOUCH_Y
    assert ball.vel[1] < 0.0  # coming off the cushion


def test_a_ball_missed_short_of_the_cushion_runs_on_straight() -> None:
    frames, step = _run_at_cushion(last_gap_mm=120.0, miss=1)
    assert step < 120.0 - 20.0  # its next step ends well short of the touching line
    ball = frames[0].by_id()["1"]
    assert ball.meas is None
    assert ball.vel[1] > 0.0  # still running at the cushion: nothing to bounce off yet
    assert ball.pos[1] < TOUCH_Y
