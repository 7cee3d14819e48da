"""The contact detectors as pure functions, fed hand-built records (no tracker, no extractor)."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import contacts
from tracking.detect.segments import (
    Approach,
    Kink,
    LastSeen,
    LeftRest,
    MovingSamples,
    Neighbour,
    PairTrack,
    RestingBall,
    RestSpell,
    SampleWindow,
    StrokeView,
)
from tracking.detect.settings import ContactSettings
from tracking.trajectory import PathFit, fit_path

S = ContactSettings()
D = TableModel().ball_diameter_mm


def _at(ball: str, x: float, y: float = 600.0) -> RestingBall:
    return RestingBall(ball, np.array([x, y]))


def test_a_hit_passes_through_every_touching_pair_of_a_frozen_cluster_outwards() -> None:
    # ball 1 hit, frozen to 2, which is frozen to 3 (1 mm apart); 4 is a diameter plus 20 mm from 3
    cluster = [
        _at("1", 1000.0),
        _at("3", 1000.0 + 2 * D + 2.0),
        _at("2", 1000.0 + D + 1.0),
        _at("4", 1000.0 + 3 * D + 22),
    ]
    got = contacts.chains(cluster, 1.5, D, S)
    assert [c.balls for c in got] == [("1", "2"), ("2", "3")]  # nearer the ball hit first: (pusher, pushed)
    assert all(c.kind == "contact" and c.evidence == "chain" and c.t == 1.5 for c in got)
    assert got[0].pos == (1000.0 + (D + 1.0) / 2, 600.0)


def test_a_ball_alone_or_moving_passes_nothing_on() -> None:
    assert contacts.chains([_at("1", 1000.0)], 1.5, D, S) == []
    assert contacts.chains([], 1.5, D, S) == []


def test_a_pair_beyond_the_frozen_tolerance_is_not_in_contact() -> None:
    apart = D + S.frozen_tol_mm + 0.5
    assert contacts.chains([_at("1", 1000.0), _at("2", 1000.0 + apart)], 1.5, D, S) == []


def test_the_push_on_a_ball_hit_is_along_the_line_of_centres_from_the_hitter() -> None:
    # the hitter rolls along +x at 1 m/s and meets the ball a little above its line: the push is from the hitter's
    # centre at the touch to the ball's, whatever way the hitter was rolling
    hitter = fit_path(
        np.array([0.9, 0.95, 1.0]), np.array([[900.0 - D, 580.0], [950.0 - D, 580.0], [1000.0 - D, 580.0]])
    )
    origin = np.array([1000.0 - D + D * np.cos(0.3), 580.0 + D * np.sin(0.3)])
    u = contacts.push_direction(hitter, origin, 1.0)
    assert u is not None and np.allclose(u, [np.cos(0.3), np.sin(0.3)], atol=1e-6)
    assert contacts.push_direction(None, origin, 1.0) is None  # the hitter's place then not known


def test_a_pair_off_the_push_reads_less_sure_than_one_along_it() -> None:
    # 2 straight ahead of 1, 3 at 60 degrees: the push passes on to both, half of it to 3
    c60 = RestingBall("3", np.array([1000.0 + D / 2, 600.0 + D * np.sqrt(3) / 2]))
    cluster = [_at("1", 1000.0), _at("2", 1000.0 + D), c60]
    got = {c.balls: c.confidence for c in contacts.chains(cluster, 1.5, D, S, np.array([1.0, 0.0]))}
    assert got[("1", "3")] < got[("1", "2")]
    # the push not known: nothing tells the pairs apart
    assert len({c.confidence for c in contacts.chains(cluster, 1.5, D, S)}) == 1


def test_a_pair_square_to_the_push_or_behind_it_is_not_in_contact() -> None:
    # 1 hit along +x: 3 beside it (square to the push) and 4 behind it are driven by nothing; 2 ahead is
    beside = RestingBall("3", np.array([1000.0, 600.0 + D]))
    cluster = [_at("1", 1000.0), _at("2", 1000.0 + D), beside, _at("4", 1000.0 - D)]
    pairs = {c.balls for c in contacts.chains(cluster, 1.5, D, S, np.array([1.0, 0.0]))}
    assert pairs == {("1", "2")}
    # a push a little off square into 3 presses on it (with a small share)
    tilted = np.array([np.cos(0.2), np.sin(0.2)])
    assert ("1", "3") in {c.balls for c in contacts.chains(cluster, 1.5, D, S, tilted)}
    # the push not known (a ball struck by the cue): every touching pair is read
    assert {c.balls for c in contacts.chains(cluster, 1.5, D, S)} == {("1", "2"), ("1", "3"), ("1", "4")}


def _pair(gaps: list[float]) -> PairTrack:
    a = np.tile([1000.0, 600.0], (len(gaps), 1))
    return PairTrack("1", "2", np.arange(len(gaps)), a, a + np.stack([D + np.array(gaps), 0 * a[:, 1]], axis=1))


def test_two_balls_part_once_seen_more_than_parted_mm_apart_in_a_frame_both_were_seen() -> None:
    assert not contacts.parted(_pair([0.2, S.parted_mm - 0.1, 0.5]), D, S)  # one pushing the other: together
    assert contacts.parted(_pair([0.2, S.parted_mm + 0.1, 0.5]), D, S)
    assert contacts.parted(_pair([0.2]), D, S)  # seen together once: not known to have stayed together


DT = 1 / 60


def _window(ball: str, xy: np.ndarray, moving: bool, unexplained: tuple[float, ...] = ()) -> SampleWindow:
    n = len(xy)
    ts = np.arange(n) * DT + 2.0
    return SampleWindow(ball, ts, xy, np.ones(n, bool), np.full(n, moving), unexplained)


def _passing(gap_mm: float, unexplained: tuple[float, ...] = ()) -> list[SampleWindow]:
    """Ball 2 rolls along +x at 1.5 m/s past ball 1 resting beside its line, centres ``gap_mm`` apart when
    level, at the window's fourth frame (12 frames before its end, as a kiss is judged)."""
    w = S.kiss_window
    i = np.arange(w)
    rolling = np.stack([1000.0 + 25.0 * (i - 3), np.full(w, 600.0)], axis=1)
    resting = np.tile([1000.0, 600.0 + gap_mm], (w, 1))
    return [_window("1", resting, False), _window("2", rolling, True, unexplained)]


