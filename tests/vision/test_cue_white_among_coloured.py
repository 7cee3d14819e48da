"""The cue ball of a coloured set (pool, snooker) is the white one: real detections' colours from broadcast pool
footage (tests/data/vision/cue_colours/real_sets.json), classified by the classical detector."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import top_down_calibration
from vision.classical import ClassicalDetector, coloured_set, white_among_coloured
from vision.detections import CUE

DATA = Path(__file__).resolve().parents[1] / "data" / "vision" / "cue_colours" / "real_sets.json"
SETS = json.loads(DATA.read_text())["sets"]


def _colours(s: dict) -> tuple[np.ndarray, list[str]]:
    return np.array([b["bgr"] for b in s["balls"]], dtype=np.float64), [b["ball"] for b in s["balls"]]


@pytest.fixture
def detector() -> ClassicalDetector:
    return ClassicalDetector(top_down_calibration((1280, 720), TableModel()))


@pytest.mark.parametrize("s", SETS, ids=[s["clip"] for s in SETS])
def test_the_white_ball_of_a_real_coloured_set_is_classified_cue(s, detector):
    colour, names = _colours(s)
    cls = detector._classify(colour)
    assert [n for n, c in zip(names, cls, strict=True) if c == CUE] == ["cue"]


@pytest.mark.parametrize("s", SETS, ids=[s["clip"] for s in SETS])
def test_without_the_white_ball_no_stripe_is_classified_cue(s, detector):
    # A stripe ball is mostly white: once the white ball was seen, none may take its place while it is gone
    # (potted, under the player's arm).
    colour, names = _colours(s)
    detector._classify(colour)
    rest = [i for i, n in enumerate(names) if n != "cue"]
    cls = detector._classify(colour[rest])
    assert not np.any(cls == CUE), [names[i] for i in np.asarray(rest)[cls == CUE]]


def test_like_balls_leave_the_rule_to_the_odd_colour_out(detector):
    # A Russian set under warm light: ivory balls a few units apart and a yellowish cue ball.
    rng = np.random.default_rng(3)
    ivory = np.array([175.0, 205.0, 215.0]) + rng.normal(0.0, 4.0, (9, 3))
    assert coloured_set(ivory, 60.0) is False
    cls = detector._classify(np.vstack([ivory, [[60.0, 190.0, 230.0]]]))
    assert list(np.flatnonzero(cls == CUE)) == [9]


def test_two_whites_too_close_to_tell_give_no_cue():
    colour, names = _colours(SETS[0])
    cue = names.index("cue")
    twin = colour[cue] + np.array([2.0, -2.0, 1.0])  # a second white ball within the measurement noise
    assert white_among_coloured(np.vstack([colour, twin])) == -1
