"""A ball at rest keeps its refined centre: a refinement that leaves the ball settles at its start, with the rim
found there, not the rim its fit went on to find elsewhere.

``sheen-stripe-rest-f0..2.png``: 100 x 80 px of three consecutive frames of a tuning clip (a striped maroon ball at
rest on blue cloth under a lamp, centre about (40, 41) px, radius about 10 px; a solid red ball left of it), the
frames differing by a fraction of a grey level. The cloth model: the colour the detector learned on this clip,
(164, 137, 53) BGR, plus 30 grey levels of white, the lamp's sheen on the cloth near the ball (measured there:
the cloth's own colour plus 30-40 grey levels of the lamp's white), as the model learns it where that sheen lies.
From some starts inside the ball the rim fit wants to carry the centre more than 0.6 radius from the start (onto
the shadow's or the lit cloth's edge). The refinement went back to the start then, but reported the rim found at
the fit it abandoned (0.6-0.8 of it, against 0.2-0.3 at the start): a start off the ball outweighed a fuller rim
found from the same ball's other start, in one frame and not the next (a jump of 4-10 px that the tracker reads
as a shot).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.refine_support import refine_centres_numpy
from vision.cloth import ClothModel
from vision.refine import refine_centres

DATA = Path(__file__).resolve().parents[1] / "data" / "vision"
CENTRE = np.array([40.0, 41.0])
RADIUS = 10.0
TOWARD_CAMERA = (0.17, 0.99)  # the camera's side of the ball in this view (image down, a little right)
SHEEN_CLOTH = np.array([164.0, 137.0, 53.0]) + 30.0


def _frame(i: int) -> np.ndarray:
    img = cv2.imread(str(DATA / f"sheen-stripe-rest-f{i}.png"))
    assert img is not None
    return img


def _starts() -> np.ndarray:
    """Starts on a grid of a tenth of a radius within half a radius of the ball's centre (where a blob centroid or
    a vote peak of it lies)."""
    g = np.arange(-5, 6) * 0.1 * RADIUS
    return np.array([(CENTRE[0] + dx, CENTRE[1] + dy) for dx in g for dy in g])


@pytest.mark.xfail(
    strict=True,
    reason="the settle rule (h/refine2, 0cfae7a) was reverted: no tuning gain, one held-out still ball lost",
)
@pytest.mark.parametrize("frame_no", [0, 1, 2])
@pytest.mark.parametrize("impl", ["kernel", "numpy"])
def test_a_ball_settled_at_its_start_reports_the_rim_found_there(frame_no: int, impl: str) -> None:
    img = _frame(frame_no)
    cloth = ClothModel(colour=SHEEN_CLOTH)
    starts = _starts()
    radii = np.full(len(starts), RADIUS)
    toward = np.tile(TOWARD_CAMERA, (len(starts), 1))
    refine = refine_centres if impl == "kernel" else refine_centres_numpy
    at_start = refine(img, starts, radii, cloth, toward_camera=toward, iterations=1)  # measured at the start
    moved = np.linalg.norm(at_start.px - starts, axis=1) > 1.0
    for iterations in (2, 3, 4):
        out = refine(img, starts, radii, cloth, toward_camera=toward, iterations=iterations)
        back = moved & (np.linalg.norm(out.px - starts, axis=1) < 1e-9)
        assert back.sum() >= 3  # starts whose fit leaves the ball: the test tests something
        np.testing.assert_array_equal(out.support[back], at_start.support[back])
        np.testing.assert_array_equal(out.edge_fraction[back], at_start.edge_fraction[back])
        np.testing.assert_array_equal(out.colour[back], at_start.colour[back])


def test_kernel_and_numpy_reference_agree_on_the_crop() -> None:
    img = _frame(0)
    cloth = ClothModel(colour=SHEEN_CLOTH)
    starts = _starts()
    radii = np.full(len(starts), RADIUS)
    toward = np.tile(TOWARD_CAMERA, (len(starts), 1))
    a = refine_centres(img, starts, radii, cloth, toward_camera=toward)
    b = refine_centres_numpy(img, starts, radii, cloth, toward_camera=toward)
    np.testing.assert_allclose(a.px, b.px, atol=1e-6)
    np.testing.assert_allclose(a.support, b.support)
