"""A ball leaving the table (tracking.detect.pots.lost) as a pure function of hand-built records: the tracker's
``Loss`` and the ball's last path (no tracker, no extractor)."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import pots
from tracking.detect.segments import LostView, Trail
from tracking.detect.settings import CushionSettings, PotSettings
from tracking.tracker import Loss
from tracking.trajectory import fit_path

TABLE = TableModel()
R = TABLE.ball_radius_mm
PS, CS = PotSettings(), CushionSettings()
DT = 1 / 60
PK = TABLE.pockets["middle-left"]


def _rolling_in(speed: float, last_depth: float, n: int = 8) -> tuple[Loss, LostView]:
    """A ball rolling down ``PK``'s axis at ``speed`` mm/s, last seen at ``last_depth`` (mm past the mouth line)
    at t = 1, then lost in the pocket."""
    ts = 1.0 + DT * (np.arange(n) - (n - 1))
    ps = np.array([PK.point(last_depth - speed * (1.0 - t), 0.0) for t in ts])
    loss = Loss("3", "pot", PK.name, (float(ps[-1][0]), float(ps[-1][1])), (0.0, 0.0), 1.0, 0.9)
    return loss, LostView("3", fit_path(ts, ps), Trail("3", ts, ps))


def test_a_pot_is_timed_where_the_path_run_on_crosses_the_drop_depth() -> None:
    drop = PS.pot_depth_fraction * R  # the near edge of the hole
    loss, view = _rolling_in(1200.0, drop - 12.0)
    gone = pots.lost(loss, view, TABLE, PS, CS, DT)
    assert gone.event.kind == "pot" and gone.event.obstacle == PK.name and gone.event.balls == ("3",)
    assert gone.event.confidence == 0.9  # the tracker's
    # 12 mm short of the drop at 1.2 m/s: it dropped 10 ms after it was last seen, not at the half frame
    assert abs(gone.t - (1.0 + 12.0 / 1200.0)) < 1e-3
    assert abs(PK.depth((float(gone.pos[0]), float(gone.pos[1]))) - drop) < 0.1
    assert gone.jaws == ()  # down the middle of the mouth: clear of both jaws


def test_a_pot_past_the_drop_depth_is_timed_where_it_crossed_it() -> None:
    drop = PS.pot_depth_fraction * R
    loss, view = _rolling_in(1200.0, drop + 6.0)
    gone = pots.lost(loss, view, TABLE, PS, CS, DT)
    assert abs(gone.t - (1.0 - 6.0 / 1200.0)) < 1e-3


def test_a_slow_ball_fell_by_the_frame_it_is_first_missing_from() -> None:
    # at 100 mm/s its path would reach the hole 0.1 s on; rattling in the jaws it drops from near rest, gone by
    # the next frame
    drop = PS.pot_depth_fraction * R
    loss, view = _rolling_in(100.0, drop - 10.0)
    gone = pots.lost(loss, view, TABLE, PS, CS, DT)
    assert abs(gone.t - (1.0 + DT)) < 1e-9


def test_a_ball_lost_resting_or_off_the_table_is_timed_half_a_frame_after_its_last_sighting() -> None:
    loss, view = _rolling_in(1200.0, -30.0)
    resting = LostView("3", None, view.trail)
    gone = pots.lost(loss, resting, TABLE, PS, CS, DT)
    assert gone.event.kind == "pot" and gone.t == 1.0 + 0.5 * DT and gone.jaws == ()
    off = Loss("3", "off_table", None, (1200.0, -40.0), (0.0, 0.0), 1.0, 0.7)
    gone = pots.lost(off, view, TABLE, PS, CS, DT)
    assert gone.event.kind == "off_table" and gone.event.pos == (1200.0, -40.0) and gone.event.confidence == 0.7
    assert gone.t == 1.0 + 0.5 * DT and gone.jaws == () and gone.rattles == ()
