"""Each shared predicate of 001 2.1 alone, on hand-made shots. Every case names its clause."""

from __future__ import annotations

import pytest

from calibration.contract import Event
from calibration.table import TableModel
from rules import predicates as P
from rules.inhand import counted_from_hand, hand_shot, in_hand_area, use_temporary_house
from rules.lag import judge_lag
from rules.shot import make_shot
from rules.warnings import mandatory_warnings

T = TableModel()
L, W, R, D = T.length_mm, T.width_mm, T.ball_radius_mm, T.ball_diameter_mm
_t = [0.0]


def ev(type_: str, **kw: object) -> Event:
    _t[0] += 0.1
    return Event(type=type_, t=round(_t[0], 2), shot=0, **kw)  # type: ignore[arg-type]


def hit(a: str, b: str, pos: tuple[float, float] = (1000.0, 900.0)) -> Event:
    return ev("contact", balls=(a, b), pos=pos)


def rail(ball: str, cushion: str, pos: tuple[float, float] | None = None) -> Event:
    if pos is None:
        cu = T.cushions[cushion] if not cushion.startswith("jaw:") else None
        pos = cu.point_at(cu.length_mm / 2, R) if cu else T.pockets[cushion[4:]].jaws[0].tip
    return ev("cushion", ball=ball, cushion=cushion, pos=pos)


def cross(ball: str, line: str, d: str) -> Event:
    return ev("line_cross", ball=ball, line=line, direction=d)


def pot(ball: str, pocket: str) -> Event:
    return ev("pot", ball=ball, pocket=pocket)


BASE = {"cue": (1200.0, 600.0), "1": (1500.0, 900.0), "2": (1500.0, 1300.0)}


def shot(events, start=None, end=None, struck="cue"):
    return make_shot(0, struck, start or BASE, events, end=end, table=T)


# ---- first ball hit, cushions (2.1.22(1), 2.1.11(2)) --------------------------------------------------------
def test_first_ball_hit_is_the_first_contact_of_the_struck_ball_2_1_22_1():
    s = shot([rail("cue", "left-house"), hit("cue", "2"), hit("2", "1")])
    assert P.first_ball_hit(s) == "2"
    assert P.first_ball_hit(shot([rail("cue", "left-house")])) is None


def test_cushion_touches_count_only_after_first_contact_and_say_by_whom_2_1_11_2():
    s = shot([rail("cue", "left-house"), hit("cue", "1"), rail("1", "right-pyramid"), rail("cue", "pyramid")])
    touches = [(t.ball, t.cushion) for t in P.cushion_touches(s)]
    assert touches == [("1", "right-pyramid"), ("cue", "pyramid")]


def test_a_jaw_touch_counts_for_the_segment_it_continues_digest_A6():
    jaw = T.pockets["middle-left"].jaws[1]
    e = ev("cushion", ball="1", cushion="jaw:middle-left", pos=jaw.tip)
    assert P.cushion_segment(T, e) == "left-pyramid"


# ---- centre line and the striker's half (2.1.6, 2.1.11(1)) -------------------------------------------------------
@pytest.mark.parametrize(
    ("start_x", "direction", "end_x", "crossed"),
    [
        (1500.0, "+x", 2000.0, True),  # plain crossing
        (1500.0, None, 1700.0, False),  # stays in its half
        (L / 2, "+x", 1900.0, False),  # on the line: it already belonged to the far half (2.1.6)
        (L / 2, "-x", 1500.0, True),  # on the line, into the striker's half: crossed
    ],
)
def test_centre_line_crossing_with_the_striker_half_rule_2_1_6(start_x, direction, end_x, crossed):
    start = {"cue": (1000.0, 600.0), "1": (start_x, 900.0)}
    evs = [hit("cue", "1", (start_x - R, 890.0))]
    if direction:
        evs.append(cross("1", "center", direction))
    s = shot(evs, start=start, end={"cue": (1100.0, 600.0), "1": (end_x, 900.0)})
    assert P.striker_half(s) == "house"
    assert P.crossed_center(s, "1") is crossed


