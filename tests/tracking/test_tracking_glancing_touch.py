"""Glancing cushion touches: a V of the distance to the nose line whose far side rises slowly, and the touch of
a jaw's rounded tip named by where the centre was at the touch.

frame-short-s4: the cue ball comes to the house cushion 65 mm/s across it and draws away at 11 mm/s, slower than
the 15 mm/s that tells a bounce from noise. A ball coming at a cushion that fast cannot stop short of it, so the
steep fall with any rise is a touch (``steep_fall_mm_s``).

cluster-frame-s0: ball 15 grazes the middle-right pocket's jaw with its centre 3.4 mm past the right-house
cushion's flat nose (the truth's touch). Its lowest sample comes half a frame after the touch, 0.2 mm past the
flat nose only: named from that sample, the touch was the cushion's.
"""

from __future__ import annotations

import json

import pytest

import tracking.extractor as extractor
from tests.replay_support import DATA, TABLE, replay, settings_with

STEEP = "steep-fall-60fps-frame-short-s4.json"
TIP = "tip-graze-60fps-cluster-frame-s0.json"


def _touches(events: list, ball: str, t: float) -> list:
    return [e for e in events if e.type == "cushion" and e.ball == ball and abs((e.t or 0.0) - t) < 0.2]


def test_a_steep_approach_that_turns_away_slowly_touched_the_cushion() -> None:
    d, events = replay(STEEP)
    found = _touches(events, "cue", d["truth_touch_t"])
    assert [e.cushion for e in found] == ["house"]
    assert abs((found[0].t or 0.0) - d["truth_touch_t"]) <= 1 / 60


def test_without_the_steep_rule_the_slow_rise_reads_as_rolling_along(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extractor.ExtractorSettings, "__init__", settings_with(steep_fall_mm_s=1000.0))
    d, events = replay(STEEP)
    assert _touches(events, "cue", d["truth_touch_t"]) == []


def test_a_graze_past_the_flat_nose_at_the_touch_is_the_jaw_tips() -> None:
    d, events = replay(TIP)
    found = _touches(events, "15", d["truth_touch_t"])
    assert [e.cushion for e in found] == ["jaw:middle-right"]
    assert abs((found[0].t or 0.0) - d["truth_touch_t"]) <= 0.5 / 60


def test_the_lowest_sample_alone_lies_within_the_flat_nose() -> None:
    # the control: the sample nearest the cushion would have named the cushion, not the jaw
    d = json.loads((DATA / TIP).read_text(encoding="utf-8"))
    cu = TABLE.cushions["right-house"]
    near = [
        (cu.offset(tuple(p)), p) for f in d["frames"] if abs(f["t"] - d["truth_touch_t"]) < 3 / 60 for p in f["pos_mm"]
    ]
    _, lowest = min(near)
    flat_lo, flat_hi = TABLE.cushion_flats["right-house"]
    al = cu.along(tuple(lowest))
    assert flat_lo <= al <= flat_hi + extractor.ExtractorSettings().cushions.tip_past_mm
