"""A partly found rim: the circle most rim points agree on, not the least-squares compromise with a shadow's edge.

A dark ball's shadow reads as dark as the ball on the side away from the light, so some rays put the rim at the
shadow's far edge, beyond the ball. Those points lie on no circle with the ball's other rim points: they lose the
vote, in the compiled kernel and in its numpy reference alike."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tests.refine_support import _vote_circle as vote_reference
from tests.refine_support import refine_centres_numpy
from vision.cloth import ClothModel
from vision.refine import refine_centres
from vision.refine_kernels import VOTE_MIN, _vote_circle

CENTRE = np.array([50.0, 40.0])
RADIUS = 10.0
CROP = Path(__file__).resolve().parents[1] / "data" / "vision" / "dark-ball-blue-cloth.png"
BALL = np.array([24.5, 24.0])  # the crop's ball, marked by eye
BALL_R = 10.2  # its expected radius, px


def _rim(shadow_rays: list[int], ball_rays: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """24 rays' rim points: on the ball's rim (with a little noise) on ``ball_rays``, at 1.35 radii (a shadow's
    edge) on ``shadow_rays``, none found on the others."""
    ang = np.linspace(0.0, 2.0 * np.pi, 24, endpoint=False)
    dirs = np.column_stack([np.cos(ang), np.sin(ang)])
    rng = np.random.default_rng(5)
    r = np.full(24, RADIUS) + rng.uniform(-0.3, 0.3, 24)
    r[shadow_rays] = 1.35 * RADIUS
    ok = np.zeros(24, bool)
    ok[shadow_rays + ball_rays] = True
    pts = CENTRE + r[:, None] * dirs
    return pts, ok, np.asarray(shadow_rays)


def test_a_shadows_rim_points_lose_the_vote() -> None:
    pts, ok, shadow = _rim(shadow_rays=[5, 6, 7], ball_rays=[0, 3, 10, 12, 15, 18, 21])
    start = CENTRE + np.array([3.0, 2.0])  # a blob centroid pulled towards the shadow
    agree = np.zeros(24, bool)
    n_on, cx, cy, r = _vote_circle(pts[:, 0], pts[:, 1], ok, RADIUS, start[0], start[1], agree)
    assert n_on == 7 >= VOTE_MIN
    assert np.hypot(cx - CENTRE[0], cy - CENTRE[1]) < 0.5
    assert abs(r - RADIUS) < 0.5
    assert not agree[shadow].any() and agree.sum() == 7
    on, c, r_ref = vote_reference(pts[:, 0] + 1j * pts[:, 1], ok, RADIUS, complex(*start))
    np.testing.assert_array_equal(on, agree)
    assert abs(c - complex(cx, cy)) < 1e-9 and abs(r_ref - r) < 1e-9


def test_no_circle_far_from_the_start_or_of_another_size() -> None:
    pts, ok, _ = _rim(shadow_rays=[], ball_rays=[0, 3, 8, 12, 16, 20])
    agree = np.zeros(24, bool)
    # the ball's rim is more than 0.6 radius from this start: no circle there wins
    far = CENTRE + np.array([8.0, 0.0])
    assert _vote_circle(pts[:, 0], pts[:, 1], ok, RADIUS, far[0], far[1], agree)[0] == 0
    # a rim of 10 px where 16 px are expected is outside the window of radii
    assert _vote_circle(pts[:, 0], pts[:, 1], ok, 16.0, CENTRE[0], CENTRE[1], agree)[0] == 0
    on, _, _ = vote_reference(pts[:, 0] + 1j * pts[:, 1], ok, 16.0, complex(*CENTRE))
    assert not on.any()


def test_a_dark_ball_with_few_rim_points_is_voted_in_the_kernel_as_in_the_reference() -> None:
    """The black 8 on blue-green cloth (``test_refine_dark_ball``) from starts a third of a radius off: where half
    the inner samples read dark, the vote moves the centre to the ball's; the kernel and the reference agree."""
    img = cv2.imread(str(CROP))
    assert img is not None
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    far = np.hypot(xx - BALL[0], yy - BALL[1]) > 18
    cloth = ClothModel(colour=np.median(img[far].astype(np.float64), axis=0))
    ang = np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
    starts = BALL + 0.35 * BALL_R * np.column_stack([np.cos(ang), np.sin(ang)])
    radii = np.full(len(starts), BALL_R)
    got = refine_centres(img, starts, radii, cloth).px
    ref = refine_centres_numpy(img, starts, radii, cloth).px
    assert np.abs(got - ref).max() < 0.01
    moved = np.linalg.norm(got - starts, axis=1) > 0.1
    assert moved.sum() >= 4
    assert np.linalg.norm(got[moved] - BALL, axis=1).max() < 0.2 * BALL_R
