"""The shot detectors as pure functions, fed hand-built records (no tracker, no extractor)."""

from __future__ import annotations

import numpy as np

from tracking.detect import shots
from tracking.detect.segments import PathView, SetOffView
from tracking.detect.settings import SegmentSettings, ShotSettings
from tracking.detect.shots import PendingStart
from tracking.kalman import FilterSettings
from tracking.trajectory import fit_path

S = ShotSettings()


def test_a_shot_ends_once_every_ball_has_rested_the_hold() -> None:
    assert not shots.quiet_long_enough(2.0, 2.0 + 0.5 * S.shot_end_hold_s, S)
    assert shots.quiet_long_enough(2.0, 2.0 + S.shot_end_hold_s, S)


def test_the_shot_end_carries_the_last_stop_and_the_resting_places() -> None:
    rests = {"cue": (900.0, 600.0), "1": (2000.0, 600.0)}
    c = shots.shot_end(3.25, rests)
    assert (c.kind, c.evidence, c.t, c.balls) == ("shot_end", "all_rest", 3.25, ())
    assert c.positions == rests and c.positions is not rests  # a copy: the extractor's record may change later


DT = 1 / 60


def _first(speed_mm_s: float) -> PathView:
    ts = tuple(1.0 + i * DT for i in range(4))
    return PathView("cue", ts, tuple(np.array([900.0 + speed_mm_s * (t - 1.0), 600.0]) for t in ts))


def test_a_ball_first_seen_moving_faster_than_a_hand_sends_one_was_struck_out_of_sight() -> None:
    t0 = shots.first_seen_moving(_first(4 * S.start_speed_mm_s), S)
    assert t0 is not None and abs(t0 - 1.0) < 1e-9
    assert shots.first_seen_moving(_first(1.5 * S.start_speed_mm_s), S) is None


def test_the_shot_start_places_every_ball_resting_or_last_seen() -> None:
    rests = {"1": (2000.0, 600.0)}
    c = shots.shot_start("cue", 1.0, (900.0, 600.0), 0.95, rests, {"2": (1500.0, 700.0), "cue": (950.0, 600.0)})
    assert (c.kind, c.evidence, c.balls, c.t) == ("shot_start", "struck", ("cue",), 1.0)
    # the struck ball at the place it was struck from, not where it was last seen
    assert c.positions == {"1": (2000.0, 600.0), "cue": (900.0, 600.0), "2": (1500.0, 700.0)}


def _pending(speed: float) -> PendingStart:
    return PendingStart("cue", 1.0, np.array([900.0, 600.0]), 0.95, speed)


def test_a_slow_ball_that_stopped_alone_too_soon_for_a_struck_one_was_pushed_by_hand() -> None:
    p = _pending(400.0)  # stops 0.2 s later: 2 m/s2 on average, far more than cloth takes off a rolling ball
    assert shots.judge_pending(p, 1.2, busy=False, on_table=True, now=1.5, force=False, s=S) == "hand_push"
    c = shots.hand_push(p)
    assert (c.kind, c.evidence, c.balls, c.pos) == ("disturbed", "hand_push", ("cue",), (900.0, 600.0))


def test_a_slow_ball_is_struck_once_that_is_sure_and_waited_for_until_then() -> None:
    p = _pending(400.0)
    assert shots.judge_pending(p, None, busy=False, on_table=True, now=1.2, force=False, s=S) == "wait"
    assert shots.judge_pending(p, None, busy=True, on_table=True, now=1.2, force=False, s=S) == "struck"
    assert shots.judge_pending(p, 1.2, busy=True, on_table=True, now=1.2, force=False, s=S) == "struck"
    assert shots.judge_pending(p, None, busy=False, on_table=True, now=1.2, force=True, s=S) == "struck"
    late = 1.0 + 2 * S.push_stop_s + 0.1
    assert shots.judge_pending(p, None, busy=False, on_table=True, now=late, force=False, s=S) == "struck"
    rolled = 1.0 + S.push_stop_s + 0.2  # stopped, but later than a hand's push stops
    assert shots.judge_pending(p, rolled, busy=False, on_table=True, now=rolled, force=False, s=S) == "struck"


