"""Golden shots per game: the break, calls, counting, the cue ball, spotting, penalties and debts, the end
of a frame, 70:70. Each test names the clause it checks; expectations come from the clause text."""

from __future__ import annotations

import pytest

from calibration.table import TableModel
from rules.errors import RefereeInputError
from rules.fouls import Foul
from rules.registry import FEDERATION_GAMES
from rules.scenarios import Script

T = TableModel()
L, W, R, D = T.length_mm, T.width_mm, T.ball_radius_mm, T.ball_diameter_mm
XS, YS = T.spots["pyramid"]
BALL_GAMES = [g for g in FEDERATION_GAMES if not g.startswith("russian")]
SAFETY_GAMES = [g for g in FEDERATION_GAMES if FEDERATION_GAMES[g].safety != "none"]
BREAK_IN = (("cross", "cue", "house", "+x"), ("cross", "cue", "center", "+x"))


def spots(v):
    return {s.ball: s.pos for s in v.spot}


def after_break(game: str) -> Script:
    s = Script(game, breaker="A")
    if FEDERATION_GAMES[game].calls != "none":
        s.call("4", "pyramid-left")
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("rail", "11", "pyramid"), ("rail", "11", "right-pyramid"),
               end={"cue": (2000.0, 700.0)})  # fmt: skip
    assert v.legal and v.next_player == "B"
    return s


# ---- the break from hand (2.1.5) -------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["moscow", "eight", "americanka", "russian71"])
def test_non_fast_break_a_far_corner_pot_makes_every_pot_count_2_1_5a(game):
    s = Script(game)
    if game == "russian71":
        s.call("3", "pyramid-right")
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "middle-left"), ("pot", "3", "pyramid-right"))
    assert v.counted == ("9", "3") and v.next_player == "A" and v.score == ((12, 0) if game == "russian71" else (2, 0))


@pytest.mark.parametrize("game", ["moscow", "eight", "americanka", "russian71"])
def test_non_fast_break_without_a_far_corner_pot_counts_nothing_and_spots_2_1_5a(game):
    s = Script(game)
    if game == "russian71":
        s.call("9", "middle-left")
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "middle-left"))
    assert v.legal and v.counted == () and v.void == ("9",) and v.next_player == "B"
    assert "9" in spots(v)


FAST_GAMES = [g for g in FEDERATION_GAMES if FEDERATION_GAMES[g].fast]


@pytest.mark.parametrize("game", FAST_GAMES)
def test_fast_break_counts_any_pocket_after_the_cue_ball_left_the_house_2_1_5a(game):
    s = Script(game)
    if FEDERATION_GAMES[game].calls != "none":
        s.call("9", "middle-left")
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "middle-left"))
    assert v.counted == ("9",) and v.next_player == "A"


@pytest.mark.parametrize("game", list(FEDERATION_GAMES))
def test_break_retaken_when_the_cue_ball_stays_in_the_house_untouched_2_1_5g(game):
    s = Script(game)
    v = s.play("cue", ("rail", "cue", "house"), end={"cue": (300.0, 889.0)})
    assert v.legal and v.next_player == "A" and v.ball_in_hand and any("2.1.5г" in n for n in v.notes)
    assert s.ref.state.shots == 0  # still the opening break


@pytest.mark.parametrize("game", [g for g in FEDERATION_GAMES if FEDERATION_GAMES[g].temporary_house_rule])
def test_temporary_house_far_corners_are_the_house_corners_2_1_5b(game):
    layout = {"cue": (3000.0, 889.0), "1": (300.0, 400.0), "2": (500.0, 1400.0)}
    s = Script(game, layout=layout)
    if FEDERATION_GAMES[game].calls != "none":
        s.call("1", "house-left")
    v = s.play("cue", ("hit", "cue", "1"), ("pot", "1", "house-left"))
    assert v.counted == ("1",)
    s2 = Script(game, layout=layout)
    if FEDERATION_GAMES[game].calls != "none":
        s2.call("1", "middle-left")
    v2 = s2.play("cue", ("hit", "cue", "1"), ("pot", "1", "middle-left"))
    if FEDERATION_GAMES[game].fast:  # fast games count any pocket once the cue ball left the (temporary) house
        assert v2.counted == ("1",)
    else:
        assert v2.counted == () and v2.void == ("1",)


