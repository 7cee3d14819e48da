"""The contact detectors as pure functions, fed hand-built records (no tracker, no extractor)."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import contacts
from tracking.detect.segments import RestingBall
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