def _back(steps_mm: list[float]) -> PathView:
    """A ball back in sight at x = 1000, then ``steps_mm`` along +x a frame apart."""
    xs = np.cumsum([1000.0, *steps_mm])
    return PathView("6", tuple(1.0 + i * DT for i in range(len(xs))), tuple(np.array([x, 600.0]) for x in xs))


def test_a_blob_that_takes_one_long_step_and_stops_dead_with_no_ball_near_is_no_ball_run_from_its_place() -> None:
    far = [np.array([2500.0, 600.0])]
    assert shots.stalled(_back([49.0, 1.0, 0.5]), far, 68.0, S)
    # a rolling ball keeps most of its step from frame to frame
    assert not shots.stalled(_back([49.0, 48.0, 47.0]), far, 68.0, S)
    # stopped dead beside another ball: a stun shot into it
    assert not shots.stalled(_back([49.0, 1.0, 0.5]), [np.array([1100.0, 600.0])], 68.0, S)


def test_a_ball_setting_off_just_after_it_stopped_in_this_shot_slowly_is_the_same_motion_going_on() -> None:
    slow = 0.5 * S.start_speed_mm_s
    assert shots.still_going(2.0, 1.0, 2.0 + 0.5 * S.regone_stop_s, slow, S)
    assert not shots.still_going(2.0, 1.0, 2.0 + 2 * S.regone_stop_s, slow, S)  # long after it stopped
    assert not shots.still_going(2.0, 1.0, 2.1, 2 * S.start_speed_mm_s, S)  # as fast as a struck ball
    assert not shots.still_going(0.5, 1.0, 1.1, slow, S)  # it stopped before this shot
    assert not shots.still_going(None, 1.0, 1.1, slow, S)


SEG = SegmentSettings()
SIGMA = FilterSettings.meas_sigma_mm  # the detections' noise
PLACE = np.array([900.0, 600.0])
D = 68.0  # the ball's diameter (mm)


def _set_off(at, t_lo: float = 1.0, first: int = 30, n_new: int = 10) -> SetOffView:
    """A ball resting at PLACE whose detections follow ``at(t)`` (mm along +x from PLACE): the tracker holds it
    at rest up to ``t_lo`` (detections from frame ``first``), then its path's first ``n_new`` samples."""
    f_lo = round(t_lo / DT)
    rest_ts = np.arange(first, f_lo + 1) * DT
    new_ts = np.arange(f_lo + 1, f_lo + 1 + n_new) * DT

    def xy(ts: np.ndarray) -> np.ndarray:
        return np.array([PLACE + np.array([at(t), 0.0]) for t in ts]).reshape(-1, 2)

    new_xy = xy(new_ts)
    head = fit_path(new_ts[: SEG.window], new_xy[: SEG.window])
    return SetOffView("1", PLACE, float(rest_ts[-1]), float(new_ts[0]), rest_ts, xy(rest_ts), new_ts, new_xy, head)


def test_a_struck_ball_left_its_place_where_its_path_run_back_meets_it() -> None:
    t_hit = 1.0 + 0.4 * DT  # between the last resting sample and the first moving one
    view = _set_off(lambda t: max(0.0, 1000.0 * (t - t_hit)))
    left = shots.set_off(view, S, SEG, DT, SIGMA, D)
    assert left.crept is None and left.moved
    assert abs(left.t - t_hit) < 0.05 * DT
    assert abs(left.speed - 1000.0) < 1.0


