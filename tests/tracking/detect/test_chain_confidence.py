"""A push through a frozen cluster: its contacts are as sure as the push passes along each pair's line of centres."""

from __future__ import annotations

from tests.tracking.detect.scenes import TABLE, Leg, frames, path, run
from tracking.detect.candidate import Candidate
from tracking.detect.settings import ExtractorSettings

D = TABLE.ball_diameter_mm


def test_a_pair_across_the_push_is_flagged_and_one_along_it_is_not(candidates: list[Candidate]) -> None:
    # the cue ball struck along +x into ball 1, frozen to ball 2 in line behind it and to ball 3 beside it: the
    # push passes on to 2 (which runs off), not to 3
    t_hit = 0.5 + (1300.0 - D - 900.0) / 1000.0
    back = Leg(t_hit, (1300.0 - D, 600.0), (-200.0, 0.0))  # the cue ball comes back off the cluster, then stops
    cue = path(
        Leg(0.0, (900.0, 600.0)), Leg(0.5, (900.0, 600.0), (1000.0, 0.0)), back, Leg(t_hit + 1, (1100.0 - D, 600.0))
    )
    one = path(Leg(0.0, (1300.0, 600.0)))
    two = path(
        Leg(0.0, (1300.0 + D, 600.0)), Leg(t_hit, (1300.0 + D, 600.0), (1000.0, 0.0)), Leg(t_hit + 0.6, (2000.0, 600.0))
    )
    three = path(Leg(0.0, (1300.0, 600.0 + D)))
    run(frames({"cue": cue, "1": one, "2": two, "3": three}, 2.5))
    chain = {frozenset(c.balls): c.confidence for c in candidates if c.evidence == "chain"}
    review = ExtractorSettings().review_below
    assert chain[frozenset(("1", "3"))] < review
    assert chain[frozenset(("1", "2"))] >= review
