"""A dark ball's refined centre does not depend on where the refinement starts (open: issue 34).

``dark-ball-blue-cloth.png``: 48 px around the black 8 on blue-green cloth (a tuning clip's first frame),
radius about 10.2 px, centre marked at (24.5, 24.0). The ball reads 0.3-0.4 of the cloth's brightness with a
chroma residual of about 19 BGR units, under the cloth's full chroma threshold (about 33): its inside is not
clearly "not cloth", the rim is found on a few rays only, no circle is fitted and the centre stays where it
started (the blob centroid of its lit top one frame, a vote peak the next): a ball at rest that jitters by a
third of a radius or more. Scoring deep dark samples against a threshold scaled by their brightness finds this
rim, but also the shadow of a striped ball on the same cloth (k 0.3-0.4, residual 15-20 units), which then
joins that ball's rim: a rule that tells the two apart is still wanted.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cloth import ClothModel
from vision.refine import refine_centres

CROP = Path(__file__).resolve().parents[1] / "data" / "vision" / "dark-ball-blue-cloth.png"
CENTRE = np.array([24.5, 24.0])
RADIUS = 10.2


@pytest.mark.xfail(
    strict=True,
    reason="open (issue 34): from two of eight starts a third of a radius off, the rim is found on 6-7 of 24 rays "
    "and fewer than half the inner samples read dark (no vote of rim circles): the centre stays at the start "
    "(3.6 px off). Voting from every start passes, but costs striped balls' calls on real footage",
)
def test_every_start_finds_the_same_centre_on_the_rim() -> None:
    img = cv2.imread(str(CROP))
    assert img is not None
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    cloth = ClothModel(colour=np.median(img[np.hypot(xx - CENTRE[0], yy - CENTRE[1]) > 18].astype(np.float64), axis=0))
    ang = np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
    # starts a third of a radius off in eight directions: where a lit top's centroid or a vote peak puts them
    starts = CENTRE + 0.35 * RADIUS * np.column_stack([np.cos(ang), np.sin(ang)])
    got = np.array([refine_centres(img, s[None], np.array([RADIUS]), cloth).px[0] for s in starts])
    assert np.linalg.norm(got - CENTRE, axis=1).max() < 0.2 * RADIUS
    assert np.linalg.norm(got[:, None] - got[None], axis=2).max() < 0.2 * RADIUS
