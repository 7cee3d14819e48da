"""The observer keeps each ball's colour as the detector measured it at rest (api.ball_looks): a coloured
ball the camera could not number is named by it, through the pipeline's own ids and their corrections."""

from __future__ import annotations

import numpy as np

from api.pipeline import Pipeline
from calibration.table import TableModel
from vision.detections import Detections

T = TableModel()
# three balls at rest in the pyramid half, far from each other and the cushions
BALLS = {"yellow": ((2600.0, 500.0), (28.0, 223.0, 253.0)), "blue": ((2900.0, 900.0), (213.0, 144.0, 10.0)),
         "white": ((3100.0, 1300.0), (229.0, 247.0, 252.0))}  # fmt: skip


def _frame(jitter: float, radius_px: float) -> Detections:
    pos = np.array([p for p, _ in BALLS.values()]) + jitter
    col = np.array([c for _, c in BALLS.values()])
    n = len(pos)
    return Detections(np.zeros((n, 2)), pos, np.full(n, radius_px), np.full(n, 0.95), np.zeros(n, np.int64), col)


def _observed(frames: int, radius_px: float = 16.0) -> Pipeline:
    """Balls as a 1080p overhead camera images them (16 px radius) unless told."""
    pipe = Pipeline(table=T, game="moscow")  # the Moscow rack does not number the balls: tracker ids
    for i in range(frames):
        pipe.step_detections(_frame(0.3 * ((-1) ** i), radius_px), i, i / 30)
    return pipe


def test_each_tracked_ball_is_named_by_its_colour_at_rest():
    pipe = _observed(40)
    at = {b.id: b.pos for b in pipe.last.balls}
    assert len(at) == 3 and all(k.startswith("t") for k in at)
    by_place = {name: min(at, key=lambda k: np.hypot(at[k][0] - p[0], at[k][1] - p[1]))
                for name, (p, _) in BALLS.items()}  # fmt: skip
    words = pipe.looks.words()
    assert words == {by_place["yellow"]: "yellow", by_place["blue"]: "blue"}  # a white ball says nothing
    colours = pipe.looks.colours()
    assert np.allclose(colours[by_place["yellow"]], BALLS["yellow"][1])


def test_a_colour_needs_a_few_frames_and_follows_the_operators_rename():
    assert _observed(3).looks.words() == {}  # a glimpse (or a hand's shadow) names nothing yet
    pipe = _observed(40)
    yellow = next(k for k, w in pipe.looks.words().items() if w == "yellow")
    pipe.rename_ball(yellow, "t99")
    assert pipe.looks.words().get("t99") == "yellow" and yellow not in pipe.looks.words()
    pipe.rename_ball("t99", "1")  # numbered now: the number names it
    assert "yellow" not in pipe.looks.words().values()


def test_a_ball_imaged_too_small_to_show_its_colour_is_not_named():
    """At 9 px radius a ball's inner disc is a few dozen pixels of rim, glare and blur: no colour word."""
    assert _observed(40, radius_px=9.0).looks.words() == {}
    assert len(_observed(40, radius_px=12.0).looks.words()) == 2
