"""A slow ball that comes to a cushion and rolls on along it touched it when it came.

Its distance to the nose line is an L, not a V: it falls steeply from well off the cushion to touching, and
stays there (noise gives its flat after-side a rise); a ball coming that fast cannot stop short of the cushion,
so it touched it (the steep-fall rule). frame-s4's ball 14 comes to the right-pyramid cushion at 0.2 m/s at
2.9477 s and rolls on against it (the truth's touch; its touches of that cushion while it rolls along it do
not count).
"""

from __future__ import annotations

import pytest

import tracking.extractor as extractor
from tests.replay_support import replay, settings_with

FIXTURE = "arrive-60fps-frame-s4.json"


def _arrivals(events: list, t: float) -> list:
    return [
        e
        for e in events
        if e.type == "cushion" and e.ball == "14" and e.cushion == "right-pyramid" and abs((e.t or 0.0) - t) < 0.2
    ]


def test_a_ball_that_came_to_a_cushion_and_rolls_along_it_touched_it() -> None:
    d, events = replay(FIXTURE)
    found = _arrivals(events, d["truth_touch_t"])
    assert len(found) == 1
    assert abs((found[0].t or 0.0) - d["truth_touch_t"]) <= 0.5 / 60


def test_without_the_steep_fall_rule_the_arrival_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extractor.ExtractorSettings, "__init__", settings_with(steep_fall_mm_s=1e3))
    d, events = replay(FIXTURE)
    assert _arrivals(events, d["truth_touch_t"]) == []


def test_a_shot_ends_no_sooner_than_its_last_event() -> None:
    # cluster-random-s0 at 30 fps: ball 1 rolled into a cushion and stopped; the touch, timed at the corner of its
    # approach and its rest, came 1 ms after the time the ball was found to stop, which ended the shot, and the
    # referee refused the touch as an event outside a shot.
    from calibration.table import TableModel
    from tracking.detect import shots
    from tracking.extractor import EventExtractor

    ex = EventExtractor(TableModel())
    ex.shot, ex.shot_active, ex.shot_last_t = 0, True, 10.7407  # the ball's stop
    touch = ex.record_event("cushion", 10.7417, ball="1", cushion="right-pyramid", pos=(3500.0, 1744.0))
    end = ex.event_of(shots.shot_end(ex.shot_last_t, {}))
    assert touch.shot == end.shot == 0
    assert (end.t or 0.0) >= (touch.t or 0.0)
