"""``tracking.trajectory``: straight, decelerating paths fitted to samples, and the times solved on them."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.trajectory import (
    PathFit,
    closest_time,
    fit_hinge,
    fit_path,
    intersect_paths,
    solve_root,
)

FPS = 60.0


def _decelerating(n: int, p0=(500.0, 400.0), v0=(2000.0, -600.0), a=(-400.0, 120.0)) -> tuple[np.ndarray, np.ndarray]:
    """``n`` samples a frame apart of a ball rolling from ``p0`` at ``v0`` (mm/s), slowing at ``a`` (mm/s^2)."""
    ts = np.arange(n) / FPS
    xy = np.stack([p0[i] + v0[i] * ts + 0.5 * a[i] * ts**2 for i in (0, 1)], axis=1)
    return ts, xy


def test_a_fit_to_a_decelerating_ball_returns_its_place_and_speed() -> None:
    ts, xy = _decelerating(12)
    f = fit_path(ts, xy)
    assert f.n == 12 and f.rms_mm < 1e-6
    assert f.at(ts[5]) == pytest.approx(xy[5], abs=1e-6)
    assert f.at_xy(ts[5]) == pytest.approx(tuple(xy[5]), abs=1e-6)
    # the velocity at the first sample is the launch velocity, then it slows by the deceleration
    assert f.vel(0.0) == pytest.approx([2000.0, -600.0], abs=1e-4)
    assert f.vel(ts[-1]) == pytest.approx([2000.0 - 400.0 * ts[-1], -600.0 + 120.0 * ts[-1]], abs=1e-4)
    # the closed-form solve gives the same fit
    g = fit_path(ts, xy, closed_form=True)
    assert g.at(ts[7]) == pytest.approx(f.at(ts[7]), abs=1e-6)


def test_few_samples_are_fitted_by_a_straight_line() -> None:
    ts, xy = _decelerating(4)
    f = fit_path(ts, xy)
    assert f.cx[2] == 0.0 and f.cy[2] == 0.0  # no quadratic term from four samples
    # a line through slowing samples: off them by a fraction of a millimetre, never exact
    assert 0.0 < f.rms_mm < 0.5


def test_a_still_path_stays_at_its_place() -> None:
    f = PathFit.still(np.array([300.0, 200.0]), 1.0, 2.0)
    assert f.at(1.5) == pytest.approx([300.0, 200.0]) and f.vel(1.7) == pytest.approx([0.0, 0.0])
    assert (f.t0, f.t1, f.n) == (1.0, 2.0, 1)


def test_solve_root_finds_the_first_or_last_sign_change() -> None:
    f = lambda t: (t - 0.2) * (t - 0.7)  # noqa: E731
    assert solve_root(f, 0.0, 1.0) == pytest.approx(0.2, abs=1e-9)
    assert solve_root(f, 0.0, 1.0, last=True) == pytest.approx(0.7, abs=1e-9)
    assert solve_root(lambda t: t + 1.0, 0.0, 1.0) is None  # no root in the span
    assert solve_root(f, 1.0, 0.0) is None  # an empty span


def test_closest_time_and_intersect_paths_find_where_paths_meet() -> None:
    assert closest_time(lambda t: abs(t - 0.37), 0.0, 1.0) == pytest.approx(0.37, abs=1e-6)
    # a ball comes in along x and leaves along y from (1000, 500) at t = 0.5: the kink is at 0.5
    old = PathFit(0.5, (1000.0, 2000.0, 0.0), (500.0, 0.0, 0.0), 0.3, 0.5)
    new = PathFit(0.5, (1000.0, 0.0, 0.0), (500.0, 1500.0, 0.0), 0.5, 0.7)
    assert intersect_paths(old, new, 0.4, 0.6) == pytest.approx(0.5, abs=1e-6)


def test_a_hinge_is_fitted_at_the_corner_of_a_v() -> None:
    ts = np.arange(10) / FPS
    tc = 4.4 / FPS
    d = 5.0 + np.where(ts < tc, -1500.0 * (ts - tc), 900.0 * (ts - tc))
    h = fit_hinge(ts, d, ts[1], ts[-2], steps=180)
    assert h is not None
    assert h.t == pytest.approx(tc, abs=0.05 / FPS)
    assert h.before == pytest.approx(-1500.0, rel=0.02) and h.after == pytest.approx(900.0, rel=0.02)
    assert h.level == pytest.approx(5.0, abs=0.5)
    # fewer than two samples on a side: no hinge
    assert fit_hinge(ts[:3], d[:3], ts[0], ts[2]) is None
