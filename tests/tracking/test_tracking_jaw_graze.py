"""A slow ball that touches a corner pocket's jaw and rolls away without a visible bend: a V of its distance to
the jaw's surface, as a graze of a cushion is a V of its distance to the nose line.

frame-short-s0's ball 3 (its detections alone), set off by the break, rolls at 0.2 m/s into the pyramid-right
pocket's jaw at 3.7897 s; the bend is under the detection noise, so no kink is seen and nothing found the touch.
"""

from __future__ import annotations

import pytest

import tracking.extractor as extractor
from tests.replay_support import replay, settings_with

FIXTURE = "jaw-graze-60fps-frame-short-s0.json"


def _jaw_touches(events: list) -> list:
    return [e for e in events if e.type == "cushion" and e.ball == "3" and e.cushion == "jaw:pyramid-right"]


def test_a_slow_jaw_touch_is_the_bottom_of_a_v() -> None:
    d, events = replay(FIXTURE)
    found = _jaw_touches(events)
    assert len(found) == 1
    assert abs((found[0].t or 0.0) - d["truth_touch_t"]) <= 0.5 / 60
    # the cushion touches either side are found as before, none of them taken for the jaw's
    assert [e.cushion for e in events if e.type == "cushion"] == ["pyramid", "pyramid", "jaw:pyramid-right", "pyramid"]


def test_without_jaw_grazes_the_touch_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extractor.ExtractorSettings, "__init__", settings_with(jaw_graze_reach_mm=0.0))
    _, events = replay(FIXTURE)
    assert _jaw_touches(events) == []
