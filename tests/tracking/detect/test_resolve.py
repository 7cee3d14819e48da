"""The resolver's one rule (tracking.detect.resolve.same_touch): a candidate of the same ball (a cushion touch)
or pair (a contact) within its reading's window of a touch already given out is that touch; two balls not seen
apart since they touched touch once; a kink is never merged away."""

from __future__ import annotations

from calibration.contract import Event
from tests.tracking.detect.scenes import FPS, Leg, frames, path, run
from tracking.detect import resolve
from tracking.detect.candidate import Candidate

DT = 1 / FPS


def _fed(balls=None):
    """An extractor fed two resting balls frozen together (centres one diameter apart) for a second."""
    balls = balls or {"1": path(Leg(0.0, (900.0, 600.0))), "2": path(Leg(0.0, (968.0, 600.0)))}
    ex, _ = run(frames(balls, 1.0))
    return ex


def _cushion(t: float, evidence: str = "graze", t_seen: float | None = None) -> Candidate:
    return Candidate("cushion", ("1",), "house", t, (51.6, 600.0), 0.4, evidence, 0.6, t_seen=t_seen)  # type: ignore[arg-type]


def _contact(a: str, b: str, t: float, evidence: str = "hit") -> Candidate:
    return Candidate("contact", (a, b), None, t, (934.0, 600.0), 1.0, evidence, 0.95)  # type: ignore[arg-type]


def test_a_second_reading_of_a_cushion_touch_within_its_window_is_merged() -> None:
    ex, out = _fed(), list[Event]()
    assert resolve.give(ex, _cushion(0.5, "kink"), out)
    # a graze reads a touch to four frames: its lowest sample two frames off is this touch, five frames off another
    assert not resolve.give(ex, _cushion(0.55, "graze", t_seen=0.5 + 2 * DT), out)
    assert resolve.give(ex, _cushion(0.6, "graze", t_seen=0.5 + 5 * DT), out)
    # a kink is timed on the paths either side of the bend: never merged away
    assert resolve.give(ex, _cushion(0.5 + DT, "kink"), out)
    assert [e.type for e in out] == ["cushion"] * 3
    assert [e.t for e in out] == [0.5, 0.6, round(0.5 + DT, 6)]


def test_the_same_pair_either_way_round_within_the_window_is_one_contact() -> None:
    ex, out = _fed({"1": path(Leg(0.0, (900.0, 600.0))), "2": path(Leg(0.0, (1300.0, 600.0)))}), list[Event]()
    assert resolve.give(ex, _contact("1", "2", 0.5), out)
    assert not resolve.give(ex, _contact("2", "1", 0.5 + 2 * DT), out)
    assert not resolve.give(ex, _contact("1", "1", 0.7), out)  # a ball does not touch itself
    # seen 332 mm apart in between: a new touch
    assert resolve.give(ex, _contact("1", "2", 0.8), out)
    assert [e.balls for e in out] == [("1", "2"), ("1", "2")]


def test_balls_not_seen_apart_since_they_touched_touch_once() -> None:
    ex, out = _fed(), list[Event]()
    assert resolve.give(ex, _contact("1", "2", 0.2), out)
    # frozen together all along (centres a diameter apart in every frame): the same touch, however much later
    assert not resolve.give(ex, _contact("1", "2", 0.8), out)
    assert len(out) == 1


def test_a_push_through_a_cluster_is_not_repeated_within_the_chain_window() -> None:
    ex, out = _fed({"1": path(Leg(0.0, (900.0, 600.0))), "2": path(Leg(0.0, (1300.0, 600.0)))}), list[Event]()
    assert resolve.give(ex, _contact("1", "2", 0.5, "chain"), out)
    late = 0.5 + 0.8 * ex.s.contacts.chain_repeat_s  # past the 2.5-frame window of a hit, within the chain's
    assert late - 0.5 > 2.5 * DT
    assert not resolve.give(ex, _contact("1", "2", late, "chain"), out)


def test_a_ball_set_off_just_after_its_touch_was_given_out_is_already_explained() -> None:
    ex, out = _fed({"1": path(Leg(0.0, (900.0, 600.0))), "2": path(Leg(0.0, (1300.0, 600.0)))}), list[Event]()
    assert resolve.give(ex, _contact("1", "2", 0.5), out)
    # the touch, timed on the hitter's path, from three frames before the start to one after (two for a creep)
    assert resolve.set_off_explained(ex, "2", 0.5 + 2.5 * DT, crept=False)
    assert resolve.set_off_explained(ex, "2", 0.5 - 0.5 * DT, crept=False)
    assert not resolve.set_off_explained(ex, "2", 0.5 - 1.5 * DT, crept=False)
    assert resolve.set_off_explained(ex, "2", 0.5 - 1.5 * DT, crept=True)
    assert not resolve.set_off_explained(ex, "2", 0.5 + 3.5 * DT, crept=False)


def test_events_that_are_no_touch_are_never_merged() -> None:
    ex, out = _fed(), list[Event]()
    cross = Candidate("line_cross", ("1",), "house", 0.5, None, 5.0, "crossing", 0.95, direction="+x")
    assert resolve.give(ex, cross, out)
    assert resolve.give(ex, cross, out)
    hand = Candidate("disturbed", ("1",), None, 0.6, (900.0, 600.0), 0.0, "hand_push", 0.6)
    assert resolve.give(ex, hand, out)
    assert [(e.type, e.line, e.direction, e.shot) for e in out[:2]] == [("line_cross", "house", "+x", None)] * 2
    assert (out[2].type, out[2].ball, out[2].shot, out[2].confidence) == ("disturbed", "1", None, 0.6)
