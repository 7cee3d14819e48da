"""A live service saves the observer after each shot (``api.resume``) so that a restart goes on from there: the
pipeline pickles with its detector (the cloth it learned; the ball classifier is loaded again from its file), and
the observer restored from it calls the rest of the clip as the one that never stopped."""

from __future__ import annotations

import pickle

import cv2
import pytest

from api.pipeline import Pipeline, video_frames
from calibration.mapping import Calibration
from tests.paths import REPO

DEMO = REPO / "api" / "data" / "demo"


def _frames() -> list:
    cap = cv2.VideoCapture(str(DEMO / "video.mp4"))
    try:
        return list(video_frames(cap))
    finally:
        cap.release()


def _key(events: list) -> list[tuple]:
    return [(e.type, e.frame, e.ball, e.balls, e.pocket, e.cushion) for e in events]


@pytest.mark.slow
def test_an_observer_saved_after_a_shot_and_restored_calls_the_rest_as_before() -> None:
    frames = _frames()
    cal = Calibration.load(DEMO / "camera.json")
    whole = Pipeline(cal, game="moscow", fps=25.0)
    for i, f in enumerate(frames):
        whole.step(f, i, i / 25.0)
    whole.finish()

    first = Pipeline(cal, game="moscow", fps=25.0)
    cut = 300  # after the break's shot_end (281), before the next stroke (321)
    for i, f in enumerate(frames[:cut]):
        first.step(f, i, i / 25.0)
    restored = pickle.loads(pickle.dumps(first))
    for i, f in enumerate(frames[cut:], start=cut):
        restored.step(f, i, i / 25.0)
    restored.finish()
    assert _key(restored.events) == _key(whole.events)
    assert [e.type for e in restored.events].count("shot_end") == 3
