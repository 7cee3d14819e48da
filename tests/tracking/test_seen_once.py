"""The ``new_ball`` gate (``tracking.gates``) counts only statistical gates drawn from a measured velocity: a
ball seen once has one as wide as a break's speed, which says nothing about which detection is which ball."""

from __future__ import annotations

from . import real_records


def test_the_cue_ball_seen_once_in_the_first_frame_keeps_its_detection_not_the_hand() -> None:
    # (hand-blob-before-the-stroke.json) In frame 0 every ball is seen once; in frame 1 the player's hand shows
    # a ball-like blob 250 mm from the cue ball. The orange solid, made public at once in the first moments
    # and seen once, has a gate wide enough to hold the cue ball's detection; that must not keep the cue ball's
    # own track off it (which then took the hand's blob, and with it the stroke and the hit on the orange).
    pipe, events = real_records.run("hand-blob-before-the-stroke.json")
    rests = next(e.positions for e in events if e.type == "shot_start") or {}
    cue, orange = real_records.nearest(rests, (806.0, 228.0)), real_records.nearest(rests, (588.0, 728.0))
    start = next(e for e in events if e.type == "shot_start")
    assert start.ball == cue and 6 <= (start.frame or 0) <= 8
    hit = [e for e in events if e.type == "contact"]
    assert hit and set(hit[0].balls or ()) == {cue, orange} and 13 <= (hit[0].frame or 0) <= 15
    assert pipe.last is not None
    blob = real_records.nearest({b.id: b.pos for b in pipe.last.balls}, (921.0, 5.0))
    assert blob != cue
