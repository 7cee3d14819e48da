"""The readings of a kink and of a path that ended in rest, as pure functions of hand-built records."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import breaks
from tracking.detect.segments import Kink, KinkReading, PathView, SettledPath
from tracking.detect.settings import CushionSettings
from tracking.trajectory import PathFit, fit_path

S = CushionSettings()
DT = 1 / 60
D = TableModel().ball_diameter_mm


def _kink(n_new: int = 10, gap_frames: float = 1.0) -> Kink:
    """Ball 1 rolling along +x at 1 m/s, turned at 1.0 s to +y, its last sample in a third of a frame before and
    its first out ``gap_frames`` after that; ``n_new`` samples on the path out."""
    t_lo = 1.0 - DT / 3
    t_hi = t_lo + gap_frames * DT
    ts_in = t_lo - DT * np.arange(9, -1, -1)
    old = fit_path(ts_in, np.array([[1000.0 + 1000.0 * (t - 1.0), 600.0] for t in ts_in]))
    ts_out = t_hi + DT * np.arange(n_new)
    new = fit_path(ts_out, np.array([[1000.0, 600.0 + 1000.0 * (t - 1.0)] for t in ts_out]))
    return Kink("1", old, new, old, t_lo, 1.0, old.at(1.0), t_lo - DT, t_hi + 0.5 * DT, t_lo - DT, t_lo, t_hi)


def _read(score: float, kind: str, name: str) -> KinkReading:
    return KinkReading(score, kind, name, 1.0, np.array([1000.0, 600.0]), 0.0)


def test_the_best_scored_explanation_is_given_out_the_first_listed_on_a_tie() -> None:
    k = _kink()
    call = breaks.best_reading(k, [_read(0.4, "cushion", "house"), _read(0.2, "ball", "2")], True, S, DT)
    assert call is not None and call.reading.name == "2"
    tie = breaks.best_reading(k, [_read(0.2, "cushion", "house"), _read(0.2, "cushion", "pyramid")], True, S, DT)
    assert tie is not None and tie.reading.name == "house"
    assert breaks.best_reading(k, [], True, S, DT) is None


def test_another_kind_of_touch_explaining_the_bend_as_well_makes_it_less_sure() -> None:
    k = _kink()
    alone = breaks.best_reading(k, [_read(0.2, "cushion", "house"), _read(0.5, "ball", "2")], True, S, DT)
    close = breaks.best_reading(k, [_read(0.2, "cushion", "house"), _read(0.25, "ball", "2")], True, S, DT)
    same_kind = breaks.best_reading(k, [_read(0.2, "cushion", "house"), _read(0.25, "cushion", "pyramid")], True, S, DT)
    assert alone is not None and close is not None and same_kind is not None
    assert abs(close.confidence / alone.confidence - 0.7) < 1e-9
    assert same_kind.confidence == alone.confidence


def test_a_bend_the_ball_went_unseen_over_is_less_sure() -> None:
    reads = [_read(0.2, "cushion", "house")]
    seen = breaks.best_reading(_kink(gap_frames=1.0), reads, True, S, DT)
    unseen = breaks.best_reading(_kink(gap_frames=2.0), reads, True, S, DT)
    assert seen is not None and unseen is not None
    assert abs(unseen.confidence / seen.confidence - 0.7) < 1e-9


def test_a_ball_gone_from_the_table_with_a_short_path_out_was_dropping_unless_it_met_a_jaw() -> None:
    k = _kink(n_new=2)
    assert breaks.best_reading(k, [_read(0.2, "cushion", "house")], False, S, DT) is None
    jaw = breaks.best_reading(k, [_read(0.2, "cushion", "jaw:house-left")], False, S, DT)
    assert jaw is not None and jaw.reading.name == "jaw:house-left"
    # a jaw farther than jaw_kink_mm from touching (in cushion tolerances) is no turn on the way in
    far = 0.2 + S.jaw_kink_mm / S.cushion_tol_mm + 0.05
    assert breaks.best_reading(k, [_read(far, "cushion", "jaw:house-left")], False, S, DT) is None
    assert breaks.best_reading(_kink(n_new=3), [_read(0.2, "cushion", "house")], False, S, DT) is not None


def test_of_two_balls_touching_the_faster_is_the_hitter() -> None:
    k = _kink()  # ball 1 at 1 m/s
    slow = (PathFit(1.0, (1068.0, 300.0, 0.0), (600.0, 0.0, 0.0), 0.9, 1.0, 0.0, 5), True)
    fast = (PathFit(1.0, (1068.0, -2000.0, 0.0), (600.0, 0.0, 0.0), 0.9, 1.0, 0.0, 5), True)
    resting = (PathFit.still(np.array([1068.0, 600.0]), 0.5, 1.0), False)
    assert breaks.hitter_of("1", k.old, "2", slow, 1.0) == "1"
    assert breaks.hitter_of("1", k.old, "2", fast, 1.0) == "2"
    assert breaks.hitter_of("1", k.old, "2", resting, 1.0) == "1"
    assert breaks.hitter_of("1", k.old, "2", None, 1.0) == "1"


def test_a_path_that_ended_in_rest_ends_where_the_ball_settled() -> None:
    # 60 moving samples along +x, then 8 detections while it crept to rest and settled at 1190, with
    # one measured 5 mm off
    ts = tuple(1.0 + DT * k for k in range(68))
    moving = [np.array([1000.0 + 3.0 * k, 600.0]) for k in range(60)]
    settling = [np.array([x, 600.0]) for x in (1170.0, 1175.0, 1180.0, 1186.0, 1190.0, 1195.0, 1190.0, 1190.0)]
    st = SettledPath(PathView("1", ts, tuple(moving + settling), 1.5), 8)
    tail, whole = breaks.settled_views(st, 10)
    assert len(tail.ts) == 4 * 10 + 8 and tail.ts[-1] == ts[-1] and tail.ts[0] == ts[68 - 48]
    assert np.allclose(whole.ps[-1], [1190.0, 600.0])  # the median of the last five, not the outlier
    assert whole.ts == ts and whole.from_rest_mm == 1.5 and len(whole.ps) == 68
    # without its start: a path of a few samples keeps all but the first
    short = SettledPath(PathView("1", ts[:5], tuple(moving[:5]), 0.0), 1)
    tail, whole = breaks.settled_views(short, 10)
    assert tail.ts == ts[1:5] and np.allclose(whole.ps[-1], moving[4])
