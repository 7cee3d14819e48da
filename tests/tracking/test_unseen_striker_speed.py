"""A ball that vanished from its place is the unseen striker of a ball set off later only if it could have
sent it off that fast: a ball hit by one of equal mass leaves no faster than the hitter arrives, and a rolling
ball arrives no faster than its mean speed over its run."""

from __future__ import annotations

from tracking.detect import contacts

from .real_records import nearest, run

CUE_PLACE = (1136.0, 1071.0)
SIX_PLACE = (75.0, 611.0)
TWO_PLACE = (1677.0, 622.0)


def test_fast_enough_wants_the_hitters_mean_speed_to_match_the_set_off() -> None:
    assert contacts.fast_enough(500.0, 0.2, 2000.0)  # 2.5 m/s on average, the hit ball leaves at 2 m/s
    assert not contacts.fast_enough(1150.0, 0.64, 4500.0)  # 1.8 m/s on average: no 4.5 m/s set-off


def test_a_weak_ball_gone_from_the_extractors_view_far_away_is_not_the_striker() -> None:
    _, events = run("real-weak-ball-far-from-the-stroke.json")
    starts = [e for e in events if e.type == "shot_start"]
    assert len(starts) == 1
    rests = starts[0].positions or {}
    cue, six, two = (nearest(rests, p) for p in (CUE_PLACE, SIX_PLACE, TWO_PLACE))
    assert starts[0].ball == cue and 21 <= (starts[0].frame or 0) <= 24
    hits = sorted((e for e in events if e.type == "contact"), key=lambda e: e.t or 0.0)
    assert not [e for e in hits if six in (e.balls or ())]
    assert hits and set(hits[0].balls or ()) == {cue, two} and 24 <= (hits[0].frame or 0) <= 26
