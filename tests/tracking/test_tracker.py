"""``tracking.tracker.Tracker``'s frame interval: the stream's stated one until two frames have come, then the
timestamps'."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.contract import UNSTATED_FPS
from calibration.table import TableModel
from tracking.tracker import Tracker

TABLE = TableModel()


def test_the_first_frame_takes_the_stated_interval_and_later_ones_the_timestamps() -> None:
    stated, unstated = Tracker(TABLE, frame_dt=1 / 30), Tracker(TABLE)
    # before any frame: the interval the source states, else the unstated rate's
    assert stated._frame_dt == 1 / 30 and unstated._frame_dt == 1 / UNSTATED_FPS
    for tr in (stated, unstated):
        for i, t in enumerate((0.0, 0.04, 0.08)):
            tr.step(i, t, np.array([[900.0 + 10.0 * i, 600.0]]), np.array([0.9]))
    # from the second frame on, both read the timestamps (0.04 s apart), whatever was stated
    assert stated._frame_dt == pytest.approx(0.04) and unstated._frame_dt == pytest.approx(0.04)
