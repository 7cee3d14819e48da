"""A ball that leaves the table: into a pocket through its mouth, or over the rail beside it."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableModel
from tracking.tracker import Tracker

TABLE = TableModel()
MIDDLE = TABLE.pockets["middle-left"]


def _over_mouth(p: np.ndarray) -> bool:
    """The ball's centre over the middle pocket's hole (it drops from sight there)."""
    return MIDDLE.depth((p[0], p[1])) >= -TABLE.ball_radius_mm and abs(MIDDLE.lateral((p[0], p[1]))) <= (
        MIDDLE.mouth_width_mm / 2
    )


def _leave(start: np.ndarray, vel: np.ndarray, fps: float = 60.0, seconds: float = 1.5) -> list:
    """One ball rolling from ``start`` at ``vel`` (mm/s), seen while its centre is on the playing surface and
    not yet over the pocket's hole (from there on it is gone)."""
    tracker = Tracker(TABLE, known_ids={"5": (float(start[0]), float(start[1]))})
    losses = []
    gone = False
    for i in range(int(seconds * fps)):
        t = i / fps
        p = start + vel * t
        gone = gone or not (0.0 <= p[0] <= TABLE.length_mm and 0.0 <= p[1] <= TABLE.width_mm) or _over_mouth(p)
        losses += tracker.step(i, t, np.zeros((0, 2)) if gone else np.array([p])).losses
    return losses


def _beside_middle(lateral_mm: float) -> np.ndarray:
    """A point 400 mm in from the middle pocket's mouth line, ``lateral_mm`` along the rail from its axis."""
    mouth, out = np.array(MIDDLE.mouth_center), np.array(MIDDLE.outward)
    along = np.array([-out[1], out[0]])
    return mouth - out * 400.0 + along * lateral_mm


def test_a_ball_jumping_the_rail_beside_a_middle_pocket_is_off_the_table_not_potted() -> None:
    # its centre crosses the cushion line 0.8 of a radius past the jaw's tip, heading straight out
    lateral = MIDDLE.mouth_width_mm / 2 + 0.8 * TABLE.ball_radius_mm
    losses = _leave(_beside_middle(lateral), np.array(MIDDLE.outward) * 2500.0)
    assert [(x.id, x.kind, x.pocket) for x in losses] == [("5", "off_table", None)]


@pytest.mark.parametrize("lateral_frac", [0.0, 0.3])
def test_a_ball_through_the_mouth_is_potted(lateral_frac: float) -> None:
    lateral = lateral_frac * MIDDLE.mouth_width_mm / 2
    losses = _leave(_beside_middle(lateral), np.array(MIDDLE.outward) * 2500.0)
    assert [(x.id, x.kind, x.pocket) for x in losses] == [("5", "pot", "middle-left")]


def test_a_ball_running_along_the_cushion_into_the_middle_pocket_is_potted() -> None:
    # a radius from the cushion, rolling along it, edging toward it at 2 cm/s
    mouth, out = np.array(MIDDLE.mouth_center), np.array(MIDDLE.outward)
    along = np.array([-out[1], out[0]])
    start = mouth - out * (TABLE.ball_radius_mm + 2.0) - along * 500.0
    losses = _leave(start, along * 900.0 + out * 20.0)
    assert [(x.id, x.kind, x.pocket) for x in losses] == [("5", "pot", "middle-left")]
