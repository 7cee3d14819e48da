"""``tracking.detect.geometry``: the dips of a distance series, points on a polyline, a mirror bounce's two
readings, and the gap functions the root finders solve, on paths and a real ``TableModel``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.table import TableModel
from tracking.detect.geometry import (
    as_pt,
    both_ways,
    gap_between,
    gap_to_cushion,
    gap_to_jaw,
    gap_to_line,
    gap_to_point,
    polyline_at,
    valleys,
)
from tracking.trajectory import PathFit, solve_root

TABLE = TableModel()
R = TABLE.ball_radius_mm


def _line(t_ref: float, p: tuple[float, float], v: tuple[float, float], t0: float, t1: float, n: int = 5) -> PathFit:
    return PathFit(t_ref, (p[0], v[0], 0.0), (p[1], v[1], 0.0), t0, t1, 0.0, n)


def test_valleys_are_the_bottoms_of_each_dip_with_the_highs_around_them() -> None:
    off = np.array([9.0, 5.0, 1.0, 4.0, 8.0, 3.0, 0.5, 2.0, 7.0])
    assert valleys(off, 3.0) == [(2, 9.0, 8.0), (6, 8.0, 7.0)]
    # a dip whose samples do not count is not one
    where = np.array([True] * 5 + [False] * 4)
    assert valleys(off, 3.0, where) == [(2, 9.0, 8.0)]
    assert valleys(off, 0.1) == []


def test_polyline_at_interpolates_between_samples() -> None:
    arr = np.array([[0.0, 0.0], [10.0, 20.0], [10.0, 40.0]])
    assert polyline_at([0.0, 1.0, 2.0], arr, 0.25) == pytest.approx([2.5, 5.0])
    assert polyline_at([0.0, 1.0, 2.0], arr, 1.5) == pytest.approx([10.0, 30.0])


def test_gap_functions_are_zero_where_the_ball_touches() -> None:
    # a ball rolling at the house cushion (x = 0) at 1 m/s, one radius from its nose at t = 0.5 (a cushion's and a
    # jaw's gap read the place to a hundredth of a millimetre: 1e-5 s at 1 m/s)
    f = _line(0.0, (R + 500.0, 900.0), (-1000.0, 0.0), 0.0, 1.0)
    assert solve_root(gap_to_cushion(f, TABLE.cushions["house"], R), 0.0, 1.0) == pytest.approx(0.5, abs=1e-5)
    assert solve_root(gap_to_line(f, 0, 300.0), 0.0, 1.0) == pytest.approx((R + 200.0) / 1000.0, abs=1e-9)
    assert gap_to_point(f, np.array([R, 900.0]), 0.0)(0.5) == pytest.approx(0.0, abs=1e-9)
    # two balls meeting head on: one diameter apart at t = 0.5
    g = _line(0.0, (1500.0 + R, 900.0), (-1000.0, 0.0), 0.0, 1.0)
    h = _line(0.0, (500.0 - R, 900.0), (1000.0, 0.0), 0.0, 1.0)
    assert solve_root(gap_between(g, h, 2 * R), 0.0, 1.0) == pytest.approx(0.5, abs=1e-9)
    # a jaw's tip (middle-left pocket): a ball running at it along the rail is one radius off it when it touches
    jaw = TABLE.pockets["middle-left"].jaws[0]
    k = _line(0.0, (1500.0, 25.0), (1000.0, 0.0), 0.0, 1.0)
    t = solve_root(gap_to_jaw(k, jaw, R), 0.0, 1.0)
    assert t is not None and jaw.distance(as_pt(k.at(t))) == pytest.approx(R, abs=0.01)


def test_both_ways_averages_the_incoming_and_the_outgoing_readings() -> None:
    # out of a bounce at the house cushion: the outgoing path run back meets the nose a frame's 0.004 s later
    new = _line(0.5, (R + 4.0, 900.0), (1000.0, 0.0), 0.5, 0.6)
    back_gap = gap_to_cushion(new, TABLE.cushions["house"], R)
    assert both_ways(0.49, back_gap, new, 0.4) == pytest.approx(0.5 * (0.49 + 0.496), abs=1e-5)
    # an outgoing path of two samples is not run back; no incoming root: none
    assert both_ways(0.49, back_gap, _line(0.5, (R + 4.0, 900.0), (1000.0, 0.0), 0.5, 0.6, n=2), 0.4) == 0.49
    assert both_ways(None, back_gap, new, 0.4) is None


def test_as_pt_rounds_to_hundredths_of_a_millimetre() -> None:
    assert as_pt(np.array([1.23456, 7.891011])) == (1.23, 7.89)
    assert all(math.isnan(c) for c in as_pt(None))
