"""The named parts ``Tracker._scene`` and ``Tracker._reacquire`` are built from (some in ``tracking.pocket_watch``
and ``tracking.hidden_balls``), each alone, on tracks placed by hand on a real ``TableModel`` and detections from
real ``vision.detections.Detections`` rows."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableModel
from tracking import hidden_balls, pocket_watch
from tracking.kalman import make_ball_filter
from tracking.states import Phase
from tracking.tracker import (
    Tracker,
    TrackerSettings,
    _ball_kinds,
    _ball_places,
    _motion_gauge,
    _speed_bounds,
    _Track,
)
from tracking.tracker_settings import REACQUIRE_RADIUS_MM

from .records import dets

TABLE = TableModel()
S = TrackerSettings()
MIDDLE_LEFT = list(TABLE.pockets).index("middle-left")


def _track(
    key: int,
    phase: Phase,
    pos: tuple[float, float],
    vel: tuple[float, float] | None = None,
    *,
    anchored: bool = False,
    hits: int = 5,
    ball_id: str | None = "1",
    last_t: float = 0.0,
) -> _Track:
    """A track of ``phase`` last seen at ``pos`` at ``last_t``, its filter at ``pos`` with velocity ``vel``
    (unknown where None), resting on an anchor at ``pos`` where ``anchored``."""
    p = np.array(pos, dtype=float)
    kf = make_ball_filter(p, S.filter, None if vel is None else np.array(vel, dtype=float), 1.0 / 60.0)
    tr = _Track(key=key, kf=kf, phase=phase, last_t=last_t, last_meas=p.copy(), id=ball_id, hits=hits)
    if anchored:
        tr.anchor, tr.anchor_n = p.copy(), 10
    return tr


def _running(key: int, last: tuple[float, float], vel: tuple[float, float], phase: Phase, dt: float) -> _Track:
    """A ball seen at ``last`` rolling with ``vel``: its previous sighting one frame ``dt`` back along it."""
    tr = _track(key, phase, last, vel)
    tr.prev_meas = np.array(last) - np.array(vel) * dt
    tr.prev_t = -dt
    return tr


def test_ball_kinds_only_a_ball_hidden_while_rolling_rolls_on_unseen() -> None:
    # a ball hidden at rest stays on its place; only one hidden while moving is predicted along its run
    tracks = [
        _track(1, Phase.HIDDEN_MOVING, (1000.0, 889.0), (800.0, 0.0)),
        _track(2, Phase.HIDDEN_RESTING, (2000.0, 889.0), anchored=True),
        _track(3, Phase.MOVING, (1500.0, 400.0), (800.0, 0.0)),
    ]
    k = _ball_kinds(tracks)
    assert k.occluded.tolist() == [True, True, False]
    assert k.hidden_moving.tolist() == [True, False, False]
    assert k.anchored.tolist() == [False, True, False]


def test_ball_places_a_resting_ball_sits_on_its_anchor_not_its_last_blob() -> None:
    # a resting ball's place is the mean of its detections; one noisy last detection does not move it
    rest = _track(1, Phase.RESTING, (1000.0, 889.0), anchored=True)
    rest.last_meas = np.array([1004.0, 891.0])
    roll = _track(2, Phase.MOVING, (1500.0, 400.0), (800.0, 0.0))
    last, anchor = _ball_places([rest, roll], _ball_kinds([rest, roll]).anchored)
    assert anchor[0].tolist() == [1000.0, 889.0]
    assert last[0].tolist() == [1004.0, 891.0]
    assert anchor[1].tolist() == [1500.0, 400.0]  # a rolling ball has no anchor: its last sighting stands in


def test_speed_bounds_a_ball_hidden_while_rolling_goes_no_faster_than_its_filter_says() -> None:
    # a hidden rolling ball is bounded by its filter's speed; a resting or a seen ball never asks (0)
    tracks = [
        _track(1, Phase.HIDDEN_MOVING, (1000.0, 889.0), (1200.0, 500.0)),
        _track(2, Phase.HIDDEN_RESTING, (2000.0, 889.0), anchored=True),
        _track(3, Phase.MOVING, (1500.0, 400.0), (800.0, 0.0)),
    ]
    bound = _speed_bounds(tracks, _ball_kinds(tracks))
    assert bound[0] >= 1300.0  # |(1200, 500)| = 1300 mm/s
    assert bound[1] == 0.0 and bound[2] == 0.0


def test_motion_gauge_a_detection_off_the_run_is_more_surprising_and_ungauged_balls_are_inf() -> None:
    # the filter prices a detection by its distance from the prediction; a ball whose prediction means
    # nothing (gauged False) is priced by no motion model at all
    tracks = [_track(1, Phase.MOVING, (1000.0, 889.0), (0.0, 0.0)), _track(2, Phase.MOVING, (2000.0, 889.0))]
    z = dets([(1005.0, 889.0), (1060.0, 889.0)]).pos_mm
    m2 = _motion_gauge(tracks, np.array([True, False]), z)
    assert np.isfinite(m2[0]).all() and m2[0, 0] < m2[0, 1]
    assert np.isinf(m2[1]).all()


def test_blind_a_ball_seen_once_with_unknown_speed_is_matched_by_distance_alone() -> None:
    # one sighting gives no velocity: its gate spans a break's speed; a second sighting gives it one
    tr = Tracker(TABLE)
    once = _track(1, Phase.TENTATIVE, (1000.0, 889.0), hits=1, ball_id=None)
    twice = _track(2, Phase.TENTATIVE, (2000.0, 889.0), hits=2, ball_id=None)
    seeded = _track(3, Phase.TENTATIVE, (2500.0, 889.0), (600.0, 0.0), hits=1, ball_id=None)
    tracks = [once, twice, seeded]
    kinds = _ball_kinds(tracks)
    blind = tr._blind(tracks, kinds, _speed_bounds(tracks, kinds))
    assert blind.tolist() == [True, False, False]


def test_runs_into_resting_a_run_through_a_resting_ball_hits_it_and_one_past_it_does_not() -> None:
    # two centres never come nearer than a diameter: a run passing closer than that met the ball;
    # one passing 70 mm to the side (over a diameter) rolled by
    tr = Tracker(TABLE)
    last = np.array([[1000.0, 889.0], [1000.0, 959.0], [1500.0, 889.0]])
    pred = np.array([[1600.0, 889.0], [1600.0, 959.0], [1500.0, 889.0]])
    anchored = np.array([False, False, True])
    hits = tr._runs_into_resting(last, pred, last.copy(), anchored)
    assert hits.tolist() == [True, False, False]


def test_entering_pockets_only_a_hidden_ball_last_seen_running_into_a_mouth_may_be_gone_down_it() -> None:
    # a ball unseen after running at a pocket's mouth may have dropped; one seen, or running along the
    # table, has not
    into = _running(1, (1784.5, 60.0), (0.0, -2000.0), Phase.HIDDEN_MOVING, 1 / 60)
    seen_into = _running(2, (1784.5, 60.0), (0.0, -2000.0), Phase.MOVING, 1 / 60)
    along = _running(3, (1000.0, 889.0), (2000.0, 0.0), Phase.HIDDEN_MOVING, 1 / 60)
    tracks = [into, seen_into, along]
    flags = pocket_watch.entering_pockets(TABLE, S, tracks, _ball_kinds(tracks).occluded)
    assert flags.tolist() == [True, False, False]


def test_pocket_claims_a_blob_in_a_pocket_is_only_the_ball_that_went_into_it() -> None:
    # a ball does not climb out of a pocket: a blob in its hole is the ball that went in, or a hand
    into = _running(1, (1784.5, 60.0), (0.0, -2000.0), Phase.HIDDEN_MOVING, 1 / 60)
    along = _running(2, (1000.0, 889.0), (2000.0, 0.0), Phase.HIDDEN_MOVING, 1 / 60)
    in_pocket = np.array([-1, MIDDLE_LEFT])  # detection 0 on the cloth, detection 1 in the middle-left pocket
    claims = pocket_watch.pocket_claims(TABLE, S, [into, along], in_pocket)
    assert claims.tolist() == [[True, True], [True, False]]


def test_hidden_ball_window_a_hidden_rolling_ball_is_looked_for_as_far_as_it_can_roll() -> None:
    # a ball hidden while moving is sought along its extrapolated run, the window widening by half the
    # distance it could roll since it was last seen (it may have slowed or been kicked)
    ball = _track(1, Phase.HIDDEN_MOVING, (1000.0, 889.0), (1000.0, 0.0))
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
    ball = _track(1, Phase.HIDDEN_RESTING, (1000.0, 889.0), anchored=True)
    z = dets([(1000.0 + radius - 10.0, 889.0), (1000.0 + radius + 20.0, 889.0)]).pos_mm
    _, near = hidden_balls.where_hidden_ball_may_be(TABLE, S, ball, z, 1.0, shot_active=in_play)
    assert near.tolist() == [True, False]


def test_bring_back_a_resting_ball_seen_again_off_its_place_was_moved_while_hidden() -> None:
    # more than a radius from its place it cannot be detection noise: something moved it, and that is told;
    # a few mm off is the same ball where it was
    moved = Tracker(TABLE)
    far = _track(1, Phase.HIDDEN_RESTING, (1000.0, 889.0), anchored=True)
    back = moved._bring_back(far, np.array([1100.0, 889.0]), False, 1.0)
    assert back is not None and back.id == "1"
    assert back.old_pos == (1000.0, 889.0) and back.new_pos == (1100.0, 889.0)
    still = Tracker(TABLE)
    near = _track(1, Phase.HIDDEN_RESTING, (1000.0, 889.0), anchored=True)
    assert still._bring_back(near, np.array([1005.0, 889.0]), False, 1.0) is None
