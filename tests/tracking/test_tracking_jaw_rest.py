"""A ball at rest in a pocket's jaws that goes unseen: short of the mouth line the cloth holds it up, so it is
hidden (a cue or an arm over it), not potted; past the mouth line it hangs over the hole and may drop."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel, TableSpec
from tracking.tracker import Tracker

D = 57.15
# a pool table (corner mouths two balls wide), as analyze makes it for a table that is not the Russian one
TABLE = TableModel(TableSpec(length_mm=2540.0, width_mm=1270.0, ball_diameter_mm=D, corner_mouth_mm=2 * D,
                             middle_mouth_mm=2.25 * D))  # fmt: skip
CORNER = TABLE.pockets["house-right"]


def _rest_then_unseen(depth_mm: float, fps: float = 25.0) -> list:
    """One ball at rest ``depth_mm`` past the corner pocket's mouth line (negative: short of it), seen with a
    few tenths of a millimetre of noise for 2 s, then unseen for 2 s and the clip ends; the tracker's losses."""
    p = np.array(CORNER.point(depth_mm, 0.0))
    tracker = Tracker(TABLE, known_ids={"3": (float(p[0]), float(p[1]))})
    rng = np.random.default_rng(7)
    losses = []
    for i in range(int(4 * fps)):
        t = i / fps
        z = np.array([p + rng.normal(0.0, 0.4, 2)]) if t < 2.0 else np.zeros((0, 2))
        losses += tracker.step(i, t, z).losses
    losses += tracker.finish(4.0)
    return losses


def test_a_ball_resting_in_the_jaws_short_of_the_mouth_line_is_not_potted_when_hidden() -> None:
    # its centre 11 mm short of the mouth line, inside the mouth's reach (a radius): on the cloth
    assert TABLE.in_pocket_mouth(CORNER.point(-11.0, 0.0)) == "house-right"
    assert [(x.id, x.kind) for x in _rest_then_unseen(-11.0)] == []


def test_a_ball_hanging_past_the_mouth_line_that_vanishes_is_potted() -> None:
    losses = _rest_then_unseen(0.3 * TABLE.ball_radius_mm)
    assert [(x.id, x.kind, x.pocket) for x in losses] == [("3", "pot", "house-right")]