def test_two_balls_whose_centres_come_a_diameter_apart_and_part_kissed() -> None:
    got = contacts.kisses(_passing(D + 0.3), DT, D, S)
    assert len(got) == 1
    c = got[0]
    assert c.balls == ("2", "1") and c.evidence == "kiss"  # the faster ball first
    assert abs(c.t - (2.0 + 3 * DT)) <= 0.5 * DT and c.t_seen == 2.0 + 3 * DT


def test_balls_a_centimetre_apart_at_their_closest_did_not_kiss() -> None:
    assert contacts.kisses(_passing(D + 10.0), DT, D, S) == []


def test_a_kiss_waits_for_an_unexplained_bend_near_it() -> None:
    assert contacts.kisses(_passing(D + 0.3, unexplained=(2.0 + 2 * DT,)), DT, D, S) == []


def test_two_balls_at_rest_side_by_side_never_kissed() -> None:
    w = S.kiss_window
    a = _window("1", np.tile([1000.0, 600.0], (w, 1)), False)
    b = _window("2", np.tile([1000.0 + D, 600.0], (w, 1)), False)
    assert contacts.kisses([a, b], DT, D, S) == []


HOLD = 0.25


def _rest(moved_mm: float) -> RestSpell:
    """Ball 1 resting at x = 1000 from before a stroke at 1 s, found ``moved_mm`` along +x from 2 s on."""
    ts = np.arange(0, 181) / 60
    x = np.where(ts < 2.0, 1000.0, 1000.0 + moved_mm)
    return RestSpell("1", 0.0, float(ts[-1]), ts, np.stack([x, np.full(len(ts), 600.0)], axis=1))


def _cue(direction: float) -> MovingSamples:
    """The cue ball set off at 1 s from 232 mm off a touch of ball 1's place, rolling at 0.5 m/s toward it
    (``direction`` +1: from the -x side, so it pushes ball 1 along +x; -1: from the +x side)."""
    ts = 1.0 + np.arange(31) / 60
    x = 1000.0 - direction * (D + 232.0 - 500.0 * (ts - 1.0))
    n = len(ts)
    xy = np.stack([x, np.full(n, 600.0)], axis=1)
    return MovingSamples("cue", ts, xy, np.ones(n, np.int64), np.full(n, 1.0), np.arange(n) < 3)


