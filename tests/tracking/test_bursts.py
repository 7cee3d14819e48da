"""``tracking.bursts``: a cluster's balls set moving together, their ids checked by running each path back to
where the balls rested; tracks placed by hand on a real ``TableModel``."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.bursts import Burst, BurstWatch, check_burst
from tracking.kalman import make_ball_filter
from tracking.states import Phase
from tracking.tracker import TrackerSettings, _Track

TABLE = TableModel()
S = TrackerSettings()
DT = 1.0 / 60.0
# three balls frozen together, and the velocity each leaves with when the cluster is struck
RESTED = {"1": (1000.0, 889.0), "2": (1068.0, 889.0), "3": (1034.0, 948.0)}
LEAVES = {"1": (-600.0, 0.0), "2": (600.0, 0.0), "3": (0.0, 600.0)}


def _ball(key: int, name: str, path_of: str) -> _Track:
    """The track ``name`` (key ``key``) that rested at ``RESTED[name]``, following the ball that left from
    ``RESTED[path_of]``: the wrong ball where ``path_of`` is another's."""
    p = np.array(RESTED[path_of])
    tr = _Track(key=key, kf=make_ball_filter(p, S.filter, None, DT), phase=Phase.MOVING, last_t=0.0, last_meas=p)
    tr.id = name
    tr.left_anchor, tr.left_t = np.array(RESTED[name]), DT
    return tr


def _seen_at(tracks: list[_Track], paths: dict[int, str], t: float) -> None:
    """Every track seen at ``t`` and a frame before, on the path of the ball named in ``paths``."""
    for tr in tracks:
        p, v = np.array(RESTED[paths[tr.key]]), np.array(LEAVES[paths[tr.key]])
        tr.prev_meas, tr.prev_t = p + v * (t - DT), t - DT
        tr.last_meas, tr.last_t = p + v * t, t


def test_check_burst_gives_back_the_ids_two_balls_traded_in_the_burst() -> None:
    # balls 1 and 2 took each other's detections as the cluster burst: each path leads back to the other's place
    paths = {1: "2", 2: "1", 3: "3"}
    tracks = [_ball(1, "1", "2"), _ball(2, "2", "1"), _ball(3, "3", "3")]
    _seen_at(tracks, paths, 3 * DT)
    b = Burst(0.0, {tr.key: np.array(RESTED[str(tr.id)]) for tr in tracks})
    out = check_burst(b, tracks, 3 * DT, DT, TABLE.ball_radius_mm)
    assert out is not None
    since, pairs = out
    assert since == 0.5 * DT
    assert sorted(pairs) == [("1", "2"), ("2", "1")]
    assert [tr.id for tr in tracks] == ["2", "1", "3"]
    assert tracks[0].left_anchor is not None and np.allclose(tracks[0].left_anchor, RESTED["2"])


def test_check_burst_leaves_ids_whose_paths_lead_back_to_their_own_places() -> None:
    tracks = [_ball(k, n, n) for k, n in ((1, "1"), (2, "2"), (3, "3"))]
    _seen_at(tracks, {1: "1", 2: "2", 3: "3"}, 3 * DT)
    b = Burst(0.0, {tr.key: np.array(RESTED[str(tr.id)]) for tr in tracks})
    assert check_burst(b, tracks, 3 * DT, DT, TABLE.ball_radius_mm) is None
    assert [tr.id for tr in tracks] == ["1", "2", "3"]


def test_burst_watch_notes_a_burst_checks_it_and_lets_it_go() -> None:
    paths = {1: "2", 2: "1", 3: "3"}
    tracks = [_ball(1, "1", "2"), _ball(2, "2", "1"), _ball(3, "3", "3")]
    watch = BurstWatch()
    seen = []
    for k in range(1, 6):  # frame 0: all at rest; frame 1: the cluster bursts
        t = k * DT
        _seen_at(tracks, paths, t)
        seen.append((watch.step(tracks, t, t - DT, DT, S, TABLE.ball_radius_mm), watch.checking))
    # noted in its first frame, first checked burst_check_frames after the last frame at rest, checked every
    # frame until burst_last_frames
    assert S.burst_check_frames == 3.0 and S.burst_last_frames == 4.0
    assert [out is not None for out, _ in seen] == [False, False, True, False, False]
    assert [checking for _, checking in seen] == [True, True, True, False, False]
    out = seen[2][0]
    assert out is not None and sorted(out[1]) == [("1", "2"), ("2", "1")]
    assert [tr.id for tr in tracks] == ["2", "1", "3"]


def test_burst_watch_ignores_fewer_balls_than_a_burst() -> None:
    # two balls set moving at once: a kiss, not a cluster broken up
    tracks = [_ball(1, "1", "1"), _ball(2, "2", "2")]
    _seen_at(tracks, {1: "1", 2: "2"}, DT)
    watch = BurstWatch()
    assert watch.step(tracks, DT, 0.0, DT, S, TABLE.ball_radius_mm) is None
    assert not watch.checking
