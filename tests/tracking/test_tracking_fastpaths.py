"""The tracker's and extractor's fast paths give the numbers of the plain computations they replace.

Each replaced computation is kept (or rebuilt here) and compared on random inputs: bit for bit where the
fast path claims it (the filter update, batched Mahalanobis distances, distance matrices), to the stated
tolerance where it does not (the closed-form path fit), and as a superset where it is a screen.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from filterpy.kalman import KalmanFilter

from calibration.table import TableModel
from tracking.detect.segments import Ball, Seg, newest_in
from tracking.kalman import (
    FilterSettings,
    _motion,
    mahalanobis_sq,
    mahalanobis_sq_many,
    make_ball_filter,
    predict_dt,
    process_noise,
    transition,
    update_position,
)
from tracking.paths import distances as _distances
from tracking.paths import near_paths as _near_paths
from tracking.paths import paths_through as _paths_through
from tracking.tracker import Tracker
from tracking.trajectory import fit_path


def _random_filter(rng: np.random.Generator, fs: FilterSettings) -> KalmanFilter:
    vel = None if rng.random() < 0.5 else rng.normal(size=2) * 1000.0
    kf = make_ball_filter(rng.uniform(0.0, 3500.0, 2), fs, vel, 1.0 / 60.0)
    for _ in range(int(rng.integers(0, 12))):
        predict_dt(kf, float(rng.integers(1, 3)) / 60.0, fs)
        kf.update(kf.x[:2] + rng.normal(size=2) * rng.uniform(0.1, 30.0))
    predict_dt(kf, 1.0 / 60.0, fs)
    return kf


def test_update_position_is_filterpy_update_bit_for_bit() -> None:
    rng = np.random.default_rng(11)
    fs = FilterSettings()
    for _ in range(300):
        kf = _random_filter(rng, fs)
        for _ in range(8):
            z = kf.x[:2] + rng.normal(size=2) * rng.uniform(0.1, 50.0)
            ours = copy.deepcopy(kf)
            kf.update(z.copy())
            update_position(ours, z.copy())
            assert np.array_equal(kf.x, ours.x)
            assert np.array_equal(kf.P, ours.P)
            predict_dt(kf, 1.0 / 60.0, fs)


@pytest.mark.parametrize("m", [1, 2, 3, 7, 16])
def test_batched_mahalanobis_is_the_per_filter_one_bit_for_bit(m: int) -> None:
    rng = np.random.default_rng(m)
    fs = FilterSettings()
    for _ in range(60):
        kfs = [_random_filter(rng, fs) for _ in range(int(rng.integers(1, 6)))]
        z = rng.uniform(0.0, 3500.0, (m, 2))
        want = np.array([mahalanobis_sq(kf, z) for kf in kfs])
        got = mahalanobis_sq_many(kfs, z)
        assert got.shape == (len(kfs), m)
        assert np.array_equal(got, want)


def test_cached_motion_matrices_are_the_built_ones_and_read_only() -> None:
    f, q = _motion(1.0 / 60.0, 3000.0)
    assert np.array_equal(f, transition(1.0 / 60.0))
    assert np.array_equal(q, process_noise(1.0 / 60.0, 3000.0))
    assert _motion(1.0 / 60.0, 3000.0)[0] is f
    with pytest.raises(ValueError):
        f[0, 0] = 2.0


def test_distance_matrix_rows_are_linalg_norm_rows() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = rng.uniform(-50.0, 3600.0, (int(rng.integers(1, 17)), 2))
        z = rng.uniform(-50.0, 3600.0, (int(rng.integers(1, 17)), 2))
        want = np.array([np.linalg.norm(z - pi, axis=1) for pi in p])
        assert np.array_equal(_distances(p, z), want)


def test_closed_form_fit_matches_the_svd_fit() -> None:
    rng = np.random.default_rng(5)
    worst_pos = worst_vel = 0.0
    for _ in range(2000):
        n = int(rng.integers(2, 12))
        ts = np.arange(n) / 60.0 + rng.uniform(0.0, 100.0)
        v, a = rng.normal(size=2) * 3000.0, rng.normal(size=2) * 800.0
        xy = rng.uniform(0.0, 3500.0, 2) + np.outer(ts - ts[0], v) + 0.5 * np.outer((ts - ts[0]) ** 2, a)
        xy += rng.normal(size=(n, 2)) * rng.uniform(0.0, 3.0)
        for q in (5, 6, 7):
            svd, ours = fit_path(ts, xy, q), fit_path(ts, xy, q, closed_form=True)
            assert (ours.t_ref, ours.t0, ours.t1, ours.n) == (svd.t_ref, svd.t0, svd.t1, svd.n)
            assert abs(ours.rms_mm - svd.rms_mm) < 1e-8
            for t in (ts[0], ts[-1], ts[-1] + 1.0 / 60.0):
                worst_pos = max(worst_pos, float(np.abs(ours.at(t) - svd.at(t)).max()))
                worst_vel = max(worst_vel, float(np.abs(ours.vel(t) - svd.vel(t)).max()))
    assert worst_pos < 1e-8  # mm
    assert worst_vel < 1e-6  # mm/s


def test_closed_form_fit_falls_back_to_svd_on_repeated_times() -> None:
    ts = np.array([2.0, 2.0, 2.0])
    xy = np.array([[10.0, 5.0], [12.0, 7.0], [14.0, 9.0]])
    ours, svd = fit_path(ts, xy, closed_form=True), fit_path(ts, xy)
    assert (ours.cx, ours.cy, ours.rms_mm) == (svd.cx, svd.cy, svd.rms_mm)
    assert np.allclose(ours.at(2.0), [12.0, 7.0])


def test_path_screen_never_misses_a_ball_the_exact_test_finds() -> None:
    rng = np.random.default_rng(8)
    hits = 0
    for _ in range(400):
        a = rng.uniform(0.0, 3500.0, (1, 2))
        ends = a[:, None, :] + rng.normal(size=(1, int(rng.integers(1, 9)), 2)) * rng.uniform(5.0, 300.0)
        q = a + rng.normal(size=(int(rng.integers(1, 9)), 2)) * rng.uniform(5.0, 300.0)
        exact = _paths_through(a[0], ends[0], q, 58.0)
        screen = _near_paths(a, ends, q, 58.0)[0]
        assert not np.any(exact & ~screen)
        hits += int(exact.sum())
    assert hits > 0  # the exact test did find balls beside paths, so the screen was tried on them


def test_newest_samples_of_a_segment_are_the_tail_of_its_kept_ones() -> None:
    b = Ball("x")
    seg = Seg(7, "move", 0.0, np.zeros(2))
    b.sid = [7, -1, 7, 7, -1, 7, 3, 7]
    seg.idx = [0, 1, 2, 3, 4, 5, 7]
    kept = [i for i in seg.idx if b.sid[i] == seg.sid]
    for k in range(1, 8):
        assert newest_in(b, seg, k) == kept[-k:]


def _on_cloth_reference(tracker: Tracker, z: np.ndarray) -> np.ndarray:
    """The cloth test as it was before its screen: every pocket's exact test on every detection."""
    tb, m = tracker.table, tracker.s.cloth_slack_mm
    ok = (z[:, 0] >= -m) & (z[:, 0] <= tb.length_mm + m) & (z[:, 1] >= -m) & (z[:, 1] <= tb.width_mm + m)
    for pk in tb.pockets.values():
        mc, out = np.array(pk.mouth_center), np.array(pk.outward)
        depth = (z - mc) @ out
        lateral = np.abs((z - mc) @ np.array([-out[1], out[0]]))
        ok &= ~((depth > tracker.s.dropped_depth_mm) & (lateral <= pk.mouth_width_mm))
    return ok


def test_cloth_screen_keeps_the_exact_pocket_test() -> None:
    table = TableModel()
    tracker = Tracker(table)
    rng = np.random.default_rng(4)
    rejected = 0
    for pk in table.pockets.values():
        # detections scattered around the mouth, many past its line (dropped balls), and over the whole table
        around = np.array(pk.mouth_center) + rng.normal(size=(200, 2)) * 40.0
        anywhere = rng.uniform(-30.0, table.length_mm + 30.0, (50, 2)) * [1.0, table.width_mm / table.length_mm]
        z = np.vstack([around, anywhere])
        want = _on_cloth_reference(tracker, z)
        assert np.array_equal(tracker._on_cloth(z), want)
        rejected += int((~want).sum())
    assert rejected > 0