def _nudges(rest: RestSpell, cue: MovingSamples, touched: set[frozenset[str]]) -> list:
    return contacts.nudges([rest], [cue], 1.0, touched, D, S, HOLD, DT)


def test_a_ball_found_moved_at_the_shots_end_was_nudged_by_the_ball_that_reached_it_from_behind() -> None:
    got = _nudges(_rest(10.0), _cue(+1.0), set())
    assert len(got) == 1
    c = got[0]
    assert c.balls == ("cue", "1") and c.evidence == "nudge"
    assert abs(c.t - (1.0 + 232.0 / 500.0)) <= 0.5 * DT  # where its path was a diameter from the place


def test_no_nudge_where_the_ball_barely_moved_was_met_already_or_was_reached_from_the_wrong_side() -> None:
    assert _nudges(_rest(S.nudge_min_mm - 2.0), _cue(+1.0), set()) == []
    assert _nudges(_rest(10.0), _cue(+1.0), {frozenset(("cue", "1"))}) == []
    assert _nudges(_rest(10.0), _cue(-1.0), set()) == []


A = np.array([1300.0, 600.0])  # where the ball set off rested
T_HIT = 0.5 + (1300.0 - D - 900.0) / 1000.0  # the cue ball, from x = 900 at 0.5 s at 1 m/s, a diameter from it


def _rolling(ball: str, y: float = 600.0) -> Approach:
    ts = 0.5 + np.arange(10) / 60
    path = fit_path(ts, np.stack([900.0 + 1000.0 * (ts - 0.5), np.full(10, y)], axis=1))
    return Approach(ball, path, True, None, 0.5)


def _frozen(ball: str, last_event_t: float | None) -> Approach:
    path = PathFit.still(A + np.array([0.0, D + 1.0]), 0.0, T_HIT)
    return Approach(ball, path, False, last_event_t, None)


def _hitter(others: list[Approach], moving_only: bool = False) -> tuple[float, str, float, float] | None:
    t_lo, t_hi = T_HIT - 0.5 * DT, T_HIT + 0.5 * DT
    return contacts.find_hitter(others, A, T_HIT, t_lo, t_hi, None, D, S, DT, moving_only=moving_only)


def test_the_hitter_is_the_moving_ball_whose_path_reaches_a_diameter_from_the_place_then() -> None:
    got = _hitter([_rolling("2", y=900.0), _rolling("cue"), _frozen("3", None)])
    assert got is not None
    score, ball, t, _ = got
    assert ball == "cue" and score < 1.0 and abs(t - T_HIT) <= 0.25 * DT


def test_a_frozen_neighbour_just_hit_passes_the_hit_on_unless_only_moving_balls_are_asked() -> None:
    got = _hitter([_frozen("3", T_HIT - DT)])
    assert got is not None and got[1] == "3" and got[0] >= 2.0  # scored below any moving hitter
    assert _hitter([_frozen("3", T_HIT - DT)], moving_only=True) is None
    assert _hitter([_frozen("3", T_HIT - 10 * DT)]) is None  # touched long before: not what set it off


START_MIN = 10.0  # SegmentSettings.start_min_mm
V = np.array([1000.0, 0.0])  # the ball set off from A at 1 s, along +x


def _left(ball: str, place: tuple[float, float], seen_after: list[tuple[float, tuple[float, float]]]) -> LeftRest:
    ts = np.array([t for t, _ in seen_after])
    xy = np.array([p for _, p in seen_after]).reshape(-1, 2)
    return LeftRest(ball, np.array(place), 0.9, ts, xy)


