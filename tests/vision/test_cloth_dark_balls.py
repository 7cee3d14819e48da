"""A dark ball on coloured cloth is not cloth, a shadow of the same size and darkness is.

``dark-ball-blue-cloth.png``: 48 px around the black 8 on blue-green cloth (tuning clip padova game4_clip1,
first frame; ball radius about 10.2 px, centre at (24.5, 24.0)). The ball reads 0.3-0.4 of the cloth's
brightness with a chroma residual of about 19 BGR units: too bright for the darkness cut and, at the cloth's
full chroma threshold (about 33 units here), too close in hue to be told from a shadow. A shadow scales the
cloth's colour, its chroma residual included, so the threshold scales with the pixel's brightness.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cloth import ClothModel

CROP = Path(__file__).resolve().parents[1] / "data" / "vision" / "dark-ball-blue-cloth.png"
CENTRE = (24.5, 24.0)
RADIUS = 10.2


@pytest.fixture(scope="module")
def scene():
    img = cv2.imread(str(CROP))
    assert img is not None
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    d = np.hypot(xx - CENTRE[0], yy - CENTRE[1])
    cloth = ClothModel(colour=np.median(img[d > 18].astype(np.float64), axis=0))
    return img, d, cloth, np.full((h, w), 255, np.uint8)


def test_the_dark_ball_is_not_cloth(scene):
    img, d, cloth, full = scene
    mask = cloth.foreground_mask(img, full, full)
    inner = mask[d < 0.7 * RADIUS] > 0
    assert inner.mean() >= 0.6  # 0.73 measured; 0.47 with the cloth's full chroma threshold at every brightness
    assert np.count_nonzero(mask[d > 1.5 * RADIUS]) == 0  # the cloth around it stays cloth
    np.testing.assert_array_equal(mask, cloth.foreground_mask_cv2(img, full, full))


@pytest.mark.parametrize("scale", [0.3, 0.35, 0.5, 0.7])
def test_a_shadow_as_dark_as_the_ball_stays_cloth(scene, scale):
    img, d, cloth, full = scene
    shadow = np.clip(img.astype(np.float32) * scale, 0, 255).astype(np.uint8)  # the cloth's colour, less light
    mask = cloth.foreground_mask(shadow, full, full)
    assert np.count_nonzero(mask[d > 18]) == 0
    np.testing.assert_array_equal(mask, cloth.foreground_mask_cv2(shadow, full, full))


def test_where_darkness_is_no_ball_the_chroma_threshold_is_the_cloths(scene):
    img, d, cloth, full = scene
    none = np.zeros_like(full)  # a pocket's hole: dark and of any hue, never a ball for being so
    mask = cloth.foreground_mask(img, full, none)
    strict = ClothModel(colour=cloth.colour.copy(), chroma_min=cloth.chroma_threshold())
    np.testing.assert_array_equal(mask, strict.foreground_mask(img, full, none))
    np.testing.assert_array_equal(mask, cloth.foreground_mask_cv2(img, full, none))
    assert (mask[d < 0.7 * RADIUS] > 0).mean() < (cloth.foreground_mask(img, full, full)[d < 0.7 * RADIUS] > 0).mean()
