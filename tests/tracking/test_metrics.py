"""Scoring: one-to-one matching within the time tolerance, keys per event type, first contacts."""

from __future__ import annotations

import numpy as np

from calibration.contract import Event
from calibration.table import TableModel
from tracking.metrics import Scores, first_contacts, match_events, touching_at_shots
from tracking.tracker import Tracker


def _c(t: float, a: str, b: str) -> Event:
    return Event(type="contact", t=t, balls=(a, b), pos=(0.0, 0.0))


def test_contacts_match_once_within_tolerance_in_either_order() -> None:
    truth = [_c(1.0, "cue", "1"), _c(2.0, "1", "2")]
    pred = [_c(1.01, "1", "cue"), _c(1.012, "cue", "1"), _c(2.5, "1", "2")]
    t = match_events(pred, truth, "contact", tol_s=1 / 60)
    assert (t.tp, t.fp, t.fn) == (1, 2, 1)
    assert abs(t.dt[0] - 0.01) < 1e-9
    assert abs(t.f1 - 0.4) < 1e-9


def test_first_contact_is_an_ordered_pair_per_shot() -> None:
    start = Event(type="shot_start", t=0.5, ball="cue", positions={})
    truth = [start, _c(1.0, "cue", "1")]
    assert first_contacts([start, _c(1.001, "cue", "1")], truth, 1 / 60).tp == 1
    assert first_contacts([start, _c(1.001, "1", "cue")], truth, 1 / 60).tp == 0


def test_contacts_of_balls_touching_at_the_shot_start_are_scored_apart_from_the_rest() -> None:
    start = Event(type="shot_start", t=0.5, frame=30, ball="cue", positions={})
    # 1 and 2 touch with a 0.5 mm gap (a rack set by hand), 3 lies 2 mm beyond a diameter from 2
    rows = [(30, "cue", 100.0, 500.0), (30, "1", 800.0, 500.0), (30, "2", 868.5, 500.0), (30, "3", 938.5, 500.0)]
    touching = touching_at_shots([start], rows, 68.0)
    assert touching == [(0.5, {frozenset(("1", "2"))})]
    truth = [start, _c(1.0, "cue", "1"), _c(1.0, "1", "2"), _c(1.02, "2", "3")]
    pred = [start, _c(1.0, "cue", "1"), _c(1.02, "2", "3")]  # the push from 1 to 2 not seen
    s = Scores()
    s.add_shot(pred, truth, 1 / 60, touching)
    assert (s.events["contact"].tp, s.events["contact"].fn) == (2, 1)
    apart = s.events["contact_apart"]
    assert (apart.tp, apart.fp, apart.fn) == (2, 0, 0)


def test_track_rows_are_compared_frame_by_frame() -> None:
    s = Scores()
    s.add_tracks(
        [(0, "cue", 1.0, 0.0), (1, "cue", 2.0, 0.0)], [(0, "cue", 0.0, 0.0), (1, "cue", 2.0, 0.0), (2, "cue", 3.0, 0.0)]
    )
    assert s.rows_truth == 3 and s.rows_matched == 2
    assert sorted(s.pos_err) == [0.0, 1.0]


def test_a_ball_already_in_a_pocket_is_not_tracked() -> None:
    table = TableModel()
    pk = table.pockets["middle-left"]
    inside = np.array(pk.mouth_center) + np.array(pk.outward) * 40  # dropped, visible in the hole
    on_cloth = np.array([1000.0, 500.0])
    tracker = Tracker(table)
    f = None
    for i in range(5):
        f = tracker.step(i, i / 30, np.array([inside, on_cloth]))
    assert f is not None and len(f.balls) == 1
    assert np.hypot(*(np.array(f.balls[0].pos) - on_cloth)) < 1.0