# ---- Russian pyramid (2.2, 2.3) ------------------------------------------------------------------------------------
def test_russian_break_needs_the_called_ball_in_a_far_corner_2_2_5_digest_A3():
    s = Script("russian71")
    s.call("3", "pyramid-right")
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "middle-left"), ("pot", "3", "pyramid-right"))
    assert v.counted == ("9", "3") and v.score == (12, 0) and v.next_player == "A"


def test_russian_break_called_into_a_middle_pocket_counts_nothing_2_2_5():
    s = Script("russian71")
    s.call("9", "middle-left")
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "middle-left"))
    assert v.counted == () and v.void == ("9",) and v.next_player == "B" and v.legal


def test_russian_called_ball_makes_every_pot_count_ace_is_11_2_2_4_and_2_2_6():
    s = after_break("russian71")
    s.call("6", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "1", "pyramid-right"), ("pot", "6", "pyramid-left"))
    assert v.counted == ("1", "6") and v.score == (0, 17) and v.next_player == "B"


def test_russian_wrong_call_counts_nothing_no_penalty_spots_in_number_order_2_2_6_2_2_7():
    s = after_break("russian71")
    s.call("6", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "12", "pyramid-right"), ("pot", "5", "middle-left"))
    assert v.legal and v.counted == () and set(v.void) == {"12", "5"} and v.score == (0, 0)
    assert v.next_player == "A"
    sp = [s_.ball for s_ in v.spot]
    assert sp == ["5", "12"]  # ascending numbers, frozen together on the longitudinal line
    p5, p12 = spots(v)["5"], spots(v)["12"]
    assert p5[1] == YS and p12[1] == YS and abs(abs(p12[0] - p5[0]) - D) < 1e-6


def test_russian_no_call_counts_nothing_2_2_6():
    s = after_break("russian71")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"))
    assert v.counted == () and v.void == ("6",)


def test_russian_penalty_minus_5_plus_5_scores_may_go_negative_2_2_8_digest_A14():
    s = after_break("russian71")
    v = s.play("cue", ("rail", "cue", "left-house"))
    assert v.score == (5, -5)


@pytest.mark.parametrize("game", ["russian71", "russian71-fast"])
def test_russian_last_ball_plus_10_and_the_win_2_2_4_2_2_1(game):
    layout = {"cue": (2000.0, 700.0), "15": (3000.0, 300.0)}
    s = Script(game, layout=layout)
    s.ref.state = s.ref.state.evolve(score=(50, 60), in_hand=False, shots=10, to_play="A")
    s.call("15", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "15"), ("pot", "15", "pyramid-left"))
    assert v.score == (75, 60) and v.frame_over and v.winner == "A"


@pytest.mark.parametrize("game", ["russian71", "russian71-fast"])
def test_russian_70_70_respot_lag_then_next_pot_wins_2_2_9(game):
    layout = {"cue": (2000.0, 700.0), "5": (3000.0, 300.0)}
    s = Script(game, layout=layout)
    s.ref.state = s.ref.state.evolve(score=(55, 70), in_hand=False, shots=10, to_play="A")
    s.call("5", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "5"), ("pot", "5", "pyramid-left"))
    assert v.score == (70, 70) and not v.frame_over
    assert spots(v) == {"5": (XS, YS)}  # the last potted ball back on the back spot
    st = s.ref.state
    assert st.at_70 and st.awaiting_lag and st.in_hand
    # the lag (2.1.4): B's ball stops nearer the front cushion
    s.pos = {"5": (XS, YS), "cue": (300.0, 500.0), "x": (300.0, 1300.0)}
    lag = s.play("cue", ("rail", "cue", "pyramid", (L, 500.0)), ("rail", "x", "pyramid", (L, 1300.0)),
                 end={"cue": (600.0, 500.0), "x": (200.0, 1300.0)})  # fmt: skip
    assert lag.next_player == "B" and lag.ball_in_hand
    s.pos = {"5": (XS, YS), "cue": (400.0, 889.0)}
    s.call("5", "pyramid-left")
    v3 = s.play("cue", ("cross", "cue", "house", "+x"), ("hit", "cue", "5"), ("pot", "5", "pyramid-left"))
    assert v3.frame_over and v3.winner == "B" and v3.score == (70, 85)


