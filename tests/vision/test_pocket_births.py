"""A ball lying in a pocket's hole is never a ball on the table: no track starts on it, and a hidden ball that
was not going into that pocket is not found again there (which then "potted" it when the dropped ball was
lost from sight). Short detection records through the pipeline, labelled by ``vision.pockets``."""

from __future__ import annotations

import numpy as np

from api.pipeline import Pipeline
from calibration.table import TableModel
from vision.detections import BALL, Detections
from vision.pockets import PocketInteriors

TABLE = TableModel()
FPS = 30.0
POCKET = TABLE.pockets["house-left"]
HOLE = POCKET.point(20.0, 10.0)  # a dropped ball seen in the hole, 20 mm past the mouth line
NEAR = (120.0, 125.0)  # a ball resting 140 mm from that hole
FAR = (1500.0, 900.0)


def _dets(points: list[tuple[float, float]], labelled: bool) -> Detections:
    n = len(points)
    pos = np.array(points, dtype=float).reshape(-1, 2)
    d = Detections(np.zeros((n, 2)), pos, np.full(n, 10.0), np.full(n, 0.9), np.full(n, BALL), np.zeros((n, 3)))
    return d.with_flags(in_pocket=PocketInteriors(TABLE).contains(pos)) if labelled else d


def _run(frames: list[list[tuple[float, float]]], labelled: bool) -> Pipeline:
    pipe = Pipeline(table=TABLE, game="russian71", meas_sigma_mm=1.2)
    for i, pts in enumerate(frames):
        pipe.step_detections(_dets(pts, labelled), i, i / FPS)
    pipe.finish()
    return pipe


def _near_hole(pipe: Pipeline) -> bool:
    return any(np.hypot(b.x - HOLE[0], b.y - HOLE[1]) < 15.0 for b in (r for r in pipe.track_rows()))


def test_a_ball_in_a_pocket_hole_from_the_start_gets_no_track() -> None:
    frames = [[FAR, NEAR, HOLE]] * 60
    pipe = _run(frames, labelled=True)
    assert not _near_hole(pipe)
    assert len(pipe.balls) == 2
    assert not [e for e in pipe.events if e.type in ("pot", "off_table")]
    assert _near_hole(_run(frames, labelled=False))  # unlabelled, the hole's ball is taken for a ball


def test_a_hidden_ball_is_not_found_again_in_a_pocket_hole_and_not_potted() -> None:
    """The ball by the pocket is hidden (a hand over it) while a dropped ball shows in the hole, then the hole
    goes dark again and the hand leaves: the ball is where it was, and nothing was potted."""
    frames = [[FAR, NEAR]] * 30 + [[FAR, HOLE]] * 20 + [[FAR]] * 40 + [[FAR, NEAR]] * 20
    pipe = _run(frames, labelled=True)
    assert not [e for e in pipe.events if e.type in ("pot", "off_table")]
    assert not _near_hole(pipe)
    assert len(pipe.balls) == 2
    unlabelled = _run(frames, labelled=False)
    # unlabelled, the hidden ball is found again in the hole, and potted when that ball goes dark
    assert [(e.type, e.pocket) for e in unlabelled.events if e.type == "pot"] == [("pot", "house-left")]
