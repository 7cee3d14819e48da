"""``tracking.detect.segments``: the segment model built from the tracker's frames, and the typed records the
detectors read off it, on hand-made paths through a real ``EventExtractor`` (``tests.tracking.detect.scenes``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.detect.scenes import FPS, D, Leg, frames, path, run
from tracking.detect import segments


def _struck_and_still():
    """Ball 1 resting at (900, 600) throughout; ball 2 resting at (1500, 900), struck at 0.5 s along +x at 1 m/s,
    stopping at 1.0 s."""
    one = path(Leg(0.0, (900.0, 600.0)))
    two = path(Leg(0.0, (1500.0, 900.0)), Leg(0.5, (1500.0, 900.0), (1000.0, 0.0)), Leg(1.0, (2000.0, 900.0)))
    ex, events = run(frames({"1": one, "2": two}, 2.0))
    return ex, events


def test_a_resting_ball_is_one_rest_and_a_struck_one_rest_move_rest() -> None:
    ex, _ = _struck_and_still()
    assert [s.kind for s in ex.balls["1"].segs] == ["rest"]
    assert [s.kind for s in ex.balls["2"].segs] == ["rest", "move", "rest"]
    move = ex.balls["2"].segs[1]
    assert move.start_t == pytest.approx(0.5, abs=1.5 / FPS)
    # every ball rests where the tracker anchored it
    assert segments.rest_positions(ex.balls) == {"1": (900.0, 600.0), "2": (2000.0, 900.0)}
    assert segments.last_places(ex.balls) == {}  # both were seen still
    assert segments.end_of(ex, ex.balls["2"])[1] == pytest.approx([2000.0, 900.0])


def test_samples_between_and_resting_at_read_the_segments() -> None:
    ex, _ = _struck_and_still()
    two = ex.balls["2"]
    view = segments.samples_between(two, 0.6, 0.8)
    assert view.ball == "2" and len(view.ts) == 13 and min(view.ts) >= 0.6 and max(view.ts) <= 0.8
    # on its straight run: x = 1500 + 1000 (t - 0.5)
    assert [p[0] for p in view.ps] == pytest.approx([1500.0 + 1000.0 * (t - 0.5) for t in view.ts])
    assert segments.resting_at(ex, two, 0.3) and not segments.resting_at(ex, two, 0.7)
    assert segments.resting_at(ex, ex.balls["1"], 0.7)
    spells = {s.ball: s for s in segments.rest_spells(ex)}
    # ball 2's rest begins once its stop is read (after it stopped at 1.0 s, within a quarter second)
    assert set(spells) == {"1", "2"} and 1.0 - 1.5 / FPS <= spells["2"].start_t < 1.25
    assert spells["1"].mean(0.0, 2.0) == pytest.approx([900.0, 600.0])


def test_touching_links_balls_within_reach_through_each_other() -> None:
    places = {
        "1": np.array([0.0, 0.0]),
        "2": np.array([D, 0.0]),
        "3": np.array([2 * D, 0.0]),
        "4": np.array([5 * D, 0.0]),
    }
    assert segments.touching("1", places, D + 0.5) == ["1", "2", "3"]
    assert segments.touching("4", places, D + 0.5) == ["4"]
    assert segments.touching("cue", places, D + 0.5) == ["cue"]  # a ball with no place touches nothing


def test_one_per_frame_keeps_the_first_sample_of_each_frame() -> None:
    dt = 1 / FPS
    ts = np.array([0.0, dt, 1.02 * dt, 2 * dt, 4 * dt])  # a jittery clock puts two samples in frame 1
    idx, fr = segments.one_per_frame(np.arange(5), ts, dt)
    assert idx.tolist() == [0, 1, 3, 4] and fr.tolist() == [0, 1, 2, 4]