@pytest.mark.parametrize("game", ["russian71", "russian71-fast"])
def test_russian_70_70_a_foul_ends_the_frame_2_2_9(game):
    s = Script(game, layout={"cue": (400.0, 889.0), "5": (XS, YS)})
    s.ref.state = s.ref.state.evolve(score=(70, 70), in_hand=True, shots=10, to_play="A", at_70=True)
    v = s.play("cue", ("cross", "cue", "house", "+x"), ("rail", "cue", "pyramid"))
    assert v.frame_over and v.winner == "B" and v.score == (65, 75)


def test_russian_fast_call_any_on_the_opening_break_2_3_2():
    s = Script("russian71-fast")
    s.call_any()
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "middle-left"), ("pot", "2", "middle-right"))
    assert v.counted == ("9", "2") and v.score == (11, 0)


def test_call_any_is_not_part_of_russian_71_2_2_6():
    s = Script("russian71")
    with pytest.raises(RefereeInputError, match="no заказ с падающим"):  # refused, never silently ignored
        s.call_any()
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "pyramid-left"))
    assert v.counted == ()


@pytest.mark.parametrize("game", SAFETY_GAMES)
def test_pocket_zone_exception_no_foul_2_1_12(game):
    s = after_break(game)
    s.pos["6"] = (3200.0, 300.0)
    if FEDERATION_GAMES[game].calls != "none":
        s.call("6", "pyramid-left")
    tip = T.pockets["pyramid-left"].jaws[0].tip
    v = s.play("cue", ("hit", "cue", "6"), ("rail", "6", "jaw:pyramid-left", tip))
    assert v.legal and any("2.1.12" in n for n in v.notes) and v.next_player == "A"


def test_russian_fast_called_ball_missed_at_a_wrong_pocket_zone_is_a_foul_2_1_12():
    s = after_break("russian71-fast")
    s.pos["6"] = (3200.0, 300.0)
    s.call("6", "pyramid-right")
    tip = T.pockets["pyramid-left"].jaws[0].tip
    v = s.play("cue", ("hit", "cue", "6"), ("rail", "6", "jaw:pyramid-left", tip))
    assert Foul.BAD_SAFETY in v.fouls


# ---- rolling a frozen ball (2.1.10), all games ---------------------------------------------------------------------
@pytest.mark.parametrize("game", list(FEDERATION_GAMES))
def test_rolled_frozen_ball_is_void_no_penalty_turn_passes_2_1_10(game):
    s = after_break(game)
    s.pos["6"] = (3300.0, R)
    s.pos["cue"] = (3000.0, 200.0)
    if FEDERATION_GAMES[game].calls != "none":
        s.call("6", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "6"), ("hit", "cue", "6"), ("pot", "6", "pyramid-left"))
    assert v.legal and v.counted == () and v.void == ("6",) and v.next_player == "A"
    assert "6" in spots(v)
    # the call cites the warning the engine gave before the stroke (001 2.1.20, digest G18)
    warned = "warned before the stroke: ball 6 frozen to the cushion: rolled in, it will not count (001 2.1.20)"
    assert warned in v.notes


def test_rolled_frozen_ball_turn_passes_even_when_another_ball_counted_2_1_10():
    s = after_break("moscow")
    s.pos["6"] = (3300.0, R)
    s.pos["cue"] = (3000.0, 200.0)
    v = s.play(
        "cue", ("hit", "cue", "6"), ("hit", "cue", "6"), ("pot", "6", "pyramid-left"), ("pot", "9", "middle-right")
    )
    assert v.counted == ("9",) and v.void == ("6",) and v.next_player == "A" and v.score == (0, 1)


# ---- Moscow family (2.4-2.6) ---------------------------------------------------------------------------------------
def test_moscow_potted_cue_ball_counts_opponent_removes_a_ball_next_from_hand_2_4_5():
    s = after_break("moscow")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "cue", "pyramid-left"))
    assert v.legal and v.counted == ("cue",) and v.score == (0, 1) and v.ball_in_hand and v.next_player == "B"
    assert s.ref.state.pending_removal == "B"
    s.pos.pop("8")  # the opponent named ball 8: it is gone at the next stroke
    s.play("cue", ("cross", "cue", "house", "+x"), ("hit", "cue", "6"))
    assert "8" in s.ref.state.shelf("B") and s.ref.state.credits == (0, 0)


def test_moscow_spotting_frozen_to_the_back_cushion_middle_2_4_6():
    s = after_break("moscow")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"), ("pot", "cue", "pyramid-right"),
               manual=("double_hit",))  # fmt: skip
    assert spots(v)["6"] == (L - R, W / 2)


