"""The live page's warnings of 001 2.1.20 for a position at rest: the game's own judgement (rules.warnings)."""

from __future__ import annotations

from api.service.warnings import position_warnings
from calibration.table import TableModel

T = TableModel()
D = T.ball_diameter_mm
R = T.ball_radius_mm


def codes(positions, game="americanka", in_hand=False):
    return sorted(w["code"] for w in position_warnings(T, positions, game, in_hand))


def test_frozen_balls_within_a_millimetre_and_not_beyond_where_any_ball_may_be_struck():
    """In Americanka every ball is white and any may be struck (001 2.7.2): each frozen pair is warned."""
    assert codes({"1": (1000.0, 600.0), "2": (1000.0 + D + 0.9, 600.0), "3": (2500.0, 1200.0)}) == ["balls_frozen"]
    assert codes({"1": (1000.0, 600.0), "2": (1000.0 + D + 1.5, 600.0), "3": (2500.0, 1200.0)}) == []
    (w,) = position_warnings(T, {"1": (1000.0, 600.0), "2": (1000.0 + D, 600.0)}, "americanka")
    assert w["balls"] == ["1", "2"] and "45°" in w["text"] and w["rule"] == "001 2.1.20"


def test_with_a_cue_ball_only_the_cue_ball_frozen_to_an_object_ball_is_warned():
    """2.1.20 warns of the cue ball and an object ball touching (play at 45°), not of two object balls."""
    assert codes({"cue": (1000.0, 600.0), "5": (1000.0 + D, 600.0)}, "moscow") == ["cue_frozen"]
    assert codes({"cue": (2500.0, 1200.0), "5": (1000.0, 600.0), "6": (1000.0 + D, 600.0)}, "moscow") == []


def test_a_ball_frozen_to_a_cushion_and_near_a_corner_pocket_in_or_out():
    assert codes({"3": (1200.0, R + 0.5), "cue": (2500.0, 900.0)}, "moscow") == ["cushion_frozen"]
    tip, away = T.cushion_pocket_end("left-house", "house-left")
    outside = (tip[0] + away[0] * 30.0, R)
    assert codes({"3": outside, "cue": (2500.0, 900.0)}, "moscow") == ["cushion_frozen", "out_of_pocket"]
    inside = (tip[0] - away[0] * (T.spec.jaw_arc_midpoint_mm + 2.0), R)
    assert codes({"3": inside, "cue": (2500.0, 900.0)}, "moscow") == ["cushion_frozen", "in_pocket"]


def test_all_object_balls_in_the_house_when_in_hand_in_the_games_that_warn_of_it():
    layout = {"1": (300.0, 500.0), "2": (500.0, 900.0), "cue": (2500.0, 900.0)}
    assert codes(layout, "moscow", in_hand=True) == ["temporary_house"]
    assert codes(layout, "eight-fast", in_hand=True) == ["temporary_house"]
    assert codes(layout, "moscow", in_hand=False) == []  # 2.1.5б: a rule for the player in hand
    assert codes(layout, "cluster", in_hand=True) == []
    assert codes({**layout, "3": (T.length_mm / 4 + 1.0, 900.0)}, "moscow", in_hand=True) == []


def test_a_ball_exactly_on_the_centre_line_in_the_games_with_safety_rules():
    """2.1.20: "актуально при игре в быстрые виды игр, а также американку" (the games with safety rules)."""
    on = {"7": (T.length_mm / 2 + 1.0, 600.0), "cue": (900.0, 300.0)}
    assert codes(on, "moscow-fast") == ["on_center_line"]
    assert codes(on, "moscow") == []
    assert codes({"7": (T.length_mm / 2 + 2.0, 600.0), "cue": (900.0, 300.0)}, "moscow-fast") == []


def test_an_unknown_game_has_no_warnings():
    assert codes({"1": (1000.0, 600.0), "2": (1000.0 + D, 600.0)}, "snooker") == []
