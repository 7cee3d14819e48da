"""A glancing touch of a cushion is timed at the corner of the V that the ball's distance to the nose line makes,
wherever its lowest sample fell.

A ball running almost along a cushion closes on it by half a millimetre a frame and, having touched it, draws
away more slowly still. With a millimetre of detection noise the lowest sample of that shallow V can come two
frames after the touch; a hinge whose corner had to lie within a sample of it timed the touch two frames late
(outside the one-frame tolerance: a missed touch and an extra one).
"""

from __future__ import annotations

import pytest

import tracking.extractor as extractor
from tests.replay_support import replay, settings_with

FIXTURE = "graze-60fps-cushion-first-s2.json"


def _touches(events: list) -> list:
    return [e for e in events if e.type == "cushion" and e.ball == "cue" and e.cushion == "left-pyramid"]


def test_a_shallow_graze_is_timed_at_the_corner_of_its_v() -> None:
    d, events = replay(FIXTURE)
    t = d["truth_graze_t"]
    graze = [e for e in _touches(events) if abs((e.t or 0.0) - t) < 0.1]
    assert len(graze) == 1
    assert abs((graze[0].t or 0.0) - t) <= 0.5 / 60


def test_a_corner_held_beside_the_lowest_sample_comes_late(monkeypatch: pytest.MonkeyPatch) -> None:
    # the same detections with the corner kept within a sample of the lowest: the touch comes two frames late
    monkeypatch.setattr(extractor.ExtractorSettings, "__init__", settings_with(hinge_reach=1))
    d, events = replay(FIXTURE)
    t = d["truth_graze_t"]
    graze = [e for e in _touches(events) if abs((e.t or 0.0) - t) < 0.1]
    assert len(graze) == 1
    assert (graze[0].t or 0.0) - t > 1.5 / 60