@pytest.mark.parametrize("game", BALL_GAMES)
def test_penalty_ball_from_the_shelf_is_spotted_2_4_7_2_7_8_2_9_7(game):
    s = after_break(game)
    if FEDERATION_GAMES[game].calls != "none":
        s.call("6", "pyramid-left")
    s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"))  # B: 1 ball
    v = s.play("cue", ("rail", "cue", "left-house"))  # B fouls
    assert v.score == (0, 0) and list(spots(v)) == ["6"] and s.ref.state.debts == (0, 0)
    if FEDERATION_GAMES[game].spotting == "back_cushion":  # 2.4.6, 2.7.7
        assert spots(v)["6"] == (L - R, W / 2)
    else:  # on the longitudinal line, beyond the rack that takes the back spot
        assert spots(v)["6"][1] == YS and spots(v)["6"][0] > XS


@pytest.mark.parametrize("game", BALL_GAMES)
def test_penalty_debt_collected_after_the_next_potted_ball_2_4_7_digest_A13(game):
    s = after_break(game)
    s.play("cue", ("rail", "cue", "left-house"))  # B owes a ball
    assert s.ref.state.debts == (0, 1)
    # A plays a safety (2.1.11(1), 2.7.6(2)): no pot, the turn goes to B
    s.play("cue", ("hit", "cue", "7"), ("cross", "7", "center", "-x"), ("cross", "cue", "center", "-x"))
    if FEDERATION_GAMES[game].calls != "none":
        s.call("6", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"))
    assert v.counted == ("6",) and v.score == (0, 0) and s.ref.state.debts == (0, 0)
    assert "6" in spots(v)


@pytest.mark.parametrize("game", ["moscow-fast", "moscow-fast-called", "eight", "eight-fast", "eight-fast-called"])
def test_line_spotting_from_the_back_spot_2_5_3_2_6_4_2_9_6(game):
    s = after_break(game)
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"), manual=("double_hit",))
    ((b, p),) = spots(v).items()
    assert b == "6" and p[1] == YS and p[0] >= XS  # the spot is taken by the rack: beyond it


def test_moscow_fast_called_cue_ball_called_counts_2_6_3():
    s = after_break("moscow-fast-called")
    s.call_cue("pyramid-left")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "cue", "pyramid-left"), ("pot", "7", "middle-right"))
    assert v.counted == ("cue", "7") and v.score == (0, 2) and v.ball_in_hand


def test_moscow_fast_called_uncalled_cue_ball_is_void_no_foul_digest_A18():
    s = after_break("moscow-fast-called")
    s.call("6", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "6"), ("cross", "6", "center", "+x"), ("pot", "cue", "middle-left"))
    assert v.legal and v.counted == () and v.ball_in_hand and v.next_player == "A"


def test_moscow_fast_called_call_any_counts_the_cue_ball_2_6_3():
    s = Script("moscow-fast-called")
    s.call_any()
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "middle-left"), ("pot", "cue", "pyramid-left"))
    assert v.counted == ("9", "cue") and v.score == (2, 0)


# ---- Americanka (2.7, 2.8) ---------------------------------------------------------------------------------------
def test_americanka_struck_ball_potted_counts_2_7_5():
    s = after_break("americanka")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "cue", "pyramid-left"), ("pot", "6", "pyramid-right"))
    assert v.counted == ("cue", "6") and v.score == (0, 2) and not v.ball_in_hand


def test_americanka_just_spotted_ball_may_not_be_the_cue_ball_2_1_14_digest_A19():
    s = after_break("americanka")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"), manual=("double_hit",))
    assert "6" in spots(v)
    v2 = s.play("6", ("hit", "6", "7"), ("cross", "7", "center", "-x"), ("cross", "6", "center", "-x"))
    assert Foul.SPOTTED_BALL_AS_CUE in v2.fouls


def test_americanka_fast_just_spotted_ball_may_be_played_2_8_2():
    s = after_break("americanka-fast")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"), manual=("double_hit",))
    assert "6" in spots(v)
    v2 = s.play("6", ("hit", "6", "7"), ("pot", "7", "pyramid-right"))
    assert v2.legal and v2.counted == ("7",)


