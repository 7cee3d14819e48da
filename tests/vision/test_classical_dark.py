"""A dark disc of a ball's size alone on the cloth is proposed; a shadow against a ball, a large shadow and a
pocket's hole are not (``vision.classical_dark_kernels``, ``ClassicalDetector(dark_discs=...)``).

The kernel is tried on brightness fields drawn cell by cell (k = 1 is cloth). The detector is tried on real
data (tests/data/vision): the black 8 on blue-green cloth (``dark-ball-blue-cloth.png``, radius about 10.2 px,
centre marked at (24.5, 24.0)), which reads 0.3-0.4 of the cloth's brightness with no more chroma than a
shadow, placed where the purple ball of ``dark-ball-lit-top.png`` lay in a frame of that clip's camera
(``dark-ball-lit-top-calibration.json``: a ball there is imaged at a radius of about 10.7 px)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.mapping import Calibration
from vision.classical import ClassicalDetector
from vision.classical_dark_kernels import DARK_REL, RING_DIRTY, SEED_K, dark_discs
from vision.detections import BALL

DATA = Path(__file__).resolve().parents[1] / "data" / "vision"
R = 2.5  # the ball's radius in grid cells
H, W = 40, 60


def _field() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lit cloth: brightness 1 everywhere, nothing not-cloth, darkness may be a ball everywhere, no stretch."""
    return (
        np.ones((H, W), np.float32), np.zeros((H, W), np.uint8), np.full((H, W), 255, np.uint8),
        np.ones((H, W), np.float32),
    )  # fmt: skip


def _disc(a: np.ndarray, cx: float, cy: float, r: float, value: float) -> None:
    yy, xx = np.mgrid[0:H, 0:W]
    a[np.hypot(xx - cx, yy - cy) <= r] = value


def _find(k: np.ndarray, fg: np.ndarray, ok: np.ndarray, stretch: np.ndarray, cam: tuple[float, float] = (-50.0, 20.0)):
    return dark_discs(k, fg, ok, stretch, cam[0], cam[1], R, SEED_K, DARK_REL, 0.5, RING_DIRTY)


def test_a_dark_disc_alone_on_the_cloth_is_found_at_its_centre() -> None:
    k, fg, ok, stretch = _field()
    _disc(k, 30.0, 20.0, R, 0.3)
    found = _find(k, fg, ok, stretch)
    assert len(found) == 1
    assert np.hypot(found[0, 0] - 30.0, found[0, 1] - 20.0) <= 1.0
    assert found[0, 2] == 1.0 and found[0, 3] == 0.0


@pytest.mark.parametrize(
    "case",
    [
        "shadow against a ball",  # the ball (not-cloth) fills the ring's side facing it
        "large shadow",  # an arm's or a cue's: the ring is dark too
        "pocket hole",  # darkness there is no ball
        "dim patch",  # light falling off over many radii: no disc
    ],
)
def test_what_is_not_a_lone_dark_disc_is_not_found(case: str) -> None:
    k, fg, ok, stretch = _field()
    if case == "shadow against a ball":
        _disc(k, 30.0, 20.0, R, 0.3)
        _disc(fg, 30.0 + 2 * R, 20.0, R, 255)
        _disc(k, 30.0 + 2 * R, 20.0, R, 0.9)
    elif case == "large shadow":
        k[10:30, 20:40] = 0.3
    elif case == "pocket hole":
        _disc(k, 30.0, 20.0, R, 0.3)
        ok[:, 33:] = 0
    else:
        yy, xx = np.mgrid[0:H, 0:W]
        k[:] = 1.0 - 0.6 * np.exp(-((xx - 30.0) ** 2 + (yy - 20.0) ** 2) / (2 * 8.0**2))
    assert len(_find(k, fg, ok, stretch)) == 0


def test_a_disc_stretched_by_the_view_is_found_where_a_circle_of_its_size_is_not() -> None:
    k, fg, ok, stretch = _field()
    # the ball's outline on the cloth plane, stretched 1.6 times along the line from the camera's foot (x)
    yy, xx = np.mgrid[0:H, 0:W]
    k[np.hypot((xx - 30.0) / 1.6, yy - 20.0) <= R] = 0.3
    assert len(_find(k, fg, ok, stretch)) == 0  # its ring (as a circle's) runs over the dark ends
    found = _find(k, fg, ok, np.full((H, W), 1.6, np.float32))
    assert len(found) == 1
    assert np.hypot(found[0, 0] - 30.0, found[0, 1] - 20.0) <= 1.0


def _black_eight_frame() -> np.ndarray:
    crop = cv2.imread(str(DATA / "dark-ball-blue-cloth.png"))
    assert crop is not None
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    frame = np.empty((576, 1024, 3), np.uint8)
    frame[:] = np.median(border, axis=0).astype(np.uint8)
    frame[210:258, 637:685] = crop  # its marked centre at (661.5, 234.0)
    return frame


def test_the_black_eight_is_proposed_by_its_dark_disc_and_judged_by_its_look() -> None:
    cal = Calibration.load(DATA / "dark-ball-lit-top-calibration.json", expect_image_size=(1024, 576))
    frame = _black_eight_frame()
    assert len(ClassicalDetector(cal, dark_discs=False).detect(frame)) == 0  # shadow to the cloth mask
    det = ClassicalDetector(cal).detect(frame)
    assert len(det) == 1
    assert np.hypot(*(det.px[0] - np.array([661.5, 234.0]))) < 0.33 * det.radius_px[0]
    assert det.confidence[0] < ClassicalDetector(cal).settings.ball_sure_confidence  # its look decides
    assert det.p_ball is not None and not np.isnan(det.p_ball[0])
    assert det.cls[0] == BALL


def test_without_the_ball_classifier_no_dark_disc_is_proposed() -> None:
    # a shape on a few coarse cells is weak evidence: it counts only where a ball's look confirms it
    cal = Calibration.load(DATA / "dark-ball-lit-top-calibration.json", expect_image_size=(1024, 576))
    assert len(ClassicalDetector(cal, ball_classifier=False).detect(_black_eight_frame())) == 0