# ---- safety (2.1.11) -----------------------------------------------------------------------------------------------
FROZEN = {"cue": (1200.0, 600.0), "1": (1500.0, R), "2": (1500.0, 1300.0)}  # ball 1 frozen to left-house


@pytest.mark.parametrize(
    ("clause", "start", "events", "ok"),
    [
        ("001 2.1.11(1)", BASE, [hit("cue", "1"), cross("1", "center", "+x")], True),
        ("001 2.1.11(2а)", BASE, [hit("cue", "1"), rail("1", "left-house"), rail("1", "right-house")], True),
        ("001 2.1.11(2а) drives", BASE,
         [hit("cue", "1"), rail("1", "left-house"), hit("1", "2"), rail("2", "right-house")], True),
        ("001 2.1.11(2б)", BASE, [hit("cue", "1"), rail("1", "left-house"), rail("cue", "right-house")], True),
        ("same cushion twice", BASE, [hit("cue", "1"), rail("1", "left-house"), rail("cue", "left-house")], False),
        ("one cushion", BASE, [hit("cue", "1"), rail("1", "left-house")], False),
        # 2а exception: striking a ball frozen to a cushion is no touch of that cushion
        ("001 2.1.11(2а) frozen", FROZEN, [hit("cue", "1", (1500.0, 2 * R)), rail("cue", "right-house")], False),
        # ...unless the ball had rebounded from another cushion first
        ("001 2.1.11(2а) frozen after rebound", FROZEN,
         [hit("cue", "2"), rail("2", "right-house"), hit("2", "1", (1500.0, 2 * R))], True),
        # 2б: after the cue ball hit the object ball, reaching a ball frozen to a cushion counts
        ("001 2.1.11(2б) frozen reached", FROZEN,
         [hit("cue", "2"), rail("cue", "house"), hit("2", "1", (1500.0, 2 * R))], True),
        ("no contact", BASE, [rail("cue", "left-house"), rail("cue", "right-house")], False),
    ],
)  # fmt: skip
def test_safety_2_1_11(clause, start, events, ok):
    s = shot(events, start=start, end={k: v for k, v in start.items()})
    assert bool(P.safety_2_1_11(s)) is ok, clause


def test_cue_ball_bouncing_off_a_frozen_first_ball_is_no_cushion_2_1_11_2b():
    s = shot([hit("cue", "1", (1500.0, 2 * R)), rail("cue", "right-house")], start=FROZEN, end=FROZEN)
    assert not P.safety_2_1_11(s)


@pytest.mark.parametrize(
    ("clause", "events", "ends", "ok"),
    [
        ("001 2.7.6(1)", [hit("cue", "1"), cross("1", "center", "+x"), rail("1", "pyramid")],
         {"1": (3400.0, 900.0)}, True),
        ("001 2.7.6(2)", [hit("cue", "1"), cross("1", "center", "+x"), cross("cue", "center", "+x")],
         {"1": (2400.0, 900.0), "cue": (2000.0, 600.0)}, True),
        ("001 2.7.6(3)", [hit("cue", "1"), rail("1", "left-house"), rail("1", "right-house")], {}, True),
        ("one crossing only", [hit("cue", "1"), cross("1", "center", "+x")], {"1": (2400.0, 900.0)}, False),
        ("2б is not enough", [hit("cue", "1"), rail("1", "left-house"), rail("cue", "right-house")], {}, False),
    ],
)  # fmt: skip
def test_americanka_safety_2_7_6(clause, events, ends, ok):
    end = dict(BASE)
    end.update(ends)
    s = shot(events, end=end)
    assert bool(P.safety_americanka(s)) is ok, clause


# ---- pocket zone (2.1.12) ------------------------------------------------------------------------------------
def test_pocket_zone_jaw_touch_2_1_12():
    start = {"cue": (2800.0, 400.0), "1": (3200.0, 200.0)}
    tip = T.pockets["pyramid-left"].jaws[0].tip
    s = shot([hit("cue", "1"), ev("cushion", ball="1", cushion="jaw:pyramid-left", pos=tip)], start=start,
             end={"cue": (3000.0, 300.0), "1": (tip[0] - 10, tip[1] + R)})  # fmt: skip
    assert P.pocket_zone_exception(s) == ("1", "pyramid-left")


