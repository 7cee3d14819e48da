"""A touch only pushes: a ball whose path bends toward another ball did not touch it. The cue ball that jumps
over a resting ball comes down beyond it, its blurred path bent toward it and sped up (seen from above, a ball
in the air is read off its place on the cloth); the first ball it really hits is the first contact."""

from __future__ import annotations

from .real_records import nearest, run

CUE_PLACE = (2000.0, 130.0)
EIGHT_PLACE = (1591.0, 143.0)
TWO_PLACE = (775.0, 177.0)


def test_the_cue_ball_jumping_over_the_eight_first_hits_the_two() -> None:
    _, events = run("real-cue-ball-jumps-over-a-ball.json")
    starts = [e for e in events if e.type == "shot_start"]
    assert len(starts) == 1
    rests = starts[0].positions or {}
    cue, eight, two = (nearest(rests, p) for p in (CUE_PLACE, EIGHT_PLACE, TWO_PLACE))
    assert len({cue, eight, two}) == 3
    assert starts[0].ball == cue and 21 <= (starts[0].frame or 0) <= 25
    hits = sorted((e for e in events if e.type == "contact"), key=lambda e: e.t or 0.0)
    assert not [e for e in hits if eight in (e.balls or ())]  # flown over, never touched
    assert hits and set(hits[0].balls or ()) == {cue, two} and 33 <= (hits[0].frame or 0) <= 36
