"""``tracking.paths``: distances between point sets and whether a straight run between frames meets a ball."""

from __future__ import annotations

import numpy as np

from tracking.paths import distances, near_paths, paths_through, runs_into


def test_distances_are_each_row_s_norms() -> None:
    p = np.array([[0.0, 0.0], [3.0, 4.0]])
    z = np.array([[3.0, 4.0], [6.0, 8.0], [0.0, 0.0]])
    assert distances(p, z).tolist() == [[5.0, 10.0, 0.0], [0.0, 5.0, 5.0]]


def test_a_path_passes_a_point_beside_it_between_its_ends_only() -> None:
    a = np.array([0.0, 0.0])
    ends = np.array([[100.0, 0.0], [0.0, 100.0]])
    beside = np.array([[50.0, 10.0]])  # 10 mm off the first path, halfway along it; far from the second
    assert paths_through(a, ends, beside, 20.0).tolist() == [True, False]
    assert paths_through(a, ends, beside, 5.0).tolist() == [False, False]
    beyond = np.array([[130.0, 0.0]])  # on the first path's line, past its end
    assert paths_through(a, ends, beyond, 20.0).tolist() == [False, False]


def test_the_screen_is_true_wherever_the_exact_test_is() -> None:
    rng = np.random.default_rng(5)
    a = rng.uniform(0, 1000, (6, 2))
    ends = a[:, None, :] + rng.uniform(-150, 150, (6, 4, 2))
    q = rng.uniform(0, 1000, (40, 2))
    screen = near_paths(a, ends, q, 30.0)
    exact = np.array([paths_through(a[k], ends[k], q, 30.0) for k in range(6)])
    assert exact.any() and (screen | ~exact).all()  # never False where the exact test is True
    assert not screen.all()  # and it does screen some out
    # a short path and a point beside its middle, farther from it than half its length but within the width
    a1, ends1, q1 = np.array([[0.0, 0.0]]), np.array([[[10.0, 0.0]]]), np.array([[5.0, 25.0]])
    assert paths_through(a1[0], ends1[0], q1, 30.0).tolist() == [True]
    assert near_paths(a1, ends1, q1, 30.0).tolist() == [[True]]


def test_a_run_meets_a_resting_ball_it_passes_or_lands_on() -> None:
    last = np.array([[0.0, 0.0], [0.0, 500.0], [0.0, 900.0]])
    pred = np.array([[200.0, 0.0], [200.0, 500.0], [200.0, 900.0]])
    rest = np.array([[100.0, 20.0], [200.0, 510.0]])  # beside the first run; on the second's predicted place
    assert runs_into(last, pred, rest, 34.0).tolist() == [True, True, False]
    assert runs_into(last, pred, np.zeros((0, 2)), 34.0).tolist() == [False, False, False]
