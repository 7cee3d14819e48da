"""Line crossings read off finished paths (``tracking.detect.lines``): where a crossing is timed."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.detect.scenes import FPS, TABLE
from tracking.detect import lines
from tracking.detect.segments import PathView
from tracking.detect.settings import LineSettings

DT = 1 / FPS
R = TABLE.ball_radius_mm


def test_a_shallow_crossing_is_timed_on_the_fitted_path_not_on_the_first_noisy_sample_past_the_line() -> None:
    """A ball rolling along the table at 120 mm/s and across the long line at 30 mm/s (half a millimetre a
    frame) crosses it at 0.3 s; detections scatter by +-0.6 mm, and the one two frames before the crossing reads
    1.2 mm high, so it is the first sample past the line. The crossing is timed within a frame of 0.3 s, where the
    path fitted through the samples around it meets the line, not between that sample and the one before it."""
    assert FPS == 60  # (two frames of half a millimetre each: the scatter below is sized for 60 fps)
    long_line = next(ln for ln in lines.table_lines(TABLE) if ln.name == "long")
    ts = tuple(k * DT for k in range(37))
    scatter = [0.6 if k % 2 else -0.6 for k in range(len(ts))]
    scatter[16] = 1.2
    ps = tuple(
        np.array([2000.0 + 120.0 * t, long_line.value_mm + 30.0 * (t - 0.3) + e])
        for t, e in zip(ts, scatter, strict=True)
    )
    assert ps[16][1] > long_line.value_mm > ps[15][1]  # the noisy sample is the first past the line
    path = PathView("7", ts, ps)
    (c,) = [c for c in lines.crossings(path, lines.table_lines(TABLE), LineSettings(), DT, R) if c.obstacle == "long"]
    assert c.direction == "+y"
    assert c.t == pytest.approx(0.3, abs=DT)


def kink_on_the_line(after_mm: float) -> tuple[PathView, PathView]:
    """A ball rolling at 300 mm/s up to the long line at 10 mm/s across it, bent by a contact 0.2 mm over the
    line at 0.5 s, then rolling off that side to ``after_mm`` mm over it by 0.8 s (a path pair, as a kink cuts
    it: the second starts where the first ends)."""
    val = next(ln for ln in lines.table_lines(TABLE) if ln.name == "long").value_mm
    t_kink = 0.5
    ts_in = tuple(k * DT for k in range(round(t_kink / DT) + 1))
    into = PathView("7", ts_in, tuple(np.array([1500.0 + 300.0 * t, val + 0.2 + 10.0 * (t - t_kink)]) for t in ts_in))
    ts_out = tuple(t_kink + k * DT for k in range(round(0.3 / DT) + 1))
    rise = (after_mm - 0.2) / 0.3
    ps_out = tuple(np.array([1650.0 + 200.0 * (t - t_kink), val + 0.2 + rise * (t - t_kink)]) for t in ts_out)
    return into, PathView("7", ts_out, ps_out, before=into)


def long_line_crossings(path: PathView) -> list:
    return [c for c in lines.crossings(path, lines.table_lines(TABLE), LineSettings(), DT, R) if c.obstacle == "long"]


def test_a_line_crossed_at_a_kink_counts_once_timed_on_the_path_that_went_over() -> None:
    """The path into the kink ends 0.2 mm over the line and the path out starts there, both under the margin of
    a ball on the line: the ball moved through the kink, so the crossing counts once, from the side it was last
    clearly on before the bend, at 0.48 s, where the path in met the line."""
    into, out = kink_on_the_line(after_mm=5.0)
    assert LineSettings().line_margin_mm > 0.2
    assert long_line_crossings(into) == []  # ends on the line: not over, read alone
    assert long_line_crossings(PathView("7", out.ts, out.ps)) == []  # starts on it, read without the path in
    (c,) = long_line_crossings(out)
    assert c.direction == "+y"
    assert c.t == pytest.approx(0.48, abs=DT)


def test_a_ball_that_stops_on_the_line_after_a_kink_makes_no_crossing() -> None:
    """The same bend, but the ball rolls to rest 0.4 mm over the line: on the line is not over it."""
    _, out = kink_on_the_line(after_mm=0.4)
    assert long_line_crossings(out) == []


def test_a_ball_that_leaves_a_kink_back_on_the_side_it_came_from_makes_no_crossing() -> None:
    """A bend 0.2 mm over the line that sends the ball back to the side it came from: it touched the line, no
    more."""
    into, out = kink_on_the_line(after_mm=5.0)
    kink_y = into.ps[-1][1]
    back = PathView("7", out.ts, tuple(np.array([q[0], 2 * kink_y - q[1]]) for q in out.ps), before=into)
    assert back.ps[-1][1] < into.ps[-1][1] - 4  # (it ends clear, on the side it came from)
    assert long_line_crossings(back) == []


def test_a_path_from_a_kink_on_the_line_that_goes_on_over_and_back_counts_the_kink_and_each_change() -> None:
    """The path out of the same bend rolls 5 mm over the line, back 5 mm under it and over again (a slow
    jostle): the crossing through the kink, then each change of side inside the path, three in all."""
    into, out = kink_on_the_line(after_mm=5.0)
    val = out.ps[0][1] - 0.2
    ts = tuple(0.5 + k * DT for k in range(82))
    ps = tuple(np.array([1650.0 + 100.0 * (t - 0.5), val + 0.2 + 5.0 * np.sin(2 * np.pi * (t - 0.5))]) for t in ts)
    (a, b, c) = long_line_crossings(PathView("7", ts, ps, before=into))
    assert [a.direction, b.direction, c.direction] == ["+y", "-y", "+y"]
    assert a.t == pytest.approx(0.48, abs=DT)
    assert b.t == pytest.approx(1.0, abs=DT)
    assert c.t == pytest.approx(1.5, abs=DT)