def test_pocket_zone_cushion_within_one_diameter_of_the_jaw_2_1_12():
    start = {"cue": (2800.0, 400.0), "1": (3200.0, 300.0)}
    tip = T.cushions["left-pyramid"].end
    near = (tip[0] - 40.0, R)
    s = shot([hit("cue", "1"), ev("cushion", ball="1", cushion="left-pyramid", pos=near)], start=start)
    assert P.pocket_zone_exception(s) == ("1", "pyramid-left")
    far = (tip[0] - 400.0, R)
    s2 = shot([hit("cue", "1"), ev("cushion", ball="1", cushion="left-pyramid", pos=far)], start=start)
    assert P.pocket_zone_exception(s2) is None


def test_pocket_zone_result_sector_2_1_12():
    start = {"cue": (2800.0, 400.0), "1": (3200.0, 400.0)}
    s = shot([hit("cue", "1")], start=start, end={"cue": (2900.0, 400.0), "1": (3480.0, 90.0)})
    assert P.pocket_zone_exception(s) == ("1", "pyramid-left")
    s2 = shot([hit("cue", "1")], start=start, end={"cue": (2900.0, 400.0), "1": (3300.0, 500.0)})
    assert P.pocket_zone_exception(s2) is None


def test_no_pocket_zone_exception_from_the_blind_zone_of_a_middle_pocket_2_1_12():
    start = {"cue": (1000.0, 300.0), "1": (1300.0, 120.0)}  # inside the left-house passive triangle
    assert T.passive_zone_at(start["1"]) == "left-house"
    tip = T.pockets["middle-left"].jaws[0].tip
    s = shot([hit("cue", "1"), ev("cushion", ball="1", cushion="jaw:middle-left", pos=tip)], start=start)
    assert P.pocket_zone_exception(s) is None


# ---- rolling a frozen ball (2.1.10) --------------------------------------------------------------------------
ROLL = {"cue": (3000.0, 200.0), "1": (3300.0, R)}  # ball 1 frozen to left-pyramid, outside the pocket


def test_frozen_ball_rolled_into_the_pocket_does_not_count_2_1_10():
    s = shot([hit("cue", "1"), hit("cue", "1"), pot("1", "pyramid-left")], start=ROLL)
    assert P.rolled_frozen_ball(s, "1")


def test_frozen_ball_played_on_impact_counts_2_1_10():
    s = shot([hit("cue", "1"), pot("1", "pyramid-left")], start=ROLL)
    assert not P.rolled_frozen_ball(s, "1")


def test_frozen_ball_standing_in_the_pocket_counts_even_rolled_2_1_10a():
    tip, _ = T.cushion_pocket_end("left-pyramid", "pyramid-left")
    inside = (tip[0] + 25.0, R)  # 25 mm beyond the jaw tip toward the pocket
    assert T.frozen_ball_in_pocket(inside) == "pyramid-left"
    s = shot([hit("cue", "1"), hit("cue", "1"), pot("1", "pyramid-left")], start={"cue": (3200.0, 150.0), "1": inside})
    assert not P.rolled_frozen_ball(s, "1")


# ---- frozen cue ball, 45 degrees (2.1.2, 2.1.22(7)) --------------------------------------------------------------
@pytest.mark.parametrize(
    ("cue_next", "ok"),
    [
        ((1300.0, 900.0), False),
        ((1100.0, 1200.0), True),
        ((900.0, 900.0), True),
        ((1300.0, 1200.0), True),
        ((1400.0, 1100.0), False),
    ],
)
def test_frozen_cue_ball_45_degree_rule_2_1_2(cue_next, ok):
    start = {"cue": (1100.0, 900.0), "1": (1100.0 + D, 900.0)}
    s = shot([hit("cue", "1", (1100.0 + R, 900.0))], start=start, end={"cue": cue_next, "1": (1800.0, 900.0)})
    assert P.frozen_cue_angle_ok(s) is ok


# ---- from hand (2.1.5) ------------------------------------------------------------------------------------------
HAND = {"cue": (400.0, 889.0), "1": (2700.0, 889.0), "2": (600.0, 300.0)}


