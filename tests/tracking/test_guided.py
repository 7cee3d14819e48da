"""``tracking.guided``: the launch watch finds a ball struck from rest by its streak and follows it; a fast, lone
ball's detections give way to its streak's centre, and only where its frame's path is one straight blur of it
alone. Frames drawn by ``tests.vision.test_vision_streaks`` (cloth, balls blurred over the exposure)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.test_vision_streaks import _calibration, _frame
from tracking.guided import GuidedMeasurement, LaunchWatch
from tracking.tracker import BallObs, TrackerFrame, TrackState

FPS = 60.0
DT = 1.0 / FPS
MAX_SPEED = 12000.0


def _ball(name: str, pos: tuple[float, float], vel: tuple[float, float] = (0.0, 0.0), seen: bool = True) -> BallObs:
    resting = vel == (0.0, 0.0)
    state = TrackState.CONFIRMED if seen else TrackState.OCCLUDED
    return BallObs(name, pos, pos if seen else None, vel, resting, state, quality=0.95)


def _dets(pos: list[tuple[float, float]], conf: float = 0.6) -> object:
    class Dets:  # what ``measure`` reads of a frame's detections: positions, confidences, classes
        pos_mm = np.array(pos, dtype=float).reshape(-1, 2)
        confidence = np.full(len(pos), conf)
        cls = np.zeros(len(pos), np.int64)

    return Dets()


def _streak_scene(p_last: tuple[float, float], v: tuple[float, float], other: tuple[float, float] | None):
    """A ball last seen at ``p_last`` rolling at ``v``, drawn a frame later blurred over 0.9 of the frame, the
    detector's circle at the front end of its blur; ``other``: a resting ball drawn too."""
    cal = _calibration()
    p = (p_last[0] + v[0] * DT, p_last[1] + v[1] * DT)
    balls = [(p, v)] + ([(other, (0.0, 0.0))] if other else [])
    frame = _frame(cal, balls, FPS, 0.9)
    last = TrackerFrame(0, 0.0, tuple([_ball("cue", p_last, v)] + ([_ball("1", other)] if other else [])))
    front = (p[0] + 0.4 * v[0] * DT, p[1] + 0.4 * v[1] * DT)
    gm = GuidedMeasurement(cal, MAX_SPEED, ghost_below=0.3)
    return gm, frame, last, front, p


def test_a_fast_lone_ball_is_measured_at_its_streak_centre_not_its_blurred_end() -> None:
    gm, frame, last, front, p = _streak_scene((900.0, 700.0), (3000.0, 300.0), None)
    out = gm.measure(frame, _dets([front]), last, DT)
    assert out.changed and not out.keep[0] and len(out.added) == 1
    # the streak's centre is the ball's place at the frame's time; the detector's circle was 20 mm ahead
    assert float(np.hypot(*(out.added[0].pos_mm - np.array(p)))) < 3.0
    assert out.added[0].confidence == pytest.approx(0.6)  # the look of the detection it replaces
    assert gm.streak_count == 1


@pytest.mark.parametrize(
    ("p_last", "other"),
    [
        ((900.0, 45.0), None),  # running along a cushion: a bounce inside the frame would bend the path
        ((900.0, 700.0), (950.0, 820.0)),  # another ball beside its path: a contact, or its disc in the window
        ((1735.0, 150.0), None),  # running past a middle pocket's mouth: it may drop out of sight inside the frame
    ],
    ids=["cushion", "ball", "pocket"],
)
def test_no_streak_is_measured_where_the_frame_s_path_may_bend(p_last, other) -> None:
    v = (3000.0, 300.0) if other else (3000.0, 0.0)
    gm, frame, last, front, _ = _streak_scene(p_last, v, other)
    out = gm.measure(frame, _dets([front] + ([other] if other else [])), last, DT)
    assert not out.changed and gm.streak_count == 0


