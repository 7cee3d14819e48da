"""A ball leaves the table over a rail only by riding over the cushion: it must be seen running at the rail
faster than a cushion throws a ball back (``climb_speed_mm_s``), over its last two steps. Each record
(tests/data/leaving: one real clip's detections of the balls concerned, in table mm through that clip's
calibration) is something else that vanished beyond a rail line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.table import TableModel, TableSpec
from tracking.tracker import Loss, Tracker

DATA = Path(__file__).resolve().parent.parent / "data" / "leaving"


def _losses(name: str, shot_from_t: float) -> list[Loss]:
    """Every loss the tracker decides on the record ``name`` (a shot in play from ``shot_from_t`` on), the end of
    the stream included."""
    d = json.loads((DATA / name).read_text(encoding="utf-8"))
    (length, width), (corner, middle) = d["table_mm"], d["mouths_mm"]
    spec = TableSpec(length_mm=length, width_mm=width, ball_diameter_mm=d["ball_mm"], corner_mouth_mm=corner,
                     middle_mouth_mm=middle)  # fmt: skip
    table = TableModel(spec)
    tracker = Tracker(table)
    losses: list[Loss] = []
    t = 0.0
    for f in d["frames"]:
        t = float(f["t"])
        pos = np.array(f["pos_mm"], dtype=float).reshape(-1, 2)
        step = tracker.step(
            int(f["frame"]), t, pos, np.array(f["confidence"], dtype=float), shot_active=t >= shot_from_t,
            may_start=np.array(f["may_start"], dtype=bool),
        )  # fmt: skip
        losses += step.losses
    return losses + list(tracker.finish(t + 0.04))


def test_a_ball_rolling_along_a_rail_drawn_short_into_the_corner_is_potted_there() -> None:
    # ~1 m/s along the long rail: it cannot ride over the end rail, so vanishing beside the corner's mouth as
    # drawn, it went into that pocket
    losses = _losses("corner-run-rail-drawn-short.json", shot_from_t=0.0)
    assert [(x.kind, x.pocket) for x in losses] == [("pot", "house-left")]


@pytest.mark.parametrize(
    ("record", "shot_from_t"),
    [
        ("watch-over-side-rail.json", 0.44),  # carried out at 0.3 m/s: a hand, not a ball jumping off
        ("blob-takes-resting-ball.json", 10.0),  # one 10 m/s step from a standstill: a detection taken over
        ("resting-ball-jumps-to-a-blob.json", 0.44),  # one 8.8 m/s step back to where a ball rests
    ],
)
def test_nothing_leaves_the_table_without_running_at_a_rail_fast_enough_to_climb_it(
    record: str, shot_from_t: float
) -> None:
    assert [x.kind for x in _losses(record, shot_from_t)] == []


@pytest.mark.parametrize(("fps", "speed"), [(25.0, 2000.0), (25.0, 6000.0), (60.0, 2000.0)])
def test_a_ball_running_hard_at_a_rail_and_gone_past_it_left_the_table(fps: float, speed: float) -> None:
    # a pool table as analyze makes it; the ball runs across it at the side rail y = width, 500 mm from the middle
    # pocket, and is seen while its centre is on the playing surface
    spec = TableSpec(length_mm=2540.0, width_mm=1270.0, ball_diameter_mm=57.15, corner_mouth_mm=114.3,
                     middle_mouth_mm=128.5875)  # fmt: skip
    table = TableModel(spec)
    start = np.array([770.0, 400.0])
    tracker = Tracker(table, known_ids={"5": (770.0, 400.0)})
    losses: list[Loss] = []
    for i in range(int(2.0 * fps)):
        t = i / fps
        p = start + np.array([0.0, speed]) * max(t - 0.5, 0.0)
        pos = np.array([p]) if p[1] <= table.width_mm else np.zeros((0, 2))
        losses += tracker.step(i, t, pos, shot_active=t >= 0.5).losses
    assert [(x.id, x.kind) for x in losses] == [("5", "off_table")]
