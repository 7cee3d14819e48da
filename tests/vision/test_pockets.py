"""The inside of each pocket is not the table: past the mouth line between the jaws, on the table model."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from vision.detections import BALL, Detections
from vision.pockets import SIDE_SLACK_MM, PocketInteriors

TABLE = TableModel()


def test_past_the_mouth_line_between_the_jaws_is_inside_that_pocket() -> None:
    inside = PocketInteriors(TABLE)
    for k, pk in enumerate(TABLE.pockets.values()):
        half = pk.mouth_width_mm / 2
        pts = np.array([pk.point(1.0, 0.0), pk.point(30.0, half - 1.0), pk.point(80.0, -half + 1.0)])
        assert (inside.which(pts) == k).all(), pk.name
        assert inside.names[k] == pk.name


def test_short_of_the_mouth_line_or_beside_the_jaws_is_not_inside() -> None:
    inside = PocketInteriors(TABLE)
    for pk in TABLE.pockets.values():
        half = pk.mouth_width_mm / 2
        r = TABLE.ball_radius_mm
        # a ball hanging on the lip (its centre short of the line) is still on the table; beside the jaws is rail
        pts = np.array([pk.point(-1.0, 0.0), pk.point(-r, half - r), pk.point(40.0, half + SIDE_SLACK_MM + 5.0)])
        assert not inside.contains(pts).any(), pk.name
    # the middle of the table and a ball frozen to a cushion half way along it
    assert not inside.contains(np.array([[1784.5, 889.0], [900.0, TABLE.ball_radius_mm]])).any()


def test_detections_carry_the_flags_through_selection_and_joining() -> None:
    n = 3
    d = Detections(
        np.zeros((n, 2)), np.zeros((n, 2)), np.full(n, 5.0), np.full(n, 0.9), np.full(n, BALL), np.zeros((n, 3))
    )
    assert not d.in_pocket.any() and not d.covered.any()
    f = d.with_flags(in_pocket=np.array([True, False, False]), covered=np.array([False, False, True]))
    assert f.in_pocket.tolist() == [True, False, False] and f.covered.tolist() == [False, False, True]
    assert f[np.array([False, True, True])].covered.tolist() == [False, True]
    joined = Detections.concatenate([f, d])
    assert joined.in_pocket.tolist() == [True, False, False, False, False, False]
    assert Detections.empty().covered.shape == (0,)
