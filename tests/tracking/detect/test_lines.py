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
