"""The named parts ``Tracker._scene`` and ``Tracker._reacquire`` are built from that live in the tracker (those in
``tracking.pocket_watch`` and ``tracking.hidden_balls`` are tested in their own modules), each alone, on tracks
placed by hand on a real ``TableModel`` and detections from real ``vision.detections.Detections`` rows."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
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

from .records import dets

TABLE = TableModel()
S = TrackerSettings()


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
