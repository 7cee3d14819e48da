"""A resting ball seen again more than a radius from its place (``Tracker._bring_back``): set rolling where its
first step went unmatched, on a record from a rendered suite
(``tests/data/tracking/struck-cue-first-step-unmatched.json``): the struck cue ball's first blurred frame,
judged no ball's look, leaves it hidden for a frame, and the next brings it back 46 mm on. It was struck, not
moved by a hand while hidden: no ``disturbed`` event (the referee calls that a foul)."""

from __future__ import annotations

import numpy as np

from api.pipeline import Pipeline

from . import real_records

RECORD = "struck-cue-first-step-unmatched.json"


def _run() -> tuple[list, list]:
    doc, table, frames = real_records.load(RECORD)
    pipe = Pipeline(table=table, known_ids={k: (v[0], v[1]) for k, v in doc["known_ids"].items()})
    back = []
    for i, (t, d) in enumerate(frames):
        pipe.step_detections(d, i, t)
        assert pipe.last is not None
        back += pipe.last.reappeared
    pipe.finish()
    return back, pipe.sorted_events()


def test_the_record_shows_the_cue_ball_hidden_for_its_first_step() -> None:
    # the case the rule is for: the stroke's first frame unmatched, then the ball 46 mm from its place
    _, _, frames = real_records.load(RECORD)
    rest, first, second = (frames[k][1].pos_mm[1] for k in (59, 61, 62))
    assert 20.0 < float(np.hypot(*(first - rest))) < 34.0 < float(np.hypot(*(second - rest)))


def test_a_ball_set_rolling_with_its_first_step_unseen_was_not_moved_unseen() -> None:
    back, events = _run()
    assert back == []
    assert not [e for e in events if e.type == "disturbed"]
    start = next(e for e in events if e.type == "shot_start")
    assert start.ball == "cue" and abs((start.t or 0.0) - 1.0) < 1 / 60
