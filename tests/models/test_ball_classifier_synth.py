"""The painted hard cases of the ball classifier's rendered crops (models/ball_classifier/synth.py): a dyed ball
keeps its shading and a highlight, and the share of a ball the player covers is measured on its disc."""

from __future__ import annotations

import numpy as np

from models.ball_classifier.synth import _covered, _disc, _tint_ball


def _ivory_ball(size: int = 64, r: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    """Green cloth with a shaded ivory ball (brighter towards the top left) and a white highlight."""
    img = np.zeros((size, size, 3), np.uint8)
    img[:] = (40, 120, 30)
    c = np.array([size / 2, size / 2])
    yy, xx = np.mgrid[0:size, 0:size]
    shade = np.clip(1.0 - 0.4 * ((xx - c[0] + yy - c[1]) / (2 * r) + 0.5), 0.5, 1.0)
    disc = _disc(size, size, c, r) > 0.5
    img[disc] = (np.array([200.0, 222.0, 232.0]) * shade[disc][:, None]).astype(np.uint8)
    img[np.hypot(xx - c[0] + 6, yy - c[1] + 6) < 3] = 252
    return img, c


def test_a_dyed_ball_is_dark_where_it_was_ivory_keeps_its_highlight_and_leaves_the_cloth_alone():
    img, c = _ivory_ball()
    before = img.copy()
    _tint_ball(img, c, 20.0, np.array([0.12, 0.12, 0.12]))  # black
    body = _disc(64, 64, c, 14.0) > 0.5
    body[np.hypot(*(np.mgrid[0:64, 0:64][::-1] - (c - 6)[:, None, None])) < 5] = False
    assert img[body].mean() < 0.2 * before[body].mean()
    assert img[26, 26].min() > 4 * img[body].mean()  # the highlight stays the brightest spot
    cloth = _disc(64, 64, c, 23.0) < 0.5
    assert np.array_equal(img[cloth], before[cloth])
    shade_before = before[body].astype(float).mean(axis=1)
    shade_after = img[body].astype(float).mean(axis=1)
    rank_before, rank_after = np.argsort(np.argsort(shade_before)), np.argsort(np.argsort(shade_after))
    assert np.corrcoef(rank_before, rank_after)[0, 1] > 0.9  # the sprite's shading is kept: lit side stays lit


def test_the_covered_share_is_the_part_of_the_balls_disc_under_the_player():
    parts = np.full((100, 100), -1, np.int8)
    c, r = np.array([50.0, 50.0]), 10.0
    assert _covered(parts, c, r) == 0.0
    parts[:, 50:] = 0  # a cue shaft over the right half
    assert 0.4 < _covered(parts, c, r) < 0.6
    parts[:] = 3  # a sleeve over all of it
    assert _covered(parts, c, r) == 1.0
    assert _covered(parts, np.array([-50.0, -50.0]), r) == 1.0  # off the picture: nothing of it seen