def test_cue_ball_in_play_by_crossing_the_house_line_2_1_5g():
    s = shot([cross("cue", "house", "+x"), hit("cue", "1")], start=HAND)
    assert hand_shot(s, False).in_play_at == 0


def test_cue_ball_not_in_play_means_a_retake_2_1_5g():
    s = shot([rail("cue", "house")], start=HAND, end={**HAND, "cue": (300.0, 889.0)})
    assert hand_shot(s, False).in_play_at is None


def test_hitting_a_house_ball_before_leaving_the_house_is_foul_10_2_1_22_10():
    s = shot([hit("cue", "2")], start=HAND)
    assert hand_shot(s, False).house_ball_hit == "2"


def test_house_ball_may_be_hit_after_leaving_the_house_2_1_5d():
    s = shot([cross("cue", "house", "+x"), hit("cue", "1"), rail("cue", "pyramid"), hit("cue", "2")], start=HAND)
    assert hand_shot(s, False).house_ball_hit is None


def test_house_ball_after_touching_a_ball_outside_the_house_digest_A4():
    start = {"cue": (400.0, 889.0), "1": (1000.0, 889.0), "2": (600.0, 889.0 + D + 1)}
    s = shot([hit("cue", "1"), hit("cue", "2")], start=start)
    assert hand_shot(s, False).house_ball_hit is None


def test_non_fast_break_counts_only_with_a_far_corner_pot_2_1_5a():
    s = shot([cross("cue", "house", "+x"), hit("cue", "1"), pot("1", "middle-left")], start=HAND)
    assert counted_from_hand(s, ["1"], fast=False, temporary=False) == ([], ["1"])
    s2 = shot([cross("cue", "house", "+x"), hit("cue", "1"), pot("2", "middle-left"), pot("1", "pyramid-left")],
              start=HAND)  # fmt: skip
    assert counted_from_hand(s2, ["2", "1"], fast=False, temporary=False) == (["2", "1"], [])


def test_fast_break_counts_pots_after_the_cue_ball_left_the_house_2_1_5a():
    s = shot([cross("cue", "house", "+x"), hit("cue", "1"), pot("1", "middle-left")], start=HAND)
    assert counted_from_hand(s, ["1"], fast=True, temporary=False) == (["1"], [])


def test_fast_break_contact_outside_the_house_2_1_5a_and_americanka_fast_2_8_1():
    start = {"cue": (850.0, 889.0), "1": (850.0 + D, 889.0), "3": (2000.0, 300.0)}
    s = shot([hit("cue", "1"), pot("1", "middle-left")], start=start, end={"cue": (860.0, 889.0), "3": (2000.0, 300.0)})
    assert counted_from_hand(s, ["1"], fast=True, temporary=False) == (["1"], [])
    assert counted_from_hand(s, ["1"], fast=True, temporary=False, outside_contact_counts=False) == ([], ["1"])


def test_temporary_house_when_every_object_ball_is_in_the_house_2_1_5b():
    pos = {"cue": (3000.0, 889.0), "1": (300.0, 400.0), "2": (500.0, 1400.0)}
    assert use_temporary_house(T, pos, ["1", "2"])
    assert in_hand_area(T, (3000.0, 889.0), True) and not in_hand_area(T, (3000.0, 889.0), False)
    assert not in_hand_area(T, (T.lines["house"].value_mm, 889.0), False)  # 2.1.6: on the line is outside


# ---- hanging balls (2.1.15) ---------------------------------------------------------------------------------------
def test_hanging_ball_grace_time_2_1_15():
    s = shot([hit("cue", "1")], end=BASE)
    within = Event(type="pot", t=s.t_end + 1.5, shot=0, ball="1", pocket="pyramid-left")
    after = Event(type="pot", t=s.t_end + 2.5, shot=0, ball="1", pocket="pyramid-left")
    assert P.late_pot_counts(s, within, 2.0) and not P.late_pot_counts(s, after, 2.0)


def test_aimed_ball_falling_before_the_cue_ball_reaches_it_2_1_15():
    hang = T.pockets["pyramid-left"].mouth_center
    hang = (hang[0] - 20.0, hang[1] + 20.0)
    s = shot([pot("1", "pyramid-left"), hit("cue", "2")], start={"cue": (3000.0, 600.0), "1": hang, "2": (3300, 900.0)})
    assert P.aimed_ball_dropped_first(s) == "1"