def test_a_ball_first_seen_after_a_touch_bent_its_path_left_in_the_middle_of_the_gap() -> None:
    # struck at 3 m/s a frame and a half after its last sighting at rest, it hit a ball 60 mm on, unseen, and
    # was first seen running off across: that path, run back, passes 300 mm from its place
    t_lo = 1.0
    rest_ts = np.arange(30, 61) * DT
    new_ts = np.array([62, 63, 64]) * DT
    new_xy = PLACE + np.array([[60.0, 300.0 - 40.0 * k] for k in range(3)])
    head = fit_path(new_ts, new_xy)
    rest_xy = np.repeat(PLACE[None, :], len(rest_ts), axis=0)
    view = SetOffView("1", PLACE, t_lo, float(new_ts[0]), rest_ts, rest_xy, new_ts, new_xy, head)
    t_s, crept = shots.left_place(view, S, DT, D)
    assert crept is None
    assert t_s == 0.5 * (t_lo + float(new_ts[0]))  # not the first moving sample's time, nor the path's nearest


def test_a_slow_ball_that_crept_off_while_held_at_rest_left_where_its_speed_jumped() -> None:
    # it sets off at 100 mm/s (slower than a struck ball) five frames before the tracker lets go of its place:
    # its path run back reaches the place before the resting samples end, so the creep is looked for
    t_c = 0.9 + 0.3 * DT
    view = _set_off(lambda t: max(0.0, 100.0 * (t - t_c)))
    t_s, crept = shots.left_place(view, S, DT, D)
    assert crept is not None and t_s == crept
    assert abs(crept - t_c) < 0.5 * DT
    # without the hinge, halfway between its last detection still at the place and the next: a frame late
    assert abs(0.5 * (55 + 56) * DT - t_c) > DT


def test_detections_that_drift_back_and_forth_are_no_creep() -> None:
    # a hand or noise: off its place by 2 mm and 6 mm in turn over the last frames held at rest
    t_c = 0.9 + 0.3 * DT

    def at(t: float) -> float:
        if t > 1.0 + 1e-9:
            return 100.0 * (t - t_c)
        return (6.0 if round(t / DT) % 2 else 2.0) if t > 0.85 else 0.0

    view = _set_off(at)
    assert shots.creep_start(view, S, DT) is None
    t_s, crept = shots.left_place(view, S, DT, D)
    assert crept is None and abs(t_s - (view.t_lo - S.slow_start_frames * DT)) < 1e-6  # the earliest it may be


def test_a_ball_that_got_start_min_mm_from_its_place_moved_off_and_jitter_did_not() -> None:
    assert shots.moved_off(_set_off(lambda t: 1.1 * SEG.start_min_mm if t > 1.0 else 0.0), False, SEG, SIGMA)
    assert not shots.moved_off(_set_off(lambda t: 0.9 * SEG.start_min_mm if t > 1.0 else 0.0), False, SEG, SIGMA)
    assert not shots.set_off(_set_off(lambda t: 0.9 * SEG.start_min_mm if t > 1.0 else 0.0), S, SEG, DT, SIGMA, D).moved


def test_a_ball_seen_at_its_place_at_its_last_resting_sample_had_not_left_it() -> None:
    # hit hard just after its last resting sample and bent by a second touch a frame later: its path out, run
    # back, passes 30 mm beside its place three frames before then, while its detections still sat there
    rest_ts = np.arange(30, 61) * DT
    new_ts = np.arange(61, 71) * DT
    t_beside = rest_ts[-1] - 3 * DT
    new_xy = np.array([PLACE + np.array([1200.0 * (t - t_beside), 30.0]) for t in new_ts])
    rest_seen = np.repeat(PLACE[None, :], len(rest_ts), axis=0) + 0.3 * (-1.0) ** np.arange(len(rest_ts))[:, None]
    head = fit_path(new_ts[: SEG.window], new_xy[: SEG.window])
    view = SetOffView("1", PLACE, float(rest_ts[-1]), float(new_ts[0]), rest_ts, rest_seen, new_ts, new_xy, head)
    assert shots.still_until(view, S) == float(rest_ts[-1])
    t_s, crept = shots.left_place(view, S, DT, D)
    assert crept is None and view.t_lo - 1e-9 <= t_s <= view.t_hi
