"""Spotting procedures in exact table millimetres (001 2.2.7, 2.4.6, 2.5.3, 2.7.7, 2.8.2, 2.9.6 ...)."""

from __future__ import annotations

import math

import pytest

from calibration.table import TableModel
from rules.spotting import side_away_from, spot_at_back_cushion, spot_on_line

T = TableModel()
L, W, R, D = T.length_mm, T.width_mm, T.ball_radius_mm, T.ball_diameter_mm
XS, YS = T.spots["pyramid"]


def no_overlap(placed, occupied):
    pts = [p for _, p in placed] + list(occupied.values())
    return all(math.dist(a, b) >= D - 1e-6 for i, a in enumerate(pts) for b in pts[i + 1 :])


def test_free_back_spot_takes_the_ball_2_2_7():
    assert spot_on_line(T, ["5"], {}) == [("5", (XS, YS))]


def test_several_balls_frozen_together_toward_the_back_cushion_2_2_7():
    placed = spot_on_line(T, ["3", "7", "12"], {})
    assert [b for b, _ in placed] == ["3", "7", "12"]
    assert [p for _, p in placed] == [(XS, YS), (XS + D, YS), (XS + 2 * D, YS)]


def test_blocked_spot_goes_beside_the_blocker_not_frozen_toward_the_back_cushion_2_2_7():
    occ = {"9": (XS + 10.0, YS)}
    ((_, p),) = spot_on_line(T, ["5"], occ)
    assert p[1] == YS and p[0] > occ["9"][0]
    gap = math.dist(p, occ["9"]) - D
    assert T.spec.frozen_tolerance_mm < gap <= 2 * T.spec.frozen_tolerance_mm + 1e-6  # close, not frozen


def test_line_to_the_back_cushion_taken_then_toward_the_centre_spot_2_5_3():
    occ = {f"o{k}": (XS + k * (D + 5.0), YS) for k in range(0, 14) if XS + k * (D + 5.0) <= L - R}
    placed = spot_on_line(T, ["1", "2"], occ)
    assert all(p[0] < XS for _, p in placed)
    assert math.isclose(math.dist(placed[0][1], placed[1][1]), D)  # frozen together
    assert no_overlap(placed, occ)


def test_blocker_off_the_line_still_blocks_when_it_would_overlap():
    occ = {"x": (XS, YS + 30.0)}
    ((_, p),) = spot_on_line(T, ["4"], occ)
    assert math.dist(p, occ["x"]) > D


def test_back_cushion_middle_2_4_6():
    ((_, p),) = spot_at_back_cushion(T, ["6"], {})
    assert p == (L - R, W / 2)
    assert T.frozen_to_cushion(p) == "pyramid"


@pytest.mark.parametrize("prefer", ["left", "right"])
def test_back_cushion_taken_goes_frozen_beside_the_blocker_on_the_chosen_side_2_7_7(prefer):
    occ = {"2": (L - R, W / 2)}
    ((_, p),) = spot_at_back_cushion(T, ["6"], occ, prefer=prefer)
    assert p[0] == L - R and math.isclose(math.dist(p, occ["2"]), D)
    assert (p[1] > W / 2) is (prefer == "right")


def test_back_cushion_several_balls_never_overlap():
    occ = {"2": (L - R, W / 2), "3": (L - R - 30, W / 2 + D + 10)}
    placed = spot_at_back_cushion(T, ["6", "7", "8"], occ, prefer="right")
    assert no_overlap(placed, occ)
    assert all(T.frozen_to_cushion(p) == "pyramid" for _, p in placed)


def test_referee_side_defaults_away_from_the_cue_ball_digest_A17():
    assert side_away_from(T, (1000.0, 1500.0)) == "left"
    assert side_away_from(T, (1000.0, 200.0)) == "right"
