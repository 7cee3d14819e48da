"""The resolver's one rule (tracking.detect.resolve.same_touch) as a pure function of hand-built records: a
candidate of the same ball (a cushion touch) or pair (a contact) within its reading's window of a touch already
given out is that touch; two balls not seen apart since they touched touch once; a kink is never merged away."""

from __future__ import annotations

import numpy as np

from calibration.contract import Event
from calibration.table import TableModel
from tests.tracking.detect.scenes import FPS, Leg, frames, path, run
from tracking.detect import resolve
from tracking.detect.candidate import Candidate
from tracking.detect.resolve import Given
from tracking.detect.segments import PairTrack
from tracking.detect.settings import ContactSettings

DT = 1 / FPS
S = ContactSettings()
D = TableModel().ball_diameter_mm


def _cushion(t: float, evidence: str = "graze", t_seen: float | None = None, obstacle: str = "house") -> Candidate:
    return Candidate("cushion", ("1",), obstacle, t, (51.6, 600.0), 0.4, evidence, 0.6, t_seen=t_seen)  # type: ignore[arg-type]


def _contact(a: str, b: str, t: float, evidence: str = "hit") -> Candidate:
    return Candidate("contact", (a, b), None, t, (934.0, 600.0), 1.0, evidence, 0.95)  # type: ignore[arg-type]


def _given(contacts=(), cushions=(), decision: int = 1) -> Given:
    return Given(tuple((frozenset(k), t) for k, t in contacts), tuple(cushions), decision)


def _same(c: Candidate, given: Given, since: PairTrack | None = None) -> bool:
    return resolve.same_touch(c, given, since, S, D, DT)


def _pair(gaps_mm: list[float]) -> PairTrack:
    """Balls 1 and 2 in consecutive frames, their centres a diameter plus ``gaps_mm`` apart."""
    n = len(gaps_mm)
    a = np.tile([900.0, 600.0], (n, 1))
    b = a + np.stack([D + np.array(gaps_mm), np.zeros(n)], axis=1)
    return PairTrack("1", "2", np.arange(n, dtype=np.int64), a, b)


def test_a_second_reading_of_a_cushion_touch_within_its_window_is_merged() -> None:
    given = _given(cushions=[("1", 0.5, "house", 1)])
    # a graze reads a touch to four frames: its lowest sample two frames off is this touch, five frames off another
    assert _same(_cushion(0.55, "graze", t_seen=0.5 + 2 * DT), given)
    assert not _same(_cushion(0.6, "graze", t_seen=0.5 + 5 * DT), given)
    # whichever cushion: one ball touches one thing at a time
    assert _same(_cushion(0.5 + DT, "graze", obstacle="left-house"), given)
    # another ball's touch is not this one
    other = Candidate("cushion", ("2",), "house", 0.5, (51.6, 600.0), 0.4, "graze", 0.6)
    assert not _same(other, given)
    # a kink is timed on the paths either side of the bend: never merged away
    assert not _same(_cushion(0.5, "kink"), given)


def test_a_potted_balls_jaw_touch_is_merged_only_with_that_jaw_in_the_same_decision() -> None:
    jaw = Candidate("cushion", ("1",), "house-left-jaw", 0.5, (60.0, 60.0), 0.0, "jaw_touch", 0.9)
    assert _same(jaw, _given(cushions=[("1", 0.4, "house-left-jaw", 3)], decision=3))
    assert not _same(jaw, _given(cushions=[("1", 0.5, "house-left-jaw", 2)], decision=3))
    assert not _same(jaw, _given(cushions=[("1", 0.5, "house", 3)], decision=3))


def test_the_same_pair_either_way_round_within_the_window_is_one_contact() -> None:
    given = _given(contacts=[(("1", "2"), 0.5)])
    assert _same(_contact("2", "1", 0.5 + 2 * DT), given)
    assert not _same(_contact("2", "1", 0.5 + 3 * DT), given, _pair([200.0, 250.0]))
    assert _same(_contact("1", "1", 0.7), _given())  # a ball does not touch itself
    assert not _same(_contact("1", "3", 0.5), given)
    # a kiss is timed at its closest frame, up to three and a half frames off the touch
    assert _same(_contact("1", "2", 0.5 + 3.4 * DT, "kiss"), given)


def test_balls_not_seen_apart_since_they_touched_touch_once() -> None:
    given = _given(contacts=[(("1", "2"), 0.2)])
    # frozen together all along (centres a diameter apart in every frame, within parted_mm): the same touch,
    # however much later
    assert _same(_contact("1", "2", 0.8), given, _pair([0.5, 1.0, 2.0, 0.3]))
    # seen apart by more than parted_mm in one frame between: a new touch
    assert not _same(_contact("1", "2", 0.8), given, _pair([0.5, S.parted_mm + 0.5, 0.3]))
    # seen together in fewer than two frames: not known to have stayed together
    assert not _same(_contact("1", "2", 0.8), given, _pair([0.5]))
    # no touch before this one: nothing to have stayed together since
    assert not _same(_contact("1", "2", 0.8), _given(contacts=[(("1", "2"), 0.9)]), _pair([0.5, 0.5]))


