"""``tracking.pocket_watch``: when a hidden ball has left the table, and how (into a pocket, over a rail), and
which balls a blob in a pocket's mouth or hole may be, on tracks placed by hand on a real ``TableModel``."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableModel
from tracking import pocket_watch
from tracking.kalman import make_ball_filter
from tracking.states import HIDDEN, Phase
from tracking.tracker import TrackerSettings, _Track

TABLE = TableModel()
S = TrackerSettings()
DT = 1.0 / 60.0
MIDDLE_LEFT = list(TABLE.pockets).index("middle-left")


def _hidden(last: tuple[float, float], vel: tuple[float, float], resting: bool = False) -> _Track:
    """A ball hidden since it was seen at ``last`` (at t = 0) moving with ``vel``, seen for three frames on
    that run before (at rest on ``last`` where ``resting``)."""
    p, v = np.array(last), np.array(vel)
    phase = Phase.HIDDEN_RESTING if resting else Phase.HIDDEN_MOVING
    kf = make_ball_filter(p, S.filter, v, DT)
    tr = _Track(key=1, kf=kf, phase=phase, last_t=0.0, last_meas=p.copy(), id="1")
    if resting:
        tr.anchor, tr.anchor_n = p.copy(), 10
    else:
        tr.prev_meas, tr.prev_t = p - v * DT, -DT
    for k in (2, 1, 0):
        q = p - v * k * DT
        tr.recent.append((-k * DT, float(q[0]), float(q[1])))
    return tr


def _running(key: int, last: tuple[float, float], vel: tuple[float, float], phase: Phase) -> _Track:
    """A ball of ``phase`` seen at ``last`` (at t = 0) rolling with ``vel``: its previous sighting one frame back
    along it."""
    p, v = np.array(last), np.array(vel)
    tr = _Track(key=key, kf=make_ball_filter(p, S.filter, v, DT), phase=phase, last_t=0.0, last_meas=p.copy(), id="1")
    tr.hits = 5
    tr.prev_meas, tr.prev_t = p - v * DT, -DT
    return tr


@pytest.mark.parametrize(
    ("last", "vel", "resting", "gap", "final", "want"),
    [
        # running into the middle pocket's mouth and gone for pot_confirm_s: potted
        ((1784.5, 60.0), (0.0, -2000.0), False, S.pot_confirm_s, False, ("pot", "middle-left", 0.95)),
        # not gone long enough yet: it may come out of the jaws
        ((1784.5, 60.0), (0.0, -2000.0), False, 0.5 * S.pot_confirm_s, False, None),
        # the stream ended just after it went in: potted, less sure
        ((1784.5, 60.0), (0.0, -2000.0), False, DT, True, ("pot", "middle-left", 0.8)),
        # at a side rail far from any pocket, faster than a ball rides over the cushion: off the table
        ((1000.0, 60.0), (0.0, -2.0 * S.climb_speed_mm_s), False, S.pot_confirm_s, False, ("off_table", None, 0.7)),
        # the same run slower than that: the cushion sends it back, it is hidden, not gone
        ((1000.0, 60.0), (0.0, -0.5 * S.climb_speed_mm_s), False, S.pot_confirm_s, False, None),
        # lying in a mouth and gone: dropped, the least sure (a hand could hide it)
        ((1784.5, 20.0), (0.0, 0.0), True, S.pot_confirm_s, False, ("pot", "middle-left", 0.6)),
        # resting on the open cloth and hidden: under the player's arm, not gone
        ((1000.0, 889.0), (0.0, 0.0), True, 10.0, False, None),
    ],
    ids=[
        "ran_in",
        "ran_in_too_recently",
        "ran_in_stream_ended",
        "climbed_rail",
        "rail_too_slow",
        "in_mouth",
        "open_cloth",
    ],
)
def test_gone_only_where_and_when_a_ball_can_have_left(last, vel, resting, gap, final, want) -> None:
    out = pocket_watch.gone(TABLE, S, _hidden(last, vel, resting), gap, final)
    assert (None if out is None else (out.kind, out.pocket, out.confidence)) == want


@pytest.mark.parametrize(
    ("p", "v", "want"),
    [
        ((1000.0, 100.0), (0.0, -500.0), (1, 500.0, 100.0)),  # toward the near side rail
        ((100.0, 889.0), (-500.0, 0.0), (0, 500.0, 100.0)),  # toward the near end rail
        ((3000.0, 1700.0), (300.0, 300.0), (1, 300.0, 78.0)),  # the side rail comes first on a diagonal
    ],
    ids=["side_rail", "end_rail", "diagonal"],
)
def test_first_rail_is_the_one_the_ball_reaches_first(p, v, want) -> None:
    k, speed, gap = pocket_watch.first_rail(TABLE, np.array(p), np.array(v))
    assert (k, speed, gap) == pytest.approx(want)


def test_entering_pockets_only_a_hidden_ball_last_seen_running_into_a_mouth_may_be_gone_down_it() -> None:
    # a ball unseen after running at a pocket's mouth may have dropped; one seen, or running along the
    # table, has not
    into = _running(1, (1784.5, 60.0), (0.0, -2000.0), Phase.HIDDEN_MOVING)
    seen_into = _running(2, (1784.5, 60.0), (0.0, -2000.0), Phase.MOVING)
    along = _running(3, (1000.0, 889.0), (2000.0, 0.0), Phase.HIDDEN_MOVING)
    tracks = [into, seen_into, along]
    occluded = np.array([tr.phase in HIDDEN for tr in tracks])  # not seen in the last frame
    flags = pocket_watch.entering_pockets(TABLE, S, tracks, occluded)
    assert flags.tolist() == [True, False, False]


def test_pocket_claims_a_blob_in_a_pocket_is_only_the_ball_that_went_into_it() -> None:
    # a ball does not climb out of a pocket: a blob in its hole is the ball that went in, or a hand
    into = _running(1, (1784.5, 60.0), (0.0, -2000.0), Phase.HIDDEN_MOVING)
    along = _running(2, (1000.0, 889.0), (2000.0, 0.0), Phase.HIDDEN_MOVING)
    in_pocket = np.array([-1, MIDDLE_LEFT])  # detection 0 on the cloth, detection 1 in the middle-left pocket
    claims = pocket_watch.pocket_claims(TABLE, S, [into, along], in_pocket)
    assert claims.tolist() == [[True, True], [True, False]]


def test_a_ball_that_ran_into_a_pocket_is_back_only_within_its_reach_of_the_mouth() -> None:
    # running into the middle pocket at 2 m/s, unseen since t = 0: by t = 0.3 s it dropped, or came back out of
    # the jaws no faster than it went in, so it is within 600 mm (and a diameter) of where it was last seen
    into = _running(1, (1784.5, 60.0), (0.0, -2000.0), Phase.HIDDEN_MOVING)
    assert pocket_watch.may_be_back_at(TABLE, S, into, np.array([1784.5, 600.0]), 0.3)
    assert not pocket_watch.may_be_back_at(TABLE, S, into, np.array([1784.5, 800.0]), 0.3)
    assert pocket_watch.may_be_back_at(TABLE, S, into, np.array([1784.5, 800.0]), 0.5)  # later: farther
    # a ball hidden running along the table is not bound by this rule
    along = _running(2, (1000.0, 889.0), (2000.0, 0.0), Phase.HIDDEN_MOVING)
    assert pocket_watch.may_be_back_at(TABLE, S, along, np.array([3000.0, 300.0]), 0.1)


def test_last_velocity_is_the_last_step_else_the_filter_s_else_none() -> None:
    tr = _hidden((1000.0, 500.0), (1200.0, -300.0))
    tr.kf.x[2:4] = (10.0, 10.0)  # the filter lags a ball just turned: the last step is what it last did
    np.testing.assert_allclose(pocket_watch.last_velocity(tr), (1200.0, -300.0))
    tr.prev_meas = None  # one sighting since it appeared: only the filter knows
    np.testing.assert_allclose(pocket_watch.last_velocity(tr), (10.0, 10.0))
    np.testing.assert_array_equal(pocket_watch.last_velocity(_hidden((1000.0, 500.0), (0.0, 0.0), True)), (0.0, 0.0))
