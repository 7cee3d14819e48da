"""A bounce off a cushion is timed on both paths: where the incoming one meets the nose line and where the
outgoing one, run back, does (a mirror bounce: the same instant), their mean.

cluster-random-s2's ball 2 (its detections alone) bounces off the right-pyramid cushion and, two frames later, off
the pyramid cushion. The segmenter breaks its path a sample after the second bounce, so the incoming path of that
bounce takes in a sample from after it and meets the nose line over a frame late; the outgoing path, run back, is
on time.

A bounce off a jaw is timed the same way. frame-s0's ball 11 (its detections alone) bounces off the house cushion
and, two frames later, off the house-left pocket's jaw between two samples; the segmenter puts both samples on the
short path between the two bounces, so that path, run on to the jaw, meets it a frame and a quarter late.
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableModel
from tests.replay_support import replay
from tracking.detect import cushions, geometry
from tracking.trajectory import fit_path, solve_root

FIXTURE = "corner-bounce-60fps-cluster-random-s2.json"
JAW = "jaw-bounce-60fps-frame-s0.json"


def _touch(events: list, cushion: str, t: float) -> float | None:
    near = [e.t or 0.0 for e in events if e.type == "cushion" and e.cushion == cushion and abs((e.t or 0.0) - t) < 0.1]
    return near[0] if len(near) == 1 else None


def test_the_bounce_is_timed_within_a_frame() -> None:
    d, events = replay(FIXTURE)
    for cushion, key in (("right-pyramid", "truth_right_pyramid_t"), ("pyramid", "truth_pyramid_t")):
        found = _touch(events, cushion, d[key])
        assert found is not None and abs(found - d[key]) <= 1 / 60, (cushion, found, d[key])


def test_a_jaw_bounce_is_timed_within_a_frame() -> None:
    d, events = replay(JAW)
    found = _touch(events, "jaw:house-left", d["truth_touch_t"])
    assert found is not None and abs(found - d["truth_touch_t"]) <= 1 / 60


@pytest.mark.parametrize(
    ("fixture", "cushion", "key"), [(FIXTURE, "pyramid", "truth_pyramid_t"), (JAW, "jaw:house-left", "truth_touch_t")]
)
def test_timed_on_the_incoming_path_alone_it_comes_late(
    monkeypatch: pytest.MonkeyPatch, fixture: str, cushion: str, key: str
) -> None:
    monkeypatch.setattr(cushions, "both_ways", lambda root, *a: root)
    d, events = replay(fixture)
    found = _touch(events, cushion, d[key])
    assert found is not None and found - d[key] > 1 / 60


def test_the_outgoing_path_run_back_meets_the_jaw_where_the_ball_left_it() -> None:
    # A ball leaves the middle-left pocket's jaw face (x = 1743, from y = -6.8 into the pocket) at t = 1.0, its
    # centre a radius off it. Run back on through the jaw, the outgoing path comes within a radius of the face
    # twice: at 1.0, where the ball left it, and 34 ms earlier on the rail's side. The touch is the first.
    table = TableModel()
    jaw = next(j for j in table.pockets["middle-left"].jaws if j.cushion == "left-house")
    r = table.ball_radius_mm
    start, v = np.array([1743.0 + r, -15.0]), np.array([2000.0, 300.0])
    ts = 1.0 + np.arange(1, 4) / 60.0
    new = fit_path(ts, start + np.outer(ts - 1.0, v))
    t = geometry.both_ways(1.0, geometry.gap_to_jaw(new, jaw, r), new, 0.9)
    assert t is not None and abs(t - 1.0) < 1e-3


def test_solve_root_finds_the_first_or_the_last_root() -> None:
    def f(u: float) -> float:
        return (u - 0.3) * (u - 0.7)

    first, last = solve_root(f, 0.0, 1.0), solve_root(f, 0.0, 1.0, last=True)
    assert first is not None and abs(first - 0.3) < 1e-9
    assert last is not None and abs(last - 0.7) < 1e-9
    assert solve_root(f, 0.0, 0.7, last=True) == 0.7  # a root on the grid's end