def test_the_unseen_striker_vanished_from_behind_the_ball_just_before_it_started() -> None:
    assert contacts.unseen_striker([_left("cue", (900.0, 600.0), [])], 1.0, A, V, START_MIN, S, DT) == "cue"
    # its place is ahead of the ball's new direction: it cannot have sent it that way
    assert contacts.unseen_striker([_left("cue", (1700.0, 600.0), [])], 1.0, A, V, START_MIN, S, DT) is None
    # seen moving off its place before the ball started: not unseen
    seen = _left("cue", (900.0, 600.0), [(0.95, (1000.0, 600.0))])
    assert contacts.unseen_striker([seen], 1.0, A, V, START_MIN, S, DT) is None


def _last(t_last: float) -> LastSeen:
    ts = t_last + (np.arange(4) - 3) * DT
    return LastSeen("2", ts, np.stack([1000.0 + 2000.0 * (ts - t_last), np.full(4, 600.0)], axis=1))


def test_a_ball_lost_from_sight_that_could_have_been_where_the_hitter_was_is_the_hitter() -> None:
    q = np.array([1232.0, 600.0])  # where the hitter's centre was at the contact
    assert contacts.lost_hitter([_last(0.9)], q, 1.0, D, S, DT) == "2"  # 232 mm in 0.1 s at 2 m/s: reachable
    assert contacts.lost_hitter([_last(1.0 - S.unseen_strike_s - 0.1)], q, 1.0, D, S, DT) is None  # lost too long
    assert contacts.lost_hitter([_last(1.0)], q, 1.0, D, S, DT) is None  # still in sight then


def _stroke() -> StrokeView:
    """The cue ball struck at 1 s from x = 900, resting there until then, next seen 20 and 40 mm on."""
    ts = np.array([0.9, 0.95, 1.0, 1.0 + DT, 1.0 + 2 * DT])
    xy = np.array([[900.0, 600.0]] * 3 + [[920.0, 600.0], [940.0, 600.0]])
    return StrokeView("cue", 1.0, np.array([900.0, 600.0]), ts[:3], ts, xy, np.ones(5, bool))


def _set_off(x: float, speed: float) -> tuple[np.ndarray, PathFit]:
    ts = 1.0 + DT * np.arange(1, 5)
    return np.array([x, 600.0]), fit_path(ts, np.stack([x + speed * (ts - 1.0), np.full(4, 600.0)], axis=1))


def test_a_ball_a_few_millimetres_off_the_struck_balls_run_was_hit_by_it_before_either_was_seen_moving() -> None:
    a, new = _set_off(1000.0, 2000.0)  # 100 mm from the cue ball's place: 32 mm beyond touching, 20 mm run
    got = contacts.hit_at_stroke(_stroke(), "1", a, new, 1.0, 1.0, 1.0 + DT, D, S, 150.0, DT)
    assert got is not None
    ball, t_c, pos, t_stroke = got
    assert ball == "cue" and t_c == 1.0 and np.allclose(pos, [1000.0 - D / 2, 600.0])
    assert t_stroke is not None and 0.95 <= t_stroke <= t_c


def test_no_stroke_hit_on_a_ball_leaving_toward_the_struck_ball_or_out_of_its_reach() -> None:
    a, back = _set_off(1000.0, -2000.0)
    assert contacts.hit_at_stroke(_stroke(), "1", a, back, 1.0, 1.0, 1.0 + DT, D, S, 150.0, DT) is None
    far, new = _set_off(1200.0, 2000.0)
    assert contacts.hit_at_stroke(_stroke(), "1", far, new, 1.0, 1.0, 1.0 + DT, D, S, 150.0, DT) is None
    assert contacts.hit_at_stroke(_stroke(), "cue", a, new, 1.0, 1.0, 1.0 + DT, D, S, 150.0, DT) is None


PLACES = {"2": np.array([1000.0, 600.0]), "1": np.array([1000.0 + D + 1.0, 600.0]), "3": np.array([400.0, 600.0])}


def test_a_ball_set_off_straight_from_a_frozen_neighbour_behind_it_was_pushed_by_it() -> None:
    along = np.array([1.0, 0.0])
    assert contacts.struck_ball("1", along, PLACES, {"2", "3"}, {"1"}, D, S) == "2"
    assert contacts.find_pusher("1", along, PLACES, {"2", "3"}, D, S) == "2"
    # the neighbour was no longer resting then (it had been struck and left): nothing pushed the ball
    assert contacts.struck_ball("1", along, PLACES, {"3"}, {"1"}, D, S) == "1"