def test_americanka_fast_break_outside_contact_does_not_start_counting_2_8_1():
    layout = {"cue": (850.0, 889.0), "1": (850.0 + D + 5.0, 889.0), "2": (2500.0, 400.0)}
    s = Script("americanka-fast", layout=layout)
    v = s.play("cue", ("hit", "cue", "1"), ("pot", "1", "middle-left"), end={"cue": (860.0, 889.0)})
    assert v.counted == () and v.void == ("1",)
    s2 = Script("moscow-fast", layout=layout)
    v2 = s2.play("cue", ("hit", "cue", "1"), ("pot", "1", "middle-left"), end={"cue": (860.0, 889.0)})
    assert v2.counted == ("1",)


def test_americanka_safety_single_crossing_is_not_enough_2_7_6():
    s = after_break("americanka")
    v = s.play("cue", ("hit", "cue", "6"), ("cross", "6", "center", "-x"), end={"6": (1500.0, 900.0)})
    assert Foul.BAD_SAFETY in v.fouls


# ---- 8-ball (2.9-2.11) and the end of a frame ----------------------------------------------------------------------
@pytest.mark.parametrize("game", BALL_GAMES)
def test_first_to_eight_balls_wins_2_4_1_2_7_1_2_9_1(game):
    s = after_break(game)
    s.ref.state = s.ref.state.evolve(shelves=((), tuple("abcdefg")), score=(0, 7))
    if FEDERATION_GAMES[game].calls != "none":
        s.call("6", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"))
    assert v.frame_over and v.winner == "B" and v.score == (0, 8)


def test_eight_fast_called_needs_a_call_2_11_6():
    s = after_break("eight-fast-called")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"))
    assert v.counted == () and v.void == ("6",)
    assert v.legal  # the ball reached the pocket: 2.1.12 spares the safety


def test_eight_fast_called_call_any_on_the_break_2_11_6():
    s = Script("eight-fast-called")
    s.call_any()
    v = s.play("cue", *BREAK_IN, ("hit", "cue", "4"), ("pot", "9", "middle-left"))
    assert v.counted == ("9",)


# ---- hanging balls (2.1.15) ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", list(FEDERATION_GAMES))
def test_hanging_ball_within_the_grace_counts_later_is_put_back_2_1_15(game):
    s = after_break(game)
    if FEDERATION_GAMES[game].calls != "none":
        s.call("6", "pyramid-left")
    s.pos["6"] = (3480.0, 90.0)
    v = s.play("cue", ("hit", "cue", "6"), late=(("6", "pyramid-left", 1.0),))
    assert v.amended and v.counted == ("6",) and v.next_player == "B"
    s2 = after_break(game)
    s2.pos["6"] = (3480.0, 90.0)
    if FEDERATION_GAMES[game].calls != "none":
        s2.call("6", "pyramid-left")
    v2 = s2.play("cue", ("hit", "cue", "6"), late=(("6", "pyramid-left", 5.0),))
    assert v2.counted == () and spots(v2)["6"] == (3480.0, 90.0)


@pytest.mark.parametrize("game", [g for g in FEDERATION_GAMES if not g.startswith("americanka")])
def test_hanging_cue_ball_falling_late_is_no_foul_and_put_back_2_1_15(game):
    s = after_break(game)
    s.pos["cue"] = (3480.0, 90.0)
    v = s.play("cue", ("hit", "cue", "11"), ("cross", "11", "center", "-x"), late=(("cue", "pyramid-left", 0.5),))
    assert Foul.CUE_POTTED not in v.fouls and spots(v)["cue"] == (3480.0, 90.0) and "cue" not in v.counted


# ---- balls off the table (2.1.13) ----------------------------------------------------------------------------------
@pytest.mark.parametrize("game", list(FEDERATION_GAMES))
def test_object_ball_off_the_table_is_spotted_no_foul_pots_count_2_1_13(game):
    s = after_break(game)
    if FEDERATION_GAMES[game].calls != "none":
        s.call("6", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "6"), ("pot", "6", "pyramid-left"), ("hit", "cue", "8"), ("off", "8"))
    assert v.legal and v.counted == ("6",) and "8" in spots(v) and v.next_player == "B"
    s2 = after_break(game)
    v2 = s2.play(
        "cue", ("hit", "cue", "7"), ("cross", "7", "center", "-x"), ("cross", "cue", "center", "-x"),
        ("hit", "7", "8"), ("off", "8"),
    )  # fmt: skip
    assert v2.legal and v2.counted == () and "8" in spots(v2) and v2.next_player == "A"  # digest A11
