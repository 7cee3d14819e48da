"""The extractor's public face: renaming balls moves every record kept under their ids."""

from __future__ import annotations

from calibration.contract import Event
from tests.tracking.detect.scenes import Leg, frames, path, run
from tracking.detect.candidate import Candidate


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
