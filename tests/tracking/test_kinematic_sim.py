"""``tracking.kinematic_sim``: the bench's simulated shot, its events timed by the physics and its frames sampled
at the requested rate."""

from __future__ import annotations

import pytest

from calibration.table import TableModel
from tracking.kinematic_sim import simulate_shot

TABLE = TableModel()
D = TABLE.ball_diameter_mm


def test_a_straight_shot_hits_the_ball_ahead_which_runs_to_the_far_cushion() -> None:
    balls = {"cue": (1000.0, 889.0), "1": (1600.0, 889.0)}
    sim = simulate_shot(TABLE, balls, "cue", (2000.0, 0.0))
    kinds = [e.type for e in sim.events]
    assert kinds[0] == "shot_start" and kinds[-1] == "shot_end"
    assert sim.events[0].t == pytest.approx(0.2) and sim.events[0].ball == "cue"
    hit = next(e for e in sim.events if e.type == "contact")
    # a diameter short of the ball's place, at 2 m/s less the cloth's slowing: no sooner than at full speed
    assert hit.balls == ("cue", "1")
    assert 0.2 + (600.0 - D) / 2000.0 <= hit.t < 0.2 + (600.0 - D) / 1900.0
    cushion = next(e for e in sim.events if e.type == "cushion")
    assert cushion.ball == "1" and cushion.cushion == "pyramid" and cushion.t > hit.t


def test_frames_are_sampled_at_the_requested_rate() -> None:
    balls = {"cue": (1000.0, 889.0)}
    at60 = simulate_shot(TABLE, balls, "cue", (1500.0, 300.0), fps=60.0)
    at30 = simulate_shot(TABLE, balls, "cue", (1500.0, 300.0), fps=30.0)
    assert at60.fps == 60.0 and at30.fps == 30.0
    assert [t for t, _ in at60.frames[:3]] == pytest.approx([0.0, 1 / 60, 2 / 60])
    assert len(at60.frames) == pytest.approx(2 * len(at30.frames), abs=2)
    assert at60.frames[0][1] == {"cue": (1000.0, 889.0)}
