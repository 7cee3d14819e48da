"""A ball that touches a corner jaw twice in one bounce (the rounded tip, then the face), and grazes the cushion
beside the pocket as it comes away.

A ball rolled along a cushion into a corner pocket meets the rounded tip of the jaw first; the tip turns it into
the jaw's face, which it touches a fraction of a frame later (the physics logs both touches). The path segmenter
sees one bend. A single bounce leaves the jaw where and when the ball met it, so the outgoing path run back
touches the jaw at the same instant as the incoming path; here it leaves the jaws that fraction of a frame later,
and that is the second touch.

Coming away, the ball starts behind the end of the next cushion's nose line and runs along it: a graze of it is
a dip of its distance to that line, judged on the samples beside the cushion, not on those at the jaw.
"""

from __future__ import annotations

import numpy as np
import pytest

import tracking.extractor as extractor
from calibration.table import TableModel
from tests.replay_support import replay, settings_with
from tracking.detect import cushions
from tracking.detect.geometry import gap_to_jaw
from tracking.extractor import ExtractorSettings
from tracking.trajectory import fit_path, solve_root

FIXTURE = "jaw-twice-60fps-frozen-cushion-roll-s0.json"


@pytest.mark.parametrize("judged", [True, False])
def test_a_ball_turned_by_a_jaw_tip_into_its_face_touches_it_twice(judged: bool, monkeypatch) -> None:
    # The suite's frozen-cushion-roll-s0 at 1080p60 (tests/data: every detection of frames 40-150). Ball 1,
    # struck along the left cushion, meets the pyramid-left corner's jaw tip at 1.8560 s and its face at 1.8675 s
    # (0.69 of a frame later).
    if not judged:
        monkeypatch.setattr(extractor.ExtractorSettings, "__init__", settings_with(jaw_exit_frames=10.0))
    d, events = replay(FIXTURE)
    touches = [e for e in events if e.type == "cushion" and e.ball == "1" and (e.t or 0.0) < 1.95]
    assert all(e.cushion == "jaw:pyramid-left" for e in touches)
    first, second = d["truth_jaw_t"]
    found = [e.t or 0.0 for e in touches]
    assert abs(found[0] - first) <= 0.25 / 60
    if judged:
        assert len(found) == 2 and abs(found[1] - second) <= 0.25 / 60
    else:
        assert len(found) == 1


def test_a_single_bounce_leaves_the_jaw_when_it_met_it() -> None:
    # The rule's premise: a mirror bounce off a jaw's face, sampled exactly either side of it, gives incoming and
    # outgoing paths that meet the jaw at the same instant, far inside the allowance for a second touch.
    table = TableModel()
    jaw = table.pockets["pyramid-left"].jaws[0]
    r = table.ball_radius_mm
    # a point on the face, its outward normal (towards the cloth), and a ball meeting it there at t = 0
    p = np.asarray(jaw.closest_point((jaw.face_start[0] - 30.0, jaw.face_start[1] + 30.0)), dtype=float)
    q = np.array([jaw.face_start[0] - 30.0, jaw.face_start[1] + 30.0])
    n = (q - p) / np.linalg.norm(q - p)
    c = p + n * r
    v_in = np.array([600.0, -600.0])
    if v_in @ n > 0:
        v_in = -v_in
    v_out = v_in - 2 * (v_in @ n) * n
    dt = 1 / 60
    ts_in, ts_out = np.arange(-4, 0) * dt + 0.3 * dt, np.arange(1, 5) * dt - 0.3 * dt
    into = fit_path(ts_in, c + np.outer(ts_in, v_in))
    out = fit_path(ts_out, c + np.outer(ts_out, v_out))
    t_in = solve_root(gap_to_jaw(into, jaw, r), -dt, dt)
    t_out = solve_root(gap_to_jaw(out, jaw, r), -dt, dt)
    assert t_in is not None and t_out is not None
    assert abs(t_in) < 0.01 * dt and abs(t_out) < 0.01 * dt
    assert abs(t_out - t_in) < ExtractorSettings().cushions.jaw_exit_frames * dt


@pytest.mark.parametrize("beside", [True, False])
def test_a_ball_coming_off_a_jaw_grazes_the_cushion_beside_it(beside: bool, monkeypatch) -> None:
    # The same stretch: off the jaw at 1.8675 s, ball 1 runs up along the pyramid cushion and grazes it at
    # 2.0102 s (its centre 0.3 mm from touching). Its samples at the jaw, behind the end of the pyramid cushion's
    # nose line, lie within the graze tolerance of that line's extension too: counted, they join the graze in one
    # dip whose bottom is the jaw.
    if not beside:
        valleys = cushions.valleys
        monkeypatch.setattr(cushions, "valleys", lambda off, depth, where=None: valleys(off, depth))
    d, events = replay(FIXTURE)
    grazes = [e for e in events if e.type == "cushion" and e.ball == "1" and e.cushion == "pyramid"]
    if beside:
        assert len(grazes) == 1 and abs((grazes[0].t or 0.0) - d["truth_cushion_t"]) <= 0.5 / 60
    else:
        assert grazes == []


def test_a_second_jaw_touch_after_the_first_outgoing_sample_is_found() -> None:
    # frozen-cushion-roll-s2 (ball 1's detections alone): the ball meets the pyramid-left jaw's tip at 1.9221 s and
    # its face at 1.9437 s, 1.3 frames later; the first sample after the bend (1.9333 s) lies between the two, so
    # the path away from the jaw, run back, is fitted from the sample after it.
    d, events = replay("jaw-twice-60fps-frozen-cushion-roll-s2.json")
    touches = [e.t or 0.0 for e in events if e.type == "cushion" and e.cushion == "jaw:pyramid-left"]
    assert len(touches) == 2
    for found, truth in zip(touches, d["truth_jaw_t"], strict=True):
        assert abs(found - truth) <= 0.5 / 60


def test_judged_on_the_first_outgoing_sample_only_the_second_touch_is_lost(monkeypatch) -> None:
    paths_out = cushions.paths_out

    def first(ex, *a):
        return iter(list(paths_out(ex, *a))[:1])

    monkeypatch.setattr(cushions, "paths_out", first)
    _, events = replay("jaw-twice-60fps-frozen-cushion-roll-s2.json")
    assert len([e for e in events if e.type == "cushion" and e.cushion == "jaw:pyramid-left"]) == 1
