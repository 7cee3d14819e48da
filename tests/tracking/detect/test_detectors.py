"""One hand-made path per detector kind, fed as tracker frames to a real extractor: the candidate each detector
reads off the segments (kind, balls, obstacle, evidence, time) and the event the resolver gives out for it."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.detect.scenes import FPS, TABLE, Leg, frames, path, run
from tracking.detect.candidate import Candidate

DT = 1 / FPS
R = TABLE.ball_radius_mm


def _struck_into_ball_1():
    """The cue ball, resting at x = 900, struck at 0.5 s along +x at 1 m/s into ball 1 resting at x = 1300:
    they touch (centres a diameter apart) at 0.832 s; the cue ball stops dead, ball 1 runs on at 1 m/s over
    the centre line (x = 1784.5, at 1.3165 s) and stops at x = 2000."""
    t_hit = 0.5 + (1300.0 - 68.0 - 900.0) / 1000.0
    cue = path(Leg(0.0, (900.0, 600.0)), Leg(0.5, (900.0, 600.0), (1000.0, 0.0)), Leg(t_hit, (1232.0, 600.0)))
    one = path(Leg(0.0, (1300.0, 600.0)), Leg(t_hit, (1300.0, 600.0), (1000.0, 0.0)), Leg(t_hit + 0.7, (2000.0, 600.0)))
    return frames({"cue": cue, "1": one}, 2.5), t_hit


def test_shots_a_struck_ball_starts_the_shot_and_all_at_rest_end_it() -> None:
    tfs, _ = _struck_into_ball_1()
    _, events = run(tfs)
    starts = [e for e in events if e.type == "shot_start"]
    ends = [e for e in events if e.type == "shot_end"]
    assert len(starts) == 1 and starts[0].ball == "cue" and abs((starts[0].t or 0) - 0.5) <= DT
    assert len(ends) == 1 and (ends[0].t or 0) >= (starts[0].t or 0)


def test_contacts_a_ball_set_off_one_diameter_from_a_moving_one_was_hit(candidates: list[Candidate]) -> None:
    tfs, t_hit = _struck_into_ball_1()
    _, events = run(tfs)
    read = [c for c in candidates if c.kind == "contact"]
    assert read[0].balls == ("cue", "1") and read[0].evidence == "hit"
    assert abs(read[0].t - t_hit) <= 0.5 * DT
    # the kiss detector reads the same touch (centres a diameter apart, then apart): the resolver merges it
    assert {c.evidence for c in read[1:]} <= {"kiss"} and all(abs(c.t - t_hit) <= DT for c in read)
    contacts = [e for e in events if e.type == "contact"]
    assert [e.balls for e in contacts] == [("cue", "1")]


def test_lines_a_path_over_a_line_crosses_it_where_its_centre_does() -> None:
    tfs, t_hit = _struck_into_ball_1()
    _, events = run(tfs)
    crossings = [e for e in events if e.type == "line_cross"]
    assert [(e.ball, e.line, e.direction) for e in crossings] == [("1", "center", "+x")]
    assert abs((crossings[0].t or 0) - (t_hit + (TABLE.lines["center"].value_mm - 1300.0) / 1000.0)) <= 0.25 * DT


def test_cushions_a_path_bent_one_radius_from_a_nose_line_touched_it(candidates: list[Candidate]) -> None:
    # resting at x = 600, struck at 0.5 s toward the house cushion at 1 m/s, back off it at 0.8 m/s to x = 400
    nose = TABLE.cushions["house"].start[0] + R
    t_touch = 0.5 + (600.0 - nose) / 1000.0
    t_stop = t_touch + (400.0 - nose) / 800.0
    ball = path(
        Leg(0.0, (600.0, 1200.0)),
        Leg(0.5, (600.0, 1200.0), (-1000.0, 0.0)),
        Leg(t_touch, (nose, 1200.0), (800.0, 0.0)),
        Leg(t_stop, (400.0, 1200.0)),
    )
    _, events = run(frames({"cue": ball}, t_stop + 1.0))
    touch = [c for c in candidates if c.kind == "cushion"]
    assert len(touch) == 1 and (touch[0].obstacle, touch[0].evidence) == ("house", "kink")
    assert touch[0].residual_mm < 1.0 and abs(touch[0].t - t_touch) <= 0.25 * DT
    assert [(e.type, e.cushion) for e in events if e.type == "cushion"] == [("cushion", "house")]


def test_pots_a_ball_gone_in_a_mouth_drops_where_its_path_crosses_the_drop_depth() -> None:
    # struck at 0.5 s from (400, 400) straight into the house-left corner pocket at 1 m/s, last seen at 0.95 s
    pk = TABLE.pockets["house-left"]
    v = -1000.0 / 2**0.5
    ball = path(Leg(0.0, (400.0, 400.0)), Leg(0.5, (400.0, 400.0), (v, v)))
    _, events = run(frames({"cue": ball}, 1.5, gone={"cue": (0.95, pk.name)}))
    pots = [e for e in events if e.type == "pot"]
    assert len(pots) == 1 and pots[0].ball == "cue" and pots[0].pocket == "house-left"
    # its centre half a radius past the mouth line then (pot_depth_fraction)
    (t,) = [e.t or 0.0 for e in pots]
    x = 400.0 + v * (t - 0.5)
    assert pk.depth((x, x)) == pytest.approx(0.5 * R, abs=2.0)
    assert not [e for e in events if e.type == "cushion"]  # straight in, a few millimetres off both jaws


def test_lines_crossings_is_a_pure_function_of_the_path_the_lines_and_the_settings() -> None:
    """A straight path at 1 m/s from x = 1700 to x = 1900 over the centre line (x = 1784.5, per the table) is one
    ``line_cross`` candidate timed where its centre is on the line; the same path stopping on the line is none
    (rule 2.1.6: on is not over)."""
    from tracking.detect import lines
    from tracking.detect.segments import PathView
    from tracking.detect.settings import LineSettings

    table_lines = lines.table_lines(TABLE)
    centre = next(ln for ln in table_lines if ln.name == "center")
    ts = tuple(k * DT for k in range(13))
    over = PathView("1", ts, tuple(np.array([centre.value_mm - 84.5 + 1000.0 * t, 600.0]) for t in ts))
    (c,) = [c for c in lines.crossings(over, table_lines, LineSettings(), DT, R) if c.obstacle == "center"]
    assert (c.kind, c.balls, c.direction, c.evidence) == ("line_cross", ("1",), "+x", "crossing")
    assert c.t == pytest.approx(0.0845, abs=1e-4)
    on = PathView("1", ts[:6], tuple(np.array([centre.value_mm - 5.0 * (5 - k), 600.0]) for k in range(6)))
    assert not [c for c in lines.crossings(on, table_lines, LineSettings(), DT, R) if c.obstacle == "center"]
