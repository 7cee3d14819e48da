"""``tracking.tracker_settings``: the quantities the tracker derives from its settings, each from the measurement
noise or the gates it stands beside."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tracking.kalman import FilterSettings
from tracking.tracker_settings import TrackerSettings


def test_rest_and_anchor_bounds_scale_with_the_measurement_noise() -> None:
    s = TrackerSettings()
    noisy = replace(s, filter=replace(s.filter, meas_sigma_mm=3.0 * s.filter.meas_sigma_mm))
    assert s.rest_radius_mm == pytest.approx(2.0 * s.filter.meas_sigma_mm)
    assert s.anchor_gate_mm == pytest.approx(4.0 * s.filter.meas_sigma_mm)
    assert noisy.rest_radius_mm == pytest.approx(3.0 * s.rest_radius_mm)
    assert noisy.anchor_gate_mm == pytest.approx(3.0 * s.anchor_gate_mm)
    assert isinstance(s.filter, FilterSettings)


def test_a_kink_costs_more_than_any_match_inside_the_gate() -> None:
    s = TrackerSettings()
    # above the gate's bound and a resting ball's anchor term (16), the colour cap and the tentative unit
    assert s.kink_cost > max(s.gate_chi2, 16.0) + s.colour_cost
    wide = replace(s, gate_chi2=40.0)
    assert wide.kink_cost == pytest.approx(40.0 + s.colour_cost + 1.0)


def test_a_burst_is_checked_a_frame_after_its_last_ball_may_join() -> None:
    s = TrackerSettings()
    assert s.burst_check_frames == s.burst_join_frames + 1.0
    assert s.frozen_tol_mm > 0.0
