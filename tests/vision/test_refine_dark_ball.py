"""A dark ball's refined centre does not depend on where the refinement starts.

``dark-ball-blue-cloth.png`` (see ``test_cloth_dark_balls``): the black 8 on blue-green cloth, radius about 10.2
px, centre marked at (24.5, 24.0). The ball reads 0.3-0.4 of the cloth's brightness with a chroma residual of
about 19 units, under the cloth's full chroma threshold (about 33): scored against that threshold, its inside is
not clearly "not cloth", the rim is found on a few rays only, no circle is fitted and the centre stays wherever
it started (the blob centroid of its lit top one frame, a vote peak the next): a ball at rest that jitters by
half a radius. Scored as the cloth mask scores deep dark pixels (the chroma threshold scaled by the brightness,
which a shadow of the cloth's own colour stays under), its rim is found all round and every start gives the same
centre.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.refine_reference import refine_centres_numpy
from vision.cloth import ClothModel
from vision.refine import refine_centres

CROP = Path(__file__).resolve().parents[1] / "data" / "vision" / "dark-ball-blue-cloth.png"
CENTRE = np.array([24.5, 24.0])
RADIUS = 10.2


@pytest.fixture(scope="module")
def scene() -> tuple[np.ndarray, ClothModel, np.ndarray]:
    img = cv2.imread(str(CROP))
    assert img is not None
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    cloth = ClothModel(colour=np.median(img[np.hypot(xx - CENTRE[0], yy - CENTRE[1]) > 18].astype(np.float64), axis=0))
    ang = np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
    # starts a third of a radius off in eight directions: where a lit top's centroid or a vote peak puts them
    starts = CENTRE + 0.35 * RADIUS * np.column_stack([np.cos(ang), np.sin(ang)])
    return img, cloth, starts


def test_every_start_finds_the_same_centre_on_the_rim(scene):
    img, cloth, starts = scene
    got = np.array([refine_centres(img, s[None], np.array([RADIUS]), cloth).px[0] for s in starts])
    # 3.6 px (0.35 radius) from the centre from two of the starts, and 7 px apart, with the cloth's full threshold
    assert np.linalg.norm(got - CENTRE, axis=1).max() < 0.2 * RADIUS
    assert np.linalg.norm(got[:, None] - got[None], axis=2).max() < 0.2 * RADIUS


def test_the_kernel_matches_the_reference_on_the_dark_ball(scene):
    img, cloth, starts = scene
    radii = np.full(len(starts), RADIUS)
    got = refine_centres(img, starts, radii, cloth)
    ref = refine_centres_numpy(img, starts, radii, cloth)
    assert np.abs(got.px - ref.px).max() < 0.01
    np.testing.assert_allclose(got.edge_fraction, ref.edge_fraction)
    assert got.edge_fraction.min() >= 8 / 24  # a circle is fitted from every start


def test_where_darkness_is_no_ball_the_chroma_term_is_the_cloths(scene):
    img, cloth, starts = scene
    radii = np.full(len(starts), RADIUS)
    none = np.zeros(len(starts), bool)  # a pocket's hole: dark and of any hue
    got = refine_centres(img, starts, radii, cloth, dark_counts=none)
    ref = refine_centres_numpy(img, starts, radii, cloth, dark_counts=none)
    assert np.abs(got.px - ref.px).max() < 0.01
    # without the scaled threshold the rim is found on fewer rays
    assert got.edge_fraction.mean() < refine_centres(img, starts, radii, cloth).edge_fraction.mean()
