"""``tracking.hidden_balls``: how far a hidden ball can be, where it is looked for again, and which hidden ball a
new one coming out of hiding is; tracks placed by hand on a real ``TableModel``, detections from real
``vision.detections.Detections`` rows."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableModel
from tracking import hidden_balls
from tracking.kalman import make_ball_filter
from tracking.states import Phase
from tracking.tracker import TrackerSettings, _Track
from tracking.tracker_settings import REACQUIRE_RADIUS_MM

from .records import dets

TABLE = TableModel()
S = TrackerSettings()
DT = 1.0 / 60.0
R, D = TABLE.ball_radius_mm, TABLE.ball_diameter_mm


def _resting(key: int, pos: tuple[float, float], phase: Phase = Phase.HIDDEN_RESTING) -> _Track:
    p = np.array(pos)
    tr = _Track(key=key, kf=make_ball_filter(p, S.filter, np.zeros(2), DT), phase=phase, last_t=0.0, last_meas=p)
    tr.id = str(key)
    tr.anchor, tr.anchor_n = p.copy(), 10
    return tr


def _rolling(key: int, start: tuple[float, float], vel: tuple[float, float], frames: int) -> _Track:
    """A ball set moving from ``start`` at t = 0 and seen every frame since at ``vel`` (mm/s)."""
    p, v = np.array(start), np.array(vel)
    t = frames * DT
    kf = make_ball_filter(p + v * t, S.filter, v, DT)
    tr = _Track(key=key, kf=kf, phase=Phase.MOVING, last_t=t, last_meas=p + v * t)
    tr.id = str(key)
    tr.left_anchor, tr.left_t = p.copy(), 0.0
    for k in range(frames + 1):
        q = p + v * k * DT
        tr.recent.append((k * DT, float(q[0]), float(q[1])))
    return tr


def test_speed_since_is_the_fastest_step_seen_and_top_speed_where_none_was() -> None:
    mv = _rolling(2, (1000.0, 889.0), (1200.0, 0.0), frames=10)
    speed = hidden_balls.speed_since(S, mv, 10 * DT, DT)
    assert 1200.0 < speed < S.max_speed_mm_s  # the measured speed and its measurement spread
    # before its second sighting no step of it was measured: it may have been sent at top speed
    assert hidden_balls.speed_since(S, mv, 0.5 * DT, DT) == S.max_speed_mm_s


@pytest.mark.parametrize(
    ("mover_at", "struck"),
    [
        # a ball rolling at it from nearby could have hit it unseen: as fast as that ball went, no faster
        ((850.0, 889.0), "mover"),
        # a ball rolling far across the table could not have reached it
        ((3000.0, 100.0), "none"),
    ],
    ids=["mover_near", "mover_far"],
)
def test_struck_speed_only_a_ball_that_could_reach_it(mover_at: tuple[float, float], struck: str) -> None:
    hidden = _resting(1, (1000.0, 889.0))
    hidden.last_t = 6 * DT  # it went under just now, two frames ago
    mv = _rolling(2, mover_at, (600.0, 0.0), frames=6)
    got = hidden_balls.struck_speed(TABLE, S, hidden, [hidden, mv], 8 * DT, DT)
    want = hidden_balls.speed_since(S, mv, hidden.last_t, DT) if struck == "mover" else 0.0
    assert got == pytest.approx(want) and got < S.max_speed_mm_s


def test_struck_speed_while_every_ball_rests_is_top_speed() -> None:
    # the cue may strike any resting ball, hidden under the player's arm, at top speed
    hidden = _resting(1, (1000.0, 889.0))
    other = _resting(2, (2000.0, 889.0), Phase.RESTING)
    assert hidden_balls.struck_speed(TABLE, S, hidden, [hidden, other], 1.0, DT) == S.max_speed_mm_s


@pytest.mark.parametrize(
    ("old_at", "want"),
    [
        ((900.0, 895.0), 6.0),  # behind the new ball on the line it came along: 6 mm off that line
        ((1100.0, 889.0), None),  # ahead of it: it cannot have come from there
    ],
    ids=["behind_on_its_path", "ahead_of_it"],
)
def test_gap_from_path_a_new_ball_comes_from_behind_it(old_at: tuple[float, float], want: float | None) -> None:
    old = _resting(1, old_at)
    gap = hidden_balls.gap_from_path(TABLE, S, old, np.array([1000.0, 889.0]), 0.5, np.array([800.0, 0.0]))
    assert gap == (None if want is None else pytest.approx(want))


def test_hidden_ball_window_a_hidden_rolling_ball_is_looked_for_as_far_as_it_can_roll() -> None:
    # a ball hidden while moving is sought along its extrapolated run, the window widening by half the
    # distance it could roll since it was last seen (it may have slowed or been kicked)
    p, v = np.array([1000.0, 889.0]), np.array([1000.0, 0.0])
    ball = _Track(key=1, kf=make_ball_filter(p, S.filter, v, DT), phase=Phase.HIDDEN_MOVING, last_t=0.0, last_meas=p)
    ball.kf.x[:2] = [1200.0, 889.0]  # predicted 0.2 s on
    z = dets([(1400.0, 889.0), (1500.0, 889.0)]).pos_mm  # 200 and 300 mm past the prediction
    d, near = hidden_balls.where_hidden_ball_may_be(TABLE, S, ball, z, 0.2, shot_active=False)
    # window: REACQUIRE_RADIUS_MM + 0.5 * 1000 mm/s * 0.2 s = 250 mm
    assert np.allclose(d, [200.0, 300.0])
    assert near.tolist() == [True, False]


@pytest.mark.parametrize(
    ("in_play", "radius"),
    [
        # between shots a hand may pick a hidden ball up and set it down nearby: the wide reacquire radius
        (False, REACQUIRE_RADIUS_MM),
        # in play nothing but a ball moves a resting ball; one hidden under the arm is sought only at its place
        (True, S.inplay_reacquire_mm),
    ],
    ids=["between_shots_moved_by_hand", "in_play_comes_back_at_its_place"],
)
def test_hidden_ball_window_a_hidden_resting_ball_is_sought_within_its_radius(in_play: bool, radius: float) -> None:
    ball = _resting(1, (1000.0, 889.0))
    z = dets([(1000.0 + radius - 10.0, 889.0), (1000.0 + radius + 20.0, 889.0)]).pos_mm
    _, near = hidden_balls.where_hidden_ball_may_be(TABLE, S, ball, z, 1.0, shot_active=in_play)
    assert near.tolist() == [True, False]