def test_a_ball_struck_from_rest_is_found_by_its_launch_streak_then_followed() -> None:
    cal = _calibration()
    watch = LaunchWatch(cal, MAX_SPEED)
    place, v = (700.0, 900.0), (9000.0, -1000.0)
    # seen resting at its place; struck after frame 0: gone from the detections, its place plain cloth
    watch.observe(TrackerFrame(0, 0.0, (_ball("cue", place),)))
    last = TrackerFrame(0, 0.0, (_ball("cue", place),))
    p1 = (place[0] + v[0] * DT, place[1] + v[1] * DT)
    fixes = watch.fixes(_frame(cal, [(p1, v)], FPS, 0.5), last, np.zeros((0, 2)), DT)
    assert [(f.id, f.followed) for f in fixes] == [("cue", False)]
    assert float(np.hypot(*(fixes[0].pos_mm - np.array(p1)))) < 15.0
    # the next frame: followed around where the tracker (now told its speed) predicts it
    watch.observe(TrackerFrame(1, DT, (_ball("cue", p1, v),)))
    p2 = (p1[0] + v[0] * DT, p1[1] + v[1] * DT)
    last = TrackerFrame(1, DT, (_ball("cue", p1, v),))
    fixes = watch.fixes(_frame(cal, [(p2, v)], FPS, 0.5), last, np.zeros((0, 2)), 2 * DT)
    assert [(f.id, f.followed) for f in fixes] == [("cue", True)]
    assert float(np.hypot(*(fixes[0].pos_mm - np.array(p2)))) < 15.0
    assert watch.count == 2


def test_a_ball_hidden_at_its_place_is_not_looked_for() -> None:
    cal = _calibration()
    watch = LaunchWatch(cal, MAX_SPEED)
    place = (700.0, 900.0)
    watch.observe(TrackerFrame(0, 0.0, (_ball("cue", place),)))
    last = TrackerFrame(0, 0.0, (_ball("cue", place),))
    # unseen, but the ball still lies there (the detector missed it; a hand would do the same): no cloth, no launch
    assert watch.fixes(_frame(cal, [(place, (0.0, 0.0))], FPS, 0.5), last, np.zeros((0, 2)), DT) == []
    # and a ball unseen for longer than search_frames is not looked for, though its launch streak is there
    v = (9000.0, -1000.0)

    def fixes_at(frames: int) -> int:
        """Seen at rest at t = 0, unseen (held at its place) in the frames since; its streak drawn ``frames``
        frames on."""
        fresh = LaunchWatch(cal, MAX_SPEED)
        fresh.observe(last)
        t = frames * DT
        p = (place[0] + v[0] * DT, place[1] + v[1] * DT)
        held = TrackerFrame(frames - 1, t - DT, (_ball("cue", place, seen=False),))
        return len(fresh.fixes(_frame(cal, [(p, v)], FPS, 0.5), held, np.zeros((0, 2)), t))

    search = LaunchWatch(cal, MAX_SPEED).s.search_frames
    assert fixes_at(int(search)) == 1 and fixes_at(int(search) + 1) == 0


def test_an_observer_behind_its_camera_counts_the_search_in_the_camera_s_frames() -> None:
    # Seen at rest at t = 0; the observer's next frame is the camera's tenth (nine dropped), the ball's launch
    # streak in it. Counted in the gap between the frames it saw, the ball was lost "one frame ago" and is looked
    # for across 800 mm; counted in the camera's frames it was lost ten frames ago, past search_frames: the
    # detector, not a streak search over the table, finds it again once it is sharp.
    cal = _calibration()
    place, v = (700.0, 900.0), (9000.0, -1000.0)
    last = TrackerFrame(0, 0.0, (_ball("cue", place),))
    p = (place[0] + v[0] * DT, place[1] + v[1] * DT)
    frame = _frame(cal, [(p, v)], FPS, 0.5)

    def fixes(frame_dt: float | None) -> int:
        watch = LaunchWatch(cal, MAX_SPEED, frame_dt=frame_dt)
        watch.observe(last)
        return len(watch.fixes(frame, last, np.zeros((0, 2)), 10 * DT))

    assert fixes(None) == 1 and fixes(DT) == 0
