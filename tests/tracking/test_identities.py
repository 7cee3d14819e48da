"""``tracking.identities``: a known ball's place in the first moments, the id a new ball takes, and a lost ball
found again at rest; tracks placed by hand on a real ``TableModel``."""

from __future__ import annotations

import math

import numpy as np

from calibration.table import TableModel
from tracking.identities import Identities, same_colour, seen_apart, was_ball
from tracking.kalman import make_ball_filter
from tracking.states import Phase
from tracking.tracker import TrackerSettings, _Track

TABLE = TableModel()
S = TrackerSettings()
DT = 1.0 / 60.0
R = TABLE.ball_radius_mm
KNOWN = {"1": (2000.0, 889.0), "2": (2100.0, 889.0)}


def _resting(key: int, pos: tuple[float, float], phase: Phase, hits: int = 1) -> _Track:
    p = np.array(pos)
    tr = _Track(key=key, kf=make_ball_filter(p, S.filter, np.zeros(2), DT), phase=phase, last_t=1.0, last_meas=p)
    tr.anchor, tr.anchor_n, tr.hits = p.copy(), 10, hits
    tr.recent.append((1.0, float(p[0]), float(p[1])))
    return tr


def test_a_known_place_counts_within_a_quarter_radius_and_only_in_the_first_moments() -> None:
    who = Identities(TABLE, S, KNOWN)
    near = np.array([2000.0 + 0.2 * R, 889.0])
    assert who.at_known_place(near, 0.5, 0.0)
    assert not who.at_known_place(np.array([2000.0 + 0.3 * R, 889.0]), 0.5, 0.0)
    assert not who.at_known_place(near, S.warmup_s + 0.1, 0.0)  # later a ball may stand anywhere
    assert not Identities(TABLE, S, {}).in_warmup(0.5, 0.0)  # no place is known
    assert math.isinf(Identities(TABLE, S, {}).known_gap(near))


def test_a_new_ball_takes_the_known_id_of_its_place_or_a_fresh_one() -> None:
    who = Identities(TABLE, S, KNOWN)
    at_two = _resting(1, KNOWN["2"], Phase.RESTING)
    assert who.claim(at_two, 0.0, respot=False) == "2"
    assert not at_two.vouched  # first seen at t = 1, past the first moments
    elsewhere = _resting(2, (500.0, 400.0), Phase.RESTING)
    assert who.off_known_places(elsewhere)
    assert who.claim(elsewhere, 0.0, respot=False) == "t1"


def test_a_ball_placed_between_shots_takes_the_id_of_the_ball_that_left_last() -> None:
    who = Identities(TABLE, S, KNOWN)
    who.lost += ["5", "7"]
    placed = _resting(1, (500.0, 400.0), Phase.TENTATIVE_AT_REST)
    assert who.claim(placed, 0.0, respot=False) == "t1"  # a shot in play: no respot
    assert who.claim(placed, 0.0, respot=True) == "7"
    assert who.lost == ["5"]


def test_a_lost_ball_seen_clearly_at_rest_again_is_the_nearest_hidden_ball_of_its_colour() -> None:
    who = Identities(TABLE, S, KNOWN)
    near = _resting(1, (1000.0, 500.0), Phase.HIDDEN_RESTING)
    far = _resting(2, (3000.0, 500.0), Phase.HIDDEN_RESTING)
    near.id, far.id = "3", "4"
    new = _resting(3, (1000.0 + 2 * R, 500.0), Phase.TENTATIVE_AT_REST, hits=2 * S.confirm_hits)
    tracks = [near, far, new]
    found = who.recover(tracks, new)
    assert found is not None and found.id == "3"
    assert found.moved is not None  # found two radii from where it was hidden: it was moved unseen
    assert tracks == [far, new]
    assert near.id is None


def test_no_hidden_ball_is_recovered_by_a_weak_blob_or_one_of_another_colour() -> None:
    who = Identities(TABLE, S, KNOWN)
    hidden = _resting(1, (1000.0, 500.0), Phase.HIDDEN_RESTING)
    hidden.id = "3"
    weak = _resting(2, (1000.0, 500.0), Phase.TENTATIVE_AT_REST, hits=2 * S.confirm_hits)
    weak.quality = 0.5 * S.placed_confidence
    assert not was_ball(weak, S)
    assert who.recover([hidden, weak], weak) is None  # a hand at rest where the ball went under
    hidden.colour, weak.colour = np.zeros(3), np.full(3, 10 * S.colour_gate_sigma * S.colour_sigma)
    assert not same_colour(hidden, weak, S)
    weak.quality = 1.0
    assert who.recover([hidden, weak], weak) is None


def test_a_ball_hidden_running_into_a_pocket_is_not_found_again_beyond_its_reach() -> None:
    # ball 3 ran into the middle-left pocket at 2 m/s and has been unseen since t = 1; a ball seen clearly at
    # rest across the table a quarter second later is another ball (one covered until now), not ball 3
    who = Identities(TABLE, S, KNOWN)
    into = _resting(1, (1784.5, 60.0), Phase.HIDDEN_MOVING)
    into.anchor, into.id = None, "3"
    into.prev_meas, into.prev_t = np.array([1784.5, 60.0 + 2000.0 * DT]), 1.0 - DT
    far = _resting(2, (600.0, 350.0), Phase.TENTATIVE_AT_REST, hits=2 * S.confirm_hits)
    far.recent.clear()
    far.recent.append((1.25, 600.0, 350.0))
    assert who.recover([into, far], far) is None
    near = _resting(3, (1784.5, 200.0), Phase.TENTATIVE_AT_REST, hits=2 * S.confirm_hits)
    near.recent.clear()
    near.recent.append((1.25, 1784.5, 200.0))  # back out of the jaws, 140 mm in a quarter second
    found = who.recover([into, near], near)
    assert found is not None and found.id == "3"


def test_a_hidden_ball_seen_elsewhere_after_the_new_ball_was_first_seen_is_another_ball() -> None:
    # a weak ball has sat at (300, 600) since t = 0.2; ball 3 rolled near (1800, 600) in plain sight until
    # t = 1.0 and is hidden since: it cannot be the ball that was at (300, 600) all that time, however near
    # its last place is compared with ball 4's, hidden since t = 0.1 at the far end
    who = Identities(TABLE, S, KNOWN)
    rolled = _resting(1, (1800.0, 600.0), Phase.HIDDEN_MOVING)
    rolled.anchor, rolled.id = None, "3"
    rolled.recent.clear()
    rolled.recent.extend((0.2 + 0.1 * k, 1700.0 + 12.5 * k, 600.0) for k in range(9))
    early = _resting(2, (3300.0, 600.0), Phase.HIDDEN_RESTING)
    early.id, early.last_t = "4", 0.1
    early.recent.clear()
    early.recent.append((0.1, 3300.0, 600.0))
    new = _resting(3, (300.0, 600.0), Phase.TENTATIVE_AT_REST, hits=2 * S.confirm_hits)
    new.recent.clear()
    new.recent.extend((0.2 + 0.1 * k, 300.0, 600.0) for k in range(11))
    assert seen_apart(rolled, new, TABLE.ball_diameter_mm, S.max_speed_mm_s)
    assert not seen_apart(early, new, TABLE.ball_diameter_mm, S.max_speed_mm_s)
    found = who.recover([rolled, early, new], new)
    assert found is not None and found.id == "4"
    assert rolled.id == "3"
