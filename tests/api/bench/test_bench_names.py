"""``tableref bench names``: labelled balls' colours, and how a word is judged against them."""

from __future__ import annotations

import pytest

from api.bench.names import Measured, nominal_colour


@pytest.mark.parametrize(
    ("label", "colour"),
    [("cue", "white"), ("5", "orange"), ("12", "purple"), ("8", "black"), ("maroon-stripe", "maroon"),
     ("RED", "red"), ("yellow", "yellow"), ("ball", None), ("16", None)],
)  # fmt: skip
def test_a_labelled_ball_has_the_colour_of_its_set(label, colour):
    assert nominal_colour(label) == colour


def test_a_word_is_right_silent_wrong_or_unseen():
    def verdict(colour, bgr, radius_px=16.0):
        return Measured("clip", "tuning", "x", colour, bgr, radius_px).verdict

    assert verdict("yellow", (30.0, 200.0, 240.0)) == "right"
    assert verdict("maroon", (30.0, 60.0, 140.0)) == "right"  # maroon reads brown or red: both its words
    assert verdict("white", (230.0, 240.0, 246.0)) == "right"  # "a ball" is a white ball's right word
    assert verdict("red", (230.0, 240.0, 246.0)) == "silent"
    assert verdict("red", (30.0, 200.0, 240.0)) == "wrong"
    assert verdict("red", (30.0, 200.0, 240.0), radius_px=8.0) == "silent"  # too small to be named
    assert verdict("red", None) == "unseen"
