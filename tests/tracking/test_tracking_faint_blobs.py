"""A detection fainter than ``TrackerSettings.min_confidence`` (a shadow, a highlight on the rail) moves no ball."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.table import TableModel
from tracking.tracker import Tracker, TrackState
from tracking.tracker_settings import TrackerSettings

TABLE = TableModel()
FPS = 60.0
SPEED = 1000.0  # mm/s along the long axis
BLURRED = range(30, 33)  # frames in which the rolling ball is not detected


def _rolling_past_a_faint_blob(settings: TrackerSettings, faint: float) -> list[tuple[np.ndarray, TrackState]]:
    """The cue ball rolls along y = 900 mm; in the ``BLURRED`` frames the detector misses it and finds only a
    faint blob (confidence ``faint``) 25 mm beside the ball's path: its shadow under a low lamp, say. A
    resting object ball keeps the frame from being empty. Returns the cue ball's position and state per frame."""
    tracker = Tracker(TABLE, settings, known_ids={"cue": (800.0, 900.0), "1": (2000.0, 400.0)})
    out = []
    for i in range(60):
        t = i / FPS
        x = 800.0 + SPEED * t
        seen = (x, 925.0) if i in BLURRED else (x, 900.0)
        conf = faint if i in BLURRED else 0.95
        f = tracker.step(i, t, np.array([[2000.0, 400.0], seen]), np.array([0.95, conf]))
        cue = f.by_id()["cue"]
        out.append((np.array(cue.pos), cue.state))
    return out


@pytest.mark.parametrize("faint", [0.15, 0.2])
def test_a_rolling_ball_missed_for_frames_is_not_dragged_to_a_faint_blob_beside_its_path(faint: float) -> None:
    # 0.15 is the least the classical detector scores a kept blob (no strength, a third of its rim)
    s = TrackerSettings()
    assert faint < s.min_confidence
    out = _rolling_past_a_faint_blob(s, faint)
    for i in BLURRED:
        pos, state = out[i]
        assert state == TrackState.OCCLUDED  # predicted on along its run, not matched to the blob
        assert abs(pos[1] - 900.0) < 2.0, (i, pos)
    # and it is found again on its path once the blur clears
    pos, state = out[BLURRED[-1] + 2]
    assert state == TrackState.CONFIRMED and abs(pos[1] - 900.0) < 2.0


def test_without_the_floor_the_faint_blob_takes_the_ball() -> None:
    # the case above is the floor's doing: with every detection kept, the blob pulls the ball 25 mm off its path
    out = _rolling_past_a_faint_blob(replace(TrackerSettings(), min_confidence=0.0), 0.2)
    assert max(abs(out[i][0][1] - 900.0) for i in BLURRED) > 20.0
