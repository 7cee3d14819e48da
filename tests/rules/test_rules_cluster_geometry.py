"""Cluster geometry (000 2.1, 2.2, 3.4а, 4.1): clusters, attack zones, passive zones, the middle line,
spotting. Each test names the clause it checks."""

from __future__ import annotations

import math

import pytest

from calibration.table import TableModel, TableSpec
from rules.cluster.geometry import (
    SpotError,
    adjacent_cushions,
    broken_clusters,
    cluster_of,
    clusters,
    crossed_center,
    in_passive_zone_of,
    is_racked,
    past_mouth,
    spot_position,
    spot_positions,
    striker_half,
    zone_touch,
)

T = TableModel()
D = T.ball_diameter_mm
L, W = T.length_mm, T.width_mm


def _row(n: int, gap: float, x0: float = 1000.0, y: float = 500.0, prefix: str = "t") -> dict:
    """``n`` balls in a row along x with surface gaps of ``gap`` mm."""
    return {f"{prefix}{i + 1}": (x0 + i * (D + gap), y) for i in range(n)}


# ---- 000 2.2 clusters ---------------------------------------------------------------------------------
def test_000_2_2_three_balls_with_gaps_just_under_a_diameter_are_a_cluster() -> None:
    pos = _row(3, D - 0.5)
    assert clusters(pos, T) == [frozenset(pos)]


def test_000_2_2_gap_just_over_a_diameter_breaks_the_chain() -> None:
    pos = _row(3, D - 0.5)
    pos["t3"] = (pos["t2"][0] + D + (D + 0.5), 500.0)  # t2-t3 gap = D + 0.5
    assert clusters(pos, T) == []  # two balls are not a cluster


def test_000_2_2_ball_within_a_diameter_of_the_cluster_joins_it_chained() -> None:
    pos = _row(5, D - 0.5)  # a chain: each ball is near the next only
    (found,) = clusters(pos, T)
    assert found == frozenset(pos)
    # the ends are 4 * (2D - 0.5) apart, far more than a diameter: membership is by chaining
    assert math.dist(pos["t1"], pos["t5"]) > 4 * D


def test_000_2_2_ball_just_beyond_a_diameter_of_the_cluster_stays_out() -> None:
    pos = _row(3, D - 0.5)
    pos["t4"] = (pos["t3"][0] + 2 * D + 0.5, 500.0)  # gap D + 0.5 to the cluster's end ball
    assert clusters(pos, T) == [frozenset({"t1", "t2", "t3"})]
    assert cluster_of("t4", clusters(pos, T)) is None


def test_000_2_2_diagonal_gaps_use_surface_distance() -> None:
    g_in, g_out = D - 0.5, D + 0.5
    step_in = (D + g_in) / math.sqrt(2)
    pos = {
        "a": (800.0, 800.0),
        "b": (800.0 + step_in, 800.0 + step_in),
        "c": (800.0 + 2 * step_in, 800.0 + 2 * step_in),
    }
    assert clusters(pos, T) == [frozenset(pos)]
    step_out = (D + g_out) / math.sqrt(2)
    pos["c"] = (pos["b"][0] + step_out, pos["b"][1] + step_out)
    assert clusters(pos, T) == []


def test_000_2_2_the_racked_pyramid_is_one_cluster_and_two_separate_groups_are_two() -> None:
    rack = {f"t{i + 1}": p for i, p in enumerate(T.rack_positions())}
    assert clusters(rack, T) == [frozenset(rack)]
    pos = _row(3, 10.0) | _row(4, 0.0, x0=2500.0, y=1300.0, prefix="u") | {"far": (200.0, 200.0)}
    found = clusters(pos, T)
    assert [len(c) for c in found] == [3, 4]
    assert all("far" not in c for c in found)