# ---- warnings (2.1.20) ---------------------------------------------------------------------------------------------
def test_mandatory_warnings_2_1_20():
    pos = {
        "cue": (1500.0, 900.0), "1": (1500.0 + D, 900.0),  # cue frozen to 1
        "2": (3000.0, R),  # frozen to left-pyramid, not near a pocket
        "3": (L - 60.0, R),  # frozen near the pyramid-left corner
        "4": (L / 2, 1500.0),  # on the centre line
    }  # fmt: skip
    codes = {w.code for w in mandatory_warnings(T, pos, "cue", ["1", "2", "3", "4"], False, True, True)}
    assert {"cue_frozen", "cushion_frozen", "on_center_line"} <= codes
    assert codes & {"in_pocket", "out_of_pocket"}
    hand = {"1": (300.0, 400.0), "2": (500.0, 1400.0)}
    codes2 = {w.code for w in mandatory_warnings(T, hand, "cue", ["1", "2"], True, True, False)}
    assert "temporary_house" in codes2


# ---- lag (2.1.4) --------------------------------------------------------------------------------------------------
LAG = {"a": (300.0, 500.0), "b": (300.0, 1300.0)}
BOTH = [rail("a", "pyramid", (L, 500.0)), rail("b", "pyramid", (L, 1300.0))]


@pytest.mark.parametrize(
    ("events", "end", "winner"),
    [
        (BOTH, {"a": (200.0, 500.0), "b": (400.0, 1300.0)}, "A"),  # nearer the front cushion wins
        (BOTH, {"a": (600.0, 500.0), "b": (400.0, 1300.0)}, "B"),
        ([rail("b", "pyramid", (L, 1300.0))], {"a": (200.0, 500.0), "b": (400.0, 1300.0)}, "B"),  # а: no back cushion
        ([rail("a", "pyramid", (L, 500.0)), cross("a", "long", "+y"), rail("b", "pyramid", (L, 1300.0))],
         {"a": (200.0, 1000.0), "b": (400.0, 1300.0)}, "B"),  # б: opponent's half
        ([rail("a", "pyramid", (L, 500.0)), rail("a", "left-house"), rail("b", "pyramid", (L, 1300.0))],
         {"a": (200.0, 500.0), "b": (400.0, 1300.0)}, "B"),  # г: long cushion
        ([rail("a", "pyramid", (L, 500.0)), rail("b", "pyramid", (L, 1300.0)), pot("b", "house-right")],
         {"a": (600.0, 500.0)}, "A"),  # в: potted
        (BOTH, {"a": (400.0, 500.0), "b": (400.5, 1300.0)}, None),  # equal: repeat
        ([], {"a": (400.0, 500.0), "b": (400.0, 1300.0)}, None),  # both lost: repeat
    ],
)  # fmt: skip
def test_lag_2_1_4(events, end, winner):
    s = make_shot(0, "a", LAG, events, end=end, table=T)
    assert judge_lag(s).winner == winner


# ---- balls off the table (2.1.13) ---------------------------------------------------------------------------------
def test_a_ball_that_jumped_and_came_back_is_still_off_the_table_2_1_13():
    s = make_shot(
        0, "cue", BASE, [hit("cue", "1"), ev("off_table", ball="1", pos=(1500.0, -40.0))],
        end={"cue": (1300.0, 600.0), "1": (1500.0, 300.0), "2": BASE["2"]}, table=T,
    )  # fmt: skip
    assert s.off_table == ["1"] and "1" not in s.end


def test_hanging_ball_grace_time_is_a_setting_2_1_15():
    from rules.scenarios import Script

    for grace, counts in ((2.0, True), (0.5, False)):
        s = Script("eight")
        s.ref.game.hanging_grace_s = grace
        s.pos["3"] = (3480.0, 90.0)
        v = s.play("cue", ("cross", "cue", "house", "+x"), ("hit", "cue", "3"), late=(("3", "pyramid-left", 1.0),))
        assert (v.counted == ("3",)) is counts
