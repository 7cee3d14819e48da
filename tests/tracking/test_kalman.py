"""The ball filter's seeded velocity uncertainty follows the stream's frame interval."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tracking.kalman import FilterSettings, make_ball_filter, reseed, seeded_speed_sigma

S = FilterSettings()


@pytest.mark.parametrize("fps", [25.0, 30.0, 60.0, 120.0])
def test_a_two_detection_velocity_spreads_as_the_seeded_sigma_says(fps: float) -> None:
    # a ball rolling at 1.5 m/s while its speed drifts (friction, spin) by accel_sigma, seen with meas_sigma noise
    rng = np.random.default_rng(int(fps))
    dt = 1.0 / fps
    n = 20000
    v0 = 1500.0 + rng.normal(0.0, S.accel_sigma_mm_s2 * dt, n)  # the speed now, after the interval's drift
    x0 = rng.normal(0.0, S.meas_sigma_mm, n)
    x1 = 1500.0 * dt + rng.normal(0.0, S.meas_sigma_mm, n)  # the run over the interval, as measured
    err = (x1 - x0) / dt - v0
    assert float(np.std(err)) == pytest.approx(seeded_speed_sigma(S, dt), rel=0.05)


def test_the_filters_take_the_interval_they_are_given() -> None:
    for fps in (30.0, 60.0):
        sigma = seeded_speed_sigma(S, 1.0 / fps)
        kf = make_ball_filter(np.array([100.0, 200.0]), S, np.zeros(2), 1.0 / fps)
        assert math.sqrt(kf.P[2, 2]) == pytest.approx(sigma)
        reseed(kf, np.array([110.0, 200.0]), np.array([600.0, 0.0]), S, 1.0 / fps)
        assert math.sqrt(kf.P[3, 3]) == pytest.approx(sigma)
    # a velocity seen over a 30 fps interval is less noisy and drifts more than one over a 60 fps interval
    assert seeded_speed_sigma(S, 1 / 30) != pytest.approx(seeded_speed_sigma(S, 1 / 60), rel=1e-3)