def test_000_2_2_cluster_broken_needs_motion_passed_to_two_members() -> None:
    found = clusters(_row(3, 5.0), T)
    assert broken_clusters(found, moved={"cue", "t1"}) == []
    assert broken_clusters(found, moved={"cue", "t1", "t3"}) == found
    # a cluster member that is itself the struck ball was set moving by the cue, not by a transfer
    assert broken_clusters(found, moved={"t1", "t2"}, struck="t1") == []
    assert broken_clusters(found, moved={"t1", "t2", "t3"}, struck="t1") == found


# ---- 000 2.1 attack zones -----------------------------------------------------------------------------------
def test_000_2_1_jaw_touch_is_in_its_pocket_zone_and_names_its_segment() -> None:
    jaw_long = T.pockets["house-left"].jaws[0]  # the jaw continuing left-house
    z = zone_touch(T, "jaw:house-left", jaw_long.tip)
    assert z is not None and z.pocket == "house-left" and z.cushion == "left-house" and z.jaw
    jaw_short = T.pockets["house-left"].jaws[1]
    z2 = zone_touch(T, "jaw:house-left", jaw_short.tip)
    assert z2 is not None and z2.cushion == "house"


@pytest.mark.parametrize("pocket,cushion", [("pyramid-right", "right-pyramid"), ("middle-left", "left-house")])
def test_000_2_1_cushion_touch_up_to_the_mark_is_in_zone_beyond_is_not(pocket: str, cushion: str) -> None:
    mark = T.attack_marks[(pocket, cushion)]
    tip, away = T.cushion_pocket_end(cushion, pocket)
    inside = (tip[0] + away[0] * (mark.along_from_tip_mm - 1.0), tip[1] + away[1] * (mark.along_from_tip_mm - 1.0))
    outside = (tip[0] + away[0] * (mark.along_from_tip_mm + 1.0), tip[1] + away[1] * (mark.along_from_tip_mm + 1.0))
    z = zone_touch(T, cushion, inside)
    assert z is not None and z.pocket == pocket and not z.jaw
    assert zone_touch(T, cushion, outside) is None


def test_000_2_1_measured_marks_replace_computed_ones() -> None:
    t2 = TableModel(TableSpec(attack_mark_overrides=(("house-left", "house", 120.0),)))
    tip, away = t2.cushion_pocket_end("house", "house-left")
    p = (tip[0] + away[0] * 100.0, tip[1] + away[1] * 100.0)
    assert zone_touch(T, "house", p) is None  # computed mark is nearer the pocket
    z = zone_touch(t2, "house", p)
    assert z is not None and z.pocket == "house-left"
    # the other cushion of that pocket keeps its computed mark
    assert t2.attack_marks[("house-left", "left-house")].measured is False


def test_000_2_1_adjacent_cushions_and_the_mouth() -> None:
    assert set(adjacent_cushions(T, "house-left")) == {"house", "left-house"}
    assert set(adjacent_cushions(T, "middle-right")) == {"right-house", "right-pyramid"}
    mc = T.pockets["pyramid-left"].mouth_center
    assert past_mouth(T, "pyramid-left", mc)
    assert not past_mouth(T, "pyramid-left", (mc[0] - 5.0, mc[1] + 5.0))


# ---- 000 2.1 passive zones --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "p,pocket,inside",
    [
        ((300.0, 100.0), "middle-left", True),  # near the house-left corner, along the left cushion
        ((3300.0, 100.0), "middle-left", True),
        ((300.0, 1700.0), "middle-right", True),
        ((300.0, 100.0), "middle-right", False),  # the other middle pocket's side
        ((1200.0, 889.0), "middle-left", False),  # the centre of the field
        ((1784.5, 300.0), "middle-left", False),  # straight in front of the pocket
    ],
)
def test_000_2_1_passive_zone(p: tuple[float, float], pocket: str, inside: bool) -> None:
    assert in_passive_zone_of(T, p, pocket) is inside


# ---- 000 3.4а / 3.8 the middle line crossed by the centre ---------------------------------------------------
def test_000_3_4a_crossing_needs_a_line_cross_event() -> None:
    assert crossed_center(T, (1000.0, 500.0), ["+x"], "house")
    assert not crossed_center(T, (1000.0, 500.0), [], "house")