def test_a_push_through_a_cluster_is_not_repeated_within_the_chain_window() -> None:
    given = _given(contacts=[(("1", "2"), 0.5)])
    late = 0.5 + 0.8 * S.chain_repeat_s  # past the 2.5-frame window of a hit, within the chain's
    assert late - 0.5 > 2.5 * DT
    apart = _pair([100.0, 100.0])
    assert _same(_contact("1", "2", late, "chain"), given, apart)
    assert not _same(_contact("1", "2", late, "hit"), given, apart)
    assert not _same(_contact("1", "2", 0.5 + 1.2 * S.chain_repeat_s, "chain"), given, apart)


def test_a_ball_set_off_just_after_its_touch_was_given_out_is_already_explained() -> None:
    # the touch, timed on the hitter's path, from three frames before the start to one after (two for a creep)
    assert resolve.set_off_explained(0.5, 0.5 + 2.5 * DT, False, DT)
    assert resolve.set_off_explained(0.5, 0.5 - 0.5 * DT, False, DT)
    assert not resolve.set_off_explained(0.5, 0.5 - 1.5 * DT, False, DT)
    assert resolve.set_off_explained(0.5, 0.5 - 1.5 * DT, True, DT)
    assert not resolve.set_off_explained(0.5, 0.5 + 3.5 * DT, False, DT)
    assert not resolve.set_off_explained(None, 0.5, False, DT)


def test_the_latest_contact_of_a_ball_in_a_span() -> None:
    given = [(frozenset(("1", "2")), 0.3), (frozenset(("3", "1")), 0.4), (frozenset(("2", "3")), 0.45)]
    assert resolve.contact_between(given, "1", 0.2, 0.5) == ("3", 0.4)
    assert resolve.contact_between(given, "1", 0.2, 0.35) == ("2", 0.3)
    assert resolve.contact_between(given, "1", 0.41, 0.5) is None


def test_the_resolver_records_what_it_gives_out_and_merges_the_rest() -> None:
    balls = {"1": path(Leg(0.0, (900.0, 600.0))), "2": path(Leg(0.0, (968.0, 600.0)))}  # frozen together
    ex, _ = run(frames(balls, 1.0))
    out = list[Event]()
    assert ex.give(_contact("1", "2", 0.2), out)
    assert ex.contacts[-1] == (frozenset(("1", "2")), 0.2) and ex.balls["2"].last_event_t == 0.2
    # still frozen together in every frame since: the same touch
    assert not ex.give(_contact("1", "2", 0.8), out)
    assert ex.give(_cushion(0.5, "kink"), out)
    assert not ex.give(_cushion(0.55, "graze", t_seen=0.5 + 2 * DT), out)
    assert [e.type for e in out] == ["contact", "cushion"]


def test_events_that_are_no_touch_are_never_merged() -> None:
    ex, _ = run(frames({"1": path(Leg(0.0, (900.0, 600.0)))}, 1.0))
    out = list[Event]()
    cross = Candidate("line_cross", ("1",), "house", 0.5, None, 5.0, "crossing", 0.95, direction="+x")
    assert not _same(cross, _given())
    assert ex.give(cross, out)
    assert ex.give(cross, out)
    hand = Candidate("disturbed", ("1",), None, 0.6, (900.0, 600.0), 0.0, "hand_push", 0.6)
    assert ex.give(hand, out)
    assert [(e.type, e.line, e.direction, e.shot) for e in out[:2]] == [("line_cross", "house", "+x", None)] * 2
    assert (out[2].type, out[2].ball, out[2].shot, out[2].confidence) == ("disturbed", "1", None, 0.6)


def test_an_event_is_at_the_frame_nearest_its_time() -> None:
    times, numbers = [1.0, 1.0 + DT, 1.0 + 2 * DT], [60, 61, 62]
    assert resolve.nearest_frame(times, numbers, 1.0 + 0.4 * DT) == 60
    assert resolve.nearest_frame(times, numbers, 1.0 + 0.6 * DT) == 61
    assert resolve.nearest_frame(times, numbers, 1.0 + 1.5 * DT) == 61  # halfway: the earlier
    assert resolve.nearest_frame(times, numbers, 5.0) == 62
    assert resolve.nearest_frame([], [], 1.0) == 0


def test_an_event_less_sure_than_review_below_is_flagged_not_dropped() -> None:
    e = resolve.make_event("cushion", 1.23456789, 74, 0, 0.49, 0.5, ball="1", cushion="house", pos=(51.6, 600.0))
    assert (e.type, e.t, e.frame, e.shot, e.ball, e.review) == ("cushion", 1.234568, 74, 0, "1", True)
    assert not resolve.make_event("shot_end", 1.0, 60, 0, 0.5, 0.5, positions={}).review
    sure = resolve.make_event("contact", 1.0, 60, 0, 1.7, 0.5, balls=("1", "2"), pos=(934.0, 600.0))
    assert sure.confidence == 1.0 and not sure.review