def test_a_ball_set_off_across_the_line_of_centres_was_struck_itself() -> None:
    across = np.array([0.0, 1.0])
    assert contacts.struck_ball("1", across, PLACES, {"2", "3"}, {"1"}, D, S) == "1"


def test_of_frozen_balls_set_off_together_the_rearmost_was_struck() -> None:
    along = np.array([1.0, 0.0])
    assert contacts.struck_ball("1", along, PLACES, {"2", "3"}, {"1", "2"}, D, S) == "2"


def test_an_unseen_striker_hits_the_ball_of_the_cluster_nearest_its_place_along_the_line_from_there() -> None:
    # the striker rested at x = 500 (last seen there at 1.0 s); ball 2, frozen behind ball 1 on its side, is hit
    striker = LeftRest("cue", np.array([500.0, 600.0]), 1.0, np.empty(0), np.empty((0, 2)))
    cluster = [_at("1", 1000.0), _at("2", 1000.0 - D - 0.5), _at("cue", 500.0)]
    hit = contacts.unseen_hit(striker, cluster, 1.2, D, DT)
    assert hit is not None
    assert (hit.striker, hit.target, hit.t) == ("cue", "2", 1.2)
    assert abs(hit.t_gone - (1.0 + 0.5 * DT)) < 1e-12  # it left between its last sample there and the next
    q = 1000.0 - D - 0.5
    assert np.allclose(hit.pos, [q - D / 2, 600.0])  # the touch: a radius toward where it came from
    assert np.allclose(hit.centre, [q - D, 600.0])  # its centre then: a diameter off
    assert np.allclose(hit.place, [500.0, 600.0])


def test_an_unseen_striker_from_the_side_hits_the_ball_on_that_side() -> None:
    striker = LeftRest("cue", np.array([1000.0, 200.0]), 1.0, np.empty(0), np.empty((0, 2)))
    cluster = [_at("1", 1000.0), _at("2", 1000.0 + D + 0.5)]
    hit = contacts.unseen_hit(striker, cluster, 1.2, D, DT)
    assert hit is not None and hit.target == "1"
    assert np.allclose(hit.centre, [1000.0, 600.0 - D])
    assert contacts.unseen_hit(striker, [_at("cue", 1000.0, 200.0)], 1.2, D, DT) is None  # nothing but itself


def _kink_by(p_last: tuple[float, float], v: tuple[float, float], v_out: tuple[float, float]) -> Kink:
    """A ball at 30 fps whose last of six samples in is at ``p_last`` (t = 1.0, moving ``v``), bending into
    ``v_out`` there; the paths meet at the last sample in."""
    dt = 1 / 30
    ts = 1.0 - dt * np.arange(5, -1, -1)
    old = fit_path(ts, np.array(p_last) + np.outer(ts - 1.0, v))
    ts2 = 1.0 + dt * np.arange(1, 5)
    new = fit_path(ts2, np.array(p_last) + np.outer(ts2 - 1.0, v_out))
    return Kink("cue", old, new, old, 1.0, 1.0, old.at(1.0), 1.0 - dt, 1.0 + 1.5 * dt, 1.0 - dt, 1.0, 1.0 + dt)


def test_a_resting_ball_beside_a_bend_the_bending_ball_was_leaving_is_no_hit() -> None:
    # at 30 fps the cue ball, its samples blurred 15 mm off, bends 8 mm from touching ball 2, which rests beside
    # its path: moving away from ball 2 along their line of centres, it cannot have pushed it
    place = np.array([2882.5, 779.9])
    still = Neighbour("2", PathFit.still(place, 0.0, 2.0), False, None)
    leaving = _kink_by((2898.3, 705.0), (-2200.0, -1380.0), (-600.0, -100.0))
    assert float(np.linalg.norm(leaving.p - place)) - D < S.contact_tol_mm
    assert contacts.kink_readings(leaving, [still], D, S, 1 / 30) == []
    # coming at it the same distance off, it may have
    coming = _kink_by((2898.3, 705.0), (-200.0, 2400.0), (-1500.0, 600.0))
    assert [r.name for r in contacts.kink_readings(coming, [still], D, S, 1 / 30)] == ["2"]
