"""A ball hit while hidden (merged into its hitter's blob) comes back on the path from its own place, even when
the video repeats the frame it is first seen in: its id is not given to a ball lost somewhere else."""

from __future__ import annotations

import numpy as np

from .real_records import nearest, run

GREEN_PLACE = (1625.0, 869.0)
CUE_PLACE = (2137.0, 503.0)


def test_the_green_seen_again_on_a_repeated_frame_keeps_its_id_and_its_contact() -> None:
    pipe, events = run("green-back-on-a-repeated-frame.json")
    rests = next(e.positions for e in events if e.type == "shot_start") or {}
    green, cue = nearest(rests, GREEN_PLACE), nearest(rests, CUE_PLACE)
    assert next(e.ball for e in events if e.type == "shot_start") == cue
    hit = [e for e in events if e.type == "contact"]
    assert hit and set(hit[0].balls or ()) == {cue, green} and 22 <= (hit[0].frame or 0) <= 27
    assert pipe.last is not None
    at = pipe.last.by_id()[green].pos  # rolled on from its place, not held there hidden
    assert float(np.hypot(at[0] - GREEN_PLACE[0], at[1] - GREEN_PLACE[1])) > 300.0
