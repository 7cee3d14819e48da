"""A lost ball found again on its rolling course, though the detector finds it in only some frames (issue 34
item 4: "a lost ball ... gets its track back"): a dark ball's faint, blurred rim shows in a frame here and there,
and its run of weak sightings is picked up again where its course leads across the frames that miss it. A weak
blob swaying back and forth, seen as sparsely, is on no ball's course and takes no hidden ball's id."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.table import TableModel, TableSpec
from tracking.tracker import Tracker

POOL = TableSpec(length_mm=2540, width_mm=1270, ball_diameter_mm=57.15, corner_mouth_mm=114.3, middle_mouth_mm=128.6)
FPS = 30.0
BALL = np.array([600.0, 400.0])  # a clear ball at rest all along
DARK = np.array([1000.0, 600.0])  # a dark ball, clear enough at rest as the video opens, then hidden


def _seen(i: int) -> bool:
    """The weak blob's frames: three in ten, gaps of up to five frames."""
    return i % 10 in (0, 1, 5)


def _run(path) -> tuple[Tracker, list, str]:
    """The dark ball at rest for a second, hidden for a second, then ``path(t)`` (from t = 2 s) seen weakly
    in ``_seen`` frames; the tracker, its frames from 2 s on, and the dark ball's id."""
    tracker = Tracker(TableModel(POOL))
    frames, dark = [], None
    for i in range(int(4.0 * FPS)):
        t = i / FPS
        pos, conf = [BALL], [0.9]
        if t < 1.0:
            pos.append(DARK)
            conf.append(0.6)
        elif t >= 2.0 and _seen(i):
            pos.append(path(t - 2.0))
            conf.append(0.38)
        f = tracker.step(i, t, np.array(pos), np.array(conf), np.zeros(len(pos), bool))
        if i == int(0.9 * FPS):
            dark = next(b.id for b in f.balls if math.hypot(*(np.array(b.pos) - DARK)) < 5.0)
        if t >= 2.0:
            frames.append((t, f))
    assert dark is not None
    return tracker, frames, dark


def _rolling(s: float) -> np.ndarray:
    """Rolling away from the dark ball's place, from 400 mm/s, slowed by rolling resistance (0.02 g), still
    rolling as the record ends."""
    v0, a = 400.0, 196.0
    s = min(s, v0 / a)
    d = v0 * s - 0.5 * a * s * s
    return DARK + np.array([200.0 + d, 50.0 + 0.3 * d])


@pytest.mark.xfail(
    strict=True,
    reason=(
        "open (issue 34 item 4): a lost ball's run is forgotten after two missed frames; keeping it "
        "across the detector's gaps (8e57f43) gained tuning and left held-out unmoved, so it was "
        "reverted"
    ),
)
def test_a_lost_ball_seen_in_three_frames_of_ten_on_its_course_gets_its_id_back() -> None:
    _, frames, dark = _run(_rolling)
    t_end, last = frames[-1]
    where = _rolling(t_end - 2.0)
    mine = [b for b in last.balls if b.id == dark]
    assert mine, "the dark ball keeps its id"
    assert math.hypot(*(np.array(mine[0].pos) - where)) < POOL.ball_diameter_mm / 2, "found where it rolled to"


def test_a_blob_swaying_as_sparsely_takes_no_hidden_ball_id() -> None:
    # A hand over the cloth, 150 mm either way along a line twice a second, seen as sparsely and as weakly.
    centre = DARK + np.array([300.0, 100.0])
    _, frames, dark = _run(lambda s: centre + np.array([150.0 * math.sin(math.pi * s), 0.0]))
    for t, f in frames:
        mine = [b for b in f.balls if b.id == dark]
        assert mine and math.hypot(*(np.array(mine[0].pos) - DARK)) < 5.0, f"t={t:.2f}: the hidden ball stays put"
