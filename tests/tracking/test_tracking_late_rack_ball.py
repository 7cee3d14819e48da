"""A ball inside a rack shows so little rim that the detector finds it in only some of the opening frames (issue
34 item 4: "every confident ball at rest has a track, a frozen rack included, any gaps"): frozen among two
others at one diameter as the video opens, it is a ball at once, whichever opening frame first shows it, and
keeps its place through the frames that miss it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.table import TableModel, TableSpec
from tracking.tracker import Tracker

POOL = TableSpec(length_mm=2540, width_mm=1270, ball_diameter_mm=57.15, corner_mouth_mm=114.3, middle_mouth_mm=128.6)
FPS = 25.0


def _rack() -> np.ndarray:
    """Four balls frozen in a diamond: the last touches the first two."""
    d = POOL.ball_diameter_mm
    h = d * math.sqrt(3.0) / 2.0
    return np.array([1800.0, 635.0]) + np.array([[0.0, 0.0], [d, 0.0], [d / 2, h], [d / 2, -h]])


def _step(tracker: Tracker, i: int, balls: np.ndarray, seen: list[int], conf: list[float]):
    return tracker.step(i, i / FPS, balls[seen], np.array(conf), np.zeros(len(seen), bool))


def _at(frame, p: np.ndarray) -> list[str]:
    return [b.id for b in frame.balls if math.hypot(b.pos[0] - p[0], b.pos[1] - p[1]) < 5.0]


@pytest.mark.xfail(
    strict=True,
    reason=(
        "open (issue 34 item 4): a packed rack ball first seen after the first frame waits for "
        "confirmation; the rule that fixed it (df80251) gained tuning and left held-out unmoved, so it "
        "was reverted"
    ),
)
def test_a_rack_ball_first_seen_in_the_second_frame_is_a_ball_at_once() -> None:
    # The fourth ball's detection (0.64: a packed ball's rim) shows in frames 1 and 5 only; the other three are
    # clear in every frame but the second one's, which drops out in frame 5, where the fourth's shows again.
    rack = _rack()
    tracker = Tracker(TableModel(POOL))
    _step(tracker, 0, rack, [0, 1, 2], [0.9, 0.9, 0.9])
    f1 = _step(tracker, 1, rack, [0, 1, 2, 3], [0.9, 0.9, 0.9, 0.64])
    assert len(_at(f1, rack[3])) == 1, "frozen among two balls as the video opens, it is a ball at once"
    name = _at(f1, rack[3])[0]
    for i in (2, 3, 4):
        f = _step(tracker, i, rack, [0, 1, 2], [0.9, 0.9, 0.9])
        assert _at(f, rack[3]) == [name], f"frame {i}: the rack ball keeps its place while the detector misses it"
    second = _at(f, rack[1])
    f5 = _step(tracker, 5, rack, [0, 2, 3], [0.9, 0.9, 0.64])
    assert _at(f5, rack[3]) == [name], "its own detection comes back to it"
    assert _at(f5, rack[1]) == second, "the neighbour whose detection dropped out stays where it rests"


def test_a_packing_once_a_shot_is_under_way_proves_nothing() -> None:
    # The same weak blob frozen against two balls, but in a shot (the extractor's shot_active): balls meet and
    # part anywhere then, and a blob seen once beside them waits for its second sighting like any other.
    rack = _rack()
    tracker = Tracker(TableModel(POOL))
    tracker.step(0, 0.0, rack[:3], np.array([0.9, 0.9, 0.9]), np.zeros(3, bool))
    f1 = tracker.step(1, 1 / FPS, rack, np.array([0.9, 0.9, 0.9, 0.64]), np.zeros(4, bool), shot_active=True)
    assert _at(f1, rack[3]) == [], "in a shot a packed blob is not a ball on one sighting"
