"""The contact detectors as pure functions, fed hand-built records (no tracker, no extractor)."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import contacts
from tracking.detect.segments import RestingBall, SampleWindow
from tracking.detect.settings import ContactSettings

S = ContactSettings()
D = TableModel().ball_diameter_mm


def _at(ball: str, x: float, y: float = 600.0) -> RestingBall:
    return RestingBall(ball, np.array([x, y]))


def test_a_hit_passes_through_every_touching_pair_of_a_frozen_cluster_outwards() -> None:
    # ball 1 hit, frozen to 2, which is frozen to 3 (1 mm apart); 4 is a diameter plus 20 mm from 3
    cluster = [
        _at("1", 1000.0),
        _at("3", 1000.0 + 2 * D + 2.0),
        _at("2", 1000.0 + D + 1.0),
        _at("4", 1000.0 + 3 * D + 22),
    ]
    got = contacts.chains(cluster, 1.5, D, S)
    assert [c.balls for c in got] == [("1", "2"), ("2", "3")]  # nearer the ball hit first: (pusher, pushed)
    assert all(c.kind == "contact" and c.evidence == "chain" and c.t == 1.5 for c in got)
    assert got[0].pos == (1000.0 + (D + 1.0) / 2, 600.0)


def test_a_ball_alone_or_moving_passes_nothing_on() -> None:
    assert contacts.chains([_at("1", 1000.0)], 1.5, D, S) == []
    assert contacts.chains([], 1.5, D, S) == []


def test_a_pair_beyond_the_frozen_tolerance_is_not_in_contact() -> None:
    apart = D + S.frozen_tol_mm + 0.5
    assert contacts.chains([_at("1", 1000.0), _at("2", 1000.0 + apart)], 1.5, D, S) == []


DT = 1 / 60


def _window(ball: str, xy: np.ndarray, moving: bool, unexplained: tuple[float, ...] = ()) -> SampleWindow:
    n = len(xy)
    ts = np.arange(n) * DT + 2.0
    return SampleWindow(ball, ts, xy, np.ones(n, bool), np.full(n, moving), unexplained)


def _passing(gap_mm: float, unexplained: tuple[float, ...] = ()) -> list[SampleWindow]:
    """Ball 2 rolls along +x at 1.5 m/s past ball 1 resting beside its line, centres ``gap_mm`` apart when
    level, at the window's fourth frame (12 frames before its end, as a kiss is judged)."""
    w = S.kiss_window
    i = np.arange(w)
    rolling = np.stack([1000.0 + 25.0 * (i - 3), np.full(w, 600.0)], axis=1)
    resting = np.tile([1000.0, 600.0 + gap_mm], (w, 1))
    return [_window("1", resting, False), _window("2", rolling, True, unexplained)]


def test_two_balls_whose_centres_come_a_diameter_apart_and_part_kissed() -> None:
    got = contacts.kisses(_passing(D + 0.3), DT, D, S)
    assert len(got) == 1
    c = got[0]
    assert c.balls == ("2", "1") and c.evidence == "kiss"  # the faster ball first
    assert abs(c.t - (2.0 + 3 * DT)) <= 0.5 * DT and c.t_seen == 2.0 + 3 * DT


def test_balls_a_centimetre_apart_at_their_closest_did_not_kiss() -> None:
    assert contacts.kisses(_passing(D + 10.0), DT, D, S) == []


def test_a_kiss_waits_for_an_unexplained_bend_near_it() -> None:
    assert contacts.kisses(_passing(D + 0.3, unexplained=(2.0 + 2 * DT,)), DT, D, S) == []


def test_two_balls_at_rest_side_by_side_never_kissed() -> None:
    w = S.kiss_window
    a = _window("1", np.tile([1000.0, 600.0], (w, 1)), False)
    b = _window("2", np.tile([1000.0 + D, 600.0], (w, 1)), False)
    assert contacts.kisses([a, b], DT, D, S) == []
