"""A cushion whose top is lit like the cloth: its nose, not the rail behind it, bounds the playing field."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.aspect import aspect_problem, measured_aspect
from calibration.auto import auto_calibrate
from calibration.mapping import CORNER_NAMES, Calibration
from calibration.table import TableModel, TableSpec
from calibration.table_finder import find_table

SIZE = (1280, 720)
FIELD = (240.0, 160.0, 1040.0, 560.0)  # the nose rectangle, x0 y0 x1 y1 (px): 800 x 400, a 2:1 field seen from above
CUSHION_PX = 24  # the cushion top's width beyond the nose
RAIL_PX = 34
CLOTH = (60, 140, 40)  # BGR
SHADED_FACE = (28, 78, 20)  # a cushion face in shade: a strong step at the nose
LIT_TOP = (68, 152, 48)  # a cushion top lit like the cloth: only a faint step at the nose
WOOD = (40, 70, 120)


def _table_image(lit_sides: set[str], seed: int = 3, field: tuple[float, float, float, float] = FIELD) -> np.ndarray:
    """Overhead picture of a pool table: wooden rail, cushion band, cloth, six pocket holes. The cushions
    in ``lit_sides`` (top, bottom, left, right of the image) show a top of the cloth's colour, the others
    a face in shade."""
    x0, y0, x1, y1 = field
    img = np.full((SIZE[1], SIZE[0], 3), 35, np.uint8)
    c, r = CUSHION_PX, RAIL_PX
    cv2.rectangle(img, (int(x0 - c - r), int(y0 - c - r)), (int(x1 + c + r), int(y1 + c + r)), WOOD, -1)
    bands = {
        "top": ((x0 - c, y0 - c), (x1 + c, y0)),
        "bottom": ((x0 - c, y1), (x1 + c, y1 + c)),
        "left": ((x0 - c, y0 - c), (x0, y1 + c)),
        "right": ((x1, y0 - c), (x1 + c, y1 + c)),
    }
    for side in ("top", "bottom", "left", "right"):  # the shaded faces drawn last stay whole at the corners
        if side in lit_sides:
            (a, b), (p, q) = bands[side]
            cv2.rectangle(img, (int(a), int(b)), (int(p) - 1, int(q) - 1), LIT_TOP, -1)
    for side in ("top", "bottom", "left", "right"):
        if side not in lit_sides:
            (a, b), (p, q) = bands[side]
            cv2.rectangle(img, (int(a), int(b)), (int(p) - 1, int(q) - 1), SHADED_FACE, -1)
    cv2.rectangle(img, (int(x0), int(y0)), (int(x1) - 1, int(y1) - 1), CLOTH, -1)
    xm = (x0 + x1) / 2
    for px, py in ((x0, y0), (xm, y0 - 6), (x1, y0), (x0, y1), (xm, y1 + 6), (x1, y1)):
        cv2.circle(img, (int(px), int(py)), 13, (8, 8, 8), -1)
    rng = np.random.default_rng(seed)
    noisy = img.astype(np.float32) + rng.normal(0.0, 1.5, img.shape)
    return cv2.GaussianBlur(np.clip(noisy, 0, 255).astype(np.uint8), (0, 0), 0.8)


def _corner_error_px(cal: Calibration, field: tuple[float, float, float, float] = FIELD) -> float:
    x0, y0, x1, y1 = field
    truth = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    found = np.array([cal.corners_px[n] for n in CORNER_NAMES])
    # nearest true corner for each found one: the naming is not what this test is about
    return float(max(np.linalg.norm(truth - p, axis=1).min() for p in found))


POOL = TableModel(TableSpec(2540.0, 1270.0, 57.15))


@pytest.mark.parametrize("lit", [{"bottom", "right"}, {"top", "left"}, {"bottom"}])
def test_the_field_ends_at_the_nose_of_a_cushion_lit_like_the_cloth(lit: set[str]) -> None:
    img = _table_image(lit)
    cal = auto_calibrate(img, POOL)
    # The rail's edge lies a cushion width (24 px) outside the nose on the lit sides.
    assert _corner_error_px(cal) < 1.5
    assert measured_aspect(cal) == pytest.approx(2.0, rel=0.03)
    assert aspect_problem(cal) is None
    assert len(cal.quality["inner_edge_sides"]) == len(lit)


def test_no_inner_edge_where_every_cushion_face_is_in_shade() -> None:
    edges = find_table(_table_image(set()))
    assert all(s.inner is None for s in edges.sides)
    cal = auto_calibrate(_table_image(set()), POOL)
    assert _corner_error_px(cal) < 1.5
    assert cal.quality["inner_edge_sides"] == []


def test_a_table_of_another_shape_is_still_reported() -> None:
    # A 3.2:1 field told to be a 2:1 table: the noses are taken all the same, and the contradiction is said.
    field = (240.0, 235.0, 1040.0, 485.0)
    cal = auto_calibrate(_table_image({"bottom", "right"}, field=field), POOL)
    assert _corner_error_px(cal, field) < 1.5
    assert measured_aspect(cal) == pytest.approx(3.2, rel=0.03)
    assert aspect_problem(cal) is not None
