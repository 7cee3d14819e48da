"""Each rail is its own colour: the camera sees the far cushion's face (cloth-coloured rubber, in the shade)
where it sees the near rails' wooden tops, so a ring of rail that runs around the whole table is not one colour.
A generated picture: green cloth, brown rails, and along one long side a band of cushion face a ball wide."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.mapping import Calibration
from calibration.table import TableModel, TableSpec
from vision.cover import CoverModel

SIZE = (640, 360)
CLOTH = (110.0, 125.0, 25.0)  # BGR
RAIL = (30.0, 60.0, 115.0)  # the wooden rail top
FACE = (70.0, 80.0, 15.0)  # the cushion's face seen at a slant: cloth in the shade
SKIN = (140.0, 165.0, 215.0)


def _calibration() -> Calibration:
    spec = TableSpec(length_mm=2540.0, width_mm=1270.0, ball_diameter_mm=57.15)
    corners = {
        "house-left": (100.0, 60.0),
        "house-right": (100.0, 300.0),
        "pyramid-left": (540.0, 60.0),
        "pyramid-right": (540.0, 300.0),
    }
    return Calibration.from_corners(corners, SIZE, TableModel(spec))


def _table_picture(cal: Calibration) -> np.ndarray:
    """Each pixel coloured by where it falls on the table: cloth, the far cushion's face, rail."""
    t = cal.table
    w, h = SIZE
    xs, ys = np.meshgrid(np.arange(w, dtype=float), np.arange(h, dtype=float))
    mm = np.asarray(cal.image_to_table(np.column_stack([xs.ravel(), ys.ravel()])), dtype=float)
    x, y = mm[:, 0], mm[:, 1]
    img = np.empty((h * w, 3))
    img[:] = RAIL
    face = (y > t.width_mm) & (y <= t.width_mm + t.ball_diameter_mm) & (x > 0) & (x < t.length_mm)
    img[face] = FACE
    cloth = (x >= 0) & (x <= t.length_mm) & (y >= 0) & (y <= t.width_mm)
    img[cloth] = CLOTH
    return np.clip(img.reshape(h, w, 3), 0, 255).astype(np.uint8)


def _ball(img: np.ndarray, cal: Calibration, at_mm: tuple[float, float]) -> np.ndarray:
    px = np.asarray(cal.table_to_image(np.array([at_mm])), dtype=float)[0]
    r = cal.table.ball_radius_mm * (540.0 - 100.0) / cal.table.length_mm  # the corners are 440 px apart
    cv2.circle(img, (round(px[0]), round(px[1])), max(2, round(r)), (235, 235, 235), -1)
    return px


def test_a_ball_against_the_far_cushion_is_not_covered_by_its_face() -> None:
    cal = _calibration()
    t = cal.table
    img = _table_picture(cal)
    # a ball resting against the far cushion, by its face, and one in the open
    at = [(0.3 * t.length_mm, t.width_mm - t.ball_radius_mm), (0.6 * t.length_mm, 0.5 * t.width_mm)]
    px = np.array([_ball(img, cal, a) for a in at])
    model = CoverModel(cal)
    for _ in range(3):
        mask = model.update(img, px)
    assert not model.covered(mask, px).any()
    assert mask.share < 0.005


def test_an_arm_over_the_far_rail_is_still_cover() -> None:
    """The same table after a clean frame: an arm reaches over the far rail and its hand lies on the cloth by
    the cushion; the blob on the hand is covered, the ball in the open is not."""
    cal = _calibration()
    t = cal.table
    img = _table_picture(cal)
    ball = _ball(img, cal, (0.6 * t.length_mm, 0.5 * t.width_mm))
    model = CoverModel(cal)
    model.update(img, ball[None])
    arm = img.copy()
    d = t.ball_diameter_mm
    corners = np.array([[0.3 * t.length_mm - d, t.width_mm - 1.5 * d], [0.3 * t.length_mm + d, t.width_mm + 3 * d]])
    p = np.asarray(cal.table_to_image(corners), dtype=float)
    lo, hi = p.min(axis=0), p.max(axis=0)
    cv2.rectangle(arm, (round(lo[0]), round(lo[1])), (round(hi[0]), round(hi[1])), SKIN, -1)
    hand = np.asarray(cal.table_to_image(np.array([[0.3 * t.length_mm, t.width_mm - d]])), dtype=float)[0]
    px = np.array([hand, ball])
    covered = model.covered(model.update(arm, px), px)
    assert covered.tolist() == [True, False]