def test_000_3_8_ball_on_the_line_belongs_to_the_far_half() -> None:
    on = (L / 2 + 0.5, 500.0)
    # striker in the house half: the ball on the line is in the pyramid half; moving on into it is no crossing
    assert not crossed_center(T, on, ["+x"], "house")
    assert crossed_center(T, on, ["-x"], "house")
    assert crossed_center(T, on, ["+x", "-x"], "house")
    assert striker_half(T, (1000.0, 500.0)) == "house"
    assert striker_half(T, (L / 2, 500.0), "-x") == "pyramid"


# ---- 000 4.1 spotting --------------------------------------------------------------------------------------
def test_000_4_1_free_pyramid_spot() -> None:
    assert spot_position(T, [(1000.0, 500.0)]) == T.spots["pyramid"]


def test_000_4_1_spot_touching_a_ball_is_not_occupied() -> None:
    rack = T.rack_positions()[1:]  # the apex has gone: its place touches the second row
    assert spot_position(T, rack) == T.spots["pyramid"]
    x0, y0 = T.spots["pyramid"]
    x, _ = spot_position(T, [(x0 + D - 0.5, y0)])  # overlapping by half a millimetre: occupied
    assert x > x0 + D


def test_000_4_1_occupied_spot_goes_toward_the_pyramid_cushion() -> None:
    x0, y0 = T.spots["pyramid"]
    x, y = spot_position(T, [(x0, y0)])
    assert y == y0 and x > x0
    assert math.dist((x, y), (x0, y0)) == pytest.approx(D + 2.0)
    # a ball off the line blocks less: the spotted ball goes just past where it would touch it
    x2, _ = spot_position(T, [(x0, y0 + 40.0)])
    assert math.dist((x2, y0), (x0, y0 + 40.0)) == pytest.approx(D + 2.0)
    assert x0 < x2 < x


def test_000_4_1_no_room_toward_the_pyramid_cushion_goes_toward_the_house() -> None:
    x0, y0 = T.spots["pyramid"]
    # a row of balls from the spot to the pyramid cushion, frozen together
    row = [(x, y0) for x in np_arange(x0, L - D / 2 + 0.1, D)]
    assert row[-1][0] <= L - D / 2
    x, y = spot_position(T, row)
    assert y == y0 and x < x0
    assert x == pytest.approx(x0 - D - 2.0)


def test_000_4_1_several_balls_are_spotted_in_order_without_touching() -> None:
    x0, y0 = T.spots["pyramid"]
    placed = spot_positions(T, ["t3", "t7", "t9"], {"t1": (x0, y0), "t3": (100.0, 100.0)})
    assert [b for b, _ in placed] == ["t3", "t7", "t9"]
    pts = [(x0, y0)] + [p for _, p in placed]
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            assert math.dist(pts[i], pts[j]) >= D + 2.0 - 1e-9
    assert all(p[1] == y0 and p[0] > x0 for _, p in placed)


def test_000_4_1_full_line_is_an_error() -> None:
    y0 = W / 2
    row = [(x, y0) for x in np_arange(D / 2, L - D / 2 + 0.1, D)]
    with pytest.raises(SpotError):
        spot_position(T, row)


def np_arange(a: float, b: float, step: float) -> list[float]:
    out, x = [], a
    while x < b:
        out.append(x)
        x += step
    return out


def test_000_3_2_racked_pyramid_is_recognised() -> None:
    rack = {f"t{i}": p for i, p in enumerate(T.rack_positions())}
    assert is_racked(rack | {"cue": (400.0, 889.0)}, T)
    nudged = dict(rack)
    nudged["t3"] = (rack["t3"][0] + 10.0, rack["t3"][1])  # a tracker error of 10 mm
    assert is_racked(nudged, T)
    broken = dict(rack)
    broken["t0"] = (1500.0, 889.0)  # the apex has left the spot
    assert not is_racked(broken, T)
    assert not is_racked(dict(list(rack.items())[:14]), T)
