"""The referee's warnings of 001 2.1.20 for a position at rest, from the table model's predicates."""

from __future__ import annotations

from api.service.warnings import position_warnings
from calibration.table import TableModel

T = TableModel()
D = T.ball_diameter_mm
R = T.ball_radius_mm


def codes(positions, game="russian71", cue=None):
    return sorted(w["code"] for w in position_warnings(T, positions, game, cue))


def test_frozen_balls_within_a_millimetre_and_not_beyond():
    assert codes({"1": (1000.0, 600.0), "2": (1000.0 + D + 0.9, 600.0), "cue": (2500.0, 1200.0)}) == ["frozen_balls"]
    assert codes({"1": (1000.0, 600.0), "2": (1000.0 + D + 1.5, 600.0), "cue": (2500.0, 1200.0)}) == []
    w = position_warnings(T, {"cue": (1000.0, 600.0), "5": (1000.0 + D, 600.0)}, "moscow", "cue")[0]
    assert w["cue"] is True and "45 degrees" in w["text"]


def test_a_ball_frozen_to_a_cushion_and_near_a_corner_pocket_in_or_out():
    assert codes({"3": (1200.0, R + 0.5), "cue": (2500.0, 900.0)}) == ["frozen_cushion"]
    # Beside the house-left pocket on the left-house cushion: inside the 2.1.12 zone but before the jaw arc.
    tip, away = T.cushion_pocket_end("left-house", "house-left")
    outside = (tip[0] + away[0] * 30.0, R)
    assert codes({"3": outside, "cue": (2500.0, 900.0)}) == ["frozen_cushion", "frozen_outside_pocket"]
    inside = (tip[0] - away[0] * (T.spec.jaw_arc_midpoint_mm + 2.0), R)
    assert codes({"3": inside, "cue": (2500.0, 900.0)}) == ["frozen_cushion", "frozen_in_pocket"]


def test_all_object_balls_in_the_house_only_in_the_games_that_warn_of_it():
    layout = {"1": (300.0, 500.0), "2": (500.0, 900.0), "cue": (2500.0, 900.0)}
    assert codes(layout, "russian71", "cue") == ["all_in_house"]
    assert codes(layout, "eight-fast", "cue") == ["all_in_house"]
    assert codes(layout, "cluster", "cue") == []
    assert codes({**layout, "3": (T.length_mm / 4 + 1.0, 900.0)}, "russian71", "cue") == []


def test_a_ball_exactly_on_the_centre_line():
    assert codes({"7": (T.length_mm / 2 + 1.0, 600.0), "cue": (900.0, 300.0)}) == ["on_center_line"]
    assert codes({"7": (T.length_mm / 2 + 2.0, 600.0), "cue": (900.0, 300.0)}) == []
