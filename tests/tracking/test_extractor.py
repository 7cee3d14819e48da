"""The extractor's public face: renaming balls moves every record kept under their ids; the frame interval."""

from __future__ import annotations

import pytest

from calibration.contract import UNSTATED_FPS, Event
from tests.tracking.detect.scenes import TABLE, Leg, frames, path, run
from tracking.detect.candidate import Candidate
from tracking.extractor import EventExtractor
from tracking.tracker import TrackerFrame


def test_a_renamed_ball_keeps_its_segments_and_its_touches() -> None:
    ex, _ = run(frames({"1": path(Leg(0.0, (900.0, 600.0))), "2": path(Leg(0.0, (1300.0, 600.0)))}, 0.5))
    out: list[Event] = []
    ex.give(Candidate("contact", ("1", "2"), None, 0.3, (1100.0, 600.0), 0.0, "hit", 0.9), out)
    ex.give(Candidate("cushion", ("1",), "house", 0.3, (51.6, 600.0), 0.0, "kink", 0.9), out)
    seen = ex.balls["1"].ts[:]
    ex.rename({"1": "7", "2": "1"})
    assert set(ex.balls) == {"7", "1"} and ex.balls["7"].id == "7" and ex.balls["7"].ts == seen
    assert ex.contacts == [(frozenset(("7", "1")), 0.3)]
    assert [b for b, *_ in ex.cushion_times] == ["7"]
    assert ex.smoothed("7", ex.balls["7"].ts[-1]) == (900.0, 600.0)


def test_the_interval_starts_from_the_stream_and_follows_the_timestamps() -> None:
    stated, unstated = EventExtractor(TABLE, frame_dt=1 / 30), EventExtractor(TABLE)
    assert stated.dt == 1 / 30 and unstated.dt == 1 / UNSTATED_FPS
    for i in range(4):
        tf = TrackerFrame(i, i / 30, ())
        stated.update(tf)
        unstated.update(tf)
    # frames 1/30 s apart: the stated start is right from the first frame; the unstated one's running mean only
    # climbs toward it
    assert stated.dt == pytest.approx(1 / 30)
    assert 1 / UNSTATED_FPS < unstated.dt < 0.99 / 30
